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
}
