package org.replayfarm.model.image;

import org.replayfarm.model.fp.Half;
import org.replayfarm.model.fp.Rounding;
import org.replayfarm.proto.NumericFormat;

/**
 * One texel's bytes to and from its channels' 32-bit register values, as an image load returns them and
 * an image store takes them (before the T#'s DST_SEL, which the reader applies).
 *
 * <p>Reads: UNORM u / (2^n - 1); SNORM max(s / (2^(n-1) - 1), -1); sRGB (x, y, z only; w is UNORM) the
 * sRGB transfer function inverted, {@code c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055)^2.4} with c the
 * UNORM value; USCALED/SSCALED the integer as a float; UINT zero-, SINT sign-extended; FLOAT 16-bit
 * widened exactly, 32-bit as it lies, 11- and 10-bit (unsigned, 5-bit exponent) widened exactly. Each
 * float result is the exact value rounded once to f32. Channels the format lacks read as 0, 0, 0 and 1
 * (1.0 for float results).
 *
 * <p>Writes: UNORM/SNORM clamp to [0, 1] / [-1, 1] (NaN to 0), scale and round to nearest even; sRGB
 * encodes {@code c <= 0.0031308 ? 12.92 c : 1.055 c^(1/2.4) - 0.055} then as UNORM; USCALED/SSCALED round
 * to nearest even and clamp to the channel's range; UINT/SINT keep the low n bits (as the buffer formats
 * do); FLOAT 16 rounds to nearest even (overflow to infinity); 11/10-bit floats round to nearest even,
 * negative values (and -0) become 0, overflow becomes +infinity, NaN stays NaN.
 */
public final class TexelCodec {
    private static final int ONE = Float.floatToRawIntBits(1.0f);

    private TexelCodec() {
    }

    /** The raw bits of each channel of the texel at {@code at} in {@code bytes}, channel x first. */
    public static long[] unpack(ImageFormat f, byte[] bytes, int at) {
        int[] bits = f.bits();
        long[] out = new long[bits.length];
        if (f.bytesPerTexel() == 4 && bits[0] != 8 && bits[0] != 16 && bits[0] != 32) {
            long word = littleEndian(bytes, at, 4);
            int shift = 0;
            for (int c = 0; c < bits.length; c++) {
                out[c] = word >>> shift & ((1L << bits[c]) - 1);
                shift += bits[c];
            }
            return out;
        }
        int offset = at;
        for (int c = 0; c < bits.length; c++) {
            out[c] = littleEndian(bytes, offset, bits[c] / 8);
            offset += bits[c] / 8;
        }
        return out;
    }

    /** The texel bytes holding the given raw channel bits (each masked to its width). */
    public static byte[] pack(ImageFormat f, long[] raw) {
        int[] bits = f.bits();
        byte[] out = new byte[f.bytesPerTexel()];
        if (f.bytesPerTexel() == 4 && bits[0] != 8 && bits[0] != 16 && bits[0] != 32) {
            long word = 0;
            int shift = 0;
            for (int c = 0; c < bits.length; c++) {
                word |= (raw[c] & ((1L << bits[c]) - 1)) << shift;
                shift += bits[c];
            }
            putLittleEndian(out, 0, word, 4);
            return out;
        }
        int offset = 0;
        for (int c = 0; c < bits.length; c++) {
            putLittleEndian(out, offset, raw[c], bits[c] / 8);
            offset += bits[c] / 8;
        }
        return out;
    }

    /** The four register values a read of the texel gives, channel x first (missing channels defaulted). */
    public static int[] decode(ImageFormat f, byte[] bytes, int at) {
        long[] raw = unpack(f, bytes, at);
        int[] bits = f.bits();
        int[] out = new int[4];
        for (int c = 0; c < 4; c++) {
            out[c] = c < raw.length ? toRegister(f.numeric(), bits[c], raw[c], c) : missing(f, c);
        }
        return out;
    }

    /** The texel bytes a store of {@code registers} (channel x first; extra channels ignored) writes. */
    public static byte[] encode(ImageFormat f, int[] registers) {
        int[] bits = f.bits();
        long[] raw = new long[bits.length];
        for (int c = 0; c < bits.length; c++) {
            raw[c] = fromRegister(f.numeric(), bits[c], registers[c], c);
        }
        return pack(f, raw);
    }

    /**
     * Channel {@code channel}'s raw bits (its width {@code bits}, as {@link ImageFormat#channelBits} gives it) for a
     * store of register value {@code value}: what {@link #encode} packs for that channel.
     */
    public static long encodeChannel(ImageFormat f, int bits, int channel, int value) {
        return fromRegister(f.numeric(), bits, value, channel);
    }

    /** The value of a channel the format lacks: 0 for x, y, z; 1 (1.0 for float results) for w. */
    public static int missing(ImageFormat f, int channel) {
        if (channel < 3) {
            return 0;
        }
        return f.integer() ? 1 : ONE;
    }

