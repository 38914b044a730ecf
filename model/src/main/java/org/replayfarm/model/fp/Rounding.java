package org.replayfarm.model.fp;

import java.math.BigDecimal;

/**
 * Rounding of exact values to a format under the four RDNA 2 round modes (MODE.FP_ROUND codes).
 *
 * <p>Values come in as a {@code double} that is either exact or "rounded to odd" at double precision
 * (see {@link Exact}): rounding such a value once more to f32 or f16 (at least two bits narrower) gives
 * the correctly rounded result of the exact value, so every f32 and f16 operation is rounded once. f64
 * results that are not exact in double are rounded from a {@link BigDecimal}.
 */
public final class Rounding {
    public static final int NEAREST_EVEN = 0;
    public static final int PLUS_INFINITY = 1;
    public static final int MINUS_INFINITY = 2;
    public static final int TOWARD_ZERO = 3;

    private Rounding() {
    }

    /**
     * Rounds {@code v} (exact, or rounded to odd at double precision) to {@code format} under
     * {@code mode}; returns the format's bit pattern. Overflow gives infinity or the largest finite value
     * as the mode says; underflow gives denormals (flushing is the caller's business). NaN gives the
     * default NaN.
     */
    public static long round(double v, Format format, int mode) {
        if (Double.isNaN(v)) {
            return format.defaultNaN();
        }
        if (format == Format.F32 && (mode & 3) == NEAREST_EVEN) {
            // Java's double-to-float conversion is IEEE 754's, rounding to nearest even with gradual underflow
            // and overflow to infinity: the same as the steps below for this mode (RoundingTest compares them)
            return Integer.toUnsignedLong(Float.floatToRawIntBits((float) v));
        }
        return stepwise(v, format, mode);
    }

    /** {@link #round} by its definition: the quantum at v's exponent, the fraction and the mode's decision. */
    static long stepwise(double v, Format format, int mode) {
        if (Double.isNaN(v)) {
            return format.defaultNaN();
        }
        if (format == Format.F64 || Double.isInfinite(v) || v == 0) {
            return format.fromExactDouble(v);
        }
        boolean negative = v < 0;
        double a = Math.abs(v);
        int e = Math.max(Math.getExponent(a), format.minExponent);
        if (e > format.maxExponent) {
            return overflow(format, negative, mode);
        }
        int quantumExp = e - format.mantissaBits;
        double q = Math.scalb(a, -quantumExp); // < 2^(mantissaBits+1), exact
        double n = Math.floor(q);
        double frac = q - n;
        if (frac != 0 && roundsAway(mode, negative, frac, n)) {
            n += 1;
        }
        double r = Math.scalb(n, quantumExp);
        if (Math.getExponent(r) > format.maxExponent) {
            return overflow(format, negative, mode);
        }
        return format.fromExactDouble(negative ? -r : r);
    }

    /** Whether an inexact magnitude with fraction {@code frac} of a unit rounds up under the mode. */
    private static boolean roundsAway(int mode, boolean negative, double frac, double n) {
        switch (mode & 3) {
            case NEAREST_EVEN:
                return frac > 0.5 || frac == 0.5 && Math.floor(n / 2) * 2 != n;
            case PLUS_INFINITY:
                return !negative;
            case MINUS_INFINITY:
                return negative;
            default:
                return false;
        }
    }

    /** The result of an overflow: infinity, or the largest finite value when the mode rounds toward it. */
    public static long overflow(Format format, boolean negative, int mode) {
        boolean toInfinity = switch (mode & 3) {
            case NEAREST_EVEN -> true;
            case PLUS_INFINITY -> !negative;
            case MINUS_INFINITY -> negative;
            default -> false;
        };
        long magnitude = toInfinity ? format.positiveInfinity() : format.maxFinite();
        return negative ? magnitude | format.signBit() : magnitude;
    }

    /** Rounds an exact value to f64 under a mode (zero comes back +0). */
    public static double toDouble(BigDecimal x, int mode) {
        double d = x.doubleValue();
        if (Double.isInfinite(d)) {
            long bits = overflow(Format.F64, d < 0, mode);
            return Double.longBitsToDouble(bits);
        }
        int cmp = new BigDecimal(d).compareTo(x);
        if (cmp == 0) {
            return d;
        }
        switch (mode & 3) {
            case PLUS_INFINITY:
                return cmp < 0 ? Math.nextUp(d) : d;
            case MINUS_INFINITY:
                return cmp > 0 ? Math.nextDown(d) : d;
            case TOWARD_ZERO:
                if (x.signum() > 0) {
                    return cmp > 0 ? Math.nextDown(d) : d;
                }
                return cmp < 0 ? Math.nextUp(d) : d;
            default:
                return d;
        }
    }

    /**
     * An exact value rounded to odd at double precision: exact when representable, otherwise the double
     * below it in magnitude with its last mantissa bit forced to one. Good for one further rounding to
     * f32 or f16.
     */
    public static double toOddDouble(BigDecimal x) {
        double d = x.doubleValue();
        if (Double.isInfinite(d)) {
            return d;
        }
        int cmp = new BigDecimal(d).compareTo(x);
        if (cmp == 0) {
            return d;
        }
        // truncate toward zero, then force the last bit on
        if (x.signum() > 0 && cmp > 0 || x.signum() < 0 && cmp < 0) {
            d = d > 0 ? Math.nextDown(d) : Math.nextUp(d);
        }
        return Double.longBitsToDouble(Double.doubleToRawLongBits(d) | 1);
    }
}
