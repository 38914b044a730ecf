package org.replayfarm.model.fp;

/**
 * An IEEE 754 binary format as the GPU stores it. Values travel as raw bit patterns in a {@code long}
 * (f16 in bits [15:0], f32 in [31:0]); {@link #toDouble} is exact for all three formats.
 */
public enum Format {
    F16(16, 10, -14, 15),
    F32(32, 23, -126, 127),
    F64(64, 52, -1022, 1023);

    /** Total width in bits. */
    public final int width;
    /** Stored mantissa bits. */
    public final int mantissaBits;
    /** Smallest normal exponent (unbiased). */
    public final int minExponent;
    /** Largest finite exponent (unbiased). */
    public final int maxExponent;

    Format(int width, int mantissaBits, int minExponent, int maxExponent) {
        this.width = width;
        this.mantissaBits = mantissaBits;
        this.minExponent = minExponent;
        this.maxExponent = maxExponent;
    }

    public int exponentBits() {
        return width - 1 - mantissaBits;
    }

    public int bias() {
        return maxExponent;
    }

    public long signBit() {
        return 1L << (width - 1);
    }

    public long mask() {
        return width == 64 ? -1L : (1L << width) - 1;
    }

    public long mantissaMask() {
        return (1L << mantissaBits) - 1;
    }

    public long exponentMask() {
        return ((1L << exponentBits()) - 1) << mantissaBits;
    }

    /** The quiet bit: the mantissa's top bit. */
    public long quietBit() {
        return 1L << (mantissaBits - 1);
    }

    public long positiveInfinity() {
        return exponentMask();
    }

    /** The default (canonical) quiet NaN the hardware produces for invalid operations: positive, quiet bit only. */
    public long defaultNaN() {
        return exponentMask() | quietBit();
    }

    public long maxFinite() {
        return exponentMask() - (1L << mantissaBits) | mantissaMask();
    }

    public long one() {
        return (long) bias() << mantissaBits;
    }

    public boolean isNaN(long bits) {
        return (bits & exponentMask()) == exponentMask() && (bits & mantissaMask()) != 0;
    }

    /** A NaN whose quiet bit is clear. */
    public boolean isSignalling(long bits) {
        return isNaN(bits) && (bits & quietBit()) == 0;
    }

    public boolean isInfinite(long bits) {
        return (bits & ~signBit() & mask()) == exponentMask();
    }

    public boolean isZero(long bits) {
        return (bits & ~signBit() & mask()) == 0;
    }

    /** Nonzero with a zero exponent field. */
    public boolean isDenormal(long bits) {
        return (bits & exponentMask()) == 0 && (bits & mantissaMask()) != 0;
    }

    public boolean isNegative(long bits) {
        return (bits & signBit()) != 0;
    }

    /** The biased exponent field. */
    public int exponentField(long bits) {
        return (int) ((bits & exponentMask()) >>> mantissaBits);
    }

    /** A NaN with its quiet bit set (payload and sign kept); any other value unchanged. */
    public long quiet(long bits) {
        return isNaN(bits) ? bits | quietBit() : bits;
    }

    /** A denormal replaced by a zero of its sign; any other value unchanged. */
    public long flush(long bits) {
        return isDenormal(bits) ? bits & signBit() : bits;
    }

    public long negate(long bits) {
        return (bits ^ signBit()) & mask();
    }

    public long abs(long bits) {
        return bits & ~signBit() & mask();
    }

    /** The exact value of a bit pattern (NaNs come back as a NaN, payload not kept). */
    public double toDouble(long bits) {
        switch (this) {
            case F64:
                return Double.longBitsToDouble(bits);
            case F32:
                return Float.intBitsToFloat((int) bits);
            default:
                return Half.toDouble((int) bits);
        }
    }

    /**
     * The bit pattern of a value the format represents exactly (a result of {@link Rounding#round}), or of
     * an infinity / signed zero. NaN maps to the default NaN.
     */
    public long fromExactDouble(double v) {
        if (Double.isNaN(v)) {
            return defaultNaN();
        }
        switch (this) {
            case F64:
                return Double.doubleToRawLongBits(v);
            case F32:
                return Integer.toUnsignedLong(Float.floatToRawIntBits((float) v));
            default:
                return Half.encodeExact(v);
        }
    }
}
