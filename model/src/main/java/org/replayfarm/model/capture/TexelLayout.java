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

    /** Samples per texel: the image's sample count, 1 for a single-sampled image. */
    public static int samples(Image image) {
        return Math.max(1, image.getSamples());
    }

    /**
     * Bytes of all texels, mip-major: each level holds every layer, each layer every slice, row by row.
     * Depth shrinks with the level for 3D images only; layers never do. A multisampled image's texels each
     * hold their samples in order.
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
            long texels = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(w, h), d),
                    Integer.toUnsignedLong(image.getLayers())), samples(image));
            total = Math.addExact(total, Math.multiplyExact(texels, texel));
        }
        return total;
    }

    /** Where one texel lies: mip level, array layer (cube face, array slice), x, y and z (3D slice). */
    public record Texel(int mip, int layer, int x, int y, int z) {
    }

    /** Texels (not bytes) before mip level {@code level}, over every layer and slice. */
    public static long mipStartTexel(Image image, int level) {
        long start = 0;
        for (int l = 0; l < level; l++) {
            start += texelsAt(image, l);
        }
        return start;
    }

    private static long texelsAt(Image image, int level) {
        long w = mipExtent(Integer.toUnsignedLong(image.getWidth()), level);
        long h = mipExtent(Integer.toUnsignedLong(image.getHeight()), level);
        long d = depthAt(image, level);
        return w * h * d * Math.max(1, Integer.toUnsignedLong(image.getLayers())) * samples(image);
    }

    private static long depthAt(Image image, int level) {
        return image.getType() == ImageType.IMAGE_3D ? mipExtent(Integer.toUnsignedLong(image.getDepth()), level) : 1;
    }

    /** Total texels over every level, layer and slice (texel samples for a multisampled image). */
    public static long totalTexels(Image image) {
        return mipStartTexel(image, image.getMipLevels());
    }

    /**
     * A texel's linear index in the capture's texel layout (mip-major; in a level, layer-major, then slice,
     * then row by row). The coordinates must lie inside the image. For a multisampled image the index of the
     * texel's sample 0 (its sample s is at the index + s).
     */
    public static long texelIndex(Image image, Texel t) {
        long w = mipExtent(Integer.toUnsignedLong(image.getWidth()), t.mip());
        long h = mipExtent(Integer.toUnsignedLong(image.getHeight()), t.mip());
        long d = depthAt(image, t.mip());
        return mipStartTexel(image, t.mip()) + (((t.layer() * d + t.z()) * h + t.y()) * w + t.x()) * samples(image);
    }

    /** The inverse of {@link #texelIndex} (a multisampled image's sample is left out). */
    public static Texel texelAt(Image image, long index) {
        if (index < 0) {
            throw new IllegalArgumentException("texel index " + index + " is negative");
        }
        long rest = index;
        for (int level = 0; level < image.getMipLevels(); level++) {
            long n = texelsAt(image, level);
            if (rest < n) {
                rest /= samples(image);
                long w = mipExtent(Integer.toUnsignedLong(image.getWidth()), level);
                long h = mipExtent(Integer.toUnsignedLong(image.getHeight()), level);
                long d = depthAt(image, level);
                int x = (int) (rest % w);
                int y = (int) (rest / w % h);
                int z = (int) (rest / (w * h) % d);
                int layer = (int) (rest / (w * h * d));
                return new Texel(level, layer, x, y, z);
            }
            rest -= n;
        }
        throw new IllegalArgumentException("texel index " + index + " is past the image's " + totalTexels(image)
                + " texels");
    }
}
