package org.replayfarm.evalnode.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.StoreRun;

class MemoryMergeTest {
    private static InitialMemory memory(int bytes) {
        ByteBuffer initial = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        initial.putInt(0, 100);
        return new InitialMemory(List.of(new InitialMemory.Range(0, 0x1000, bytes, initial, "r")));
    }

    private static GroupResult group(int x, List<StoreRun> stores, List<AtomicContribution> atomics) {
        return new GroupResult(x, 0, 0, stores, List.of(), atomics, Optional.empty(), 0, 0, 0, 0, 0);
    }

    @Test
    void stores_land_over_the_initial_bytes_and_differing_stores_to_one_byte_are_conflicts() {
        MemoryMerge m = new MemoryMerge(memory(16), org.replayfarm.proto.Dispatch.newBuilder().setGroupCountX(8).setGroupCountY(1).setGroupCountZ(1).build());
        m.add(group(0, List.of(new StoreRun(0, 4, new byte[] {1, 2, 3})), List.of()));
        m.add(group(1, List.of(new StoreRun(0, 6, new byte[] {3, 9})), List.of()));
        m.add(group(2, List.of(new StoreRun(0, 7, new byte[] {9})), List.of()));
        assertArrayEquals(new byte[] {100, 0, 0, 0, 1, 2, 3, 9, 0, 0, 0, 0, 0, 0, 0, 0}, m.range(0));
        assertEquals(0, m.conflictCount(), "equal values are no conflict; nothing stored 7 before group 1");
        m.add(group(3, List.of(new StoreRun(0, 4, new byte[] {5})), List.of()));
        assertEquals(1, m.conflictCount());
        assertEquals(new MemoryMerge.StoreConflict(0, 4, "(0, 0, 0)", "(3, 0, 0)"), m.conflicts().get(0));
    }

    @Test
    void commutative_atomics_from_many_groups_combine_exactly_onto_the_initial_value() {
        MemoryMerge m = new MemoryMerge(memory(16), org.replayfarm.proto.Dispatch.newBuilder().setGroupCountX(8).setGroupCountY(1).setGroupCountZ(1).build());
        for (int g = 0; g < 5; g++) {
            m.add(group(g, List.of(), List.of(new AtomicContribution(0, 0, "add", 4, g + 1, 0, 0),
                    new AtomicContribution(0, 8, "umax", 4, 7 * g, 0, 0))));
        }
        assertEquals(List.of(), m.applyAtomics());
        ByteBuffer r = ByteBuffer.wrap(m.range(0)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(100 + 15, r.getInt(0));
        assertEquals(28, r.getInt(8));
    }

    @Test
    void a_swap_from_two_groups_on_one_location_is_reported_as_order_dependent() {
        MemoryMerge m = new MemoryMerge(memory(16), org.replayfarm.proto.Dispatch.newBuilder().setGroupCountX(8).setGroupCountY(1).setGroupCountZ(1).build());
        m.add(group(0, List.of(), List.of(new AtomicContribution(0, 12, "swap", 4, 1, 0, 0))));
        m.add(group(1, List.of(), List.of(new AtomicContribution(0, 12, "swap", 4, 2, 0, 0))));
        var dependent = m.applyAtomics();
        assertEquals(1, dependent.size());
        assertEquals(List.of("(0, 0, 0)", "(1, 0, 0)"), dependent.get(0).groups());
        assertEquals(2, ByteBuffer.wrap(m.range(0)).order(ByteOrder.LITTLE_ENDIAN).getInt(12), "applied in group order");
    }
}
