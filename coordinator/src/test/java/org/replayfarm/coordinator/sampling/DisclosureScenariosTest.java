package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.sampling.ManualClock;
import org.replayfarm.gpunode.sampling.SamplingMode;
import org.replayfarm.gpunode.sampling.SamplingSession;
import org.replayfarm.gpunode.sampling.SamplingSettings;
import org.replayfarm.gpunode.sampling.SimulatedDevice;
import org.replayfarm.proto.GpuExecutionReport;
import org.replayfarm.proto.GpuPcSampleBatch;
import org.replayfarm.proto.GpuSamplingWindowV1;

/**
 * The disclosure over the session, a lossy wire and the coordinator's ledger, on a fake clock: the
 * device's own record of which launches ran serialized is the oracle. Every scenario ends in
 * {@link SamplingConformance#assertInvariants}.
 */
@Tag("unit")
class DisclosureScenariosTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ManualClock clock = new ManualClock(5_000 * MS);
    private final SimulatedDevice device = new SimulatedDevice(clock, SimulatedDevice.typicalStallReasons());
    private final SamplingLedger ledger = new SamplingLedger();
    private final LossyWire wire = new LossyWire(ledger::accept);

    private SamplingSession session(SamplingMode mode) {
        return new SamplingSession(SamplingSettings.of(mode), device, wire, "akka://farm@127.0.0.1:1", 3);
    }

    private void run(SamplingSession s, long ms) {
        long end = clock.nanos() + ms * MS;
        int i = 0;
        while (clock.nanos() < end) {
            device.launch(s, i++ % 3 == 0 ? "k_reduce" : "k_saxpy", 10 * MS, MS);
        }
    }

    private static boolean isWindow(Object m, long seq) {
        return m instanceof GpuSamplingWindowV1 w && w.getSequence() == seq;
    }

    private List<ExecutionViews.ExecutionView> views(Serialized s) {
        return ExecutionViews.of(ledger.snapshot()).views().stream().filter(v -> v.serialized() == s).toList();
    }

    @Test
    void with_the_default_configuration_every_execution_reads_false() {
        SamplingSession s = new SamplingSession(SamplingSettings.off(), device, wire, "n", 1);
        run(s, 5_000);
        s.report();
        ExecutionViews v = SamplingConformance.assertInvariants(ledger.snapshot(), true, device.ranSerialized());
        assertTrue(v.notSerialized() > 400);
    }

    @Test
    void tier_b_reads_false_unconditionally() {
        SamplingSession s = session(SamplingMode.CONTINUOUS);
        run(s, 5_000);
        s.report();
        ExecutionViews v = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
        assertEquals(v.views().size(), v.notSerialized());
    }

    @Test
    void tier_a_over_a_clean_wire_reads_true_exactly_for_the_launches_that_ran_in_a_burst() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 20_000);
        s.report();
        ExecutionViews v = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
        assertEquals(device.ranSerialized().size(), v.serialized());
        for (ExecutionViews.ExecutionView e : v.views()) {
            assertEquals(device.ranSerialized().contains(e.execution().getCorrelationId()),
                    e.serialized() == Serialized.TRUE, e.toString());
        }
        assertEquals(0, v.unknown());
        assertTrue(v.notSerialized() > v.serialized(), "duty at most 5%");
    }

    @Test
    void both_delivery_orders_and_duplicates_give_the_same_answer() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        wire.duplicate = m -> true;
        run(s, 3_000);
        wire.holding = true;            // the next records arrive in reverse: closed before open
        run(s, 3_000);
        wire.release();
        run(s, 3_000);
        s.report();
        ExecutionViews v = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
        assertEquals(device.ranSerialized().size(), v.serialized());
        assertEquals(0, v.unknown());
        assertTrue(ledger.windows().count(WindowStore.Outcome.OPEN_AFTER_CLOSED) >= 1, "a reversed pair was delivered");
        assertEquals(0, ledger.snapshot().nodes().get(0).windows().stream().filter(WindowStore.Window::open).count());
    }

    @Test
    void a_dropped_burst_makes_what_ran_around_it_unknown_never_false() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        wire.drop = m -> isWindow(m, 3) || m instanceof GpuPcSampleBatch b && b.getSequence() == 3;
        run(s, 10_000);
        s.report();
        ExecutionViews v = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
        assertTrue(v.unknown() > 0, "burst 3's executions cannot be told");
        assertTrue(v.serialized() > 0 && v.notSerialized() > 0, "the rest of the history still decides");
        List<WindowStore.Window> h = ledger.snapshot().nodes().get(0).windows();
        long gapFrom = h.get(1).endNs();   // burst 2's end
        long gapTo = h.get(2).startNs();   // burst 4's start
        for (ExecutionViews.ExecutionView e : views(Serialized.UNKNOWN)) {
            assertTrue(e.execution().getEndNs() > gapFrom && e.execution().getStartNs() < gapTo, e.toString());
        }
    }

    @Test
    void a_lost_open_record_is_harmless_when_the_closed_one_arrives() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        wire.drop = m -> m instanceof GpuSamplingWindowV1 w && w.getEndNs() == 0;
        run(s, 10_000);
        s.report();
        ExecutionViews v = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
        assertEquals(0, v.unknown());
        assertEquals(device.ranSerialized().size(), v.serialized());
    }

    @Test
    void a_window_never_closed_makes_everything_after_its_start_unknown() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 5_000);
        s.report();
        long bursts = s.stats().burstsStarted();
        wire.drop = m -> m instanceof GpuSamplingWindowV1 w && w.getSequence() > bursts && w.getEndNs() != 0;
        run(s, 5_000);
        s.report();
        SamplingSnapshot snap = ledger.snapshot();
        ExecutionViews v = SamplingConformance.assertInvariants(snap, false, device.ranSerialized());
        long firstOpen = snap.nodes().get(0).windows().stream().filter(WindowStore.Window::open)
                .mapToLong(WindowStore.Window::startNs).min().orElseThrow();
        long after = 0;
        for (ExecutionViews.ExecutionView e : v.views()) {
            if (e.execution().getStartNs() > firstOpen) {
                // unknown, unless it began a later burst itself (then it surely ran serialized: the check holds it to the truth)
                boolean beganABurst = snap.nodes().get(0).windows().stream()
                        .anyMatch(w -> w.startNs() >= e.execution().getStartNs() && w.startNs() < e.execution().getEndNs());
                assertEquals(beganABurst ? Serialized.TRUE : Serialized.UNKNOWN, e.serialized(), e.toString());
                after++;
            }
        }
        assertTrue(after > 100 && v.unknown() > 100, "executions after the unclosed window: " + after);
        assertTrue(v.serialized() > 0 && v.notSerialized() > 0);
    }

    @Test
    void a_late_attach_makes_what_ran_before_the_first_window_received_unknown() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        wire.cut = true;                 // no coordinator yet
        run(s, 3_000);
        wire.cut = false;
        run(s, 5_000);
        s.report();
        SamplingSnapshot snap = ledger.snapshot();
        ExecutionViews v = SamplingConformance.assertInvariants(snap, false, device.ranSerialized());
        long firstKnown = snap.nodes().get(0).windows().get(0).startNs();
        assertTrue(snap.nodes().get(0).windows().get(0).sequence() > 1);
        for (ExecutionViews.ExecutionView e : v.views()) {
            if (e.execution().getEndNs() <= firstKnown) {
                assertEquals(Serialized.UNKNOWN, e.serialized(), e.toString());
            }
        }
    }

    @Test
    void bursts_the_node_started_that_never_arrived_make_the_tail_unknown() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 5_000);
        long bursts = s.stats().burstsStarted();
        wire.drop = m -> m instanceof GpuSamplingWindowV1 w && w.getSequence() > bursts;
        run(s, 5_000);
        GpuExecutionReport r = s.report();
        assertTrue(r.getBurstsStarted() > bursts);
        ExecutionViews v = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
        assertTrue(v.unknown() > 0);
    }

    @Test
    void after_a_graph_refusal_nothing_is_serialized_and_the_history_still_decides() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 3_000);
        device.launchGraph(s, "k_graph", 10 * MS, MS, 9, false);
        run(s, 10_000);
        s.report();
        SamplingSnapshot snap = ledger.snapshot();
        ExecutionViews v = SamplingConformance.assertInvariants(snap, false, device.ranSerialized());
        assertEquals(0, v.unknown());
        assertEquals(device.ranSerialized().size(), v.serialized());
        ObjectNode json = new ObjectMapper().createObjectNode();
        SamplingReport.toJson(json, snap);
        JsonNode node = json.get("sampling").get("nodes").get(0);
        assertTrue(node.get("graph_refusals").asLong() >= 1);
        assertTrue(node.get("graph_refusal_delay_ns").asLong() > 0, "the refusal came at the drain after the graph kernel");
    }

    @Test
    void the_report_section_names_mode_bursts_duty_pairs_and_the_hottest_locations_by_stall_reason() {
        SamplingSession s = session(SamplingMode.SERIALIZED);
        run(s, 20_000);
        s.report();
        SamplingSnapshot snap = ledger.snapshot();
        SamplingConformance.assertInvariants(snap, false, device.ranSerialized());
        ObjectNode json = new ObjectMapper().createObjectNode();
        JsonNode sec = SamplingReport.toJson(json, snap);
        assertEquals("serialized", sec.get("mode").asText());
        assertEquals(s.stats().burstsStarted(), sec.get("bursts").asLong());
        assertEquals(s.stats().pairs(), sec.get("pairs").asLong());
        double duty = sec.get("duty_achieved").asDouble();
        assertTrue(duty > 0.02 && duty <= 0.05 + 1e-9, "duty " + duty);
        JsonNode hottest = sec.get("hottest");
        assertTrue(hottest.size() > 1);
        Set<String> reasons = Set.copyOf(SimulatedDevice.typicalStallReasons());
        long previous = Long.MAX_VALUE;
        for (JsonNode r : hottest) {
            assertTrue(reasons.contains(r.get("stall_reason").asText()));
            assertTrue(r.get("samples").asLong() <= previous, "reasons by samples, most first");
            previous = r.get("samples").asLong();
            JsonNode top = r.get("locations").get(0);
            assertTrue(Set.of("k_saxpy", "k_reduce").contains(top.get("function").asText()));
            assertEquals(0, top.get("pc_offset").asLong() % 0x10);
        }
    }
}
