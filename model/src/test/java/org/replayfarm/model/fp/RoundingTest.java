package org.replayfarm.model.fp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link Rounding#round}'s shortcut for f32 and round-to-nearest-even (Java's double-to-float conversion)
 * against the rounding by definition ({@link Rounding#stepwise}), on doubles around every f32 boundary: ties
 * and near-ties at normal and denormal quanta, the overflow threshold, the smallest denormal, zeros, and
 * random doubles of every exponent.
 */
@Tag("unit")
class RoundingTest {
    @Test
    void f32_nearest_even_shortcut_equals_the_stepwise_rounding() {
        Random r = new Random(0x20F32L);
        int checked = 0;
        double[] fixed = {0.0, -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, 0x1p-149, 0x1p-150, 0x1.8p-150, 0x1p-151,
                0x1.fffffep127, 0x1.ffffffp127, 0x1.fffffefffffffp127, 0x1p128, -0x1p128, 0x1p-126, 0x1.fffffcp-127,
                0x1.fffffep-127, 0x1.ffffffp-127, Double.MAX_VALUE, -Double.MAX_VALUE, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY, 1.0, 1.0 + 0x1p-24, 1.0 + 0x1p-23 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-52};
        for (double v : fixed) {
            check(v);
            checked++;
        }
        for (int i = 0; i < 200_000; i++) {
            double v;
            switch (i % 4) {
                case 0 -> v = Double.longBitsToDouble(r.nextLong()); // any double, any exponent
                case 1 -> {
                    // an f32 value (normal or denormal) plus a half quantum, exactly or just off it
                    float f = Float.intBitsToFloat(r.nextInt() & 0x7FFF_FFFF);
                    if (Float.isNaN(f) || Float.isInfinite(f)) {
                        continue;
                    }
                    double ulp = Math.ulp(f);
                    v = (double) f + ulp / 2 + (r.nextInt(3) - 1) * Math.ulp(ulp / 2);
                }
                case 2 -> v = Math.scalb(r.nextDouble(), -160 + r.nextInt(300)) * (r.nextBoolean() ? 1 : -1);
                default -> v = (double) Float.intBitsToFloat(r.nextInt()) * (1 + r.nextGaussian() * 0x1p-25);
            }
            check(v);
            checked++;
        }
        assertEquals(true, checked > 150_000);
    }

    private static void check(double v) {
        assertEquals(Rounding.stepwise(v, Format.F32, Rounding.NEAREST_EVEN), Rounding.round(v, Format.F32, Rounding.NEAREST_EVEN),
                () -> "rounding " + v + " (" + Double.toHexString(v) + ")");
    }
}
