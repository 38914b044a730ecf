package org.replayfarm.model.fp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * f64 sums the vector unit's differential check (gpu-node RtFloatTest) found wrong: inf + -inf gave Java's
 * x86 NaN (sign bit set) instead of the default NaN, and -0 + -0 (also a negative denormal flushed to -0)
 * gave +0 in the directed round modes, where IEEE 754 (6.3) keeps -0 in every mode.
 */
@Tag("unit")
class FloatOpsF64SumTest {
    private static final long NEG_ZERO = 0x8000000000000000L;
    private static final long POS_INF = 0x7ff0000000000000L;
    private static final long NEG_INF = 0xfff0000000000000L;

    private static FpMode mode(int round64, int denorm64) {
        return new FpMode(FpMode.encode(0, round64, 3, denorm64, true, true));
    }

    @Test
    void inf_minus_inf_is_the_default_nan_in_every_mode() {
        for (int rm = 0; rm < 4; rm++) {
            assertEquals(0x7ff8000000000000L, FloatOps.add(Format.F64, mode(rm, 3), POS_INF, NEG_INF));
            assertEquals(0x7ff8000000000000L, FloatOps.add(Format.F64, mode(rm, 3), NEG_INF, POS_INF));
        }
    }

    @Test
    void negative_zeros_sum_to_negative_zero_in_every_mode() {
        for (int rm = 0; rm < 4; rm++) {
            assertEquals(NEG_ZERO, FloatOps.add(Format.F64, mode(rm, 3), NEG_ZERO, NEG_ZERO), "mode " + rm);
            // a negative denormal flushed on input is -0
            assertEquals(NEG_ZERO, FloatOps.add(Format.F64, mode(rm, 0), 0x800962e5079fabb9L, NEG_ZERO), "mode " + rm);
            assertEquals(0L, FloatOps.add(Format.F64, mode(rm, 3), 0L, 0L), "mode " + rm);
        }
    }
}
