package org.replayfarm.model.capture;

import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;

/** How many bytes a texel of each data format takes, and how many bytes an image's texels take in all. */
public final class TexelLayout {
    private TexelLayout() {
    }

    /** Bytes per texel, or 0 for a format this build does not know. */
    public static int bytesPerTexel(DataFormat format) {
        return switch (format) {
            case FMT_8 -> 1;
            case FMT_8_8, FMT_16 -> 2;
            case FMT_8_8_8_8, FMT_16_16, FMT_32, FMT_10_10_10_2, FMT_2_10_10_10, FMT_10_11_11, FMT_11_11_10 -> 4;
            case FMT_16_16_16_16, FMT_32_32 -> 8;
            case FMT_32_32_32 -> 12;
            case FMT_32_32_32_32 -> 16;
            case DATA_FORMAT_UNSPECIFIED, UNRECOGNIZED -> 0;
        };
    }

    /** Extent of one dimension at a mip level: halved per level, never below 1. */
    public static long mipExtent(long base, int level) {
        return Math.max(1, base >> level);
    }

    /**
     * Bytes of all texels, mip-major: each level holds every layer, each layer every slice, row by row.
     * Depth shrinks with the level for 3D images only; layers never do.
     *
     * @throws ArithmeticException if the size does not fit in a long
     */
    public static long totalBytes(Image image) {
        long texel = bytesPerTexel(image.getDataFormat());
        long total = 0;
        for (int level = 0; level < image.getMipLevels(); level++) {
            long w = mipExtent(Integer.toUnsignedLong(image.getWidth()), level);
            long h = mipExtent(Integer.toUnsignedLong(image.getHeight()), level);
            long d = image.getType() == ImageType.IMAGE_3D
                    ? mipExtent(Integer.toUnsignedLong(image.getDepth()), level) : 1;
            long texels = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(w, h), d),
                    Integer.toUnsignedLong(image.getLayers()));
            total = Math.addExact(total, Math.multiplyExact(texels, texel));
        }
        return total;
    }
}
