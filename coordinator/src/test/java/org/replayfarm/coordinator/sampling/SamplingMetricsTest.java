package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.metrics.MetricsEndpoint;
import org.replayfarm.gpunode.sampling.ManualClock;
import org.replayfarm.gpunode.sampling.SamplingMode;
import org.replayfarm.gpunode.sampling.SamplingSession;
import org.replayfarm.gpunode.sampling.SamplingSettings;
import org.replayfarm.gpunode.sampling.SimulatedDevice;
import org.replayfarm.proto.GpuSamplingWindowV1;
import org.replayfarm.model.testing.Await;

/**
 * The GPU figures on {@code /metrics} (real HTTP, Kamon's exporter) when a decision arrives late: a burst's
 * closed record is held back, so what ran after its start reads {@code unknown}; once it arrives those
 * executions are decided. The counter keeps what it first counted, the {@code _now} gauge follows the
 * decision, and both add up to the executions.
 */
@Tag("unit")
class SamplingMetricsTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final String NODE = "127.0.0.1:2552";

    private final HttpClient client = HttpClient.newHttpClient();

    /** Scrapes {@code url} until {@code until} holds (Kamon publishes a snapshot each tick: there is no event). */
    private String scrapeUntil(String url, Predicate<String> until) throws Exception {
        return Await.value("a scrape of " + url + " showing what was expected",
                () -> client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body(),
                until);
    }

    /** The value of {@code name}'s series of the GPU node with {@code serialized="value"}; -1 when absent. */
    private static double value(String scrape, String name, String serialized) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{") && line.contains("node=\"" + NODE + "\"")
                    && line.contains("serialized=\"" + serialized + "\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return -1;
    }

    @Test
    void a_late_decision_moves_the_now_gauge_and_leaves_the_counter_where_it_was() throws Exception {
        var settings = MetricsEndpoint.Settings.from(ConfigFactory.parseString(
                "replay.metrics { port = 0, host = 127.0.0.1, tick = 100ms }").withFallback(ConfigFactory.load()));
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(settings, "127.0.0.1")) {
            FarmMetrics farm = FarmMetrics.forNode("127.0.0.1:1", true);
            SamplingMetrics metrics = new SamplingMetrics(farm);
            ManualClock clock = new ManualClock(5_000 * MS);
            SimulatedDevice device = new SimulatedDevice(clock, SimulatedDevice.typicalStallReasons());
            SamplingLedger ledger = new SamplingLedger();
            LossyWire wire = new LossyWire(ledger::accept);
            SamplingSession session = new SamplingSession(SamplingSettings.of(SamplingMode.SERIALIZED), device, wire,
                    "akka://farm@" + NODE, 1);
            // the second burst's closed record is late: it is held back while the device runs on
            GpuSamplingWindowV1[] late = new GpuSamplingWindowV1[1];
            wire.drop = m -> {
                if (m instanceof GpuSamplingWindowV1 w && w.getSequence() == 2 && w.getEndNs() != 0) {
                    late[0] = w;
                    return true;
                }
                return false;
            };
            long end = clock.nanos() + 8_000 * MS;
            for (int i = 0; clock.nanos() < end; i++) {
                device.launch(session, "k_" + (i % 3), 10 * MS, MS);
            }
            session.report();
            ExecutionViews before = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
            assertTrue(late[0] != null && before.unknown() > 0, "burst 2 never closed on the coordinator's side");
            metrics.record(SamplingReport.Summary.of(ledger.snapshot()));
            long total = before.views().size();
            String first = scrapeUntil(endpoint.url(), s -> value(s, "replay_gpu_executions_now", "unknown") == before.unknown());
            assertEquals(before.serialized(), value(first, "replay_gpu_executions_now", "true"));
            assertEquals(before.notSerialized(), value(first, "replay_gpu_executions_now", "false"));
            assertEquals(before.unknown(), value(first, "replay_gpu_executions_total", "unknown"));

            // the closed record arrives: every execution is decided
            ledger.accept(late[0]);
            ExecutionViews after = SamplingConformance.assertInvariants(ledger.snapshot(), false, device.ranSerialized());
            assertEquals(0, after.unknown());
            assertEquals(total, after.views().size());
            metrics.record(SamplingReport.Summary.of(ledger.snapshot()));
            String second = scrapeUntil(endpoint.url(), s -> value(s, "replay_gpu_executions_now", "unknown") == 0.0);
            assertEquals(after.serialized(), value(second, "replay_gpu_executions_now", "true"));
            assertEquals(after.notSerialized(), value(second, "replay_gpu_executions_now", "false"));
            assertEquals(device.ranSerialized().size(), value(second, "replay_gpu_executions_now", "true"),
                    "the gauge says true exactly for the launches the device ran in a burst");
            // the counter never goes back: what read unknown stays counted unknown, and it only adds up
            // to the executions counted so far, never more
            assertEquals(before.unknown(), value(second, "replay_gpu_executions_total", "unknown"));
            double counted = value(second, "replay_gpu_executions_total", "true")
                    + value(second, "replay_gpu_executions_total", "false")
                    + value(second, "replay_gpu_executions_total", "unknown");
            assertTrue(counted >= total, "the counter holds at least every execution: " + counted + " of " + total);
            farm.gpuOf(NODE).remove();
        }
    }
}
