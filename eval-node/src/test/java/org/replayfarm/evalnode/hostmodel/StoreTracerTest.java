package org.replayfarm.evalnode.hostmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.capture.CaptureFile;

/** Store tracing sees each store of a group with its wave, lane and PC, and changes nothing the group does. */
@Tag("unit")
class StoreTracerTest {
    @Test
    void a_traced_group_reports_every_store_and_gives_the_same_result() throws Exception {
        Kernel kernel = new Kernel(CaptureFile.open(Path.of("..", "examples", "saxpy", "saxpy.capture")));
        HostModel model = new HostModel(kernel, HostModel.DEFAULT_BUDGET);
        List<StoreTracer.Event> events = new ArrayList<>();
        GroupResult traced = model.runTraced(3, 0, 0, events::add).result();
        GroupResult plain = model.runGroup(3, 0, 0);
        assertEquals(plain.stores().size(), traced.stores().size());
        for (int i = 0; i < plain.stores().size(); i++) {
            assertEquals(plain.stores().get(i).offset(), traced.stores().get(i).offset());
            assertTrue(java.util.Arrays.equals(plain.stores().get(i).data(), traced.stores().get(i).data()));
        }
        assertEquals(64, events.size(), "group 3 stores y[192..255], one dword a work-item");
        java.util.Set<Long> offsets = new java.util.HashSet<>();
        for (StoreTracer.Event e : events) {
            assertEquals("store", e.kind());
            assertEquals(1, e.range(), "y is range 1");
            assertEquals(4, e.value().length);
            assertEquals(192 * 4 + (e.wave() * 32 + e.lane()) * 4L, e.offset(), "work-item w*32+lane stores y[192 + it]");
            assertEquals("global_store_dword", e.instruction().mnemonic());
            assertTrue(e.pc() >= kernel.entry());
            offsets.add(e.offset());
        }
        assertEquals(64, offsets.size());
    }
}
