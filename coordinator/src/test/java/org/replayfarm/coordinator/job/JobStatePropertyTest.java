package org.replayfarm.coordinator.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link JobState} alone under random histories: results delivered out of order, twice or never, attempts
 * failing, nodes leaving, vanishing and coming back, deadlines passing, the coordinator restarting from its
 * journal, the job cancelled. After every event the invariants the farm promises are checked: no slice merged
 * twice and none skipped (the merge is the groups in order, each slice's bytes as evaluated), progress never
 * goes backwards (a restart included), no node holds more attempts than its slots, copies for deadlines stay
 * logarithmic in the time a slice takes, a state never changes once made, and a job is never both done and
 * failed. Then the faults stop: the job must end, done with every group merged once or failed with a reason.
 *
 * <p>Seeded and repeatable: {@code -Dreplay.jobstate.runs=N} histories from {@code -Dreplay.jobstate.seed=S};
 * a failure names the seed that made it.
 */
@Tag("unit")
class JobStatePropertyTest {
    private static final int RUNS = Integer.getInteger("replay.jobstate.runs", 300);
    private static final long SEED = Long.getLong("replay.jobstate.seed", 0x36L);

    @Test
    void random_histories_keep_the_invariants_and_every_job_ends() {
        int done = 0;
        int failed = 0;
        int cancelled = 0;
        int inChaos = 0;
        int restarts = 0;
        long resent = 0;
        long failedAttempts = 0;
        for (int run = 0; run < RUNS; run++) {
            long seed = SEED + run;
            World w = new World(seed);
            try {
                w.run();
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + " (-Dreplay.jobstate.seed=" + seed
                        + " -Dreplay.jobstate.runs=1), step " + w.steps + ": " + e.getMessage(), e);
            }
            inChaos += w.endedInChaos ? 1 : 0;
            restarts += w.restarts;
            failedAttempts += w.failedAttempts;
            resent += w.state.resent();
            if (w.state.cancelled()) {
                cancelled++;
            } else if (w.state.done()) {
                done++;
            } else {
                failed++;
            }
        }
        System.out.printf("JobStatePropertyTest: %d histories: %d done, %d failed with a reason, %d cancelled; %d ended "
                + "while faults went on; %d coordinator restarts, %d slices sent again, %d failed attempts%n", RUNS, done,
                failed, cancelled, inChaos, restarts, resent, failedAttempts);
        assertTrue(done > RUNS / 2, "most histories end with the job done: " + done);
        assertTrue(failed > 0, "some end failed (a group that fails everywhere)");
    }

    /** A result on its way to the coordinator. */
    private record Msg(long sliceId, int attempt, String node, long start, int count, String error) {
    }

    /** An attempt a node is running. */
    private record Task(long sliceId, int attempt, String node, long start, int count) {
    }

    private enum NodeStatus { UP, LEAVING, GONE }

    private static final class World {
        final Random rnd;
        final long total;
        final JobState.Settings settings;
        final Map<String, Integer> slots = new LinkedHashMap<>();
        final Map<String, NodeStatus> status = new HashMap<>();
        final List<JobState.Durable> journal = new ArrayList<>();
        final List<Task> tasks = new ArrayList<>();
        final List<Msg> network = new ArrayList<>();
        final double errorRate;
        final double lossRate;
        /** A group whose evaluation fails wherever it runs (-1: none): the job must fail, naming its slice. */
        final long badGroup;
        JobState state;
        long now;
        long mergedExpected;       // the next group the merge must get, this incarnation
        long finishedHigh;         // the most groups finished seen
        Map<Long, Integer> deadlineCopies = new HashMap<>();
        Map<Long, Long> firstSent = new HashMap<>();
        int steps;
        boolean replaying;
        boolean endedInChaos;
        int restarts;
        int failedAttempts;

        World(long seed) {
            rnd = new Random(seed);
            total = 1 + rnd.nextInt(rnd.nextBoolean() ? 12 : 3000);
            settings = new JobState.Settings(100, 1000, 10, 1000, 3 + rnd.nextInt(3), 4 + rnd.nextInt(4));
            int n = 1 + rnd.nextInt(4);
            for (int i = 0; i < n; i++) {
                slots.put("n" + i, 1 + rnd.nextInt(3));
            }
            errorRate = rnd.nextInt(4) * 0.1;
            lossRate = rnd.nextInt(3) * 0.05;
            badGroup = rnd.nextInt(8) == 0 ? rnd.nextLong(total) : -1;
            state = new JobState(total, settings);
        }

        void run() {
            for (String node : slots.keySet()) {
                status.put(node, NodeStatus.UP);
                apply(new JobState.NodeUp(node, slots.get(node)));
            }
            pump();
            boolean cancel = rnd.nextInt(20) == 0;
            // faults go on until a random share of the job is merged (or the job ends under them)
            double until = rnd.nextDouble() * total;
            for (; state.groupsMerged() < until && steps < 50_000 && !ended(); steps++) {
                chaosStep();
                pump();
            }
            endedInChaos = ended();
            if (cancel && !ended()) {
                cancelAndCheck();
                return;
            }
            // the faults stop: every node comes back, nothing is lost or fails, time goes on
            for (String node : slots.keySet()) {
                if (status.get(node) != NodeStatus.UP) {
                    status.put(node, NodeStatus.UP);
                    apply(new JobState.NodeUp(node, slots.get(node)));
                }
            }
            for (int calm = 0; !ended(); calm++, steps++) {
                if (calm > 5_000) {
                    fail("the job never ends once the faults stop: " + describe());
                }
                pump();
                while (!tasks.isEmpty() && !ended()) {
                    Task t = tasks.remove(0);
                    deliver(new Msg(t.sliceId(), t.attempt(), t.node(), t.start(), t.count(),
                            bad(t) ? "group " + badGroup + " fails everywhere" : ""));
                }
                while (!network.isEmpty() && !ended()) {
                    deliver(network.remove(0));
                }
                if (!ended()) {
                    tick(now + settings.firstDeadlineNanos() / 2 + 1);
                }
            }
            if (badGroup >= 0) {
                assertNotNull(state.failure(), "group " + badGroup + " never evaluates, yet the job ended done");
            }
            if (state.done()) {
                assertEquals(total, mergedExpected, "done: every group merged");
                assertEquals(total, state.groupsMerged());
                // late answers after the end change nothing
                for (Msg m : network) {
                    deliver(m);
                }
                assertTrue(state.done());
            } else {
                assertNotNull(state.failure());
                assertTrue(state.failure().contains("failed") || state.failure().contains("rotation"),
                        "a failure says why: " + state.failure());
            }
        }

        boolean bad(Task t) {
            return badGroup >= t.start() && badGroup < t.start() + t.count();
        }

        boolean ended() {
            return state.done() || state.failure() != null || state.cancelled();
        }

        String describe() {
            return "total " + total + ", merged " + state.groupsMerged() + ", finished " + state.groupsFinished()
                    + ", outstanding " + state.outstanding() + ", live " + state.liveAttempts() + ", tasks " + tasks
                    + ", network " + network + ", nodes " + status + ", window " + state.window() + ", queued "
                    + state.slicesQueued();
        }

        void chaosStep() {
            int roll = rnd.nextInt(100);
            if (roll < 30 && !tasks.isEmpty()) { // a node finishes an attempt; its answer may be lost on the way
                Task t = tasks.remove(rnd.nextInt(tasks.size()));
                if (rnd.nextDouble() >= lossRate) {
                    String error = bad(t) ? "group " + badGroup + " fails everywhere"
                            : rnd.nextDouble() < errorRate ? "injected failure on " + t.node() : "";
                    network.add(new Msg(t.sliceId(), t.attempt(), t.node(), t.start(), t.count(), error));
                }
            } else if (roll < 60 && !network.isEmpty()) { // an answer arrives, in any order
                deliver(network.remove(rnd.nextInt(network.size())));
            } else if (roll < 65 && !network.isEmpty()) { // an answer arrives twice
                deliver(network.get(rnd.nextInt(network.size())));
            } else if (roll < 70) {
                nodeChange();
            } else if (roll < 90) {
                tick(now + rnd.nextInt((int) settings.firstDeadlineNanos() * 2));
            } else if (roll < 92) {
                restart();
            }
        }

        void nodeChange() {
            List<String> nodes = new ArrayList<>(slots.keySet());
            String node = nodes.get(rnd.nextInt(nodes.size()));
            NodeStatus s = status.get(node);
            int roll = rnd.nextInt(3);
            if (s == NodeStatus.UP && roll == 0) {
                status.put(node, NodeStatus.LEAVING);
                apply(new JobState.NodeLeaving(node));
            } else if (s != NodeStatus.GONE && roll == 1) {
                // unreachable or crashed: what it was running is lost, answers already sent may still come
                status.put(node, NodeStatus.GONE);
                tasks.removeIf(t -> t.node().equals(node));
                apply(new JobState.NodeGone(node));
            } else if (s != NodeStatus.UP) {
                status.put(node, NodeStatus.UP);
                apply(new JobState.NodeUp(node, slots.get(node)));
            }
        }

        void tick(long to) {
            now = Math.max(now, to);
            for (JobState.AttemptExpired e : state.expire(now)) {
                if (e.resend()) {
                    int copies = deadlineCopies.merge(e.sliceId(), 1, Integer::sum);
                    long waited = now - firstSent.getOrDefault(e.sliceId(), 0L);
                    double bound = 2 + Math.log((double) waited / settings.minDeadlineNanos() + 1) / Math.log(2);
                    assertTrue(copies <= bound, "slice " + e.sliceId() + ": " + copies + " copies for deadlines in "
                            + waited + " ticks");
                }
                apply(e);
            }
        }

        /** The coordinator restarts: the job is rebuilt from its journal; answers to the old one are lost. */
        void restart() {
            restarts++;
            long finishedBefore = state.groupsFinished();
            long duplicatesBefore = state.duplicates();
            network.clear();
            tasks.clear();
            mergedExpected = 0;
            deadlineCopies = new HashMap<>();
            firstSent = new HashMap<>();
            state = new JobState(total, settings);
            replaying = true;
            for (JobState.Durable e : journal) {
                apply(e);
            }
            replaying = false;
            assertEquals(finishedBefore, state.groupsFinished(), "the journal gives back every finished group");
            assertEquals(duplicatesBefore, state.duplicates(), "and the duplicate count");
            apply(new JobState.Restarted());
            assertEquals(0, state.inFlight(), "nothing runs for the new incarnation yet");
            for (String node : slots.keySet()) {
                if (status.get(node) == NodeStatus.UP) {
                    apply(new JobState.NodeUp(node, slots.get(node)));
                }
            }
        }

        void cancelAndCheck() {
            apply(new JobState.Cancelled());
            assertTrue(state.dispatch(now).isEmpty(), "a cancelled job sends nothing");
            for (Msg m : new ArrayList<>(network)) {
                JobState.Verdict v = result(m);
                assertEquals(JobState.Accepted.UNKNOWN, v.accepted(), "no result counts after a cancel");
            }
            apply(new JobState.NodeUp("late", 4));
            assertTrue(state.dispatch(now).isEmpty());
            assertFalse(state.done());
        }

        JobState.Verdict result(Msg m) {
            return state.result(m.sliceId(), m.attempt(), m.node(), hash(m.start(), m.count()), m.count(),
                    10L * m.count(), m.error(), m.error().isEmpty() ? payload(m.start(), m.count()) : new byte[0]);
        }

        void deliver(Msg m) {
            JobState.Verdict v = result(m);
            if (v.event() == null) {
                return;
            }
            if (v.accepted() == JobState.Accepted.FAILED_ATTEMPT) {
                failedAttempts++;
            }
            if (v.event() instanceof JobState.SliceFinished f) {
                assertEquals(m.start(), f.start(), "a result is of the groups its slice was sent with");
                assertEquals(m.count(), f.count());
            }
            journal.add(v.event());
            apply(v.event());
        }

        void pump() {
            if (ended()) {
                return;
            }
            List<JobState.SliceSent> sends = state.dispatch(now);
            Map<String, Integer> added = new HashMap<>();
            for (JobState.SliceSent s : sends) {
                assertEquals(NodeStatus.UP, status.get(s.node()), "sent to " + s.node() + ", which is not up");
                int busy = state.inFlight(s.node()) + added.merge(s.node(), 1, Integer::sum);
                assertTrue(busy <= slots.get(s.node()), s.node() + " gets " + busy + " attempts, " + slots.get(s.node())
                        + " slots");
            }
            for (JobState.SliceSent s : sends) {
                firstSent.putIfAbsent(s.sliceId(), now);
                apply(s);
                tasks.add(new Task(s.sliceId(), s.attempt(), s.node(), s.start(), s.count()));
            }
        }

        void apply(JobState.Event e) {
            JobState before = state;
            long finished = before.groupsFinished();
            long merged = before.groupsMerged();
            int inFlight = before.inFlight();
            int outstanding = before.outstanding();
            long queued = before.slicesQueued();
            List<JobState.Ready> released = before.released();
            state = before.updated(e);
            // the state before is a value: applying an event to it changed nothing in it
            assertEquals(finished, before.groupsFinished());
            assertEquals(merged, before.groupsMerged());
            assertEquals(inFlight, before.inFlight());
            assertEquals(outstanding, before.outstanding());
            assertEquals(queued, before.slicesQueued());
            assertEquals(released, before.released());
            check(e);
        }

        void check(JobState.Event e) {
            for (JobState.Ready r : state.released()) {
                assertEquals(mergedExpected, r.start(), "slices merge in group order, each once, none skipped");
                assertArrayEquals(payload(r.start(), r.count()), r.payload(), "the bytes the slice was evaluated to");
                mergedExpected += r.count();
            }
            assertEquals(mergedExpected, state.groupsMerged());
            assertTrue(state.groupsMerged() <= state.groupsFinished(), "merged groups finished first");
            assertTrue(state.groupsFinished() <= total, "no group counted twice: " + state.groupsFinished());
            if (!replaying) {
                assertTrue(state.groupsFinished() >= finishedHigh, "progress went back after " + e);
            }
            finishedHigh = Math.max(finishedHigh, state.groupsFinished());
            assertFalse(state.done() && state.failure() != null, "done and failed");
            assertTrue(state.buffered() <= state.outstanding());
            for (String node : slots.keySet()) {
                if (state.slots(node) > 0) {
                    assertTrue(state.inFlight(node) <= state.slots(node), node + " holds " + state.inFlight(node)
                            + " slots of " + state.slots(node));
                }
            }
            assertTrue(state.released().isEmpty() || e instanceof JobState.SliceFinished,
                    "only a finished slice releases anything");
        }

        static byte[] hash(long start, int count) {
            return new byte[] {(byte) start, (byte) (start >> 8), (byte) count};
        }

        static byte[] payload(long start, int count) {
            return (start + "+" + count).getBytes(StandardCharsets.UTF_8);
        }
    }
}
