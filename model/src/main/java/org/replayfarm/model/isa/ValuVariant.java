package org.replayfarm.model.isa;

import java.util.List;

/** What follows a VOP1, VOP2 or VOPC word: nothing, a DPP16, a DPP8 or an SDWA dword. */
public sealed interface ValuVariant {
    int SRC_DPP8 = 0xE9;
    int SRC_DPP8_FI = 0xEA;
    int SRC_SDWA = 0xF9;
    int SRC_DPP16 = 0xFA;

    /** The plain 32-bit form. */
    record None() implements ValuVariant {
    }

    /**
     * DPP16: SRC0 [7:0] (a VGPR), DPP_CTRL [16:8], FI [18], BOUND_CTRL [19], SRC0_NEG [20], SRC0_ABS [21],
     * SRC1_NEG [22], SRC1_ABS [23], BANK_MASK [27:24], ROW_MASK [31:28].
     */
    record Dpp16(int src0, int dppCtrl, boolean fi, boolean boundCtrl, boolean src0Neg, boolean src0Abs,
                 boolean src1Neg, boolean src1Abs, int bankMask, int rowMask) implements ValuVariant {
    }

    /** DPP8: SRC0 [7:0] (a VGPR) and eight 3-bit lane selects [31:8]; FI from the SRC0 code (0xEA). */
    record Dpp8(int src0, List<Integer> selects, boolean fi) implements ValuVariant {
        public Dpp8 {
            selects = List.copyOf(selects);
        }
    }

    /**
     * SDWA: SRC0 [7:0] with S0 [23] (an SGPR when set), DST_SEL [10:8], DST_UNUSED [12:11], CLAMP [13],
     * OMOD [15:14] (or, for VOPC, SDST [14:8] with SD [15]), SRC0_SEL [18:16], SRC0_SEXT [19], SRC0_NEG [20],
     * SRC0_ABS [21], SRC1_SEL [26:24], SRC1_SEXT [27], SRC1_NEG [28], SRC1_ABS [29], S1 [31].
     */
    record Sdwa(int src0, boolean src0Sgpr, int dstSel, int dstUnused, boolean clamp, int omod, int sdst, boolean sd,
                int src0Sel, boolean src0Sext, boolean src0Neg, boolean src0Abs, int src1Sel, boolean src1Sext,
                boolean src1Neg, boolean src1Abs, boolean src1Sgpr) implements ValuVariant {
    }
}
