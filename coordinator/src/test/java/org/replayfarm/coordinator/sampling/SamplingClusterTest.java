package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.gpunode.node.GpuNode;
import org.replayfarm.gpunode.sampling.ManualClock;
import org.replayfarm.gpunode.sampling.SamplingMode;
import org.replayfarm.gpunode.sampling.SamplingSession;
import org.replayfarm.gpunode.sampling.SimulatedDevice;
import org.replayfarm.model.testing.Await;

/**
 * The whole path on a real cluster in this JVM on loopback, every message serialized: two GPU nodes
 * (role "gpu"; one with the default configuration, one in Tier A) driven by simulated devices on fake
 * clocks, their records over Artery as protobuf to the coordinator's store, execution views and the
 * report section; then the Tier A node is killed in the middle of a burst.
 */
@Tag("cluster")
class SamplingClusterTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Config QUIET = ConfigFactory.parseString("""
            akka.cluster.split-brain-resolver.stable-after = 3s
            akka.coordinated-shutdown.exit-jvm = off
            akka.loglevel = WARNING
            """);

    @TempDir
    Path dir;

    private static FarmNode node(Set<String> roles, Path dir, List<String> seeds, Config config) throws Exception {
        return FarmNode.start(FarmNode.Settings.of(roles, dir).withSeeds(seeds).withSerializeMessages(true)
                .withConfig(config.withFallback(QUIET)));
    }

    private static SamplingSnapshot only(SamplingSnapshot s, String node) {
        return new SamplingSnapshot(s.nodes().stream().filter(n -> n.key().node().equals(node)).toList(), 0, 0);
    }

    private static long executions(SamplingSnapshot s, String node) {
        return only(s, node).nodes().stream().mapToLong(n -> n.executions().size()).sum();
    }

    private static void run(SimulatedDevice device, ManualClock clock, SamplingSession s, long ms) {
        long end = clock.nanos() + ms * MS;
        while (clock.nanos() < end) {
            device.launch(s, "k_saxpy", 10 * MS, MS);
        }
    }

    @Test
    void windows_and_executions_cross_the_cluster_and_a_killed_node_leaves_its_open_burst_unknown() throws Exception {
        try (FarmNode coordinator = node(Set.of("coordinator"), dir.resolve("c"), List.of(), ConfigFactory.empty())) {
            List<String> seeds = List.of(coordinator.seed());
            FarmNode plain = node(Set.of("gpu"), dir.resolve("g0"), seeds, ConfigFactory.empty());
            FarmNode tierA = node(Set.of("gpu"), dir.resolve("g1"), seeds,
                    ConfigFactory.parseString("replay.gpu.sampling.mode = serialized"));
            try {
                ClusterWaits.awaitUp(coordinator, 3);
                ManualClock clock0 = new ManualClock(1_000 * MS);
                ManualClock clock1 = new ManualClock(1_000 * MS);
                SimulatedDevice dev0 = new SimulatedDevice(clock0, SimulatedDevice.typicalStallReasons());
                SimulatedDevice dev1 = new SimulatedDevice(clock1, SimulatedDevice.typicalStallReasons());
                GpuNode g0 = GpuNode.start(plain.system(), dev0, 1);
                GpuNode g1 = GpuNode.start(tierA.system(), dev1, 1);
                assertEquals(SamplingMode.OFF, g0.settings().mode());
                assertEquals(SamplingMode.SERIALIZED, g1.settings().mode());
                Await.until("both GPU nodes finding the coordinator's store (the receptionist's listing)",
                        () -> g0.storesKnown() > 0 && g1.storesKnown() > 0);
                assertTrue(g0.storesKnown() == 1 && g1.storesKnown() == 1, "both GPU nodes found the coordinator's store");

                // this test thread is both nodes' launching thread
                run(dev0, clock0, g0.session(), 5_000);
                run(dev1, clock1, g1.session(), 15_000);
                g0.session().report();
                g1.session().report();
                String a0 = plain.address();
                String a1 = tierA.address();
                long e0 = g0.session().stats().executions();
                long e1 = g1.session().stats().executions();
                long closed = g1.session().stats().burstsClosed();
                SamplingSnapshot s = ClusterWaits.awaitSnapshot(coordinator, x -> executions(x, a0) == e0 && executions(x, a1) == e1
                        && only(x, a1).nodes().get(0).windows().stream().filter(w -> !w.open()).count() == closed);
                SamplingConformance.assertInvariants(only(s, a0), true, dev0.ranSerialized());
                ExecutionViews v1 = SamplingConformance.assertInvariants(only(s, a1), false, dev1.ranSerialized());
                assertEquals(dev1.ranSerialized().size(), v1.serialized());
                assertEquals(0, v1.unknown());
                assertEquals(0, g0.undelivered() + g1.undelivered());

                // kill the Tier A node in the middle of a burst, after it reported executions that ran in it
                while (!dev1.active()) {
                    dev1.launch(g1.session(), "k_saxpy", 10 * MS, MS);
                }
                for (int i = 0; i < 20; i++) {
                    dev1.launch(g1.session(), "k_tail", 1 * MS, MS / 10);
                }
                assertTrue(dev1.active(), "the burst is still open");
                g1.session().report();
                long e1b = g1.session().stats().executions();
                long started = g1.session().stats().burstsStarted();
                ClusterWaits.awaitSnapshot(coordinator, x -> executions(x, a1) == e1b
                        && only(x, a1).nodes().get(0).windows().size() == started);
                tierA.close(); // its burst never stops: the closed record never goes out

                SamplingSnapshot after = ClusterWaits.awaitSnapshot(coordinator, x -> true);
                SamplingSnapshot.NodeSampling killed = only(after, a1).nodes().get(0);
                WindowStore.Window open = killed.windows().get(killed.windows().size() - 1);
                assertTrue(open.open(), "the last burst opened and never closed");
                ExecutionViews v = SamplingConformance.assertInvariants(only(after, a1), false, dev1.ranSerialized());
                long tail = v.views().stream().filter(x -> x.execution().getKernel().equals("k_tail")).count();
                assertEquals(20, tail);
                v.views().stream().filter(x -> x.execution().getStartNs() > open.startNs())
                        .forEach(x -> assertEquals(Serialized.UNKNOWN, x.serialized(), x.toString()));
                assertTrue(v.unknown() >= 20);

                ObjectNode report = new ObjectMapper().createObjectNode();
                JsonNode sec = SamplingReport.toJson(report, after);
                assertEquals("off+serialized", sec.get("mode").asText());
                assertEquals(v.unknown(), sec.get("executions").get("unknown").asLong());
                JsonNode killedJson = StreamSupport.stream(sec.get("nodes").spliterator(), false)
                        .filter(n -> n.get("node").asText().equals(a1)).findFirst().orElseThrow();
                assertEquals(1, killedJson.get("bursts_open").asLong());
                assertEquals("serialized", killedJson.get("mode").asText());
            } finally {
                tierA.close();
                plain.close();
            }
        }
    }
}
