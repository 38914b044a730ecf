package org.replayfarm.evalnode.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The backward slice of a store, against the slice read by hand off the saxpy listing (llvm-objdump-19's, as
 * examples/saxpy/README.md shows it): y[i] = a * x[i] + y[i] stored at 0x100060088 depends on the fmac, both loads,
 * the address arithmetic, the scalar loads of a, x, y, and the branch that chose its path (s_cbranch_execz) with the
 * EXEC it read; not on the waits or the clause marker.
 */
@Tag("unit")
class SliceTest {
    @Test
    void the_slice_of_saxpys_store_is_what_reached_its_value_and_address() throws Exception {
        CaptureFile file = CaptureFile.open(ProbePatcherTest.example("saxpy/saxpy.capture"));
        HostModel model = new HostModel(new Kernel(file), HostModel.DEFAULT_BUDGET);
        // range 1 (y), element 5: written by group 0, wave 0, lane 5
        Execution e = Execution.record(model, new int[] {0, 0, 0}, Execution.Target.range(1, 20, 4));
        Execution.Store store = e.store();
        assertNotNull(store);
        assertEquals(0x100060088L, store.pc());
        assertEquals(5, store.lane());
        Slice slice = Slice.of(e, store.wave(), store.step());
        Set<Long> pcs = new TreeSet<>();
        slice.entries().forEach(x -> pcs.add(x.step().pc()));
        Set<Long> expected = Set.of(0x100060004L, 0x10006000cL, 0x100060018L, 0x100060020L, 0x100060028L,
                0x10006002cL, 0x100060038L, 0x100060040L, 0x100060044L, 0x100060050L, 0x100060058L, 0x10006005cL,
                0x100060064L, 0x100060068L, 0x100060070L, 0x100060078L, 0x100060084L, 0x100060088L, 0x100060034L);
        for (long pc : List.of(0x100060084L, 0x100060078L, 0x100060070L, 0x10006005cL, 0x100060064L, 0x100060020L,
                0x100060068L, 0x100060038L, 0x100060004L)) {
            assertTrue(pcs.contains(pc), String.format("0x%x missing from the slice %s", pc, hex(pcs)));
        }
        for (long pc : List.of(0x100060000L, 0x100060014L, 0x100060080L)) {
            assertTrue(!pcs.contains(pc), String.format("0x%x (a wait or the clause) in the slice %s", pc, hex(pcs)));
        }
        // the branch that chose the store's path is in it (control), with what it read: EXEC from v_cmpx
        assertTrue(pcs.contains(0x100060034L), hex(pcs));
        assertTrue(expected.containsAll(pcs), "beyond the hand-read slice: " + hex(pcs));
        // the fmac's inputs: a (s0 from the scalar load at 0x68), x[i] (v2 from 0x70), y[i] (v3, accumulated, 0x78)
        Slice.Entry fmac = slice.entries().stream().filter(x -> x.step().pc() == 0x100060084L).findFirst().orElseThrow();
        assertEquals(e.order().get(fmac.inputs().get(0)).pc(), 0x100060068L);
        assertEquals(e.order().get(fmac.inputs().get(Registers.VGPR + 2)).pc(), 0x100060070L);
        assertEquals(e.order().get(fmac.inputs().get(Registers.VGPR + 3)).pc(), 0x100060078L);
        assertEquals(0x100060088L, slice.entries().get(slice.entries().size() - 1).step().pc());
    }

    private static String hex(Set<Long> pcs) {
        return pcs.stream().map(Long::toHexString).toList().toString();
    }
}
