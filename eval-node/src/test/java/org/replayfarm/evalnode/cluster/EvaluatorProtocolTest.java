package org.replayfarm.evalnode.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.testkit.typed.javadsl.ActorTestKit;
import akka.actor.testkit.typed.javadsl.TestProbe;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.GroupRange;
import org.replayfarm.proto.SliceResult;
import org.replayfarm.proto.SliceResultChunk;
import org.replayfarm.proto.SliceTask;

/**
 * The evaluator entity's typed protocol ({@code Behavior<Evaluator.Command>}) with TestProbes: a slice is
 * answered once, in chunks, with the result a direct evaluation gives; a slice delivered twice is
 * answered once; a hand-off while evaluating waits for the result, an idle one stops at once; a slice
 * whose capture cannot be had is answered with an error naming it.
 */
@Tag("unit")
class EvaluatorProtocolTest {
    private static final ActorTestKit KIT = ActorTestKit.create();
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path dir;
    private static EvaluatorNode node;
    private static String sha;
    private static final java.util.concurrent.ExecutorService POOL = Executors.newFixedThreadPool(2);

    @BeforeAll
    static void node() throws Exception {
        Path example = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        sha = CaptureFile.open(example).identity();
        Path cache = Files.createDirectories(dir.resolve("cache"));
        Files.copy(example, cache.resolve(sha + ".capture")); // cached: nothing is fetched
        Executor executor = POOL;
        node = new EvaluatorNode(new CaptureCache(cache), executor, "akka://farm@127.0.0.1:1");
    }

    @AfterAll
    static void stop() {
        KIT.shutdownTestKit();
        POOL.shutdownNow();
    }

    private static SliceTask task(TestProbe<SliceResultChunk> replies, long slice, int attempt, String capture) {
        return SliceTask.newBuilder().setJobId("j").setCaptureSha256(capture).setCaptureUrl("http://127.0.0.1:1/none")
                .setSliceId(slice).setAttempt(attempt)
                .setReplyTo(ActorRefResolver.get(KIT.system()).toSerializationFormat(replies.ref()))
                .addRanges(GroupRange.newBuilder().setStart(0).setCount(2)).build();
    }

    /** Chunks until the last one, joined. */
    private static SliceResult receive(TestProbe<SliceResultChunk> replies) {
        List<SliceResultChunk> chunks = new ArrayList<>();
        SliceResultChunk c;
        do {
            c = replies.receiveMessage(WAIT);
            chunks.add(c);
        } while (!c.getLast());
        return SliceCodec.join(chunks);
    }

    @Test
    void a_slice_is_answered_once_with_the_direct_evaluations_result_and_the_entity_stops() throws Exception {
        TestProbe<SliceResultChunk> replies = KIT.createTestProbe(SliceResultChunk.class);
        TestProbe<Evaluator.Command> watcher = KIT.createTestProbe(Evaluator.Command.class);
        ActorRef<Evaluator.Command> entity = KIT.spawn(Evaluator.create(node));
        SliceTask t = task(replies, 7, 2, sha);
        entity.tell(new Evaluator.Slice(t));
        entity.tell(new Evaluator.Slice(t)); // the same attempt delivered twice
        SliceResult got = receive(replies);
        assertEquals(7, got.getSliceId());
        assertEquals(2, got.getAttempt());
        assertEquals("", got.getError());
        assertEquals(2, got.getOutcomesCount());
        SliceResult direct = node.evaluate(t).get(60, TimeUnit.SECONDS);
        assertArrayEquals(direct.getResultHash().toByteArray(), got.getResultHash().toByteArray(),
                "the entity answers what the node's evaluation gives");
        watcher.expectTerminated(entity, WAIT);
        replies.expectNoMessage(Duration.ofMillis(300)); // one answer only
    }

    @Test
    void a_hand_off_while_evaluating_waits_for_the_result_and_an_idle_one_stops_at_once() {
        TestProbe<SliceResultChunk> replies = KIT.createTestProbe(SliceResultChunk.class);
        TestProbe<Evaluator.Command> watcher = KIT.createTestProbe(Evaluator.Command.class);
        ActorRef<Evaluator.Command> busy = KIT.spawn(Evaluator.create(node));
        busy.tell(new Evaluator.Slice(task(replies, 1, 1, sha)));
        busy.tell(Evaluator.HAND_OFF);
        SliceResult got = receive(replies);
        assertEquals("", got.getError());
        assertEquals(2, got.getOutcomesCount(), "the slice finished before the entity handed off");
        watcher.expectTerminated(busy, WAIT);

        ActorRef<Evaluator.Command> idle = KIT.spawn(Evaluator.create(node));
        idle.tell(Evaluator.HAND_OFF);
        watcher.expectTerminated(idle, WAIT);
        replies.expectNoMessage(Duration.ofMillis(200));
    }

    @Test
    void a_slice_whose_capture_cannot_be_had_is_answered_with_an_error_naming_it() {
        TestProbe<SliceResultChunk> replies = KIT.createTestProbe(SliceResultChunk.class);
        ActorRef<Evaluator.Command> entity = KIT.spawn(Evaluator.create(node));
        String missing = "ab".repeat(32);
        entity.tell(new Evaluator.Slice(task(replies, 3, 1, missing)));
        SliceResult got = receive(replies);
        assertEquals(3, got.getSliceId());
        assertTrue(!got.getError().isEmpty(), "a failed slice says so");
        assertTrue(got.getError().contains("127.0.0.1:1") || got.getError().contains(missing), got.getError());
    }
}
