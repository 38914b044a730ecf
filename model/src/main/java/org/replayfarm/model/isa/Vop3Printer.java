package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Prints VOP3 and VOP3P instructions as llvm-objdump-19 does for gfx1030. What each instruction
 * prints (operands, their types and input modifiers, clamp/omod/op_sel, the {@code _e64} suffix) comes
 * from its table row; see the headers of {@code VOP3.tsv} and {@code VOP3P.tsv}.
 */
public final class Vop3Printer {
    private static final String[] OMOD = {"", "mul:2", "mul:4", "div:2"};
    private static final String CHANNELS = "xyzw";

    private Vop3Printer() {
    }

    public static String print(Instruction insn, Syntax syntax) {
        if (insn.fields() instanceof Fields.Vop3 f) {
            return vop3(insn, f, syntax);
        } else if (insn.fields() instanceof Fields.Vop3p f) {
            return Vop3pPrinter.print(insn, f);
        }
        throw new IllegalArgumentException("not a VOP3 or VOP3P instruction: " + insn.opcode());
    }

    private static String vop3(Instruction insn, Fields.Vop3 f, Syntax syntax) {
        Opcode op = insn.opcode();
        boolean sdstForm = op.operandType("sdst") != null;
        int abs = sdstForm ? 0 : f.abs();
        int[] src = {f.src0(), f.src1(), f.src2()};
        OptionalInt literal = insn.literal();
        List<ValuOperands.Operand> operands = ValuOperands.operands(op);
        List<String> parts = new ArrayList<>();
        for (ValuOperands.Operand o : operands) {
            String text;
            switch (o.name()) {
                case "vdst" -> text = switch (o.type()) {
                    case "mask" -> ValuOperands.laneMask(f.vdst(), syntax, true);
                    case "sreg" -> ValuOperands.scalarDestination(f.vdst());
                    default -> ValuOperands.vgprDestination(f.vdst(), o.type());
                };
                case "sdst" -> text = ValuOperands.laneMask(f.sdst(), syntax, true);
                case "attr" -> {
                    int a = src[0];
                    text = "attr" + (a & 0x3F) + "." + CHANNELS.charAt((a >>> 6) & 3);
                }
                case "param" -> text = switch (src[1]) {
                    case 0 -> "p10";
                    case 1 -> "p20";
                    case 2 -> "p0";
                    default -> throw new IllegalArgumentException("interpolation parameter " + src[1] + " is invalid");
                };
                default -> {
                    int i = o.sourceField();
                    if (i < 0) {
                        throw new IllegalStateException("unknown VOP3 operand " + o.name() + " in " + op);
                    }
                    String type = o.name().startsWith("vsrc") ? "vgpr" : o.type();
                    String v = ValuOperands.isSpecialSource(src[i]) ? Operands.scalarRegister(src[i], 1)
                            : o.type().equals("mask") ? ValuOperands.laneMask(src[i], syntax, false)
                            : ValuOperands.source(src[i], type, literal);
                    text = ValuOperands.modified(v, o, bit(f.neg(), i), bit(abs, i), ValuOperands.isConstant(src[i]));
                }
            }
            parts.add(text);
        }
        StringBuilder b = new StringBuilder(op.mnemonic());
        if (op.has(OpcodeFlag.E64)) {
            b.append("_e64");
        }
        for (int i = 0; i < parts.size(); i++) {
            b.append(i == 0 ? " " : ", ").append(parts.get(i));
        }
        if (op.has(OpcodeFlag.HIGH) && bit(src[0], 8)) {
            b.append(" high");
        }
        if (op.has(OpcodeFlag.OPSEL) && f.opsel() != 0) {
            int n = op.sourceCount();
            int[] bits = new int[n + 1];
            for (int i = 0; i < n; i++) {
                bits[i] = bit(f.opsel(), i) ? 1 : 0;
            }
            bits[n] = bit(f.opsel(), 3) ? 1 : 0;
            b.append(' ').append(ValuOperands.bitList("op_sel", bits));
        }
        if (op.has(OpcodeFlag.OPSEL_FI_BC) && (f.opsel() & 3) != 0) {
            b.append(' ').append(ValuOperands.bitList("op_sel", f.opsel() & 1, (f.opsel() >>> 1) & 1));
        }
        if (op.has(OpcodeFlag.CLAMP) && f.clamp()) {
            b.append(" clamp");
        }
        if (op.has(OpcodeFlag.OMOD) && f.omod() != 0) {
            b.append(' ').append(OMOD[f.omod()]);
        }
        return b.toString();
    }

    static boolean bit(int value, int n) {
        return ((value >>> n) & 1) != 0;
    }
}
