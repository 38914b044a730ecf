package org.replayfarm.model.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/**
 * {@link ImagePng#picture}'s row-at-a-time path for 8-bit UNORM/sRGB formats gives every texel the samples
 * {@link TexelCodec#unpack} reads from its bytes (what the per-texel path copies), in every band, for one, two
 * and four channels and a 2D array (slices stacked).
 */
@Tag("unit")
class ImagePngTest {
    @Test
    void eight_bit_pictures_hold_the_texels_channels() {
        Random random = new Random(15);
        for (DataFormat d : new DataFormat[] {DataFormat.FMT_8, DataFormat.FMT_8_8, DataFormat.FMT_8_8_8_8}) {
            for (NumericFormat n : new NumericFormat[] {NumericFormat.NUM_UNORM, NumericFormat.NUM_SRGB}) {
                Image image = Image.newBuilder().setType(ImageType.IMAGE_2D_ARRAY).setDataFormat(d).setNumericFormat(n)
                        .setWidth(7).setHeight(5).setDepth(1).setLayers(2).setMipLevels(1).build();
                ImageFormat f = new ImageFormat(d, n);
                byte[] texels = new byte[7 * 5 * 2 * f.bytesPerTexel()];
                random.nextBytes(texels);
                BufferedImage p = ImagePng.picture(image, texels);
                assertEquals(10, p.getHeight());
                int bands = p.getRaster().getNumBands();
                assertEquals(f.channels() == 2 ? 3 : f.channels(), bands, d + " bands");
                for (int y = 0; y < 10; y++) {
                    for (int x = 0; x < 7; x++) {
                        long[] raw = TexelCodec.unpack(f, texels, (y * 7 + x) * f.bytesPerTexel());
                        for (int c = 0; c < bands; c++) {
                            long want = c < raw.length ? raw[c] : 0;
                            assertEquals(want, p.getRaster().getSample(x, y, c), d + " " + n + " texel " + x + "," + y + " band " + c);
                        }
                    }
                }
            }
        }
    }
}
