package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.SamplingMode;

/** The disclosure rules on hand-made histories, where the right answer is read off the timeline. */
@Tag("unit")
class DisclosureTest {
    private static final SamplingMode A = SamplingMode.SAMPLING_MODE_KERNEL_SERIALIZED;

    private static WindowStore.Window w(long seq, long start, long end) {
        return new WindowStore.Window(seq, start, end, A, 1);
    }

    private static GpuExecution e(long start, long end) {
        return GpuExecution.newBuilder().setStartNs(start).setEndNs(end).build();
    }

    // bursts 1 [100,150) and 2 [1100,1150), both closed; the node started 2 bursts by 5000
    private static final List<WindowStore.Window> CLEAN = List.of(w(1, 100, 150), w(2, 1100, 1150));

    @Test
    void inside_overlapping_and_outside_a_closed_window() {
        Disclosure d = new Disclosure(A, CLEAN, 2, 5000);
        assertEquals(Serialized.TRUE, d.of(e(110, 140)));
        assertEquals(Serialized.TRUE, d.of(e(90, 101)));
        assertEquals(Serialized.TRUE, d.of(e(149, 400)));
        assertEquals(Serialized.TRUE, d.of(e(50, 2000)), "spans two bursts");
        assertEquals(Serialized.FALSE, d.of(e(150, 1100)), "[start, end): touching both edges is outside");
        assertEquals(Serialized.FALSE, d.of(e(10, 100)));
        assertEquals(Serialized.FALSE, d.of(e(1200, 4999)));
    }

    @Test
    void past_the_nodes_horizon_is_unknown() {
        Disclosure d = new Disclosure(A, CLEAN, 2, 5000);
        assertEquals(Serialized.UNKNOWN, d.of(e(4000, 5001)));
    }

    @Test
    void a_missing_burst_blinds_the_span_between_its_neighbours() {
        Disclosure d = new Disclosure(A, List.of(w(1, 100, 150), w(3, 2100, 2150)), 3, 5000);
        assertEquals(Serialized.UNKNOWN, d.of(e(500, 600)));
        assertEquals(Serialized.TRUE, d.of(e(140, 160)), "an execution in a known window is still true");
        assertEquals(Serialized.FALSE, d.of(e(10, 90)));
        assertEquals(Serialized.FALSE, d.of(e(2200, 3000)));
    }

    @Test
    void a_late_attach_blinds_everything_before_the_first_window_received() {
        Disclosure d = new Disclosure(A, List.of(w(4, 3100, 3150)), 4, 5000);
        assertEquals(Serialized.UNKNOWN, d.of(e(10, 20)));
        assertEquals(Serialized.UNKNOWN, d.of(e(3000, 3099)));
        assertEquals(Serialized.FALSE, d.of(e(3200, 3300)));
    }

    @Test
    void bursts_started_that_never_arrived_blind_the_tail() {
        Disclosure d = new Disclosure(A, CLEAN, 3, 5000);
        assertEquals(Serialized.FALSE, d.of(e(500, 600)));
        assertEquals(Serialized.UNKNOWN, d.of(e(1200, 1300)));
    }

    @Test
    void a_window_never_closed_blinds_everything_after_its_start_and_marks_the_kernel_it_began_in() {
        Disclosure d = new Disclosure(A, List.of(w(1, 100, 150), w(2, 1100, 0)), 2, 5000);
        assertEquals(Serialized.FALSE, d.of(e(500, 600)));
        assertEquals(Serialized.TRUE, d.of(e(1100, 1200)), "the burst began as it started");
        assertEquals(Serialized.UNKNOWN, d.of(e(1101, 1200)));
        assertEquals(Serialized.UNKNOWN, d.of(e(4000, 4100)));
    }

    @Test
    void no_history_at_all_after_tier_a_started_bursts_is_unknown_and_none_started_is_false() {
        assertEquals(Serialized.UNKNOWN, new Disclosure(A, List.of(), 1, 5000).of(e(10, 20)));
        assertEquals(Serialized.FALSE, new Disclosure(A, List.of(), 0, 5000).of(e(10, 20)));
    }

    @Test
    void off_and_tier_b_are_false_whatever_the_windows_and_an_unstated_mode_is_unknown() {
        List<WindowStore.Window> open = List.of(w(2, 100, 0));
        assertEquals(Serialized.FALSE, new Disclosure(SamplingMode.SAMPLING_MODE_OFF, open, 9, 0).of(e(110, 140)));
        assertEquals(Serialized.FALSE, new Disclosure(SamplingMode.SAMPLING_MODE_CONTINUOUS, open, 9, 0).of(e(110, 140)));
        assertEquals(Serialized.UNKNOWN, new Disclosure(SamplingMode.SAMPLING_MODE_UNSPECIFIED, CLEAN, 2, 5000).of(e(500, 600)));
    }
}
