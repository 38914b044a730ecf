package org.replayfarm.coordinator.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.BitSet;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/** The diff/ picture a person opens: what differs is red, what only the device wrote is yellow, the rest dimmed. */
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
}