    /** One channel's raw bits as a register value. */
    static int toRegister(NumericFormat kind, int n, long raw, int channel) {
        long signed = n == 32 ? (int) raw : raw << (64 - n) >> (64 - n);
        return switch (kind) {
            case NUM_UNORM -> floatBits((double) raw / ((1L << n) - 1));
            case NUM_SNORM -> floatBits(Math.max((double) signed / ((1L << (n - 1)) - 1), -1.0));
            case NUM_SRGB -> channel == 3 ? floatBits((double) raw / ((1L << n) - 1))
                    : floatBits(srgbToLinear((double) raw / ((1L << n) - 1)));
            case NUM_USCALED -> floatBits(raw);
            case NUM_SSCALED -> floatBits(signed);
            case NUM_UINT -> (int) raw;
            case NUM_SINT -> (int) signed;
            case NUM_FLOAT -> switch (n) {
                case 32 -> (int) raw;
                case 16 -> Half.toFloatBits((int) raw);
                case 11, 10 -> Float.floatToRawIntBits(fromSmallFloat((int) raw, n - 5));
                default -> throw new IllegalArgumentException("no " + n + "-bit float channel");
            };
            default -> throw new IllegalArgumentException("numeric format " + kind + " has no conversion");
        };
    }

    /** One register value as a channel's raw bits. */
    static long fromRegister(NumericFormat kind, int n, int value, int channel) {
        long mask = n == 32 ? 0xFFFF_FFFFL : (1L << n) - 1;
        float x = Float.intBitsToFloat(value);
        return switch (kind) {
            case NUM_UNORM -> (long) Math.rint(clamp(x, 0, 1) * mask);
            case NUM_SNORM -> (long) Math.rint(clamp(x, -1, 1) * ((1L << (n - 1)) - 1)) & mask;
            case NUM_SRGB -> channel == 3 ? (long) Math.rint(clamp(x, 0, 1) * mask)
                    : (long) Math.rint(linearToSrgb(clamp(x, 0, 1)) * mask);
            case NUM_USCALED -> (long) clamp(Math.rint(x), 0, mask);
            case NUM_SSCALED -> (long) clamp(Math.rint(x), -(1L << (n - 1)), (1L << (n - 1)) - 1) & mask;
            case NUM_UINT, NUM_SINT -> value & mask;
            case NUM_FLOAT -> switch (n) {
                case 32 -> Integer.toUnsignedLong(value);
                case 16 -> Half.fromFloatBits(value, Rounding.NEAREST_EVEN) & 0xFFFF;
                case 11, 10 -> toSmallFloat(x, n - 5);
                default -> throw new IllegalArgumentException("no " + n + "-bit float channel");
            };
            default -> throw new IllegalArgumentException("numeric format " + kind + " has no conversion");
        };
    }

    private static int floatBits(double exact) {
        return Float.floatToRawIntBits((float) exact);
    }

    private static double clamp(double x, double lo, double hi) {
        return Double.isNaN(x) ? 0 : Math.max(lo, Math.min(hi, x));
    }

    /** The sRGB electro-optical transfer (encoded value in [0, 1] to linear). */
    public static double srgbToLinear(double c) {
        return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }

    /** The sRGB encoding of a linear value in [0, 1]. */
    public static double linearToSrgb(double l) {
        return l <= 0.0031308 ? 12.92 * l : 1.055 * Math.pow(l, 1 / 2.4) - 0.055;
    }

    /**
     * An unsigned float of a 5-bit exponent (bias 15) and {@code mantissaBits} mantissa bits (6 for the
     * 11-bit, 5 for the 10-bit channel) to its exact value.
     */
    public static float fromSmallFloat(int bits, int mantissaBits) {
        int exp = bits >>> mantissaBits & 0x1F;
        int mant = bits & ((1 << mantissaBits) - 1);
        if (exp == 0x1F) {
            return mant == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
        }
        if (exp == 0) {
            return (float) Math.scalb((double) mant, -14 - mantissaBits);
        }
        return (float) Math.scalb((double) (mant | 1 << mantissaBits), exp - 15 - mantissaBits);
    }

    /**
     * A float to the unsigned small float: round to nearest even, negative values and -0 to 0, overflow to
     * +infinity, NaN to a NaN.
     */
    public static int toSmallFloat(float v, int mantissaBits) {
        int inf = 0x1F << mantissaBits;
        if (Float.isNaN(v)) {
            return inf | 1 << (mantissaBits - 1);
        }
        if (v <= 0) {
            return 0;
        }
        if (Float.isInfinite(v)) {
            return inf;
        }
        double a = v;
        // the quantum of the binade a falls in (denormals share the lowest binade's quantum)
        int e = Math.max(Math.getExponent(a), -14);
        double quantum = Math.scalb(1.0, e - mantissaBits);
        double units = Math.rint(a / quantum); // exact: a / quantum fits easily in a double
        double rounded = units * quantum;
        double maxFinite = Math.scalb((double) ((2 << mantissaBits) - 1), 15 - mantissaBits);
        if (rounded > maxFinite) {
            return inf;
        }
        if (rounded < 0x1p-14) {
            return (int) Math.scalb(rounded, 14 + mantissaBits);
        }
        int re = Math.getExponent(rounded);
        int mant = (int) (Math.scalb(rounded, mantissaBits - re)) - (1 << mantissaBits);
        return (re + 15) << mantissaBits | mant;
    }

    static long littleEndian(byte[] b, int at, int bytes) {
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v |= (long) (b[at + i] & 0xFF) << (8 * i);
        }
        return v;
    }

    static void putLittleEndian(byte[] b, int at, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }
}
