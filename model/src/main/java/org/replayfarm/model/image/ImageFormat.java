package org.replayfarm.model.image;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.NumericFormat;

/**
 * A gfx10 unified image format: a data format (the channel layout) and a numeric format (how a channel's
 * bits read as a value), with its number in the T#'s 9-bit FORMAT field (word 1 [28:20]).
 *
 * <p>Channel layout: AMD names list channels from the most significant bits down, so channel x lies in
 * the lowest bits: 2_10_10_10 holds x in [9:0] and w in [31:30] (R10G10B10A2), 10_10_10_2 holds x in
 * [1:0] and w in [31:22], 10_11_11 holds x in [10:0], y in [21:11], z in [31:22] (R11G11B10), 11_11_10
 * holds x in [9:0], y in [20:10], z in [31:21]. Multi-byte channels are little-endian.
 */
public record ImageFormat(DataFormat data, NumericFormat numeric) {
    private static final NumericFormat[] SIX = {NumericFormat.NUM_UNORM, NumericFormat.NUM_SNORM,
            NumericFormat.NUM_USCALED, NumericFormat.NUM_SSCALED, NumericFormat.NUM_UINT, NumericFormat.NUM_SINT};
    private static final NumericFormat[] SEVEN = {NumericFormat.NUM_UNORM, NumericFormat.NUM_SNORM,
            NumericFormat.NUM_USCALED, NumericFormat.NUM_SSCALED, NumericFormat.NUM_UINT, NumericFormat.NUM_SINT,
            NumericFormat.NUM_FLOAT};
    private static final NumericFormat[] THREE = {NumericFormat.NUM_UINT, NumericFormat.NUM_SINT,
            NumericFormat.NUM_FLOAT};

    /** One run of unified format numbers: the first number, the data format, the numeric formats in order. */
    private record Block(int first, DataFormat data, NumericFormat[] kinds) {
    }

    private static final List<Block> BLOCKS = List.of(
            new Block(1, DataFormat.FMT_8, SIX),
            new Block(7, DataFormat.FMT_16, SEVEN),
            new Block(14, DataFormat.FMT_8_8, SIX),
            new Block(20, DataFormat.FMT_32, THREE),
            new Block(23, DataFormat.FMT_16_16, SEVEN),
            new Block(30, DataFormat.FMT_10_11_11, SEVEN),
            new Block(37, DataFormat.FMT_11_11_10, SEVEN),
            new Block(44, DataFormat.FMT_10_10_10_2, SIX),
            new Block(50, DataFormat.FMT_2_10_10_10, SIX),
            new Block(56, DataFormat.FMT_8_8_8_8, SIX),
            new Block(62, DataFormat.FMT_32_32, THREE),
            new Block(65, DataFormat.FMT_16_16_16_16, SEVEN),
            new Block(72, DataFormat.FMT_32_32_32, THREE),
            new Block(75, DataFormat.FMT_32_32_32_32, THREE),
            new Block(128, DataFormat.FMT_8, new NumericFormat[] {NumericFormat.NUM_SRGB}),
            new Block(129, DataFormat.FMT_8_8, new NumericFormat[] {NumericFormat.NUM_SRGB}),
            new Block(130, DataFormat.FMT_8_8_8_8, new NumericFormat[] {NumericFormat.NUM_SRGB}));

    public ImageFormat {
        if (number(data, numeric) < 0) {
            throw new IllegalArgumentException("no gfx10 image format " + name(data, numeric));
        }
    }

    /** The format numbered {@code number} in the T# FORMAT field. */
    public static ImageFormat ofNumber(int number) {
        for (Block b : BLOCKS) {
            if (number >= b.first() && number < b.first() + b.kinds().length) {
                return new ImageFormat(b.data(), b.kinds()[number - b.first()]);
            }
        }
        throw new IllegalArgumentException("image format number " + number + " is not one the host model knows "
                + "(known: 1..77 and 128..130, the gfx10 unified formats of 8/16/32-bit and packed 10/11-bit channels)");
    }

