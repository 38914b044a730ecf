package org.replayfarm.model.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.ChannelSelect;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/** T# and S# words to fields and back; a captured image's T#; resolution of a T# to a captured image. */
@Tag("unit")
class DescriptorRoundTripTest {
    @Test
    void random_t_sharp_words_survive_decode_and_encode() {
        Random r = new Random(1);
        for (int i = 0; i < 2000; i++) {
            int[] w = new int[8];
            for (int k = 0; k < 8; k++) {
                w[k] = r.nextInt();
            }
            // fields the layout leaves unused are not kept
            w[1] &= ~(1 << 29);
            w[2] &= ~(3 << 12 | 7 << 28);
            w[4] &= 0x3FFF | 0x1FFF << 16;
            w[5] &= 0xFF;
            assertArrayEquals(w, ImageDescriptor.decode(w).encode());
            int[] narrow = java.util.Arrays.copyOf(w, 4);
            assertArrayEquals(narrow, ImageDescriptor.decode(narrow).encode());
        }
    }

    @Test
    void a_t_sharp_field_by_field() {
        // 2D 640x480 8_8_8_8_UNORM at 0x1_2345_6700, dst_sel ZYXW, levels 0..3, pitch 640
        int[] w = {0x01234567, 56 << 20 | 3 << 30, (639 >>> 2) | 479 << 14 | 1 << 31,
                6 | 5 << 3 | 4 << 6 | 7 << 9 | 3 << 16 | 9 << 28, 639, 3 << 4, 0, 0};
        ImageDescriptor d = ImageDescriptor.decode(w);
        assertEquals(0x1_2345_6700L, d.baseAddress());
        assertEquals(640, d.width());
        assertEquals(480, d.height());
        assertEquals(new ImageFormat(DataFormat.FMT_8_8_8_8, NumericFormat.NUM_UNORM), d.imageFormat());
        assertArrayEquals(new int[] {6, 5, 4, 7}, d.dstSel());
        assertEquals(ImageType.IMAGE_2D, d.imageType());
        assertEquals(4, d.levels());
        assertEquals(1, d.layers());
        assertEquals(1, d.depth());
    }

    @Test
    void random_s_sharp_words_survive_decode_and_encode() {
        Random r = new Random(2);
        for (int i = 0; i < 2000; i++) {
            int[] w = {r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()};
            assertArrayEquals(w, SamplerDescriptor.decode(w).encode());
        }
        SamplerDescriptor s = SamplerDescriptor.decode(new int[] {2 | 7 << 3 | 1 << 6 | 1 << 15, 0x0FF100,
                0x3FFF | 1 << 20 | 1 << 22, 2 << 30});
        assertEquals(SamplerDescriptor.AddressMode.CLAMP_LAST_TEXEL, s.clampX());
        assertEquals(SamplerDescriptor.AddressMode.MIRROR_ONCE_BORDER, s.clampY());
        assertEquals(SamplerDescriptor.AddressMode.MIRROR, s.clampZ());
        assertTrue(s.forceUnnormalized());
        assertEquals(1.0, s.minLodLevel());
        assertEquals(255 / 256.0, s.maxLodLevel());
        assertEquals(-1, s.lodBias());
        assertEquals(SamplerDescriptor.Filter.BILINEAR, s.magFilter());
        assertArrayEquals(new float[] {1, 1, 1, 1}, s.borderRgba());
    }

    private static Image image(int index, long address, int w, int h, DataFormat f, ImageType type, int layers) {
        return Image.newBuilder().setIndex(index).setGuestAddress(address).setType(type).setDataFormat(f)
                .setNumericFormat(NumericFormat.NUM_UNORM).setWidth(w).setHeight(h).setDepth(1).setLayers(layers)
                .setMipLevels(1).setName("i" + index).addAllChannelOrder(List.of(ChannelSelect.SEL_Z, ChannelSelect.SEL_Y,
                        ChannelSelect.SEL_X, ChannelSelect.SEL_W)).build();
    }

    @Test
    void a_captured_image_gives_a_t_sharp_that_names_it_back() {
        Image a = image(0, 0x2_0000_0000L, 64, 32, DataFormat.FMT_8_8_8_8, ImageType.IMAGE_2D_ARRAY, 3);
        ImageDescriptor d = ImageDescriptor.of(a);
        assertEquals(3, d.layers());
        assertArrayEquals(new int[] {6, 5, 4, 7}, d.dstSel());
        assertEquals(ImageType.IMAGE_2D_ARRAY, d.imageType());
        assertEquals(0, new ImageResolver(List.of(a)).resolve(ImageDescriptor.decode(d.encode())));
    }

