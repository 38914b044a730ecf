package org.replayfarm.model.image;

import org.replayfarm.proto.ChannelSelect;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;

/**
 * An image resource descriptor (T#) in the gfx10.3 layout, 128 bits (words 0..3, what the BVH and the
 * r128 forms read) or 256 bits:
 * <ul>
 * <li>word 0: BASE_ADDRESS [31:0] (address bits [39:8]); word 1: BASE_ADDRESS_HI [7:0] (address bits
 * [47:40]), MIN_LOD [19:8], FORMAT [28:20] (the unified format number), WIDTH[1:0] [31:30];</li>
 * <li>word 2: WIDTH[13:2] [11:0], HEIGHT [27:14], RESOURCE_LEVEL [31] (width and height stored minus 1);</li>
 * <li>word 3: DST_SEL_X/Y/Z/W [11:0] (3 bits each: 0 zero, 1 one, 4..7 x..w), BASE_LEVEL [15:12],
 * LAST_LEVEL [19:16], SW_MODE [24:20] (0 linear), BC_SWIZZLE [27:25], TYPE [31:28] (8 1D, 9 2D, 10 3D,
 * 11 cube, 12 1D array, 13 2D array, 14 2D MSAA, 15 2D MSAA array; an MSAA T# has one level and holds
 * log2(samples) in LAST_LEVEL and MAX_MIP, as RADV writes it on gfx10.3);</li>
 * <li>word 4: DEPTH [13:0]: depth - 1 for 3D, the last array slice for arrays and cubes, pitch - 1 for 1D
 * and 2D on gfx10.3 (bit 13 is pitch bit 13); BASE_ARRAY [28:16];</li>
 * <li>word 5: ARRAY_PITCH [3:0], MAX_MIP [7:4] (levels - 1 of the resource); words 6 and 7: compression
 * metadata, kept as they lie.</li>
 * </ul>
 */