    /** The T# FORMAT number. */
    public int number() {
        return number(data, numeric);
    }

    private static int number(DataFormat data, NumericFormat numeric) {
        for (Block b : BLOCKS) {
            if (b.data() == data) {
                for (int i = 0; i < b.kinds().length; i++) {
                    if (b.kinds()[i] == numeric) {
                        return b.first() + i;
                    }
                }
            }
        }
        return -1;
    }

    /** Parses a name such as {@code 8_8_8_8_UNORM}, {@code 16_FLOAT} or {@code 10_11_11_FLOAT}. */
    public static ImageFormat parse(String text) {
        String t = text.trim().toUpperCase(java.util.Locale.ROOT);
        int cut = t.lastIndexOf('_');
        if (cut > 0) {
            try {
                DataFormat d = DataFormat.valueOf("FMT_" + t.substring(0, cut));
                NumericFormat n = NumericFormat.valueOf("NUM_" + t.substring(cut + 1));
                if (number(d, n) >= 0) {
                    return new ImageFormat(d, n);
                }
            } catch (IllegalArgumentException e) {
                // fall through to the error listing the formats
            }
        }
        throw new IllegalArgumentException("unknown image format '" + text + "'; known: " + String.join(", ", names()));
    }

    /** Every format's name, in number order. */
    public static List<String> names() {
        List<String> out = new ArrayList<>();
        for (Block b : BLOCKS) {
            for (NumericFormat n : b.kinds()) {
                out.add(name(b.data(), n));
            }
        }
        return out;
    }

    private static String name(DataFormat d, NumericFormat n) {
        return d.name().substring(4) + "_" + n.name().substring(4);
    }

    public String name() {
        return name(data, numeric);
    }

    /** Bits of each channel, channel x first (a new array: the caller may change it). */
    public int[] channelBits() {
        return bits().clone();
    }

    /**
     * Bits of each channel, channel x first: one shared array per data format, never to be changed (the codecs
     * of this package read it per texel; a new array per call was 15% of the 1080p report's picture encoding).
     */
    int[] bits() {
        int[] b = BITS[data.ordinal()];
        if (b == null) {
            throw new IllegalStateException("no layout for " + data);
        }
        return b;
    }

    private static final int[][] BITS = new int[DataFormat.values().length][];

    static {
        for (DataFormat d : DataFormat.values()) {
            BITS[d.ordinal()] = switch (d) {
                case FMT_8 -> new int[] {8};
                case FMT_8_8 -> new int[] {8, 8};
                case FMT_8_8_8_8 -> new int[] {8, 8, 8, 8};
                case FMT_16 -> new int[] {16};
                case FMT_16_16 -> new int[] {16, 16};
                case FMT_16_16_16_16 -> new int[] {16, 16, 16, 16};
                case FMT_32 -> new int[] {32};
                case FMT_32_32 -> new int[] {32, 32};
                case FMT_32_32_32 -> new int[] {32, 32, 32};
                case FMT_32_32_32_32 -> new int[] {32, 32, 32, 32};
                case FMT_10_10_10_2 -> new int[] {2, 10, 10, 10};
                case FMT_2_10_10_10 -> new int[] {10, 10, 10, 2};
                case FMT_10_11_11 -> new int[] {11, 11, 10};
                case FMT_11_11_10 -> new int[] {10, 11, 11};
                default -> null;
            };
        }
    }

    public int channels() {
        return bits().length;
    }

    public int bytesPerTexel() {
        int bits = 0;
        for (int b : bits()) {
            bits += b;
        }
        return bits / 8;
    }

    /** Whether reads give integers (UINT, SINT) rather than floats. */
    public boolean integer() {
        return numeric == NumericFormat.NUM_UINT || numeric == NumericFormat.NUM_SINT;
    }

    @Override
    public String toString() {
        return name();
    }
}
