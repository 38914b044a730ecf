package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Message;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.GpuExecutionReport;
import org.replayfarm.proto.GpuPcSampleBatch;
import org.replayfarm.proto.GpuSamplingWindowV1;
import org.replayfarm.proto.PcSample;

/** A GPU node's sampling session driven by the simulated device on a fake clock. */
@Tag("unit")
class SamplingSessionTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualClock clock = new ManualClock(1_000 * MS);
    private final SimulatedDevice device = new SimulatedDevice(clock, SimulatedDevice.typicalStallReasons());
    private final List<Message> sent = new ArrayList<>();

    private SamplingSession session(SamplingMode mode) {
        return new SamplingSession(SamplingSettings.of(mode), device, sent::add, "akka://farm@gpu:1", 7);
    }

    private List<GpuSamplingWindowV1> windows() {
        return sent.stream().filter(GpuSamplingWindowV1.class::isInstance).map(GpuSamplingWindowV1.class::cast).toList();
    }

    /** Launches 10 ms kernels with 1 ms between them for {@code ms} of clock time. */
    private void run(SamplingSession s, long ms) {
        long end = clock.nanos() + ms * MS;
        while (clock.nanos() < end) {
            device.launch(s, "k_saxpy", 10 * MS, MS);
        }
    }

    @Test
    void with_sampling_off_sampling_never_starts_and_executions_are_still_reported() {
        SamplingSession s = session(SamplingMode.OFF);
        run(s, 3_000);
        GpuExecutionReport r = s.report();
        assertEquals(0, device.starts());
        assertTrue(windows().isEmpty());
        assertEquals(org.replayfarm.proto.SamplingMode.SAMPLING_MODE_OFF, r.getConfiguredMode());
        assertEquals(s.stats().executions(), r.getExecutionsCount());
        assertTrue(r.getExecutionsCount() > 200);
    }

    @Test
    void a_refused_mode_samples_nothing_and_is_counted_and_reported() {
        SamplingSettings refused = SamplingSettings.from(ConfigFactory.parseString(
                "replay.gpu.sampling.mode = \"serialized,continuous\"").withFallback(ConfigFactory.defaultReference()));
        SamplingSession s = new SamplingSession(refused, device, sent::add, "n", 1);
        run(s, 2_000);
        GpuExecutionReport r = s.report();
        assertEquals(0, device.starts());
        assertEquals(1, s.stats().configRefusals());
        assertTrue(r.getConfigRefused().contains("more than one tier"));
        assertEquals(org.replayfarm.proto.SamplingMode.SAMPLING_MODE_OFF, r.getConfiguredMode());
    }

    @Test
    void every_tier_a_burst_goes_out_open_then_closed_with_the_same_start_and_a_gap_free_sequence() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 20_000);
        List<GpuSamplingWindowV1> w = windows();
        assertTrue(w.size() >= 10, "bursts in 20 s: " + w.size() / 2);
        for (int i = 0; i + 1 < w.size(); i += 2) {
            GpuSamplingWindowV1 open = w.get(i);
            GpuSamplingWindowV1 closed = w.get(i + 1);
            assertEquals(i / 2 + 1, open.getSequence(), "sequence");
            assertEquals(0, open.getEndNs(), "the open record has end_ns = 0");
            assertEquals(open.getSequence(), closed.getSequence());
            assertEquals(open.getStartNs(), closed.getStartNs(), "the closed record keeps the start");
            assertTrue(closed.getEndNs() - closed.getStartNs() >= 50 * MS, "a burst lasts at least 50 ms");
            assertEquals(org.replayfarm.proto.SamplingMode.SAMPLING_MODE_KERNEL_SERIALIZED, closed.getMode());
            assertTrue(closed.getPairs() > 0);
        }
        assertEquals(device.starts(), device.stops() + (device.active() ? 1 : 0));
        assertTrue(device.drains() >= device.stops(), "a drain after every stop");
        SamplingSession.Stats st = s.stats();
        assertTrue(st.dutyAchieved() <= 0.05 + 1e-9 && st.dutyAchieved() > 0.01, "duty " + st.dutyAchieved());
    }

    @Test
    void samples_carry_stall_reason_names_read_from_the_device_and_the_launch_correlation() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 3_000);
        Set<String> reasons = new HashSet<>();
        long pairs = 0;
        for (Message m : sent) {
            if (m instanceof GpuPcSampleBatch b) {
                for (PcSample p : b.getSamplesList()) {
                    reasons.add(p.getStallReason());
                    assertTrue(p.getCorrelationId() > 0, "KERNEL_SERIALIZED samples name their launch");
                    assertEquals("k_saxpy", p.getFunction());
                    pairs++;
                }
            }
        }
        assertTrue(SimulatedDevice.typicalStallReasons().containsAll(reasons) && reasons.size() > 1, reasons.toString());
        assertEquals(windows().stream().mapToLong(GpuSamplingWindowV1::getPairs).sum(), pairs);
    }

    @Test
    void start_and_stop_happen_on_the_launching_thread_only() throws Exception {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        device.launch(s, "k", MS, MS);
        CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
            try {
                s.onLaunchExit();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Throwable t = other.get(10, TimeUnit.SECONDS);
        assertTrue(t instanceof IllegalStateException && t.getMessage().contains("launching thread"), String.valueOf(t));
    }

    @Test
    void an_announced_graph_launch_stops_the_open_burst_and_refuses_tier_a_at_once_counted() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        device.launch(s, "k", 10 * MS, MS);            // opens burst 1
        assertTrue(device.active());
        long graphAt = clock.nanos();
        device.launchGraph(s, "k_graph", 10 * MS, MS, 3, true);
        assertFalse(device.active(), "the burst closed before the graph ran");
        run(s, 30_000);
        SamplingSession.Stats st = s.stats();
        assertEquals(1, st.burstsStarted(), "no burst after the graph launch");
        assertEquals(graphAt, st.firstGraphLaunchNs());
        assertEquals(0, st.graphRefusalDelayNs(), "announced: refused at the launch itself");
        assertTrue(st.graphRefusals() >= 10, "every due burst refused and counted: " + st.graphRefusals());
        assertEquals(2, windows().size(), "burst 1 open and closed");
        GpuExecutionReport r = s.report();
        assertEquals(st.graphRefusals(), r.getGraphRefusals());
    }

    @Test
    void a_graph_seen_only_in_activity_records_is_refused_at_the_next_drain_and_the_delay_is_measured() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        device.launch(s, "k", 10 * MS, MS);            // burst 1 open
        long graphStart = clock.nanos();
        device.launchGraph(s, "k_graph", 10 * MS, MS, 3, false); // the launcher did not say: only the record knows
        assertTrue(s.stats().graphRefusalNs() != 0, "the drain after this kernel saw the graph id");
        long delay = s.stats().graphRefusalDelayNs();
        // the kernel ran serialized (12.5 ms) before its record was drained at its exit
        assertEquals(Math.round(10 * MS * 1.25), delay);
        run(s, 30_000);
        assertEquals(1, s.stats().burstsStarted());
        assertEquals(graphStart, s.stats().firstGraphLaunchNs());
    }

    @Test
    void a_failed_start_sends_no_window_and_is_counted() {
        device.failStarts(2);
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 10_000);
        assertEquals(2, s.stats().startFailures());
        assertEquals(1, windows().get(0).getSequence(), "sequence numbers only for bursts that started");
        assertTrue(windows().size() >= 4);
    }

    @Test
    void a_failed_stop_leaves_the_window_open_on_the_wire_and_ends_sampling() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        device.launch(s, "k", 10 * MS, MS);
        device.failStop();
        run(s, 10_000);
        assertEquals(1, windows().size());
        assertEquals(0, windows().get(0).getEndNs());
        assertTrue(s.stats().broken());
        assertEquals(1, s.report().getBurstsStarted());
    }

    @Test
    void tier_b_starts_once_and_stays_on() {
        SamplingSession s = session(SamplingMode.CONTINUOUS);
        run(s, 5_000);
        s.report();
        assertEquals(1, device.starts());
        assertEquals(0, device.stops());
        assertEquals(1, windows().size());
        assertTrue(sent.stream().anyMatch(m -> m instanceof GpuPcSampleBatch b
                && b.getSamplesList().stream().allMatch(p -> p.getCorrelationId() == 0)));
    }
}
