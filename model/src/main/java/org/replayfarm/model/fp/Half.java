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
            v = mant * 0x1p-24; // exact: a 10-bit integer times a power of two
        } else {
            v = Double.longBitsToDouble((long) (exp - 15 + 1023) << 52 | (long) mant << 42); // the fields moved over
        }
        return sign != 0 ? -v : v;
    }

    /**
     * A half's value as f32 bits, exactly (every half is a float); a NaN keeps its sign and payload (the
     * payload's top bits become the float mantissa's top bits) and is not quieted here.
     */
    public static int toFloatBits(int h) {
        int sign = (h & 0x8000) << 16;
        int exp = h >>> 10 & 0x1F;
        int mant = h & 0x3FF;
        if (exp == 0x1F) {
            return sign | 0x7F800000 | mant << 13;
        }
        if (exp == 0) {
            return sign | Float.floatToRawIntBits(mant * 0x1p-24f); // exact, a normal float (or zero)
        }
        return sign | (exp - 15 + 127) << 23 | mant << 13;
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
