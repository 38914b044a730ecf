package org.replayfarm.coordinator.diff;

import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.NumericFormat;

/**
 * The channels of a texel in storage order, as bit fields of the little-endian texel (RDNA 2 names
 * packed formats most significant field first: FMT_10_11_11 holds R in bits 10:0, G in 21:11, B in 31:22).
 * Used to compare texels channel by channel, to measure float distance in ulps, and to draw images.
 */
record TexelChannels(int[] offsets, int[] widths, NumericFormat numeric) {
    static TexelChannels of(DataFormat format, NumericFormat numeric) {
        return switch (format) {
            case FMT_8 -> uniform(1, 8, numeric);
            case FMT_8_8 -> uniform(2, 8, numeric);
            case FMT_8_8_8_8 -> uniform(4, 8, numeric);
            case FMT_16 -> uniform(1, 16, numeric);
            case FMT_16_16 -> uniform(2, 16, numeric);
            case FMT_16_16_16_16 -> uniform(4, 16, numeric);
            case FMT_32 -> uniform(1, 32, numeric);
            case FMT_32_32 -> uniform(2, 32, numeric);
            case FMT_32_32_32 -> uniform(3, 32, numeric);
            case FMT_32_32_32_32 -> uniform(4, 32, numeric);
            case FMT_10_10_10_2 -> fields(numeric, 2, 10, 10, 10);
            case FMT_2_10_10_10 -> fields(numeric, 10, 10, 10, 2);
            case FMT_10_11_11 -> fields(numeric, 11, 11, 10);
            case FMT_11_11_10 -> fields(numeric, 10, 11, 11);
            case DATA_FORMAT_UNSPECIFIED, UNRECOGNIZED -> throw new IllegalArgumentException("no channels for " + format);
        };
    }

    private static TexelChannels uniform(int count, int width, NumericFormat numeric) {
        int[] widths = new int[count];
        java.util.Arrays.fill(widths, width);
        return fields(numeric, widths);
    }

    /** Fields from the least significant bit up. */
    private static TexelChannels fields(NumericFormat numeric, int... widths) {
        int[] offsets = new int[widths.length];
        for (int i = 1; i < widths.length; i++) {
            offsets[i] = offsets[i - 1] + widths[i - 1];
        }
        return new TexelChannels(offsets, widths, numeric);
    }

    int count() {
        return widths.length;
    }

    /** Channel {@code c}'s raw bits in the texel at {@code at} of {@code texels}. */
    long bits(byte[] texels, int at, int c) {
        long v = 0;
        int first = offsets[c] / 8;
        int last = (offsets[c] + widths[c] - 1) / 8;
        for (int b = last; b >= first; b--) {
            v = v << 8 | (texels[at + b] & 0xFF);
        }
        v >>>= offsets[c] % 8;
        return widths[c] == 64 ? v : v & ((1L << widths[c]) - 1);
    }

    /** Whether channel {@code c} holds a float (ulp tolerance applies only to these). */
    boolean isFloat(int c) {
        return numeric == NumericFormat.NUM_FLOAT && (widths[c] == 16 || widths[c] == 32 || widths[c] == 10
                || widths[c] == 11);
    }

    /**
     * Distance in units in the last place between two float channel values: their positions in the
     * ordered sequence of representable values (signed formats are sign-magnitude; 10- and 11-bit
     * floats have no sign). Values equal as numbers (+0 and -0) are 0 apart.
     */
    long ulps(int c, long a, long b) {
        return Math.abs(ordered(c, a) - ordered(c, b));
    }

    private long ordered(int c, long bits) {
        int w = widths[c];
        if (w == 10 || w == 11) {
            return bits;
        }
        long sign = 1L << (w - 1);
        long magnitude = bits & (sign - 1);
        return (bits & sign) != 0 ? -magnitude : magnitude;
    }

    /** Channel {@code c} drawn as 0..255: floats, UNORM and SRGB clamped to [0, 1]; SNORM's [0, 1]; integers saturate. */
    int display(int c, long bits) {
        int w = widths[c];
        double v;
        switch (numeric) {
            case NUM_FLOAT -> v = switch (w) {
                case 32 -> Float.intBitsToFloat((int) bits);
                case 16 -> org.replayfarm.model.fp.Half.toDouble((int) bits);
                default -> smallFloat(bits, w - 5);
            };
            case NUM_SNORM, NUM_SINT, NUM_SSCALED -> {
                long signed = bits << (64 - w) >> (64 - w);
                v = numeric == NumericFormat.NUM_SNORM ? signed / (double) ((1L << (w - 1)) - 1) : signed / 255.0;
            }
            case NUM_UINT, NUM_USCALED -> v = bits / 255.0;
            default -> v = w == 64 ? 1 : bits / (double) ((1L << w) - 1);
        }
        if (Double.isNaN(v)) {
            return 255;
        }
        return (int) Math.round(Math.max(0, Math.min(1, v)) * 255);
    }

    /** An unsigned float with 5 exponent bits (bias 15) and {@code mantissa} mantissa bits. */
    private static double smallFloat(long bits, int mantissa) {
        long e = bits >>> mantissa;
        long m = bits & ((1L << mantissa) - 1);
        if (e == 0) {
            return m / (double) (1L << mantissa) * Math.pow(2, -14);
        }
        if (e == 31) {
            return m == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        }
        return (1 + m / (double) (1L << mantissa)) * Math.pow(2, e - 15);
    }
}
