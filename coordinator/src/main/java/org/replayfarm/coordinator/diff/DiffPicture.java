package org.replayfarm.coordinator.diff;

import java.awt.image.BufferedImage;
import java.util.BitSet;
import org.replayfarm.model.image.ImagePng;
import org.replayfarm.proto.Image;

/**
 * The diff drawing of an image's level 0: the host picture ({@link ImagePng#picture}) dimmed to a third and
 * made opaque, differing texels painted {@link #DIFFERING}, device-only texels {@link #DEVICE_ONLY}.
 * Texel t of the bit sets is texel t of the image's layout (level 0 first, planes stacked top to bottom).
 */
public final class DiffPicture {
    /** Colour of a texel whose host and device values differ. */
    public static final int DIFFERING = 0xFF2020;
    /** Colour of a texel the device changed that no host store wrote. */
    public static final int DEVICE_ONLY = 0xFFFF00;

    private DiffPicture() {
    }

    /** The picture as a PNG file's bytes. */
    public static byte[] png(Image image, byte[] hostTexels, BitSet differing, BitSet deviceOnly) {
        return ImagePng.png(draw(image, hostTexels, differing, deviceOnly));
    }

    static BufferedImage draw(Image image, byte[] hostTexels, BitSet differing, BitSet deviceOnly) {
        return draw(ImagePng.picture(image, hostTexels), differing, deviceOnly);
    }

    /** The drawing over a given host picture (a normalised float image's). */
    static BufferedImage draw(BufferedImage host, BitSet differing, BitSet deviceOnly) {
        int w = host.getWidth();
        int h = host.getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int t = 0; t < w * h; t++) {
            int rgb;
            if (differing.get(t)) {
                rgb = DIFFERING;
            } else if (deviceOnly.get(t)) {
                rgb = DEVICE_ONLY;
            } else {
                int c = host.getRGB(t % w, t / w);
                rgb = (c >>> 16 & 0xFF) / 3 << 16 | (c >>> 8 & 0xFF) / 3 << 8 | (c & 0xFF) / 3;
            }
            out.setRGB(t % w, t / w, rgb);
        }
        return out;
    }
}
