package org.replayfarm.model.fp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every one of the 65,536 halves widened by {@link Half#toDouble} and {@link Half#toFloatBits} (field moves)
 * against the value by definition: (-1)^s * 2^(e-15) * 1.m, or 2^-14 * 0.m for denormals, computed with
 * {@link Math#scalb}; NaNs keep sign and payload in the float form.
 */
@Tag("unit")
class HalfTest {
    @Test
    void every_half_widens_to_its_exact_value() {
        for (int h = 0; h < 0x10000; h++) {
            int exp = h >>> 10 & 0x1F;
            int mant = h & 0x3FF;
            double magnitude = exp == 0x1F ? (mant == 0 ? Double.POSITIVE_INFINITY : Double.NaN)
                    : exp == 0 ? Math.scalb((double) mant, -24) : Math.scalb((double) (mant | 0x400), exp - 25);
            double expected = (h & 0x8000) != 0 ? -magnitude : magnitude;
            int hh = h;
            assertEquals(Double.doubleToLongBits(expected), Double.doubleToLongBits(Half.toDouble(h)),
                    () -> "half 0x" + Integer.toHexString(hh));
            int floatBits = exp == 0x1F ? (h & 0x8000) << 16 | 0x7F800000 | mant << 13
                    : Float.floatToRawIntBits((float) expected);
            assertEquals(floatBits, Half.toFloatBits(h), () -> "half 0x" + Integer.toHexString(hh));
        }
    }
}
