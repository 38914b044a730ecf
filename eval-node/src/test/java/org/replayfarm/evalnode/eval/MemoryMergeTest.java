package org.replayfarm.evalnode.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.StoreRun;

@Tag("unit")
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

    private static MemoryMerge merge() {
        return new MemoryMerge(memory(16), org.replayfarm.proto.Dispatch.newBuilder().setGroupCountX(8).setGroupCountY(1)
                .setGroupCountZ(1).build());
    }

    /**
     * The defect seed 32001 (wave32) of the translator's MemoryDifferentialTest found: one location's atomics of
     * different widths were all replayed at the first one's width. Expected values by hand: 100 + 1 = 101 at 4
     * bytes, then 101 + 0xFFFFFFFF at 8 bytes = 0x1_0000_0064 (the carry reaches the high dword).
     */
    @Test
    void atomics_of_different_widths_on_one_location_apply_each_at_its_own_width_in_group_order() {
        MemoryMerge m = merge();
        m.add(group(0, List.of(), List.of(new AtomicContribution(0, 0, "add", 4, 1, 0, 0))));
        m.add(group(1, List.of(), List.of(new AtomicContribution(0, 0, "add", 8, 0xFFFF_FFFFL, 0, 0))));
        var dependent = m.applyAtomics();
        ByteBuffer r = ByteBuffer.wrap(m.range(0)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x1_0000_0064L, r.getLong(0));
        // the other order gives 0x0_0000_0064 (a 4-byte add never carries): the result depends on the groups' order
        assertEquals(1, dependent.size());
        assertEquals(List.of("(0, 0, 0)", "(1, 0, 0)"), dependent.get(0).groups());
        assertEquals(List.of(1, 2), m.atomicContributors(0, 4), "the 8-byte atomic covers byte 4; both groups shaped it");
    }

    @Test
    void overlapping_atomics_at_different_offsets_follow_group_then_program_order() {
        MemoryMerge m = merge();
        // group 0: swap 7 into bytes 4-7, then an 8-byte add of 1 << 32 + 2 over bytes 0-7
        m.add(group(0, List.of(), List.of(new AtomicContribution(0, 4, "swap", 4, 7, 0, 0),
                new AtomicContribution(0, 0, "add", 8, (1L << 32) + 2, 0, 0))));
        // group 1: a 4-byte add of 5 to bytes 4-7
        m.add(group(1, List.of(), List.of(new AtomicContribution(0, 4, "add", 4, 5, 0, 0))));
        m.applyAtomics();
        ByteBuffer r = ByteBuffer.wrap(m.range(0)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(102, r.getInt(0));
        assertEquals(7 + 1 + 5, r.getInt(4));
    }

    @Test
    void same_width_commutative_atomics_stay_order_independent_but_mixed_ops_are_reported() {
        MemoryMerge m = merge();
        m.add(group(0, List.of(), List.of(new AtomicContribution(0, 0, "add", 4, 3, 0, 0))));
        m.add(group(1, List.of(), List.of(new AtomicContribution(0, 0, "sub", 4, 1, 0, 0))));
        assertEquals(List.of(), m.applyAtomics());
        assertEquals(102, ByteBuffer.wrap(m.range(0)).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        MemoryMerge x = merge();
        x.add(group(0, List.of(), List.of(new AtomicContribution(0, 0, "add", 4, 1, 0, 0))));
        x.add(group(1, List.of(), List.of(new AtomicContribution(0, 0, "xor", 4, 1, 0, 0))));
        assertEquals(1, x.applyAtomics().size(), "(100 + 1) ^ 1 differs from (100 ^ 1) + 1");
        assertEquals((100 + 1) ^ 1, ByteBuffer.wrap(x.range(0)).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
    }

    /**
     * Two groups' compare-and-swaps on one location, each made against the initial value: the merge names both as
     * the groups to run again; replaced by their in-order results (the second against the first's value), the
     * merged value is the sum both orders' loops build, where the first results kept only the first group's.
     */
    @Test
    void groups_run_again_in_order_replace_their_first_results() {
        MemoryMerge m = new MemoryMerge(memory(16), org.replayfarm.proto.Dispatch.newBuilder().setGroupCountX(8).setGroupCountY(1).setGroupCountZ(1).build());
        m.add(group(0, List.of(), List.of(new AtomicContribution(0, 4, "add", 4, 1, 0, 0))));
        m.add(group(2, List.of(), List.of(new AtomicContribution(0, 0, "cmpswap", 4, 110, 100, 100))));
        m.add(group(3, List.of(new StoreRun(0, 12, new byte[] {1})), List.of()));
        m.add(group(5, List.of(), List.of(new AtomicContribution(0, 0, "cmpswap", 4, 105, 100, 100))));
        assertEquals(List.of(3, 6), m.orderDependentGroups(), "the keys (linear id + 1) of groups 2 and 5, in order");
        m.replace(group(5, List.of(new StoreRun(0, 13, new byte[] {7})),
                List.of(new AtomicContribution(0, 0, "cmpswap", 4, 115, 110, 110))));
        var dependent = m.applyAtomics();
        ByteBuffer r = ByteBuffer.wrap(m.range(0)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(115, r.getInt(0), "group 5's swap, made against group 2's value, succeeds after it");
        assertEquals(1, r.getInt(4), "other groups' atomics stay");
        assertEquals(7, m.range(0)[13], "the replacing result's stores land");
        assertEquals(1, dependent.size());
        assertEquals(2, dependent.get(0).changes());
        assertEquals(m.orderDependentAt(0, 2), dependent.get(0), "a byte inside the location finds it");
        assertEquals(null, m.orderDependentAt(0, 4));
    }
}