public record ImageDescriptor(long baseAddress, int minLod, int format, int width, int height, boolean resourceLevel,
                              int[] dstSel, int baseLevel, int lastLevel, int swMode, int bcSwizzle, int type,
                              int depthField, int baseArray, int arrayPitch, int maxMip, int word6, int word7,
                              boolean wide) {
    public static final int TYPE_1D = 8;
    public static final int TYPE_2D = 9;
    public static final int TYPE_3D = 10;
    public static final int TYPE_CUBE = 11;
    public static final int TYPE_1D_ARRAY = 12;
    public static final int TYPE_2D_ARRAY = 13;
    public static final int TYPE_2D_MSAA = 14;
    public static final int TYPE_2D_MSAA_ARRAY = 15;

    public ImageDescriptor {
        dstSel = dstSel.clone();
        if (dstSel.length != 4) {
            throw new IllegalArgumentException("a T# has four DST_SEL fields, not " + dstSel.length);
        }
    }

    /** Decodes 4 or 8 words. */
    public static ImageDescriptor decode(int[] w) {
        if (w.length != 4 && w.length != 8) {
            throw new IllegalArgumentException("a T# is 4 or 8 words, not " + w.length);
        }
        long base = (Integer.toUnsignedLong(w[0]) | (long) (w[1] & 0xFF) << 32) << 8;
        int width = ((w[1] >>> 30) | (w[2] & 0xFFF) << 2) + 1;
        int height = (w[2] >>> 14 & 0x3FFF) + 1;
        int[] sel = {w[3] & 7, w[3] >>> 3 & 7, w[3] >>> 6 & 7, w[3] >>> 9 & 7};
        boolean wide = w.length == 8;
        return new ImageDescriptor(base, w[1] >>> 8 & 0xFFF, w[1] >>> 20 & 0x1FF, width, height, w[2] < 0, sel,
                w[3] >>> 12 & 0xF, w[3] >>> 16 & 0xF, w[3] >>> 20 & 0x1F, w[3] >>> 25 & 7, w[3] >>> 28 & 0xF,
                wide ? w[4] & 0x3FFF : 0, wide ? w[4] >>> 16 & 0x1FFF : 0, wide ? w[5] & 0xF : 0,
                wide ? w[5] >>> 4 & 0xF : 0, wide ? w[6] : 0, wide ? w[7] : 0, wide);
    }

    /** The descriptor's words (8, or 4 for a 128-bit descriptor). */
    public int[] encode() {
        if ((baseAddress & 0xFF) != 0 || baseAddress >>> 48 != 0) {
            throw new IllegalArgumentException(String.format("image base 0x%x is not a 256-byte aligned 48-bit address",
                    baseAddress));
        }
        check("width", width, 1, 1 << 14);
        check("height", height, 1, 1 << 14);
        int[] w = new int[wide ? 8 : 4];
        w[0] = (int) (baseAddress >>> 8);
        w[1] = (int) (baseAddress >>> 40) & 0xFF | (minLod & 0xFFF) << 8 | (format & 0x1FF) << 20
                | ((width - 1) & 3) << 30;
        w[2] = (width - 1) >>> 2 & 0xFFF | ((height - 1) & 0x3FFF) << 14 | (resourceLevel ? 1 << 31 : 0);
        w[3] = dstSel[0] & 7 | (dstSel[1] & 7) << 3 | (dstSel[2] & 7) << 6 | (dstSel[3] & 7) << 9
                | (baseLevel & 0xF) << 12 | (lastLevel & 0xF) << 16 | (swMode & 0x1F) << 20 | (bcSwizzle & 7) << 25
                | (type & 0xF) << 28;
        if (wide) {
            w[4] = depthField & 0x3FFF | (baseArray & 0x1FFF) << 16;
            w[5] = arrayPitch & 0xF | (maxMip & 0xF) << 4;
            w[6] = word6;
            w[7] = word7;
        }
        return w;
    }

    private static void check(String what, int value, int lo, int hi) {
        if (value < lo || value > hi) {
            throw new IllegalArgumentException("T# " + what + " " + value + " is outside " + lo + ".." + hi);
        }
    }

    /** The 256-bit T# of a captured image: linear, every level and layer, its channel order as DST_SEL. */
    public static ImageDescriptor of(Image im) {
        ImageFormat f = new ImageFormat(im.getDataFormat(), im.getNumericFormat());
        int samples = Math.max(1, im.getSamples());
        int type = samples > 1 ? msaaTypeCode(im.getType()) : typeCode(im.getType());
        int depthField = switch (im.getType()) {
            case IMAGE_3D -> im.getDepth() - 1;
            case IMAGE_CUBE, IMAGE_1D_ARRAY, IMAGE_2D_ARRAY -> im.getLayers() - 1;
            default -> im.getWidth() - 1; // pitch - 1: the capture's rows are packed
        };
        int[] sel = new int[4];
        for (int c = 0; c < 4; c++) {
            sel[c] = im.getChannelOrderCount() == 4 ? selectCode(im.getChannelOrder(c)) : 4 + c;
        }
        int levels = Math.max(1, im.getMipLevels());
        int last = samples > 1 ? Integer.numberOfTrailingZeros(samples) : levels - 1;
        return new ImageDescriptor(im.getGuestAddress(), 0, f.number(), im.getWidth(), Math.max(1, im.getHeight()),
                true, sel, 0, last, 0, 0, type, depthField, 0, 0, last, 0, 0, true);
    }

    /** The MSAA T# TYPE code of a multisampled image of type {@code t} (2D or 2D array). */
    public static int msaaTypeCode(ImageType t) {
        return switch (t) {
            case IMAGE_2D -> TYPE_2D_MSAA;
            case IMAGE_2D_ARRAY -> TYPE_2D_MSAA_ARRAY;
            default -> throw new IllegalArgumentException("a multisampled image is 2D or a 2D array, not " + t);
        };
    }

    /** Whether the TYPE is an MSAA one (14, 15). */
    public boolean msaa() {
        return type == TYPE_2D_MSAA || type == TYPE_2D_MSAA_ARRAY;
    }

    /** Samples per texel: 2^LAST_LEVEL for an MSAA type, else 1. */
    public int samples() {
        return msaa() ? 1 << lastLevel : 1;
    }

    /** The T# TYPE code of an image type. */
    public static int typeCode(ImageType t) {
        return switch (t) {
            case IMAGE_1D -> TYPE_1D;
            case IMAGE_2D -> TYPE_2D;
            case IMAGE_3D -> TYPE_3D;
            case IMAGE_CUBE -> TYPE_CUBE;
            case IMAGE_1D_ARRAY -> TYPE_1D_ARRAY;
            case IMAGE_2D_ARRAY -> TYPE_2D_ARRAY;
            default -> throw new IllegalArgumentException("image type " + t + " has no T# type");
        };
    }

    /** The image type a T# TYPE code names. */
    public ImageType imageType() {
        return switch (type) {
            case TYPE_1D -> ImageType.IMAGE_1D;
            case TYPE_2D -> ImageType.IMAGE_2D;
            case TYPE_3D -> ImageType.IMAGE_3D;
            case TYPE_CUBE -> ImageType.IMAGE_CUBE;
            case TYPE_1D_ARRAY -> ImageType.IMAGE_1D_ARRAY;
            case TYPE_2D_ARRAY, TYPE_2D_MSAA_ARRAY -> ImageType.IMAGE_2D_ARRAY;
            case TYPE_2D_MSAA -> ImageType.IMAGE_2D;
            default -> throw new IllegalArgumentException("T# type " + type + " is not an image type the host model "
                    + "reads (8..15: 1D, 2D, 3D, cube, 1D array, 2D array, 2D MSAA, 2D MSAA array)");
        };
    }

    /** The DST_SEL code of a channel select. */
    public static int selectCode(ChannelSelect s) {
        return switch (s) {
            case SEL_0 -> 0;
            case SEL_1 -> 1;
            case SEL_X -> 4;
            case SEL_Y -> 5;
            case SEL_Z -> 6;
            case SEL_W -> 7;
            default -> throw new IllegalArgumentException("channel select " + s + " has no DST_SEL code");
        };
    }

    /** The channel select a DST_SEL code names (2 and 3 are reserved and read as 0). */
    public static ChannelSelect select(int code) {
        return switch (code) {
            case 1 -> ChannelSelect.SEL_1;
            case 4 -> ChannelSelect.SEL_X;
            case 5 -> ChannelSelect.SEL_Y;
            case 6 -> ChannelSelect.SEL_Z;
            case 7 -> ChannelSelect.SEL_W;
            default -> ChannelSelect.SEL_0;
        };
    }

    public ImageFormat imageFormat() {
        return ImageFormat.ofNumber(format);
    }

    /** Depth of a 3D image (1 otherwise). */
    public int depth() {
        return type == TYPE_3D ? (depthField & 0x1FFF) + 1 : 1;
    }

    /** Array layers (cube faces count as layers): last slice + 1 for arrays and cubes, else 1. */
    public int layers() {
        return type == TYPE_CUBE || type == TYPE_1D_ARRAY || type == TYPE_2D_ARRAY || type == TYPE_2D_MSAA_ARRAY
                ? (depthField & 0x1FFF) + 1 : 1;
    }

    /** Mip levels the view covers: LAST_LEVEL - BASE_LEVEL + 1 (1 for MSAA, whose LAST_LEVEL is log2 samples). */
    public int levels() {
        return msaa() ? 1 : lastLevel - baseLevel + 1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImageDescriptor d && java.util.Arrays.equals(encode(), d.encode()) && wide == d.wide;
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(encode());
    }

    @Override
    public String toString() {
        return String.format("T#{base 0x%x, %s, %s %dx%dx%d, %d layer(s), %s, dst_sel %d%d%d%d}",
                baseAddress, ImageFormat.ofNumber(format), type, width, height, depth(), layers(),
                msaa() ? samples() + " samples" : "levels " + baseLevel + ".." + lastLevel, dstSel[0], dstSel[1],
                dstSel[2], dstSel[3]);
    }
}
