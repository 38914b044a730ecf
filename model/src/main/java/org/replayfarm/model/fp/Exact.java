package org.replayfarm.model.fp;

import java.math.BigDecimal;

/**
 * Exact (or round-to-odd) arithmetic on values of the three formats, the input of {@link Rounding}. A
 * product of two f32 or f16 values is exact in double; sums use the TwoSum error term to round to odd.
 */
public final class Exact {
    private Exact() {
    }

    /**
     * {@code a + b} rounded to odd at double precision (exact when representable): one further rounding
     * to f32/f16 is then correct. Infinities and NaN pass through as double arithmetic gives them.
     */
    public static double oddSum(double a, double b) {
        double s = a + b;
        if (Double.isInfinite(s) || Double.isNaN(s)) {
            if (!Double.isInfinite(a) && !Double.isInfinite(b) && !Double.isNaN(a) && !Double.isNaN(b)) {
                // overflow of two finite values: exact path
                return Rounding.toOddDouble(new BigDecimal(a).add(new BigDecimal(b)));
            }
            return s;
        }
        double bb = s - a;
        double err = (a - (s - bb)) + (b - bb);
        if (err == 0) {
            return s;
        }
        long bits = Double.doubleToRawLongBits(s);
        if ((s > 0) != (err > 0)) {
            bits -= 1; // the exact value is below |s| in magnitude: truncate
        }
        return Double.longBitsToDouble(bits | 1);
    }

    /** {@code a * b + c} rounded to odd, for a and b whose product is exact in double (f32, f16). */
    public static double oddFma(double a, double b, double c) {
        double p = a * b;
        if (Double.isInfinite(p) || Double.isNaN(p) || Double.isInfinite(c) || Double.isNaN(c)) {
            return p + c;
        }
        return oddSum(p, c);
    }

    /** The exact value of a finite double. */
    public static BigDecimal big(double v) {
        return new BigDecimal(v);
    }
}
