package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.GpuSamplingWindowV1;
import org.replayfarm.proto.SamplingMode;

/** The window store supersedes one way: closed over open, never open over closed. */
@Tag("unit")
class WindowStoreTest {
    private static GpuSamplingWindowV1 w(long seq, long start, long end) {
        return GpuSamplingWindowV1.newBuilder().setNode("n").setIncarnation(1).setSequence(seq).setStartNs(start)
                .setEndNs(end).setMode(SamplingMode.SAMPLING_MODE_KERNEL_SERIALIZED).build();
    }

    private static final WindowStore.NodeKey N = new WindowStore.NodeKey("n", 1);

    @Test
    void open_then_closed_ends_closed() {
        WindowStore s = new WindowStore();
        assertEquals(WindowStore.Outcome.OPENED, s.offer(w(1, 100, 0)));
        assertEquals(WindowStore.Outcome.CLOSED_AN_OPEN_ONE, s.offer(w(1, 100, 150)));
        assertEquals(List.of(new WindowStore.Window(1, 100, 150, SamplingMode.SAMPLING_MODE_KERNEL_SERIALIZED, 0)),
                s.history(N));
    }

    @Test
    void closed_then_open_stays_closed_the_open_record_never_resurrects() {
        WindowStore s = new WindowStore();
        assertEquals(WindowStore.Outcome.CLOSED, s.offer(w(1, 100, 150)));
        assertEquals(WindowStore.Outcome.OPEN_AFTER_CLOSED, s.offer(w(1, 100, 0)));
        assertEquals(150, s.history(N).get(0).endNs());
    }

    @Test
    void duplicates_change_nothing_in_either_order() {
        WindowStore s = new WindowStore();
        s.offer(w(1, 100, 0));
        assertEquals(WindowStore.Outcome.DUPLICATE, s.offer(w(1, 100, 0)));
        s.offer(w(1, 100, 150));
        assertEquals(WindowStore.Outcome.DUPLICATE, s.offer(w(1, 100, 150)));
        assertEquals(WindowStore.Outcome.OPEN_AFTER_CLOSED, s.offer(w(1, 100, 0)));
        assertEquals(1, s.history(N).size());
        assertEquals(150, s.history(N).get(0).endNs());
        assertEquals(2, s.count(WindowStore.Outcome.DUPLICATE));
    }

    @Test
    void drops_leave_gaps_in_the_sequence_and_an_unclosed_window_open() {
        WindowStore s = new WindowStore();
        s.offer(w(1, 100, 150));
        s.offer(w(3, 1100, 0));       // burst 2 lost entirely, burst 3's close lost
        List<WindowStore.Window> h = s.history(N);
        assertEquals(List.of(1L, 3L), h.stream().map(WindowStore.Window::sequence).toList());
        assertEquals(true, h.get(1).open());
    }

    @Test
    void a_record_contradicting_a_known_one_is_a_counted_conflict_and_the_first_is_kept() {
        WindowStore s = new WindowStore();
        s.offer(w(1, 100, 150));
        assertEquals(WindowStore.Outcome.CONFLICT, s.offer(w(1, 101, 150)));
        assertEquals(WindowStore.Outcome.CONFLICT, s.offer(w(1, 100, 170)));
        assertEquals(WindowStore.Outcome.CONFLICT, s.offer(w(0, 100, 170)));
        assertEquals(WindowStore.Outcome.CONFLICT, s.offer(w(2, 300, 200)));
        assertEquals(3 + 1, s.count(WindowStore.Outcome.CONFLICT));
        assertEquals(List.of(new WindowStore.Window(1, 100, 150, SamplingMode.SAMPLING_MODE_KERNEL_SERIALIZED, 0)),
                s.history(N));
    }
}
