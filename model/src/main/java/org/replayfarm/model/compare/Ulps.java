package org.replayfarm.model.compare;

/**
 * Distances between two floats given as raw bits, in units in the last place: their positions in the ordered
 * sequence of representable values. Widths 64, 32 and 16 are IEEE 754 sign-magnitude formats; 11 and 10 are
 * the unsigned small floats of packed image formats (5 exponent bits, 6 or 5 mantissa bits, no sign). Bits
 * above the width are ignored.
 */
public final class Ulps {
    /** What {@link #between} gives for an infinity or NaN against anything but the same bits. */
    public static final long UNBOUNDED = Long.MAX_VALUE;

    private Ulps() {
    }

    /**
     * How many ulps apart {@code a} and {@code b} are: 0 for the same bits and for numbers equal as numbers
     * (+0 and -0), {@link #UNBOUNDED} for an infinity or NaN against anything but the same bits (no number of
     * ulps takes a number to an infinity, and a NaN is no distance from anything), and for two 64-bit values
     * of opposite signs too far apart to count in a {@code long}.
     */
    public static long between(int width, long a, long b) {
        long x = a & mask(width);
        long y = b & mask(width);
        if (x == y) {
            return 0;
        }
        if (special(width, x) || special(width, y)) {
            return UNBOUNDED;
        }
        return distance(width, x, y);
    }

    /**
     * The ordered distance of two finite or infinite values with no special case for NaNs or infinities (the
     * largest finite value is one ulp from infinity); callers that treat NaNs themselves use it.
     */
    public static long distance(int width, long a, long b) {
        long oa = ordered(width, a & mask(width));
        long ob = ordered(width, b & mask(width));
        long d = oa - ob;
        // overflow only for 64-bit values of opposite signs far apart
        if ((oa >= 0) != (ob >= 0) && ((d >= 0) != (oa >= ob))) {
            return UNBOUNDED;
        }
        return Math.abs(d);
    }

    /** {@link #between} for two f32 values. */
    public static long f32(int a, int b) {
        return between(32, a & 0xFFFF_FFFFL, b & 0xFFFF_FFFFL);
    }

    /**
     * {@link #f32}, but two NaNs of any payloads are 0 apart: how the first-divergence searches compare a
     * register, where a NaN either side is the same answer.
     */
    public static long f32NaNsAgree(int a, int b) {
        return Float.isNaN(Float.intBitsToFloat(a)) && Float.isNaN(Float.intBitsToFloat(b)) ? 0 : f32(a, b);
    }

    /** Whether the bits are an infinity or a NaN (exponent all ones) in a float of {@code width} bits. */
    public static boolean special(int width, long bits) {
        long exponent = exponentMask(width);
        return (bits & exponent) == exponent;
    }

    /** Whether the bits are a NaN (exponent all ones, mantissa not zero) in a float of {@code width} bits. */
    public static boolean nan(int width, long bits) {
        long exponent = exponentMask(width);
        long mantissa = mantissaMask(width);
        return (bits & exponent) == exponent && (bits & mantissa) != 0;
    }

    private static long exponentMask(int width) {
        return switch (width) {
            case 64 -> 0x7FF0_0000_0000_0000L;
            case 32 -> 0x7F80_0000L;
            case 16 -> 0x7C00L;
            case 11 -> 0x7C0L;
            case 10 -> 0x3E0L;
            default -> throw new IllegalArgumentException("no float of " + width + " bits (64, 32, 16, 11 or 10)");
        };
    }

    private static long mantissaMask(int width) {
        return switch (width) {
            case 64 -> 0x000F_FFFF_FFFF_FFFFL;
            case 32 -> 0x007F_FFFFL;
            case 16 -> 0x03FFL;
            case 11 -> 0x3FL;
            case 10 -> 0x1FL;
            default -> throw new IllegalArgumentException("no float of " + width + " bits (64, 32, 16, 11 or 10)");
        };
    }

    private static long mask(int width) {
        return width == 64 ? -1L : (1L << width) - 1;
    }

    /** The bits mapped onto a line where neighbouring values differ by one, negative values below zero. */
    private static long ordered(int width, long bits) {
        exponentMask(width); // refuses a width no float has
        if (width == 10 || width == 11) {
            return bits;
        }
        long sign = width == 64 ? Long.MIN_VALUE : 1L << (width - 1);
        long magnitude = bits & ~sign;
        return (bits & sign) != 0 ? -magnitude : magnitude;
    }
}
