package org.replayfarm.model.isa;

/**
 * The gfx1030 instruction encodings, each with the length of its base form in bytes and the table
 * ({@code isa/<name>.tsv}) that lists its instructions. DPP16, DPP8 and SDWA are variants of VOP1, VOP2
 * and VOPC (an extra dword named by the src0 field); GLOBAL and SCRATCH share the FLAT layout.
 */
public enum Encoding {
    SOP1(4), SOP2(4), SOPK(4), SOPC(4), SOPP(4), SMEM(8),
    VOP1(4), VOP2(4), VOPC(4), VOP3(8), VOP3P(8),
    DS(8), MUBUF(8), MTBUF(8), MIMG(8), FLAT(8), GLOBAL(8), SCRATCH(8), EXP(8), VINTRP(4);

    private final int baseBytes;

    Encoding(int baseBytes) {
        this.baseBytes = baseBytes;
    }

    public int baseBytes() {
        return baseBytes;
    }

    /** The largest opcode number the encoding's opcode field can hold. */
    public int maxOpcode() {
        return switch (this) {
            case SOP1, SMEM, DS, VOPC, VOP1, MUBUF, MIMG -> 255;
            case SOP2, VOP3P, FLAT, GLOBAL, SCRATCH -> 127;
            case SOPK -> 31;
            case SOPC, SOPP -> 127;
            case VOP2 -> 63;
            case VOP3 -> 1023;
            case MTBUF -> 15;
            case EXP -> 0;
            case VINTRP -> 3;
        };
    }
}
