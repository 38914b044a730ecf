package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import akka.actor.typed.ActorRef;
import akka.actor.typed.receptionist.Receptionist;
import com.google.protobuf.Message;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.node.SamplingLink;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.GpuExecutionReport;
import org.replayfarm.proto.GpuPcSampleBatch;
import org.replayfarm.proto.PcSample;
import org.replayfarm.proto.SamplingMode;

/**
 * The sampling store's typed protocol ({@code Behavior<SamplingStore.Command>}) with TestProbes: the ref
 * it registers under {@link SamplingLink#STORE} takes the bare protobuf records a GPU node's link sends
 * (the wire form is unchanged); a snapshot asked after records sees all of them, the latest report by
 * its time; records that arrive twice are counted as duplicates, not kept twice; a record of a kind the
 * store does not know is dropped and the store keeps answering.
 */
@Tag("unit")
class SamplingStoreProtocolTest {
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String NODE = "akka://farm@127.0.0.1:9";

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    /** The wire-facing ref a store registered (as a GPU node's link finds it). */
    private static ActorRef<Message> wireOf(ActorRef<SamplingStore.Command> store) {
        TestProbe<Receptionist.Listing> listings = KIT.createTestProbe();
        ActorRef<Message>[] found = new ActorRef[1];
        listings.awaitAssert(WAIT, () -> {
            KIT.system().receptionist().tell(Receptionist.find(SamplingLink.STORE, listings.getRef()));
            Set<ActorRef<Message>> refs = listings.expectMessageClass(Receptionist.Listing.class, WAIT)
                    .getServiceInstances(SamplingLink.STORE);
            assertEquals(1, refs.size(), "stores registered");
            found[0] = refs.iterator().next();
            return null;
        });
        assertTrue(found[0].path().toString().startsWith(store.path().toString()),
                "the registered ref " + found[0].path() + " is the store's own adapter (" + store.path() + ")");
        return found[0];
    }

    private static SamplingSnapshot ask(ActorRef<SamplingStore.Command> store) {
        TestProbe<SamplingSnapshot> answers = KIT.createTestProbe();
        store.tell(new SamplingStore.GetSnapshot(answers.getRef()));
        return answers.expectMessageClass(SamplingSnapshot.class, WAIT);
    }

    private static GpuExecutionReport report(long asOf, int... correlations) {
        GpuExecutionReport.Builder b = GpuExecutionReport.newBuilder().setNode(NODE).setIncarnation(1)
                .setConfiguredMode(SamplingMode.SAMPLING_MODE_CONTINUOUS).setAsOfNs(asOf);
        for (int c : correlations) {
            b.addExecutions(GpuExecution.newBuilder().setCorrelationId(c).setKernel("saxpy").setStartNs(c).setEndNs(c + 1));
        }
        return b.build();
    }

    private static GpuPcSampleBatch batch(long sequence, long pc) {
        return GpuPcSampleBatch.newBuilder().setNode(NODE).setIncarnation(1).setSequence(sequence)
                .addSamples(PcSample.newBuilder().setFunction("saxpy").setPcOffset(pc).setSamples(1)).build();
    }

    @Test
    void takesBareRecordsInOrderAndAnswersSnapshotsWithThem() {
        ActorRef<SamplingStore.Command> store = KIT.spawn(SamplingStore.create(SamplingMetrics.off(), Duration.ofMillis(50)));
        ActorRef<Message> wire = wireOf(store);
        assertEquals(SamplingSnapshot.EMPTY, ask(store), "nothing heard yet");

        wire.tell(report(100, 1, 2));
        wire.tell(batch(1, 0x10));
        wire.tell(batch(2, 0x20));
        wire.tell(report(200, 3));
        SamplingSnapshot s = ask(store); // asked after the records: it sees every one of them
        assertEquals(1, s.nodes().size());
        SamplingSnapshot.NodeSampling n = s.nodes().get(0);
        assertEquals(new WindowStore.NodeKey(NODE, 1), n.key());
        assertEquals(200, n.status().getAsOfNs(), "the latest report is the status");
        assertEquals(0, n.status().getExecutionsCount(), "the status is kept without its executions");
        assertEquals(Set.of(1, 2, 3), n.executions().stream().map(GpuExecution::getCorrelationId)
                .collect(java.util.stream.Collectors.toSet()));
        assertEquals(java.util.List.of(0x10L, 0x20L), n.samples().stream().map(PcSample::getPcOffset).sorted().toList());
        assertEquals(0, s.duplicates());

        // an older report arriving late does not replace the status; records sent twice are counted once
        wire.tell(report(150, 2));
        wire.tell(batch(2, 0x20));
        SamplingSnapshot again = ask(store);
        assertEquals(200, again.nodes().get(0).status().getAsOfNs());
        assertEquals(3, again.nodes().get(0).executions().size());
        assertEquals(2, again.nodes().get(0).samples().size());
        assertEquals(2, again.duplicates(), "one execution and one PC batch arrived twice");

        // the helper asks the same question
        SamplingSnapshot viaAsk = SamplingStore.snapshot(KIT.system(), store, WAIT).toCompletableFuture().join();
        assertEquals(again, viaAsk);
        KIT.stop(store);
    }

    @Test
    void anUnknownRecordIsDroppedAndTheStoreKeepsAnswering() {
        ActorRef<SamplingStore.Command> store = KIT.spawn(SamplingStore.create());
        ActorRef<Message> wire = wireOf(store);
        // a protobuf message that is not a sampling record (a bare execution, outside any report)
        wire.tell(GpuExecution.newBuilder().setCorrelationId(9).build());
        assertEquals(SamplingSnapshot.EMPTY, ask(store), "the unknown record left nothing behind");
        wire.tell(batch(1, 0x30));
        SamplingSnapshot s = ask(store);
        assertEquals(1, s.nodes().size(), "the store still takes records after the bad one");
        assertEquals(0x30L, s.nodes().get(0).samples().get(0).getPcOffset());
        assertThrows(NullPointerException.class, () -> new SamplingStore.Record(null));
        KIT.stop(store);
    }
}
