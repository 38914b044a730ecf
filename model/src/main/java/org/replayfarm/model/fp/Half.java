package org.replayfarm.model.fp;

/** IEEE binary16 ("half") conversions. Bit patterns are ints holding the half in bits [15:0]. */
public final class Half {
    private Half() {
    }

    /** The exact value of a half (NaN payload not kept). */
    public static double toDouble(int h) {
        int sign = h >>> 15 & 1;
        int exp = h >>> 10 & 0x1F;
        int mant = h & 0x3FF;
        double v;
        if (exp == 0x1F) {
            v = mant == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        } else if (exp == 0) {
            v = Math.scalb((double) mant, -24);
        } else {
            v = Math.scalb((double) (mant | 0x400), exp - 25);
        }
        return sign != 0 ? -v : v;
    }

    /**
     * A half's value as f32 bits, exactly (every half is a float); a NaN keeps its sign and payload (the
     * payload's top bits become the float mantissa's top bits) and is not quieted here.
     */
    public static int toFloatBits(int h) {
        int sign = (h & 0x8000) << 16;
        if ((h & 0x7C00) == 0x7C00) {
            return sign | 0x7F800000 | (h & 0x3FF) << 13;
        }
        return sign | Float.floatToRawIntBits((float) Math.abs(toDouble(h)));
    }

    /** Encodes a value a half represents exactly (or an infinity / signed zero). */
    static long encodeExact(double v) {
        long sign = Double.doubleToRawLongBits(v) < 0 ? 0x8000 : 0;
        double a = Math.abs(v);
        if (Double.isInfinite(a)) {
            return sign | 0x7C00;
        }
        if (a < 0x1p-14) {
            return sign | (long) Math.scalb(a, 24);
        }
        int e = Math.getExponent(a);
        long mant = Double.doubleToRawLongBits(a) >>> 42 & 0x3FF;
        return sign | (long) (e + 15) << 10 | mant;
    }

    /**
     * A float's value rounded to half under a round mode ({@link Rounding}); a NaN stays NaN with its
     * sign, quiet bit set and the payload's top bits kept.
     */
    public static int fromFloatBits(int f, int roundMode) {
        if ((f & 0x7F800000) == 0x7F800000 && (f & 0x7FFFFF) != 0) {
            return (f >>> 16 & 0x8000) | 0x7E00 | (f >>> 13 & 0x3FF);
        }
        return (int) Rounding.round(Float.intBitsToFloat(f), Format.F16, roundMode);
    }
}
