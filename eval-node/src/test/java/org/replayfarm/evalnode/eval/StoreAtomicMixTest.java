package org.replayfarm.evalnode.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.memory.GroupMemory;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;
import org.replayfarm.proto.Dispatch;

/**
 * A group that stores and applies atomics to the same bytes: the merge must end with what the group saw
 * (the merge applies atomics after all stores, so the memory records them as stores where they meet).
 */
@Tag("unit")
class StoreAtomicMixTest {
    private static final long BASE = 0x1_0000_0000L;

    private static InitialMemory memory() {
        byte[] init = new byte[32];
        for (int i = 0; i < 32; i++) {
            init[i] = (byte) (i + 1);
        }
        return new InitialMemory(List.of(new InitialMemory.Range(0, BASE, 32,
                ByteBuffer.wrap(init).order(ByteOrder.LITTLE_ENDIAN), "buf")));
    }

    private static byte[] merged(InitialMemory init, GroupMemory... groups) {
        MemoryMerge merge = new MemoryMerge(init, Dispatch.newBuilder().setGroupCountX(groups.length)
                .setGroupCountY(1).setGroupCountZ(1).build());
        for (int g = 0; g < groups.length; g++) {
            merge.add(new GroupResult(g, 0, 0, groups[g].stores(), List.of(), groups[g].atomics(), Optional.empty(),
                    0, 0, 0, 0, 0));
        }
        merge.applyAtomics();
        return merge.range(0);
    }

    /** What the group sees at {@code offset}: the oracle for the merge (one group: no race). */
    private static long seen(GroupMemory g, int offset, int bytes) {
        return g.load(BASE + offset, bytes, 0);
    }

    @Test
    void store_then_atomic_then_store_merge_to_what_the_group_saw() {
        InitialMemory init = memory();
        GroupMemory g = new GroupMemory(init);
        // store 1000 at 0, then add 5 (the atomic sees 1000): the group ends with 1005
        g.store(BASE, 1000, 4, 0);
        long old = g.load(BASE, 4, 0);
        g.atomic(BASE, old + 5, 4, 0, "add", 5, 0, old);
        // add 7 at 8 (initial value), then store 3 over its low byte only
        long old8 = g.load(BASE + 8, 4, 0);
        g.atomic(BASE + 8, old8 + 7, 4, 0, "add", 7, 0, old8);
        g.store(BASE + 8, 3, 1, 0);
        // an 8-byte atomic at 16 and a 4-byte one at 20, then a store to byte 16: both become stores
        long old16 = g.load(BASE + 16, 8, 0);
        g.atomic(BASE + 16, old16 ^ 0xFF00_0000_0000L, 8, 0, "xor", 0xFF00_0000_0000L, 0, old16);
        long old20 = g.load(BASE + 20, 4, 0);
        g.atomic(BASE + 20, old20 + 1, 4, 0, "add", 1, 0, old20);
        g.store(BASE + 16, 0x55, 1, 0);
        // a plain atomic nobody stores near stays a contribution
        long old28 = g.load(BASE + 28, 4, 0);
        g.atomic(BASE + 28, old28 | 0x100, 4, 0, "or", 0x100, 0, old28);
        assertEquals(1005, seen(g, 0, 4));
        assertEquals(1, g.atomics().size(), "only the atomic at 28 is still a contribution");
        byte[] out = merged(init, g);
        for (int off = 0; off < 32; off += 4) {
            assertEquals(seen(g, off, 4), MemoryOps.littleEndian(out, off, 4), "dword at " + off);
        }
    }

    @Test
    void atomics_of_different_groups_still_combine_when_no_group_stores_there() {
        InitialMemory init = memory();
        GroupMemory a = new GroupMemory(init);
        GroupMemory b = new GroupMemory(init);
        long v = a.load(BASE + 4, 4, 0);
        a.atomic(BASE + 4, v + 10, 4, 0, "add", 10, 0, v);
        b.atomic(BASE + 4, v + 20, 4, 0, "add", 20, 0, v);
        assertEquals(v + 30, MemoryOps.littleEndian(merged(init, a, b), 4, 4));
    }
}
