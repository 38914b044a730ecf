package org.replayfarm.model.isa;

/**
 * Whether a VOP1, VOP2 or VOPC word is followed by a DPP16, DPP8 or SDWA dword, as llvm-objdump-19 decides
 * it. The src0 code names the variant (0xFA, 0xE9/0xEA, 0xF9); the row's {@code dpp}/{@code sdwa} flags say
 * whether the instruction has that form. An instruction without operands (v_nop) takes the extra dword only
 * when the fields of the operands it lacks are zero; otherwise, like v_pipeflush, it is the plain 4-byte form
 * whatever src0 holds.
 */
final class ValuShortVariants {
    /** SDWA bits a v_nop may have set: DST_SEL, DST_UNUSED and the two unused bits 22 and 30. */
    private static final int NOP_SDWA_FREE = 0x1F00 | 1 << 22 | 1 << 30;

    private ValuShortVariants() {
    }

    /** True when the instruction takes the dword after it as its DPP or SDWA word; {@code next} is null when none is left. */
    static boolean takesWord(Opcode op, int src0, Integer next) {
        boolean dpp16 = src0 == ValuVariant.SRC_DPP16;
        boolean dpp8 = src0 == ValuVariant.SRC_DPP8 || src0 == ValuVariant.SRC_DPP8_FI;
        boolean sdwa = src0 == ValuVariant.SRC_SDWA;
        boolean supported = (dpp16 || dpp8) && op.has(OpcodeFlag.DPP) || sdwa && op.has(OpcodeFlag.SDWA);
        if (!supported) {
            return false;
        }
        if (!op.operands().isEmpty()) {
            return true;
        }
        if (next == null) {
            return false;
        }
        int x = next;
        if (dpp16) {
            return (x & 0xFF) == 0 && (x & 0xF0_0000) == 0;
        }
        if (dpp8) {
            return (x & 0xFF) == 0;
        }
        return (x & ~NOP_SDWA_FREE) == 0;
    }
}
