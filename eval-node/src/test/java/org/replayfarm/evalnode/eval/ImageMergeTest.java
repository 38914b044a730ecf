package org.replayfarm.evalnode.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.cluster.SliceCodec;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;

@Tag("unit")
class ImageMergeTest {
    private static GroupResult group(int x, TexelStore... texels) {
        return new GroupResult(x, 0, 0, List.of(), List.of(texels), List.of(), Optional.empty(), 0, 0, 0, 0, 0);
    }

    @Test
    void storesLandInOrderConflictsAreCountedAndStorersKept() {
        Image meta = Image.newBuilder().setIndex(0).setType(ImageType.IMAGE_2D).setDataFormat(DataFormat.FMT_16)
                .setWidth(4).setHeight(2).setDepth(1).setLayers(1).setMipLevels(1).build();
        byte[] initial = new byte[16];
        for (int i = 0; i < 16; i++) {
            initial[i] = (byte) (0xA0 + i);
        }
        InitialImages images = new InitialImages(List.of(new InitialImages.Entry(0, meta, ByteBuffer.wrap(initial))));
        ImageMerge merge = new ImageMerge(images, Dispatch.newBuilder().setGroupCountX(3).setGroupCountY(1)
                .setGroupCountZ(1).build());
        merge.add(group(0, new TexelStore(0, 1, new byte[] {1, 2}), new TexelStore(0, 5, new byte[] {7, 7})));
        // group 1 stores texel 5 again with the same value (no conflict) and texel 1 with another (conflict)
        merge.add(group(1, new TexelStore(0, 5, new byte[] {7, 7}), new TexelStore(0, 1, new byte[] {3, 4})));
        byte[] expected = initial.clone();
        expected[2] = 3;
        expected[3] = 4;
        expected[10] = 7;
        expected[11] = 7;
        assertArrayEquals(expected, merge.texels(0));
        assertEquals(1, merge.conflictCount());
        ImageMerge.TexelConflict c = merge.conflicts().get(0);
        assertEquals(new TexelLayout.Texel(0, 0, 1, 0, 0), c.at());
        assertEquals("(0, 0, 0)", c.firstGroup());
        assertEquals("(1, 0, 0)", c.secondGroup());
        assertEquals(2, merge.storers(0)[1]);
        assertEquals(2, merge.storers(0)[5]);
        assertEquals(0, merge.storers(0)[0]);
    }

    @Test
    void texelStoresSurviveTheWire() {
        GroupResult g = group(2, new TexelStore(1, 77, new byte[] {9, 8, 7, 6}));
        GroupResult back = SliceCodec.decode(SliceCodec.encode(g));
        assertEquals(1, back.texels().size());
        assertEquals(1, back.texels().get(0).image());
        assertEquals(77, back.texels().get(0).texel());
        assertArrayEquals(new byte[] {9, 8, 7, 6}, back.texels().get(0).value());
    }

    @Test
    void image_atomics_apply_after_stores_and_another_groups_store_makes_them_order_dependent() {
        Image meta = Image.newBuilder().setIndex(0).setType(ImageType.IMAGE_2D).setDataFormat(DataFormat.FMT_32)
                .setWidth(4).setHeight(1).setDepth(1).setLayers(1).setMipLevels(1).build();
        ByteBuffer initial = ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 4; i++) {
            initial.putInt(100 * (i + 1));
        }
        InitialImages images = new InitialImages(List.of(new InitialImages.Entry(0, meta, ByteBuffer.wrap(initial.array()))));
        ImageMerge merge = new ImageMerge(images, Dispatch.newBuilder().setGroupCountX(3).setGroupCountY(1)
                .setGroupCountZ(1).build());
        // group 0 stores 10 into texel 1; group 1 adds 5 there; groups 1 and 2 umax texel 3 with 7 and 900
        merge.add(group(0, new TexelStore(0, 1, new byte[] {10, 0, 0, 0})));
        merge.add(new GroupResult(1, 0, 0, List.of(), List.of(), List.of(), List.of(
                new org.replayfarm.evalnode.hostmodel.TexelAtomic(0, 1, "add", 4, 5, 0, 10),
                new org.replayfarm.evalnode.hostmodel.TexelAtomic(0, 3, "umax", 4, 7, 0, 400)),
                Optional.empty(), 0, 0, 0, 0, 0));
        merge.add(new GroupResult(2, 0, 0, List.of(), List.of(), List.of(), List.of(
                new org.replayfarm.evalnode.hostmodel.TexelAtomic(0, 3, "umax", 4, 900, 0, 400)),
                Optional.empty(), 0, 0, 0, 0, 0));
        List<ImageMerge.OrderDependent> dependent = merge.applyAtomics();
        ByteBuffer out = ByteBuffer.wrap(merge.texels(0)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(100, out.getInt(0));
        assertEquals(15, out.getInt(4));
        assertEquals(300, out.getInt(8));
        assertEquals(900, out.getInt(12));
        assertEquals(0, merge.conflictCount());
        assertEquals(1, dependent.size(), dependent.toString());
        assertEquals(1, dependent.get(0).texel());
        assertEquals(true, dependent.get(0).afterStore());
        assertEquals(List.of("(0, 0, 0)", "(1, 0, 0)"), dependent.get(0).groups());
        assertEquals(2, merge.storers(0)[1]);
        assertEquals(3, merge.storers(0)[3]);
    }
}
