package org.replayfarm.model.isa;

/** Prints VOP3P instructions (v_pk_*, v_fma_mix*, v_dot*) as llvm-objdump-19 does for gfx1030. */
final class Vop3pPrinter {
    private Vop3pPrinter() {
    }

    static String print(Instruction insn, Fields.Vop3p f) {
        throw new IllegalArgumentException("VOP3P printing is not done yet: " + insn.opcode());
    }
}
