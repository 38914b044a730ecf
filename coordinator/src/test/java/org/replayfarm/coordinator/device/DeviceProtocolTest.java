package org.replayfarm.coordinator.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.receptionist.Receptionist;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.device.DeviceEvent;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.node.DeviceRunCodec;
import org.replayfarm.gpunode.node.DeviceRunner;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.DeviceQuery;
import org.replayfarm.proto.DeviceRangeBytes;
import org.replayfarm.proto.DeviceRunChunk;
import org.replayfarm.proto.DeviceRunEvent;
import org.replayfarm.proto.DeviceRunOutput;
import org.replayfarm.proto.DeviceRunTask;
import org.replayfarm.proto.GpuDeviceInfo;

/**
 * The coordinator's device protocols ({@code Behavior<GpuNodes.Command>}, {@code
 * Behavior<RemoteDeviceBackend.Command>}) with TestProbes standing in for GPU nodes' runners: the directory
 * queries each runner the receptionist lists and keeps what it advertises, forgetting a runner that stops;
 * a run's client sends the task, passes the runner's events on, ignores chunks of another attempt, joins
 * the outputs of its own, and fails naming the node when the runner's output carries an error.
 */
@Tag("unit")
class DeviceProtocolTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String NODE_A = "akka://farm@127.0.0.2:1";
    private static ActorTestKit kit;
    private static GpuNodes directory;

    @BeforeAll
    static void start() {
        kit = ActorTestKit.create(ConfigFactory.parseString("""
                akka.actor.provider = cluster
                akka.remote.artery.canonical.hostname = 127.0.0.1
                akka.remote.artery.canonical.port = 0
                """).withFallback(ConfigFactory.load()));
        directory = GpuNodes.start(kit.system(), "http://127.0.0.1:1", Duration.ofSeconds(30));
    }

    @AfterAll
    static void stop() {
        kit.shutdownTestKit();
    }

    private static String ref(ActorRef<?> r) {
        return ActorRefResolver.get(kit.system()).toSerializationFormat(r);
    }

    private static GpuDeviceInfo info(String node, ActorRef<Message> runner) {
        return GpuDeviceInfo.newBuilder().setNodeAddress(node).setBackend("cuda-cpu").setAvailable(true).setLabel("CPU")
                .setWhy("a probe").setRunner(ref(runner)).build();
    }

    @Test
    void theDirectoryKeepsWhatListedRunnersAdvertiseAndForgetsOnesThatStop() {
        TestProbe<Message> runner = kit.createTestProbe();
        kit.system().receptionist().tell(Receptionist.register(DeviceRunner.KEY, runner.getRef()));
        DeviceQuery q = runner.expectMessageClass(DeviceQuery.class, WAIT);
        ActorRefResolver.get(kit.system()).<GpuDeviceInfo>resolveActorRef(q.getReplyTo()).tell(info(NODE_A, runner.getRef()));
        runner.awaitAssert(WAIT, () -> {
            assertEquals(List.of(info(NODE_A, runner.getRef())), directory.nodes());
            return null;
        });
        runner.stop();
        TestProbe<Object> watcher = kit.createTestProbe();
        watcher.awaitAssert(WAIT, () -> {
            assertEquals(List.of(), directory.nodes(), "a runner that stopped is forgotten");
            return null;
        });
    }

    private static DeviceRequest request() throws Exception {
        CaptureFile capture = CaptureFile.open(Toolchain.root().resolve("examples/saxpy/saxpy.capture"));
        return new DeviceRequest(capture, capture.identity());
    }

    private static void answer(String replyTo, DeviceRunOutput o) {
        ActorRef<Message> reply = ActorRefResolver.get(kit.system()).resolveActorRef(replyTo);
        for (DeviceRunChunk c : DeviceRunCodec.chunks(o)) {
            reply.tell(c);
        }
    }

    @Test
    void aRunsClientJoinsItsOwnAttemptsOutputsAndPassesEventsOn() throws Exception {
        TestProbe<Message> runner = kit.createTestProbe();
        RemoteDeviceBackend backend = new RemoteDeviceBackend(kit.system(), directory, List.of(info(NODE_A, runner.getRef())),
                "http://127.0.0.1:1", Duration.ofSeconds(30), HotGuestMetrics.off());
        DeviceRequest request = request();
        List<DeviceEvent> events = new CopyOnWriteArrayList<>();
        CompletableFuture<DeviceRun> run = CompletableFuture.supplyAsync(() -> {
            try {
                return backend.run(request, events::add);
            } catch (DeviceException e) {
                throw new RuntimeException(e);
            }
        });
        DeviceRunTask task = runner.expectMessageClass(DeviceRunTask.class, WAIT);
        assertEquals(1, task.getAttempt());
        assertEquals(request.captureSha256(), task.getCaptureSha256());
        assertEquals("http://127.0.0.1:1/captures/" + request.captureSha256(), task.getCaptureUrl());
        ActorRef<Message> reply = ActorRefResolver.get(kit.system()).resolveActorRef(task.getReplyTo());
        reply.tell(DeviceRunEvent.newBuilder().setJobId(task.getJobId()).setAttempt(1).setStartedLabel("probe device").build());
        // a late answer of another attempt is not this run's
        answer(task.getReplyTo(), DeviceRunOutput.newBuilder().setJobId(task.getJobId()).setAttempt(7).setNodeAddress(NODE_A)
                .addRanges(DeviceRangeBytes.newBuilder().setIndex(0).setData(ByteString.copyFrom(new byte[] {9}))).build());
        answer(task.getReplyTo(), DeviceRunOutput.newBuilder().setJobId(task.getJobId()).setAttempt(1).setNodeAddress(NODE_A)
                .setKind("cuda-cpu").setLabel("CPU")
                .addRanges(DeviceRangeBytes.newBuilder().setIndex(0).setData(ByteString.copyFrom(new byte[] {1, 2, 3}))).build());
        DeviceRun r = run.get(30, TimeUnit.SECONDS);
        byte[] got = new byte[r.ranges().get(0).remaining()];
        r.ranges().get(0).duplicate().get(got);
        assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), List.of(got[0], got[1], got[2]));
        assertEquals(3, got.length);
        assertEquals("CPU (GPU node " + NODE_A + ")", r.label());
        assertEquals(List.of(new DeviceEvent.Started("cuda-cpu", "probe device")), events);
    }

    @Test
    void aRunWhoseOutputCarriesAnErrorFailsNamingTheNode() throws Exception {
        TestProbe<Message> runner = kit.createTestProbe();
        RemoteDeviceBackend backend = new RemoteDeviceBackend(kit.system(), directory, List.of(info(NODE_A, runner.getRef())),
                "http://127.0.0.1:1", Duration.ofSeconds(30), HotGuestMetrics.off());
        DeviceRequest request = request();
        CompletableFuture<DeviceRun> run = CompletableFuture.supplyAsync(() -> {
            try {
                return backend.run(request, e -> { });
            } catch (DeviceException e) {
                throw new RuntimeException(e);
            }
        });
        DeviceRunTask task = runner.expectMessageClass(DeviceRunTask.class, WAIT);
        answer(task.getReplyTo(), DeviceRunOutput.newBuilder().setJobId(task.getJobId()).setAttempt(task.getAttempt())
                .setNodeAddress(NODE_A).setError("capture fetch failed: 404").build());
        ExecutionException e = assertThrows(ExecutionException.class, () -> run.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause().getCause() instanceof DeviceException, String.valueOf(e.getCause()));
        assertEquals("the device side failed on GPU node " + NODE_A + ": capture fetch failed: 404",
                e.getCause().getCause().getMessage());
    }
}