    @Test
    void without_an_address_match_extent_layers_and_format_must_name_exactly_one_image() {
        Image a = image(0, 0x2_0000_0000L, 64, 32, DataFormat.FMT_8_8_8_8, ImageType.IMAGE_2D, 1);
        Image b = image(1, 0x3_0000_0000L, 64, 32, DataFormat.FMT_16, ImageType.IMAGE_2D, 1);
        Image c = image(2, 0x4_0000_0000L, 64, 32, DataFormat.FMT_16, ImageType.IMAGE_2D, 1);
        ImageDescriptor moved = new ImageDescriptor(0x9_0000_0000L, 0, ImageDescriptor.of(a).format(), 64, 32, true,
                new int[] {4, 5, 6, 7}, 0, 0, 0, 0, ImageDescriptor.TYPE_2D, 63, 0, 0, 0, 0, 0, true);
        assertEquals(0, new ImageResolver(List.of(a, b, c)).resolve(moved));
        ImageDescriptor ambiguous = new ImageDescriptor(0x9_0000_0000L, 0, ImageDescriptor.of(b).format(), 64, 32, true,
                new int[] {4, 5, 6, 7}, 0, 0, 0, 0, ImageDescriptor.TYPE_2D, 63, 0, 0, 0, 0, 0, true);
        var e = assertThrows(IllegalArgumentException.class, () -> new ImageResolver(List.of(a, b, c)).resolve(ambiguous));
        assertTrue(e.getMessage().contains("2 match") && e.getMessage().contains("image 1") && e.getMessage().contains("image 2"),
                e.getMessage());
        ImageDescriptor none = new ImageDescriptor(0x9_0000_0000L, 0, ImageDescriptor.of(a).format(), 65, 32, true,
                new int[] {4, 5, 6, 7}, 0, 0, 0, 0, ImageDescriptor.TYPE_2D, 64, 0, 0, 0, 0, 0, true);
        e = assertThrows(IllegalArgumentException.class, () -> new ImageResolver(List.of(a, b, c)).resolve(none));
        assertTrue(e.getMessage().contains("none matches") && e.getMessage().contains("image 0"), e.getMessage());
    }

    @Test
    void packed_formats_lay_channel_x_in_the_low_bits() {
        ImageFormat rgb10a2 = ImageFormat.parse("2_10_10_10_UNORM");
        long[] raw = TexelCodec.unpack(rgb10a2, new byte[] {(byte) 0xFF, 0x03, 0, (byte) 0xC0}, 0);
        assertArrayEquals(new long[] {0x3FF, 0, 0, 3}, raw);
        ImageFormat a2 = ImageFormat.parse("10_10_10_2_UINT");
        assertArrayEquals(new long[] {3, 0, 0, 0x3FF}, TexelCodec.unpack(a2, new byte[] {3, 0, (byte) 0xC0, (byte) 0xFF}, 0));
        // 8_8_8_8_SRGB: alpha is linear
        int[] regs = TexelCodec.decode(ImageFormat.parse("8_8_8_8_SRGB"), new byte[] {(byte) 255, 0, 0, (byte) 128}, 0);
        assertEquals(1.0f, Float.intBitsToFloat(regs[0]));
        assertEquals(128 / 255f, Float.intBitsToFloat(regs[3]));
        // missing channels read 0, 0, 0, 1
        int[] one = TexelCodec.decode(ImageFormat.parse("8_UINT"), new byte[] {7}, 0);
        assertArrayEquals(new int[] {7, 0, 0, 1}, one);
        assertThrows(IllegalArgumentException.class, () -> ImageFormat.parse("8_FLOAT"));
    }

    @Test
    void aMultisampledImagesTSharpIsTheMsaaTypeWithLog2SamplesInLastLevel() {
        Image ms = Image.newBuilder().setType(ImageType.IMAGE_2D_ARRAY).setDataFormat(DataFormat.FMT_8_8_8_8)
                .setNumericFormat(NumericFormat.NUM_UNORM).setWidth(4).setHeight(4).setLayers(2).setMipLevels(1)
                .setSamples(8).setGuestAddress(0x10000).build();
        int[] w = ImageDescriptor.of(ms).encode();
        assertEquals(ImageDescriptor.TYPE_2D_MSAA_ARRAY, w[3] >>> 28);
        assertEquals(3, w[3] >>> 16 & 0xF, "LAST_LEVEL");
        assertEquals(3, w[5] >>> 4 & 0xF, "MAX_MIP");
        assertEquals(1, w[4] & 0x3FFF, "the last slice");
        ImageDescriptor d = ImageDescriptor.decode(w);
        assertEquals(8, d.samples());
        assertEquals(1, d.levels());
        assertEquals(2, d.layers());
        assertEquals(ImageType.IMAGE_2D_ARRAY, d.imageType());
        assertEquals(ImageDescriptor.TYPE_2D_MSAA,
                ImageDescriptor.of(ms.toBuilder().setType(ImageType.IMAGE_2D).setLayers(1).build()).type());
    }
}
