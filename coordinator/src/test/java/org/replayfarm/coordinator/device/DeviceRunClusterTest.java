package org.replayfarm.coordinator.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.report.Comparison;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.node.DeviceSetup;
import org.replayfarm.proto.GpuDeviceInfo;
import org.replayfarm.model.testing.FreePorts;
import org.replayfarm.model.testing.Await;

/**
 * The whole device path on a loopback cluster (separate ActorSystems, Artery TCP, protobuf on the wire):
 * coordinator → GPU node (its device the cuda-cpu backend: everything but the launch itself) → device run
 * → launch records → outputs in chunks → diff → report; a GPU node leaving mid-run hands the run to
 * another GPU node, and with none left the job reports the device side failed, never "equal".
 */
@Tag("cluster")
class DeviceRunClusterTest {
    private static final Path SAXPY = Path.of("..", "examples", "saxpy", "saxpy.capture");
    private static final Config QUIET = ConfigFactory.parseString("""
            akka.cluster.split-brain-resolver.stable-after = 3s
            akka.coordinated-shutdown.exit-jvm = off
            akka.loglevel = WARNING
            replay.metrics.enabled = false
            replay.coordinator.tick = 100ms
            """);

    @TempDir
    Path dir;

    /** A device that starts and never finishes (its node is stopped under it); it keeps the job it was asked for. */
    static final class NeverFinishes implements DeviceBackend {
        final CountDownLatch entered = new CountDownLatch(1);
        final AtomicReference<String> jobId = new AtomicReference<>();

        @Override
        public String kind() {
            return "cuda";
        }

        @Override
        public String label() {
            return "a device that never finishes";
        }

        @Override
        public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
            jobId.set(request.jobId());
            entered.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new DeviceException("interrupted: the node stopped");
        }

