package org.replayfarm.evalnode.hostmodel;

import org.replayfarm.evalnode.hostmodel.valu.ValuFloat;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatConvert;
import org.replayfarm.evalnode.hostmodel.valu.ValuIntegerUnit;
import org.replayfarm.model.fp.Format;

/**
 * The pure per-lane function of a vector ALU instruction, registered by its unit beside the handler that
 * uses the same function (so both tiers compute each lane with one piece of code). The reference tier's
 * handler reads operands through {@link Valu} lane by lane; the fast tier ({@link FastTier}) resolves the
 * operands once per decoded instruction and runs the function over the lanes.
 */
public sealed interface LaneKernel {
    /** One 32-bit integer source. */
    record Int1(java.util.function.IntUnaryOperator op) implements LaneKernel {
    }

    /**
     * Two 32-bit integer sources. {@code clampSensitive}: the handler saturates under CLAMP, so the fast
     * tier only takes the instruction when its CLAMP bit is clear.
     */
    record Int2(ValuIntegerUnit.Op2 op, boolean clampSensitive) implements LaneKernel {
    }

    /** Three 32-bit integer sources. */
    record Int3(ValuIntegerUnit.Op3 op) implements LaneKernel {
    }

    /** One float source of format f; the result goes through OMOD and CLAMP. */
    record Float1(Format f, ValuFloat.Op1 op) implements LaneKernel {
    }

    record Float2(Format f, ValuFloat.Op2 op) implements LaneKernel {
    }

    /** An integer source (its 32 bits, no float modifiers) converted to a float of format f, then OMOD and CLAMP. */
    record IntToFloat(Format f, ValuFloatConvert.IntSource op) implements LaneKernel {
    }

    record Float3(Format f, ValuFloat.Op3 op) implements LaneKernel {
    }

    /** D = op(S0, S1, D) of format f (v_fmac_*); {@code fused}: op is the IEEE fused multiply-add (not legacy). */
    record Accumulate(Format f, ValuFloat.Op3 op, boolean fused) implements LaneKernel {
    }

    /** D = S0 * 2^S1 (v_ldexp_*), S1 a signed integer, one rounding, then OMOD and CLAMP. */
    record Ldexp(Format f) implements LaneKernel {
    }

    /** D = the exponent of S0 as an integer (v_frexp_exp_*): 0 for zero, infinity and NaN. */
    record FrexpExp(Format f) implements LaneKernel {
    }

    /** v_cndmask_b32: D = mask[lane] ? S1 : S0, the mask VCC (VOP2) or src2 (VOP3); float ABS/NEG on the bits. */
    record Select() implements LaneKernel {
    }

    /** v_add/sub/subrev_co[_ci]_u32: a 32-bit add or subtract with a carry-out mask (and a carry-in with _ci). */
    record Carry(boolean subtract, boolean reverse, boolean carryIn) implements LaneKernel {
    }

    /** v_mad_u64_u32: {carry, D} = S0.u32 * S1.u32 + S2.u64. */
    record MadU64() implements LaneKernel {
    }

    /**
     * v_div_scale_*: D and a flag per lane into the SGPR mask ({@code ValuFloatDivide.scaleLane}); the
     * thresholds and the scale of format f.
     */
    record DivScale(Format f, int nearMax, int by, int tiny) implements LaneKernel {
    }

    /** v_div_fmas_*: fma(S0, S1, S2), scaled by 2^+-by in a lane whose VCC bit is set ({@code ValuFloatDivide.fmasLane}). */
    record DivFmas(Format f, int by) implements LaneKernel {
    }
}
