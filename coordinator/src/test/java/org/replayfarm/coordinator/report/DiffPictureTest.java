package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.BitSet;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/** The diff/ picture a person opens: what differs is red, what only the device wrote is yellow, the rest dimmed. */
@Tag("unit")
class DiffPictureTest {
    @Test
    void differing_texels_are_red_device_only_yellow_on_the_dimmed_host_image() throws Exception {
        Image image = Image.newBuilder().setType(ImageType.IMAGE_2D).setWidth(3).setHeight(2).setDepth(1).setLayers(1)
                .setMipLevels(1).setDataFormat(DataFormat.FMT_8_8_8_8).setNumericFormat(NumericFormat.NUM_UNORM).build();
        byte[] texels = new byte[3 * 2 * 4];
        for (int t = 0; t < 6; t++) {
            texels[4 * t] = (byte) (30 * t);       // red
            texels[4 * t + 1] = (byte) 150;        // green
            texels[4 * t + 2] = (byte) (255 - t);  // blue
            texels[4 * t + 3] = (byte) 0;          // alpha 0: the diff picture is opaque all the same
        }
        BitSet differing = new BitSet();
        differing.set(4); // (1, 1)
        BitSet deviceOnly = new BitSet();
        deviceOnly.set(2); // (2, 0)
        BufferedImage pic = ImageIO.read(new ByteArrayInputStream(DiffPicture.png(image, texels, differing, deviceOnly)));
        assertEquals(3, pic.getWidth());
        assertEquals(2, pic.getHeight());
        for (int t = 0; t < 6; t++) {
            int want = t == 4 ? 0xFF2020 : t == 2 ? 0xFFFF00 : (30 * t / 3) << 16 | 50 << 8 | (255 - t) / 3;
            assertEquals(0xFF000000 | want, pic.getRGB(t % 3, t / 3), "texel " + t);
        }
    }

    /** The bulk drawing gives the pixels of the plain one (getRGB/setRGB per texel), over every kind of host picture. */
    @Test
    void the_drawing_matches_a_texel_by_texel_one() {
        java.util.Random random = new java.util.Random(15);
        for (int type : new int[] {BufferedImage.TYPE_INT_ARGB, BufferedImage.TYPE_INT_RGB, BufferedImage.TYPE_BYTE_GRAY,
                BufferedImage.TYPE_4BYTE_ABGR, BufferedImage.TYPE_USHORT_GRAY}) {
            int w = 37;
            int h = 23;
            BufferedImage host = new BufferedImage(w, h, type);
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    host.setRGB(x, y, random.nextInt());
                }
            }
            BitSet differing = new BitSet();
            BitSet deviceOnly = new BitSet();
            for (int t = 0; t < w * h + 40; t++) { // bits past the picture (other planes) are not drawn
                if (random.nextInt(7) == 0) {
                    differing.set(t);
                }
                if (random.nextInt(5) == 0) {
                    deviceOnly.set(t); // some texels are in both: differing wins
                }
            }
            BufferedImage drawn = DiffPicture.draw(host, differing, deviceOnly);
            for (int t = 0; t < w * h; t++) {
                int c = host.getRGB(t % w, t / w);
                int want = differing.get(t) ? DiffPicture.DIFFERING : deviceOnly.get(t) ? DiffPicture.DEVICE_ONLY
                        : (c >>> 16 & 0xFF) / 3 << 16 | (c >>> 8 & 0xFF) / 3 << 8 | (c & 0xFF) / 3;
                assertEquals(0xFF000000 | want, drawn.getRGB(t % w, t / w), "type " + type + " texel " + t);
            }
        }
    }
}
