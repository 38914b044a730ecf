package org.replayfarm.gpunode.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.receptionist.Receptionist;
import com.google.protobuf.Message;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.proto.DeviceQuery;
import org.replayfarm.proto.DeviceRunChunk;
import org.replayfarm.proto.DeviceRunOutput;
import org.replayfarm.proto.DeviceRunTask;
import org.replayfarm.proto.GpuDeviceInfo;

/**
 * The device runner's typed protocol ({@code Behavior<DeviceRunner.Command>}) with TestProbes: the ref it
 * registers under {@link DeviceRunner#KEY} is the one it advertises, and takes the bare protobuf messages
 * (the wire form is unchanged); a query is answered with the node's device; a task on a node without a
 * usable device is answered, in order, with outputs whose error names the node and why; a message it does
 * not take is refused and the runner keeps answering. (Real runs over a cluster: DeviceRunClusterTest.)
 */
@Tag("unit")
class DeviceRunnerProtocolTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static ActorTestKit kit;
    private static ActorRef<Message> wire;
    private static String node;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        kit = ActorTestKit.create(ConfigFactory.parseString("""
                akka.actor.provider = cluster
                akka.remote.artery.canonical.hostname = 127.0.0.1
                akka.remote.artery.canonical.port = 0
                """).withFallback(ConfigFactory.load()));
        GpuDeviceInfo none = GpuDeviceInfo.newBuilder().setBackend("cuda").setAvailable(false)
                .setWhy("no GPU in this test").build();
        DeviceRunner.start(kit.system(), null, none, dir.resolve("cache"), null);
        node = akka.cluster.typed.Cluster.get(kit.system()).selfMember().address().toString();
        TestProbe<Receptionist.Listing> listings = kit.createTestProbe();
        listings.awaitAssert(WAIT, () -> {
            kit.system().receptionist().tell(Receptionist.find(DeviceRunner.KEY, listings.getRef()));
            Set<ActorRef<Message>> refs = listings.expectMessageClass(Receptionist.Listing.class, WAIT)
                    .getServiceInstances(DeviceRunner.KEY);
            assertEquals(1, refs.size(), "runners registered");
            wire = refs.iterator().next();
            return null;
        });
    }

    @AfterAll
    static void stop() {
        kit.shutdownTestKit();
    }

    private static String ref(ActorRef<?> r) {
        return ActorRefResolver.get(kit.system()).toSerializationFormat(r);
    }

    private static GpuDeviceInfo query() {
        TestProbe<GpuDeviceInfo> answers = kit.createTestProbe();
        wire.tell(DeviceQuery.newBuilder().setReplyTo(ref(answers.getRef())).build());
        return answers.expectMessageClass(GpuDeviceInfo.class, WAIT);
    }

    @Test
    void aQueryIsAnsweredWithTheDeviceAndTheRegisteredRef() {
        GpuDeviceInfo me = query();
        assertEquals("cuda", me.getBackend());
        assertFalse(me.getAvailable());
        assertEquals("no GPU in this test", me.getWhy());
        assertEquals(node, me.getNodeAddress());
        assertEquals(ref(wire), me.getRunner(), "the runner advertises the ref it registered");
    }

    @Test
    void tasksWithoutADeviceAreAnsweredInOrderWithTheirError() {
        TestProbe<Message> replies = kit.createTestProbe();
        for (int attempt = 1; attempt <= 3; attempt++) {
            wire.tell(DeviceRunTask.newBuilder().setJobId("job-7").setAttempt(attempt).setCaptureSha256("00")
                    .setCaptureUrl("http://127.0.0.1:1/captures/00").setReplyTo(ref(replies.getRef())).build());
        }
        for (int attempt = 1; attempt <= 3; attempt++) {
            List<DeviceRunChunk> chunks = new ArrayList<>();
            DeviceRunChunk c;
            do {
                c = replies.expectMessageClass(DeviceRunChunk.class, WAIT);
                chunks.add(c);
            } while (!c.getLast());
            DeviceRunOutput o = DeviceRunCodec.join(chunks);
            assertEquals("job-7", o.getJobId());
            assertEquals(attempt, o.getAttempt(), "answers come in the order the tasks were sent");
            assertEquals(node, o.getNodeAddress());
            assertEquals("GPU node " + node + " has no usable device: no GPU in this test", o.getError());
            assertEquals(0, o.getRangesCount());
        }
        replies.expectNoMessage(Duration.ofMillis(200));
    }

    @Test
    void aMessageItDoesNotTakeIsRefusedAndTheRunnerServesOn() {
        TestProbe<Message> bystander = kit.createTestProbe();
        wire.tell(GpuDeviceInfo.newBuilder().setBackend("not-a-question").build());
        bystander.expectNoMessage(Duration.ofMillis(100));
        assertTrue(DeviceRunner.wrap(GpuDeviceInfo.getDefaultInstance()) instanceof DeviceRunner.Unknown);
        assertEquals("cuda", query().getBackend(), "still answering after the stray message");
    }
}
