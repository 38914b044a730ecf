package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints VOP3P instructions (v_pk_*, v_dot*, v_fma_mix*) as llvm-objdump-19 does for gfx1030; the
 * row's flags say how OP_SEL, OP_SEL_HI, NEG_LO and NEG_HI print (see the header of {@code VOP3P.tsv}).
 */
final class Vop3pPrinter {
    private Vop3pPrinter() {
    }

    static String print(Instruction insn, Fields.Vop3p f) {
        Opcode op = insn.opcode();
        int[] src = {f.src0(), f.src1(), f.src2()};
        List<String> parts = new ArrayList<>();
        int n = 0;
        for (ValuOperands.Operand o : ValuOperands.operands(op)) {
            if (o.name().equals("vdst")) {
                parts.add(ValuOperands.vgprDestination(f.vdst(), o.type()));
                continue;
            }
            int i = o.sourceField();
            if (i < 0) {
                throw new IllegalStateException("unknown VOP3P operand " + o.name() + " in " + op);
            }
            n = Math.max(n, i + 1);
            String v = ValuOperands.isSpecialSource(src[i]) ? Operands.scalarRegister(src[i], 1)
                    : ValuOperands.source(src[i], o.type(), insn.literal());
            parts.add(ValuOperands.modified(v, o, Vop3Printer.bit(f.negLo(), i), Vop3Printer.bit(f.negHi(), i),
                    ValuOperands.isConstant(src[i])));
        }
        StringBuilder b = new StringBuilder(op.mnemonic());
        for (int i = 0; i < parts.size(); i++) {
            b.append(i == 0 ? " " : ", ").append(parts.get(i));
        }
        int all = (1 << n) - 1;
        int opsel = f.opsel() & all;
        int opselHi = f.opselHi() & all;
        if (op.has(OpcodeFlag.PACKED)) {
            list(b, "op_sel", opsel, n, opsel != 0);
            list(b, "op_sel_hi", opselHi, n, opselHi != all);
            list(b, "neg_lo", f.negLo() & all, n, (f.negLo() & all) != 0);
            list(b, "neg_hi", f.negHi() & all, n, (f.negHi() & all) != 0);
        } else if (op.has(OpcodeFlag.MIX)) {
            list(b, "op_sel", opsel, n, opsel != 0);
            list(b, "op_sel_hi", opselHi, n, opselHi != 0);
        }
        if (op.has(OpcodeFlag.CLAMP) && f.clamp()) {
            b.append(" clamp");
        }
        return b.toString();
    }

    private static void list(StringBuilder b, String name, int bits, int n, boolean print) {
        if (!print) {
            return;
        }
        int[] v = new int[n];
        for (int i = 0; i < n; i++) {
            v[i] = (bits >>> i) & 1;
        }
        b.append(' ').append(ValuOperands.bitList(name, v));
    }
}
