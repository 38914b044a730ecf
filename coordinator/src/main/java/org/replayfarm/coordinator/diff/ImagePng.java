package org.replayfarm.coordinator.diff;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import javax.imageio.ImageIO;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;

/**
 * Draws an image's mip level 0 as an opaque RGB PNG (every layer and slice, stacked top to bottom):
 * channels in storage order as red, green, blue (one channel as grey), mapped to 0..255 by
 * {@link TexelChannels#display}. The diff drawing dims the host image to a third and paints differing
 * texels {@link #DIFFERING} and device-only texels {@link #DEVICE_ONLY}.
 */
public final class ImagePng {
    /** Colour of a texel whose host and device values differ. */
    public static final int DIFFERING = 0xFF2020;
    /** Colour of a texel the device changed that no host store wrote. */
    public static final int DEVICE_ONLY = 0xFFFF00;

    private ImagePng() {
    }

    /** Mip 0 of the image as RGB. */
    public static BufferedImage render(Image image, byte[] texels) {
        return draw(image, texels, null, null);
    }

    /** The host image dimmed, differing and device-only texels painted over it. */
    public static BufferedImage diff(Image image, byte[] hostTexels, BitSet differing, BitSet deviceOnly) {
        return draw(image, hostTexels, differing, deviceOnly);
    }

    public static void write(BufferedImage picture, Path file) throws IOException {
        if (!ImageIO.write(picture, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JVM for " + file);
        }
    }

    private static BufferedImage draw(Image image, byte[] texels, BitSet differing, BitSet deviceOnly) {
        TexelChannels ch = TexelChannels.of(image.getDataFormat(), image.getNumericFormat());
        int bpt = TexelLayout.bytesPerTexel(image.getDataFormat());
        int w = image.getWidth();
        int h = image.getHeight();
        int planes = Math.max(1, image.getLayers()) * (image.getType() == ImageType.IMAGE_3D ? Math.max(1, image.getDepth()) : 1);
        BufferedImage out = new BufferedImage(w, h * planes, BufferedImage.TYPE_INT_RGB);
        for (int t = 0; t < w * h * planes; t++) {
            int at = t * bpt;
            int r = ch.display(0, ch.bits(texels, at, 0));
            int g = ch.count() > 1 ? ch.display(1, ch.bits(texels, at, 1)) : r;
            int b = ch.count() > 2 ? ch.display(2, ch.bits(texels, at, 2)) : ch.count() > 1 ? 0 : r;
            int rgb;
            if (differing != null && differing.get(t)) {
                rgb = DIFFERING;
            } else if (deviceOnly != null && deviceOnly.get(t)) {
                rgb = DEVICE_ONLY;
            } else if (differing != null) {
                rgb = (r / 3) << 16 | (g / 3) << 8 | b / 3;
            } else {
                rgb = r << 16 | g << 8 | b;
            }
            out.setRGB(t % w, t / w, rgb);
        }
        return out;
    }
}
