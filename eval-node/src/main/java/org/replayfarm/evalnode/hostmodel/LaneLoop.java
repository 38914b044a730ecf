package org.replayfarm.evalnode.hostmodel;

/**
 * The vector ALU operations with a lane loop of their own in the fast tier ({@link FastLanes}): one plain
 * counted loop per operation, which the JIT inlines and may vectorise, instead of a call of the lane kernel
 * per lane. Each names the row it is the loop of; the semantics table attaches it to that row when the
 * row's lane kernel is registered (a join by name, once, like every registration) and refuses a loop whose
 * row has no lane kernel of its shape. The f32 loops run only under round-to-nearest-even, without OMOD or
 * CLAMP, and hand any lane with a denormal, infinity or NaN to the lane kernel.
 */
public enum LaneLoop {
    // one 32-bit source
    MOV(1, "v_mov_b32"), NOT(1, "v_not_b32"),
    // two 32-bit sources
    AND(2, "v_and_b32"), OR(2, "v_or_b32"), XOR(2, "v_xor_b32"), XNOR(2, "v_xnor_b32"),
    LSHLREV(2, "v_lshlrev_b32"), LSHRREV(2, "v_lshrrev_b32"), ASHRREV(2, "v_ashrrev_i32"),
    MIN_I32(2, "v_min_i32"), MAX_I32(2, "v_max_i32"), MIN_U32(2, "v_min_u32"), MAX_U32(2, "v_max_u32"),
    MUL_LO(2, "v_mul_lo_u32"), ADD(2, "v_add_nc_u32"), SUB(2, "v_sub_nc_u32"), SUBREV(2, "v_subrev_nc_u32"),
    MUL_HI_U32(2, "v_mul_hi_u32"), BCNT(2, "v_bcnt_u32_b32"),
    // three 32-bit sources
    XAD(3, "v_xad_u32"), LSHL_ADD(3, "v_lshl_add_u32"), AND_OR(3, "v_and_or_b32"), LSHL_OR(3, "v_lshl_or_b32"),
    ADD3(3, "v_add3_u32"), XOR3(3, "v_xor3_b32"), OR3(3, "v_or3_b32"), ADD_LSHL(3, "v_add_lshl_u32"),
    BFE_U32(3, "v_bfe_u32"), BFI(3, "v_bfi_b32"),
    // f32 (round to nearest even; special lanes through the lane kernel)
    F_ADD(0, "v_add_f32"), F_SUB(0, "v_sub_f32"), F_SUBREV(0, "v_subrev_f32"), F_MUL(0, "v_mul_f32"),
    F_FMA(0, "v_fma_f32"),
    // f32, one source, normal values computed inline in any MODE (they are never flushed and give normal
    // results; the round mode does not apply to these rows), every other lane through the lane kernel:
    // frexp_mant a field move; rcp, sqrt, rsq the double result rounded once to f32, as ValuFloatTranscendental
    F_FREXP_MANT(-1, "v_frexp_mant_f32"), F_RCP(-1, "v_rcp_f32"), F_SQRT(-1, "v_sqrt_f32"), F_RSQ(-1, "v_rsq_f32");

    /** Integer sources (1..3), 0 for a two- or three-source f32 loop, -1 for a one-source f32 loop. */
    final int sources;
    /** The row whose lane kernel this loop restates. */
    final String mnemonic;

    LaneLoop(int sources, String mnemonic) {
        this.sources = sources;
        this.mnemonic = mnemonic;
    }

    /** The mnemonic of the row this loop belongs to. */
    public String rowName() {
        return mnemonic;
    }

    /** Whether a lane kernel has the shape this loop computes. */
    public boolean fits(LaneKernel k) {
        return switch (sources) {
            case 1 -> k instanceof LaneKernel.Int1;
            case 2 -> k instanceof LaneKernel.Int2;
            case 3 -> k instanceof LaneKernel.Int3;
            case -1 -> k instanceof LaneKernel.Float1 f1 && f1.f() == org.replayfarm.model.fp.Format.F32;
            default -> k instanceof LaneKernel.Float2 f2 && f2.f() == org.replayfarm.model.fp.Format.F32
                    || k instanceof LaneKernel.Float3 f3 && f3.f() == org.replayfarm.model.fp.Format.F32;
        };
    }
}
