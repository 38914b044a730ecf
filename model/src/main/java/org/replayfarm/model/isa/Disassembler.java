package org.replayfarm.model.isa;

/**
 * Instruction text exactly as llvm-objdump-19 prints it for gfx1030, per encoding family. The printers
 * read only the decoded fields and the table row.
 */
public final class Disassembler {
    private Disassembler() {
    }

    /**
     * The instruction's text.
     *
     * @throws IllegalArgumentException when its fields hold a value no instruction of its kind can take
     */
    public static String text(Instruction insn, Syntax syntax) {
        return switch (insn.encoding()) {
            case SOP1, SOP2, SOPK, SOPC, SOPP, SMEM -> ScalarPrinter.print(insn, syntax);
            case VOP1, VOP2, VOPC -> ValuShortPrinter.print(insn, syntax);
            case VOP3, VOP3P -> Vop3Printer.print(insn, syntax);
            case DS, MUBUF, MTBUF, FLAT, GLOBAL, SCRATCH -> MemoryPrinter.print(insn, syntax);
            case MIMG, EXP, VINTRP -> ImagePrinter.print(insn, syntax);
        };
    }
}
