package org.replayfarm.evalnode.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.proto.GroupId;
import org.replayfarm.proto.GroupOutcome;
import org.replayfarm.proto.TexelStoreBatch;
import org.replayfarm.proto.TexelStoreMessage;

/**
 * A group's texel stores cross the wire as batches (one message per run of stores to one image with one texel
 * size, not one per texel) and come back as the same stores in the same order: images and widths changing in
 * the middle, a texel stored twice (the later store wins in the merge, so the order must survive), texels far
 * apart. Outcomes in the older form (one message per texel, as a journal written before may hold) still decode.
 */
@Tag("unit")
class SliceCodecTest {
    private static GroupResult group(List<TexelStore> texels) {
        return new GroupResult(3, 1, 0, List.of(), texels, List.of(), List.of(), Optional.empty(), 5, 160, 5, 0, 0);
    }

    @Test
    void texel_stores_come_back_in_order_from_batches() {
        List<TexelStore> stores = List.of(
                new TexelStore(0, 10, new byte[] {1, 2, 3, 4}),
                new TexelStore(0, 11, new byte[] {5, 6, 7, 8}),
                new TexelStore(0, 10, new byte[] {9, 9, 9, 9}), // stored again, later: order matters
                new TexelStore(1, 2_073_599, new byte[] {42}), // another image, another width
                new TexelStore(1, 0, new byte[] {43}),
                new TexelStore(0, 1L << 33, new byte[] {1, 1, 1, 1}), // back to the first image
                new TexelStore(0, 12, new byte[] {0, 0, 0, 0, 0, 0, 0, 2})); // a wider texel, same image
        GroupOutcome wire = SliceCodec.encode(group(stores));
        assertEquals(0, wire.getTexelsCount(), "no per-texel messages are written");
        assertEquals(4, wire.getTexelBatchesCount(), "a batch per run of one image and one width");
        assertEquals(List.of(10L, 11L, 10L), wire.getTexelBatches(0).getTexelsList());
        GroupResult back = SliceCodec.decode(wire);
        assertEquals(stores.size(), back.texels().size());
        for (int i = 0; i < stores.size(); i++) {
            assertEquals(stores.get(i).image(), back.texels().get(i).image(), "store " + i);
            assertEquals(stores.get(i).texel(), back.texels().get(i).texel(), "store " + i);
            assertArrayEquals(stores.get(i).value(), back.texels().get(i).value(), "store " + i);
        }
        assertTrue(SliceCodec.encode(group(List.of())).getTexelBatchesList().isEmpty());
    }

    @Test
    void older_per_texel_outcomes_still_decode_and_a_short_batch_is_refused() {
        GroupOutcome old = GroupOutcome.newBuilder().setGroup(GroupId.newBuilder().setX(1))
                .addTexels(TexelStoreMessage.newBuilder().setImage(2).setTexel(7).setValue(ByteString.copyFrom(new byte[] {3, 4})))
                .build();
        GroupResult back = SliceCodec.decode(old);
        assertEquals(1, back.texels().size());
        assertEquals(7, back.texels().get(0).texel());
        assertArrayEquals(new byte[] {3, 4}, back.texels().get(0).value());

        GroupOutcome shortBatch = GroupOutcome.newBuilder().addTexelBatches(TexelStoreBatch.newBuilder().setImage(0)
                .setBytesPerTexel(4).addTexels(1).addTexels(2).setValues(ByteString.copyFrom(new byte[4]))).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SliceCodec.decode(shortBatch));
        assertTrue(e.getMessage().contains("4 value bytes for 2 texels of 4 bytes"), e.getMessage());
    }
}