        DeviceSetup setup() {
            return new DeviceSetup(this, GpuDeviceInfo.newBuilder().setBackend("cuda").setAvailable(true)
                    .setWhy("a test device that never finishes").setName("never").setLabel(label()).build());
        }
    }

    private FarmNode coordinator() throws Exception {
        return FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("coordinator"))
                .withEvalThreads(1).withSerializeMessages(true).withConfig(QUIET));
    }

    private FarmNode gpuNode(FarmNode coordinator, String name, int port, DeviceSetup device) throws Exception {
        return FarmNode.start(FarmNode.Settings.of(Set.of("gpu"), dir.resolve(name)).withAddress("127.0.0.1", port)
                .withSeeds(List.of(coordinator.seed())).withSerializeMessages(true)
                .withConfig(ConfigFactory.parseString("replay.gpu.backend = cuda-cpu").withFallback(QUIET)), device);
    }

    private static List<GpuDeviceInfo> awaitGpuNodes(FarmNode coordinator, int n) throws InterruptedException {
        return Await.value("the coordinator to learn of " + n + " GPU node(s)", () -> coordinator.gpuNodes().nodes(),
                nodes -> nodes.size() == n);
    }

    private record Ended(JobProgress progress, Comparison.Result result) {
    }

    private static CompletableFuture<Ended> job(FarmNode coordinator, String id, Path out) throws Exception {
        String sha = coordinator.jobs().storeCapture(SAXPY);
        CompletableFuture<Ended> end = new CompletableFuture<>();
        AtomicReference<Comparison.Result> result = new AtomicReference<>();
        coordinator.jobs().start(id, sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, out,
                CompareWith.parse("cuda", 0, false), "saxpy.capture", result::set);
        coordinator.jobs().subscribe(id, p -> {
            if (p.ended()) {
                end.complete(new Ended(p, result.get()));
            }
        });
        return end;
    }

    /** Two free loopback ports, ascending (below the ephemeral range: FreePorts). */
    private static int[] twoPorts() {
        return FreePorts.loopback(2);
    }

    @Test
    void aCudaJobRunsOnTheGpuNodeAndComparesEqual() throws Exception {
        try (FarmNode coordinator = coordinator(); FarmNode gpu = gpuNode(coordinator, "gpu", 0, null)) {
            GpuDeviceInfo info = awaitGpuNodes(coordinator, 1).get(0);
            assertEquals(gpu.address(), info.getNodeAddress());
            assertEquals("cuda-cpu", info.getBackend());
            assertTrue(info.getAvailable(), info.getWhy());
            assertTrue(info.getLabel().startsWith("CUDA C translation on the CPU, g++"), info.getLabel());
            Path out = dir.resolve("out");
            Ended e = job(coordinator, "cuda-job", out).get(300, TimeUnit.SECONDS);
            assertEquals("finished", e.progress().state(), e.progress().error());
            assertEquals(0, e.result().verdict().exitStatus(), e.result().summary());
            JsonNode device = new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("device");
            assertEquals("cuda", device.get("choice").asText());
            assertEquals("cuda-cpu", device.get("kind").asText());
            assertTrue(device.get("label").asText().contains("(GPU node " + gpu.address() + ")"), device.toString());
            assertTrue(device.get("reason").asText().startsWith("cuda (asked for): GPU node " + gpu.address()),
                    device.toString());
            assertEquals(1, device.get("executions").size(), "one launch record came back");
            assertTrue(e.result().diff().comparedBytes() > 0, "bytes were compared");
        }
    }

    @Test
    void aGpuNodeLeavingMidRunHandsTheRunToAnother() throws Exception {
        int[] ports = twoPorts();
        NeverFinishes stuck = new NeverFinishes();
        try (FarmNode coordinator = coordinator(); FarmNode good = gpuNode(coordinator, "gpu-b", ports[1], null)) {
            FarmNode first = gpuNode(coordinator, "gpu-a", ports[0], stuck.setup());
            CompletableFuture<Ended> end;
            try {
                List<GpuDeviceInfo> nodes = awaitGpuNodes(coordinator, 2);
                assertEquals(first.address(), nodes.get(0).getNodeAddress(), "the stuck node is the first candidate");
                end = job(coordinator, "failover", dir.resolve("out"));
                assertTrue(stuck.entered.await(120, TimeUnit.SECONDS), "the device run reached the first GPU node");
                // the task named the job it runs for (not a run id of its own), over the wire to the GPU node's device
                assertEquals("failover", stuck.jobId.get());
            } finally {
                first.close(); // leaves the cluster mid-run
            }
            Ended e = end.get(300, TimeUnit.SECONDS);
            assertEquals("finished", e.progress().state(), e.progress().error());
            assertEquals(0, e.result().verdict().exitStatus(), e.result().summary());
            JsonNode device = new ObjectMapper().readTree(dir.resolve("out").resolve("report.json").toFile()).get("device");
            assertEquals("cuda-cpu", device.get("kind").asText());
            assertTrue(device.get("label").asText().contains("(GPU node " + good.address() + ", attempt 2 after GPU node "
                    + first.address() + " left during the device run"), device.toString());
        }
    }

    @Test
    void theOnlyGpuNodeLeavingMidRunFailsTheDeviceSideNeverEqual() throws Exception {
        NeverFinishes stuck = new NeverFinishes();
        try (FarmNode coordinator = coordinator()) {
            FarmNode only = gpuNode(coordinator, "gpu", 0, stuck.setup());
            CompletableFuture<Ended> end;
            try {
                awaitGpuNodes(coordinator, 1);
                end = job(coordinator, "orphan", dir.resolve("out"));
                assertTrue(stuck.entered.await(120, TimeUnit.SECONDS), "the device run reached the GPU node");
                assertEquals("orphan", stuck.jobId.get(), "the device run carries its job's id");
            } finally {
                only.close();
            }
            Ended e = end.get(120, TimeUnit.SECONDS);
            assertEquals("failed", e.progress().state());
            assertTrue(e.progress().error().contains("the device side failed: GPU node " + only.address()
                    + " left during the device run"), e.progress().error());
            assertTrue(e.progress().error().contains("nothing was compared"), e.progress().error());
        }
    }

}
