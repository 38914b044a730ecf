package org.replayfarm.gpunode.translate.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/** The image section's layout as rt_image.h reads it, written down here field by field, and its errors. */
@Tag("unit")
class ImageBundleTest {
    private static Image image(int index, ImageType type, DataFormat f, int w, int h, int d, int layers, int mips) {
        return Image.newBuilder().setIndex(index).setGuestAddress(0x1000L * (index + 1)).setType(type).setDataFormat(f)
                .setNumericFormat(NumericFormat.NUM_UNORM).setWidth(w).setHeight(h).setDepth(d).setLayers(layers)
                .setMipLevels(mips).setName("i" + index).build();
    }

    @Test
    void records_and_texels_lie_where_the_header_says() {
        Image a = image(0, ImageType.IMAGE_2D, DataFormat.FMT_8, 3, 1, 1, 1, 1);           // 3 bytes
        Image b = image(1, ImageType.IMAGE_2D_ARRAY, DataFormat.FMT_16_16, 2, 2, 0, 3, 2); // (4 + 1) * 3 * 4 bytes
        byte[] ta = {1, 2, 3};
        byte[] tb = new byte[60];
        for (int i = 0; i < tb.length; i++) {
            tb[i] = (byte) (100 + i);
        }
        byte[] s = ImageBundle.section(List.of(a, b), List.of(ByteBuffer.wrap(ta), ByteBuffer.wrap(tb)));
        ByteBuffer x = ByteBuffer.wrap(s).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x474D4952, x.getInt(0));
        assertEquals(1, x.getInt(4));
        assertEquals(2, x.getInt(8));
        assertEquals(16, x.getInt(12));
        int r = 16 + 64; // record 1
        assertEquals(0x2000L, x.getLong(r));
        assertEquals(1, x.getInt(r + 8));
        assertEquals(13, x.getInt(r + 12), "T# TYPE of a 2D array");
        assertEquals(DataFormat.FMT_16_16_VALUE, x.getInt(r + 16));
        assertEquals(NumericFormat.NUM_UNORM_VALUE, x.getInt(r + 20));
        assertArrayEquals(new int[] {2, 2, 1, 3, 2, 4}, new int[] {x.getInt(r + 24), x.getInt(r + 28), x.getInt(r + 32),
                x.getInt(r + 36), x.getShort(r + 40), x.getInt(r + 44)}, "extents (depth at least 1), levels, bpt");
        assertEquals(1, x.getShort(r + 42), "samples a texel of a single-sampled image");
        long offA = x.getLong(16 + 48);
        long offB = x.getLong(r + 48);
        assertEquals(144, offA, "texels after the records, 16-aligned");
        assertEquals(160, offB);
        assertEquals(60, x.getLong(r + 56));
        assertEquals(1, s[(int) offA]);
        assertEquals((byte) 100, s[(int) offB]);
        var back = ImageBundle.texels(ByteBuffer.wrap(s));
        assertEquals(List.of(0, 1), List.copyOf(back.keySet()));
        byte[] got = new byte[60];
        back.get(1).duplicate().get(got);
        assertArrayEquals(tb, got);
        assertEquals(0, ImageBundle.section(List.of(), List.of()).length);
        assertTrue(ImageBundle.texels(ByteBuffer.allocate(0)).isEmpty());
    }

    @Test
    void texel_counts_and_sections_that_do_not_fit_are_refused_naming_the_image() {
        Image a = image(0, ImageType.IMAGE_2D, DataFormat.FMT_8, 3, 1, 1, 1, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ImageBundle.section(List.of(a), List.of(ByteBuffer.allocate(4))));
        assertTrue(e.getMessage().contains("image 0 ('i0'): 4 texel bytes, its extents and format take 3"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ImageBundle.texels(ByteBuffer.wrap(new byte[20])));
        byte[] s = ImageBundle.section(List.of(a), List.of(ByteBuffer.allocate(3)));
        e = assertThrows(IllegalArgumentException.class, () -> ImageBundle.texels(ByteBuffer.wrap(s, 0, s.length - 2).slice()));
        assertTrue(e.getMessage().contains("past the section"), e.getMessage());
    }
}
