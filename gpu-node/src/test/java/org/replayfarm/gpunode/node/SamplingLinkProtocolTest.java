package org.replayfarm.gpunode.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import akka.actor.typed.ActorRef;
import akka.actor.typed.receptionist.Receptionist;
import com.google.protobuf.Message;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.GpuPcSampleBatch;

/**
 * The sampling link's typed protocol ({@code Behavior<SamplingLink.Command>}) with TestProbes standing in
 * for the coordinator's store (registered under {@link SamplingLink#STORE} as a real store registers):
 * records sent while no store is known are counted as undelivered and reach no one; once a store is
 * known, every record reaches it unchanged and in order; with two stores each gets every record; when a
 * store stops, the link forgets it and counts again.
 */
@Tag("unit")
class SamplingLinkProtocolTest {
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final Duration WAIT = Duration.ofSeconds(20);

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
    }

    private static GpuPcSampleBatch batch(long sequence) {
        return GpuPcSampleBatch.newBuilder().setNode("akka://farm@127.0.0.1:7").setIncarnation(3).setSequence(sequence).build();
    }

    private static void awaitKnown(TestProbe<?> probe, AtomicInteger known, int expected) {
        probe.awaitAssert(WAIT, () -> {
            assertEquals(expected, known.get(), "stores the link knows");
            return null;
        });
    }

    @Test
    void deliversInOrderToEveryKnownStoreAndCountsWhatNoStoreTook() {
        AtomicInteger known = new AtomicInteger();
        AtomicLong undelivered = new AtomicLong();
        ActorRef<SamplingLink.Command> link = KIT.spawn(SamplingLink.create(known, undelivered));

        // no store yet: nothing is delivered, each record is counted
        TestProbe<Message> first = KIT.createTestProbe();
        link.tell(new SamplingLink.Send(batch(1)));
        link.tell(new SamplingLink.Send(batch(2)));
        first.awaitAssert(WAIT, () -> {
            assertEquals(2, undelivered.get(), "records sent while no store was known");
            return null;
        });
        first.expectNoMessage(Duration.ofMillis(200));

        KIT.system().receptionist().tell(Receptionist.register(SamplingLink.STORE, first.getRef()));
        awaitKnown(first, known, 1);
        for (long s = 3; s <= 7; s++) {
            link.tell(new SamplingLink.Send(batch(s)));
        }
        for (long s = 3; s <= 7; s++) {
            assertEquals(batch(s), first.expectMessageClass(GpuPcSampleBatch.class, WAIT), "record " + s);
        }
        assertEquals(2, undelivered.get(), "nothing more was lost once a store was known");

        TestProbe<Message> second = KIT.createTestProbe();
        KIT.system().receptionist().tell(Receptionist.register(SamplingLink.STORE, second.getRef()));
        awaitKnown(second, known, 2);
        link.tell(new SamplingLink.Send(batch(8)));
        link.tell(new SamplingLink.Send(batch(9)));
        for (TestProbe<Message> store : java.util.List.of(first, second)) {
            assertEquals(batch(8), store.expectMessageClass(GpuPcSampleBatch.class, WAIT));
            assertEquals(batch(9), store.expectMessageClass(GpuPcSampleBatch.class, WAIT));
        }

        // both stores gone (a coordinator stopped): the link forgets them and counts again
        first.stop();
        second.stop();
        awaitKnown(second, known, 0);
        TestProbe<Message> watcher = KIT.createTestProbe();
        link.tell(new SamplingLink.Send(batch(10)));
        watcher.awaitAssert(WAIT, () -> {
            assertEquals(3, undelivered.get(), "a record sent after every store stopped");
            return null;
        });
        KIT.stop(link);
    }

    @Test
    void aSendWithoutARecordIsRefusedAtOnce() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new SamplingLink.Send(null));
        assertEquals("record", e.getMessage());
    }
}
