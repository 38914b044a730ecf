package org.replayfarm.model.image;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.imageio.ImageIO;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.NumericFormat;

/**
 * An image's level 0 as a PNG with 8-bit channels, for people to look at (the .raw beside it is what
 * comparisons use). Layers and 3D slices are stacked top to bottom. Channels are in storage order (x red,
 * y green, z blue, w alpha; no DST_SEL applied, like the raw file): one channel gives a grey PNG, two an
 * RGB one with blue 0, three RGB, four RGBA. Mapping to 8 bits: 8-bit UNORM and sRGB channels are
 * copied; other UNORM and FLOAT channels are clamped to [0, 1] and scaled by 255 (rounded to nearest);
 * SNORM and SSCALED values v map to (v + 1) / 2 clamped, then scaled; UINT, SINT and USCALED values are
 * clamped to 0..255.
 *
 * <p>This is the project's one PNG writer: {@code replay eval}'s host images and {@code replay run}'s host,
 * device and diff pictures all go through {@link #picture} and {@link #png}.
 */
public final class ImagePng {
    private ImagePng() {
    }

    /** Level 0 of the image (every layer and slice) as a PNG file's bytes. */
    public static byte[] encode(Image image, byte[] texels) {
        return png(picture(image, texels));
    }

    /** Level 0 of the image as a picture: grey, RGB or RGBA by the format's channel count. */
    public static BufferedImage picture(Image image, byte[] texels) {
        ImageFormat f = new ImageFormat(image.getDataFormat(), image.getNumericFormat());
        int w = image.getWidth();
        int h = Math.max(1, image.getHeight());
        int slices = Math.max(1, image.getLayers()) * Math.max(1, image.getType() == org.replayfarm.proto.ImageType.IMAGE_3D
                ? image.getDepth() : 1);
        int channels = f.channels();
        int type = channels == 1 ? BufferedImage.TYPE_BYTE_GRAY : channels == 4 ? BufferedImage.TYPE_4BYTE_ABGR
                : BufferedImage.TYPE_3BYTE_BGR;
        BufferedImage png = new BufferedImage(w, h * slices, type);
        var raster = png.getRaster();
        int bpt = f.bytesPerTexel();
        boolean copy = f.bits()[0] == 8
                && (f.numeric() == NumericFormat.NUM_UNORM || f.numeric() == NumericFormat.NUM_SRGB);
        int[] bits = f.bits();
        boolean bytes = copy && bpt == bits.length;
        for (int b : bits) {
            bytes &= b == 8;
        }
        if (bytes) {
            // 8-bit UNORM/sRGB channels, one byte each: the texel's bytes are its samples (what unpack gives),
            // a row at a time (the 1080p shadow pass's pictures spent ~20% of `replay eval` decoding per texel)
            int bands = Math.min(channels == 2 ? 3 : channels, 4);
            int[] row = new int[w * bands];
            for (int y = 0; y < h * slices; y++) {
                int at = Math.toIntExact((long) y * w * bpt);
                for (int x = 0; x < w; x++) {
                    for (int c = 0; c < bands; c++) {
                        row[x * bands + c] = c >= channels ? 0 : texels[at + x * bpt + c] & 0xFF;
                    }
                }
                raster.setPixels(0, y, w, 1, row);
            }
            return png;
        }
        for (int s = 0; s < slices; s++) {
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int at = Math.toIntExact(((long) (s * h + y) * w + x) * bpt);
                    long[] raw = TexelCodec.unpack(f, texels, at);
                    int[] regs = TexelCodec.decode(f, texels, at);
                    for (int c = 0; c < Math.min(channels == 2 ? 3 : channels, 4); c++) {
                        int v = c >= channels ? 0 : copy ? (int) raw[c] : eight(f, regs[c]);
                        raster.setSample(x, s * h + y, c, v);
                    }
                }
            }
        }
        return png;
    }

    /** A picture as a PNG file's bytes (through the JDK's ImageIO encoder). */
    public static byte[] png(BufferedImage picture) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(picture, "png", out)) {
                throw new IllegalStateException("this JVM's ImageIO has no PNG writer for a picture of type "
                        + picture.getType());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static int eight(ImageFormat f, int register) {
        return switch (f.numeric()) {
            case NUM_UINT, NUM_USCALED -> (int) Math.min(255, f.numeric() == NumericFormat.NUM_UINT
                    ? Integer.toUnsignedLong(register) : Math.max(0, Float.intBitsToFloat(register)));
            case NUM_SINT -> Math.max(0, Math.min(255, register));
            case NUM_SNORM, NUM_SSCALED -> scale((Float.intBitsToFloat(register) + 1) / 2);
            default -> scale(Float.intBitsToFloat(register));
        };
    }

    private static int scale(float v) {
        return (int) Math.rint(Float.isNaN(v) ? 0 : Math.max(0, Math.min(1, v)) * 255);
    }
}
