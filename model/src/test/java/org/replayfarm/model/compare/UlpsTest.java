package org.replayfarm.model.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Ulp distances measured against the JDK's own stepping through representable values (Math.nextUp). */
@Tag("unit")
class UlpsTest {
    private static long f(float x) {
        return Float.floatToRawIntBits(x) & 0xFFFF_FFFFL;
    }

    private static long d(double x) {
        return Double.doubleToRawLongBits(x);
    }

    @Test
    void steps_of_math_next_up_are_one_ulp_each_across_zero_and_binades() {
        SplittableRandom r = new SplittableRandom(38);
        for (int i = 0; i < 2000; i++) {
            float x = Float.intBitsToFloat(r.nextInt());
            if (Float.isNaN(x) || Float.isInfinite(x)) {
                continue;
            }
            int steps = 1 + r.nextInt(40);
            float y = x;
            for (int s = 0; s < steps && !Float.isInfinite(Math.nextUp(y)); s++) {
                y = Math.nextUp(y);
            }
            long expected = 0;
            for (float z = x; z != y; z = Math.nextUp(z)) {
                expected += z == 0f && Float.floatToRawIntBits(z) != 0 ? 0 : 1; // -0 steps to the smallest denormal
            }
            assertEquals(expected, Ulps.between(32, f(x), f(y)), x + " .. " + y);
            assertEquals(expected, Ulps.f32(Float.floatToRawIntBits(y), Float.floatToRawIntBits(x)));
        }
        double a = -Double.MIN_VALUE;
        double b = Math.nextUp(Math.nextUp(a)); // -min, (-0 or +0), +min: the zeros are one value
        assertEquals(1, Ulps.between(64, d(a), d(0.0)));
        assertEquals(2, Ulps.between(64, d(a), d(b)));
        assertEquals(1, Ulps.between(64, d(1.0), d(Math.nextUp(1.0))));
    }

    @Test
    void zeros_are_equal_and_infinities_and_nans_are_unbounded_but_against_themselves() {
        assertEquals(0, Ulps.between(32, f(0f), f(-0f)));
        assertEquals(0, Ulps.between(16, 0x0000, 0x8000));
        assertEquals(2, Ulps.between(16, 0x8001, 0x0001));
        assertEquals(Ulps.UNBOUNDED, Ulps.between(32, f(Float.MAX_VALUE), f(Float.POSITIVE_INFINITY)));
        assertEquals(1, Ulps.distance(32, f(Float.MAX_VALUE), f(Float.POSITIVE_INFINITY)));
        assertEquals(0, Ulps.between(32, f(Float.NaN), f(Float.NaN)));
        assertEquals(Ulps.UNBOUNDED, Ulps.between(32, 0x7fc00000L, 0xffc00000L));
        assertEquals(Ulps.UNBOUNDED, Ulps.between(64, d(Double.NaN), d(1.0)));
        assertEquals(Ulps.UNBOUNDED, Ulps.between(64, d(-Double.MAX_VALUE), d(Double.MAX_VALUE)));
        assertEquals(0, Ulps.f32NaNsAgree(0x7fc00000, 0xffc00000));
        assertEquals(Ulps.UNBOUNDED, Ulps.f32NaNsAgree(0x7fc00000, 0x3f800000));
        assertEquals(2, Ulps.f32NaNsAgree(Float.floatToRawIntBits(-Float.MIN_VALUE), Float.floatToRawIntBits(Float.MIN_VALUE)));
        assertTrue(Ulps.nan(11, 0x7C1));
        assertFalse(Ulps.nan(11, 0x7C0));
        assertTrue(Ulps.special(10, 0x3E0));
        assertEquals(3, Ulps.between(11, 0x3C0, 0x3C3)); // unsigned small floats: the bits are the order
    }

    @Test
    void a_width_no_float_has_is_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ulps.between(24, 1, 2));
        assertTrue(e.getMessage().contains("24"), e.getMessage());
    }
}
