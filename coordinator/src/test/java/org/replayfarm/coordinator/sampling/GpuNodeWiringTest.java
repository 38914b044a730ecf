package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.gpunode.node.GpuNode;
import org.replayfarm.gpunode.sampling.ManualClock;
import org.replayfarm.gpunode.sampling.SamplingMode;
import org.replayfarm.gpunode.sampling.SimulatedDevice;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.model.testing.Await;

/**
 * Issue 9's wiring on a loopback cluster: a node started with role {@code gpu} and
 * {@code replay.gpu.sampling.mode = serialized} runs its GpuNode (FarmNode starts it), driven here by a
 * simulated device on a fake clock; its windows and executions reach the coordinator's store, and a job
 * on the coordinator then reports them three ways that must agree: report.json's sampling section, the
 * job's progress (what replay watch shows) and the GPU metrics on {@code /metrics} (scraped over HTTP).
 * The shared invariant check runs on what the store holds.
 */
@Tag("cluster")
class GpuNodeWiringTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Config QUIET = ConfigFactory.parseString("""
            akka.cluster.split-brain-resolver.stable-after = 3s
            akka.coordinated-shutdown.exit-jvm = off
            akka.loglevel = WARNING
            replay.metrics { host = 127.0.0.1, tick = 100ms, job-retention = 120s }
            replay.coordinator.tick = 100ms
            """);

    @TempDir
    Path dir;

    final HttpClient http = HttpClient.newHttpClient();

    @Test
    void a_gpu_node_s_sampling_reaches_the_report_the_progress_and_the_metrics_alike() throws Exception {
        ManualClock clock = new ManualClock(1_000 * MS);
        SimulatedDevice device = new SimulatedDevice(clock, SimulatedDevice.typicalStallReasons());
        try (FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"),
                dir.resolve("c")).withEvalThreads(1).withSerializeMessages(true).withConfig(QUIET));
             FarmNode gpuNode = FarmNode.start(FarmNode.Settings.of(Set.of(GpuNode.ROLE), dir.resolve("g"))
                     .withSeeds(List.of(coordinator.seed())).withSerializeMessages(true).withSampler(device)
                     .withConfig(ConfigFactory.parseString("replay.gpu.sampling.mode = serialized").withFallback(QUIET)))) {
            ClusterWaits.awaitUp(coordinator, 2);
            GpuNode gpu = gpuNode.gpu();
            assertEquals(SamplingMode.SERIALIZED, gpu.settings().mode(), "the mode comes from the node's configuration");
            Await.until("the GPU node finding the coordinator's store (the receptionist's listing)", () -> gpu.storesKnown() > 0);
            assertEquals(1, gpu.storesKnown(), "the GPU node found the coordinator's store");

            // this test thread is the GPU node's launching thread; the last burst is closed before reporting
            long stop = clock.nanos() + 12_000 * MS;
            while (clock.nanos() < stop || device.active()) {
                device.launch(gpu.session(), "k_saxpy", 10 * MS, MS);
            }
            gpu.session().report();
            long executions = gpu.session().stats().executions();
            long closed = gpu.session().stats().burstsClosed();
            assertTrue(closed >= 2 && !device.ranSerialized().isEmpty(), "bursts ran: " + gpu.session().stats());
            String address = gpuNode.address();
            SamplingSnapshot arrived = ClusterWaits.awaitSnapshot(coordinator, s -> s.nodes().stream()
                    .filter(n -> n.key().node().equals(address)).mapToLong(n -> n.executions().size()).sum() == executions
                    && s.nodes().stream().mapToLong(n -> n.windows().stream().filter(w -> !w.open()).count()).sum() == closed);
            ExecutionViews views = SamplingConformance.assertInvariants(arrived, false, device.ranSerialized());
            assertEquals(device.ranSerialized().size(), views.serialized());

            String sha = coordinator.jobs().storeCapture(Toolchain.root().resolve("examples/saxpy/saxpy.capture"));
            String job = coordinator.jobs().start(sha, GroupSelection.everyGroup());
            JobProgress last = awaitEnd(coordinator, job);
            assertEquals("finished", last.state(), last.error());
            JsonNode report = new ObjectMapper().readTree(coordinator.jobs().results(job).orElseThrow()
                    .resolve("report.json").toFile());
            assertEquals("equal", report.get("result").get("status").asText(), "the comparison still runs beside sampling");
            JsonNode sec = report.get("sampling");
            assertEquals("serialized", sec.get("mode").asText());
            assertEquals(executions, sec.get("executions").get("total").asLong());
            assertEquals(views.serialized(), sec.get("executions").get("true").asLong());
            assertEquals(views.notSerialized(), sec.get("executions").get("false").asLong());
            assertEquals(0, sec.get("executions").get("unknown").asLong());
            assertEquals(closed, sec.get("bursts").asLong());
            JsonNode node = sec.get("nodes").get(0);
            assertEquals(address, node.get("node").asText());
            assertEquals(0, node.get("bursts_open").asLong());
            assertTrue(node.get("duty_achieved").asDouble() > 0 && node.get("duty_achieved").asDouble() <= 0.05 + 1e-9,
                    "duty within the default ceiling: " + node);

            // the progress replay watch shows carries the same figures
            JobProgress.Sampling p = last.figures().sampling();
            assertEquals(new JobProgress.Sampling("serialized", closed, sec.get("duty_achieved").asDouble(),
                    sec.get("pairs").asLong(), executions, views.serialized(), views.notSerialized(), 0), p);

            // and so does /metrics, tagged with the GPU node (HOST:PORT, role gpu)
            String metrics = coordinator.metricsUrl().orElseThrow();
            String tag = "node=\"" + gpuNode.seed() + "\"";
            // Kamon serves the snapshot of its last tick: wait for one taken after every figure was recorded
            String scraped = scrapeUntil(metrics, s -> value(s, "replay_gpu_sampling_bursts_total", tag) == closed
                    && value(s, "replay_gpu_executions_total", tag, "serialized=\"true\"") == views.serialized()
                    && value(s, "replay_gpu_executions_total", tag, "serialized=\"false\"") == views.notSerialized()
                    && Math.abs(value(s, "replay_gpu_sampling_duty", tag) - node.get("duty_achieved").asDouble()) <= 1e-9);
            assertEquals(views.serialized(), value(scraped, "replay_gpu_executions_total", tag, "serialized=\"true\""));
            assertEquals(views.notSerialized(), value(scraped, "replay_gpu_executions_total", tag, "serialized=\"false\""));
            assertEquals(0, value(scraped, "replay_gpu_executions_total", tag, "serialized=\"unknown\""));
            assertEquals(node.get("duty_achieved").asDouble(), value(scraped, "replay_gpu_sampling_duty", tag), 1e-9);
            assertFalse(scraped.contains("replay_gpu_executions_total{") && value(scraped, "replay_gpu_executions_total",
                    "role=\"gpu\"", "serialized=\"true\"") != views.serialized(), "no other GPU series counted these");
        }
    }

    /** Scrapes {@code url} until {@code until} holds (Kamon publishes a snapshot each tick: there is no event). */
    private String scrapeUntil(String url, Predicate<String> until) throws Exception {
        return Await.value("a scrape of " + url + " showing what was expected",
                () -> http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body(),
                until);
    }

    /** The sum of the samples of {@code name} whose labels contain every one of {@code labels}; -1 when none. */
    private static double value(String scraped, String name, String... labels) {
        double sum = 0;
        boolean any = false;
        for (String line : scraped.split("\n")) {
            if (!line.startsWith(name + "{")) {
                continue;
            }
            String l = line.substring(0, line.lastIndexOf('}'));
            boolean all = true;
            for (String label : labels) {
                all &= l.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                any = true;
            }
        }
        return any ? sum : -1;
    }

    private static JobProgress awaitEnd(FarmNode coordinator, String job) throws InterruptedException {
        return Await.value("job " + job + " to end", () -> coordinator.jobs().progress(job).orElseThrow(), JobProgress::ended);
    }

}
