package org.replayfarm.coordinator.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The job's decisions without actors: window, re-sends, counting once, hashes, group order; attempts
 * (a late answer of a superseded attempt), failed slices moving to another node and failing nodes leaving
 * the rotation, the speculative re-sends of a late slice (each copy with twice the time), and a state rebuilt from its durable events.
 */
@Tag("unit")
class JobStateTest {
    static final JobState.Settings SETTINGS = new JobState.Settings(1_000_000_000L, 60_000_000_000L, 10, 1_000_000_000L,
            3, 3);
    static final byte[] H1 = {1};
    static final byte[] H2 = {2};

    /** What a run of the state did, for the checks: every durable event, in order. */
    private final List<JobState.Durable> journal = new ArrayList<>();

    private List<JobState.SliceSent> dispatch(JobRun s, long now) {
        List<JobState.SliceSent> sends = s.dispatch(now);
        sends.forEach(s::updated);
        return sends;
    }

    private JobState.Accepted answer(JobRun s, JobState.SliceSent sent, byte[] hash, int groups, long nanos,
                                     String error, String payload) {
        JobState.Verdict v = s.result(sent.sliceId(), sent.attempt(), sent.node(), hash, groups, nanos, error,
                payload == null ? new byte[0] : payload.getBytes(StandardCharsets.UTF_8));
        if (v.event() != null) {
            journal.add(v.event());
            s.updated(v.event());
        }
        return v.accepted();
    }

    private JobState.Accepted ok(JobRun s, JobState.SliceSent sent, String payload) {
        return answer(s, sent, H1, sent.count(), 1000L * sent.count(), "", payload);
    }

    private static List<String> merged(JobRun s) {
        return s.takeMergeable().stream().map(r -> new String(r.payload(), StandardCharsets.UTF_8)).toList();
    }

    private static void expire(JobRun s, long now) {
        s.expire(now).forEach(s::updated);
    }

    @Test
    void at_most_the_window_is_in_flight_per_node_and_outstanding_overall() {
        JobRun s = new JobRun(new JobState(1000, SETTINGS));
        s.updated(new JobState.NodeUp("a", 2)).updated(new JobState.NodeUp("b", 3));
        assertEquals(5, s.dispatch(0).size(), "deciding changes nothing");
        List<JobState.SliceSent> sends = dispatch(s, 0);
        assertEquals(5, sends.size());
        assertEquals(2, s.inFlight("a"));
        assertEquals(3, s.inFlight("b"));
        assertTrue(s.dispatch(0).isEmpty(), "the window is full");
        sends.forEach(x -> assertEquals(1, x.count(), "one group per slice before a rate is measured"));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), sends.stream().map(JobState.SliceSent::start).toList());
    }

    @Test
    void a_slice_finished_twice_counts_once_and_a_different_hash_is_nondeterminism() {
        JobRun s = new JobRun(new JobState(2, SETTINGS));
        s.updated(new JobState.NodeUp("a", 2));
        List<JobState.SliceSent> sends = dispatch(s, 0);
        assertEquals(JobState.Accepted.NEW, ok(s, sends.get(0), "p0"));
        assertEquals(JobState.Accepted.DUPLICATE, ok(s, sends.get(0), "p0"));
        assertEquals(1, s.groupsFinished());
        assertEquals(List.of("p0"), merged(s));
        assertEquals(JobState.Accepted.DUPLICATE, ok(s, sends.get(0), "p0"), "still recognised after the merge");
        assertEquals(JobState.Accepted.NONDETERMINISTIC, answer(s, sends.get(0), H2, 1, 1000, "", "x"));
        assertEquals(1, s.nondeterministic());
        assertEquals(2, s.duplicates());
        assertEquals(JobState.Accepted.UNKNOWN, s.result(99, 1, "a", H1, 1, 1000, "", new byte[0]).accepted());
    }

    @Test
    void slices_are_released_in_group_order_and_the_buffer_is_bounded_by_the_window() {
        JobRun s = new JobRun(new JobState(10, SETTINGS));
        s.updated(new JobState.NodeUp("a", 3));
        List<JobState.SliceSent> sends = dispatch(s, 0);
        assertEquals(3, sends.size());
        ok(s, sends.get(2), "g2");
        ok(s, sends.get(1), "g1");
        assertTrue(merged(s).isEmpty(), "group 0 is not back yet");
        assertEquals(2, s.buffered());
        assertEquals(0, dispatch(s, 0).size(), "finished-but-unmerged slices still count against the window");
        ok(s, sends.get(0), "g0");
        assertEquals(List.of("g0", "g1", "g2"), merged(s));
        assertEquals(3, s.groupsMerged());
        assertFalse(dispatch(s, 0).isEmpty());
    }

    @Test
    void a_node_that_leaves_gives_its_slices_back() {
        JobRun s = new JobRun(new JobState(4, SETTINGS));
        s.updated(new JobState.NodeUp("a", 2)).updated(new JobState.NodeUp("b", 2));
        List<JobState.SliceSent> sends = dispatch(s, 0);
        assertEquals(4, sends.size());
        s.updated(new JobState.NodeGone("a"));
        assertEquals(0, dispatch(s, 0).size(), "b is full");
        JobState.SliceSent onB = sends.stream().filter(x -> x.node().equals("b")).findFirst().orElseThrow();
        ok(s, onB, "b");
        List<JobState.SliceSent> again = dispatch(s, 0);
        assertEquals(1, again.size());
        assertEquals("b", again.get(0).node());
        assertEquals(2, again.get(0).attempt());
        assertEquals(1, s.resent());
    }

    @Test
    void a_late_slice_is_sent_again_only_when_no_attempt_is_in_time_each_copy_with_twice_the_time() {
        // one runaway group: before, it was re-sent every deadline onto every healthy node
        JobRun s = new JobRun(new JobState(1, SETTINGS));
        s.updated(new JobState.NodeUp("a", 1)).updated(new JobState.NodeUp("b", 1)).updated(new JobState.NodeUp("c", 1));
        JobState.SliceSent first = dispatch(s, 0).get(0);
        assertTrue(s.expire(1).isEmpty(), "nothing expires early");
        long d = SETTINGS.firstDeadlineNanos();
        expire(s, d + 1);
        List<JobState.SliceSent> copy = dispatch(s, d + 1);
        assertEquals(1, copy.size(), "one speculative copy");
        assertEquals(2, copy.get(0).attempt());
        assertEquals(d + 1 + 2 * d, copy.get(0).deadline(), "the copy has twice the time");
        assertEquals(1, s.inFlight(first.node()), "the late attempt keeps running, and its slot");
        expire(s, 2 * d + 1);
        assertEquals(0, s.inFlight(first.node()), "late for as long again: given up, its slot free");
        assertEquals(List.of(), dispatch(s, 2 * d + 1), "no third attempt while the copy is in time");
        // over 64 deadlines the copies go out at 1, 4, 9, 18 and 35 deadlines: logarithmic in the run time
        List<Long> copiesAt = new ArrayList<>(List.of(1L));
        for (long t = 3; t <= 64; t++) {
            expire(s, t * d + 1);
            for (JobState.SliceSent x : dispatch(s, t * d + 1)) {
                copiesAt.add(t);
                assertTrue(s.inFlight() <= 2, "the copy and the one late attempt before it hold slots: " + s.inFlight());
            }
        }
        assertEquals(List.of(1L, 4L, 9L, 18L, 35L), copiesAt);
        assertEquals(6, s.liveAttempts().size(), "given-up attempts are still known, to be stopped");
        assertEquals(JobState.Accepted.NEW, ok(s, first, "g0"), "a given-up attempt's result still counts");
        assertEquals(0, s.inFlight());
        // the losing copies are stopped (issue 36: they ran to their end), each said once
        assertEquals(List.of(2, 3, 4, 5, 6), s.takeStopped().stream().map(JobState.LiveAttempt::attempt).toList());
        assertEquals(List.of(), s.takeStopped());
        // an answer of one, had it come before the stop reached it, is a duplicate and frees nothing twice
        assertEquals(JobState.Accepted.DUPLICATE, ok(s, copy.get(0), "g0"));
        assertEquals(0, s.inFlight());
        assertTrue(s.done());
    }

    @Test
    void a_lost_result_on_the_only_slot_is_sent_again_once_the_late_attempt_is_given_up() {
        JobRun s = new JobRun(new JobState(1, SETTINGS));
        s.updated(new JobState.NodeUp("a", 1));
        JobState.SliceSent first = dispatch(s, 0).get(0);
        long d = SETTINGS.firstDeadlineNanos();
        expire(s, d + 1);
        assertEquals(List.of(), dispatch(s, d + 1), "the late attempt holds the only slot");
        expire(s, 2 * d + 1);
        List<JobState.SliceSent> again = dispatch(s, 2 * d + 1);
        assertEquals(1, again.size(), "the answer never came: the slice goes again");
        assertEquals(first.sliceId(), again.get(0).sliceId());
        assertEquals(JobState.Accepted.NEW, ok(s, again.get(0), "g0"));
        assertTrue(s.done());
    }

    @Test
    void a_late_failure_of_a_superseded_attempt_neither_queues_another_nor_counts() {
        JobRun s = new JobRun(new JobState(1, SETTINGS));
        s.updated(new JobState.NodeUp("a", 1)).updated(new JobState.NodeUp("b", 1));
        JobState.SliceSent first = dispatch(s, 0).get(0);
        expire(s, SETTINGS.firstDeadlineNanos() + 1);
        JobState.SliceSent second = dispatch(s, SETTINGS.firstDeadlineNanos() + 1).get(0);
        assertEquals(JobState.Accepted.STALE_FAILURE, answer(s, first, new byte[0], 0, 0, "disk full", null));
        assertEquals(List.of(), dispatch(s, SETTINGS.firstDeadlineNanos() + 2), "no third attempt while the second runs");
        assertEquals(0, s.inFlight(first.node()), "the failed attempt's node is free");
        assertEquals(1, s.inFlight(second.node()));
        // two more real failures are not enough to fail the job: the stale one did not count
        JobState.SliceSent next = second;
        for (int i = 0; i < 2; i++) {
            assertEquals(JobState.Accepted.FAILED_ATTEMPT, answer(s, next, new byte[0], 0, 0, "boom " + i, null));
            if (i == 0) {
                next = dispatch(s, 0).get(0);
            }
        }
        assertNull(s.failure(), "two failures that counted, the limit is three");
    }

    @Test
    void a_late_success_frees_the_slot_of_the_node_that_ran_it() {
        JobRun s = new JobRun(new JobState(10, SETTINGS));
        s.updated(new JobState.NodeUp("a", 1)).updated(new JobState.NodeUp("b", 1));
        List<JobState.SliceSent> sends = dispatch(s, 0);
        JobState.SliceSent onA = sends.stream().filter(x -> x.node().equals("a")).findFirst().orElseThrow();
        JobState.SliceSent onB = sends.stream().filter(x -> x.node().equals("b")).findFirst().orElseThrow();
        ok(s, onB, "b");
        expire(s, SETTINGS.firstDeadlineNanos() + 1);
        JobState.SliceSent copy = dispatch(s, SETTINGS.firstDeadlineNanos() + 1).get(0);
        assertEquals("b", copy.node(), "a still holds its late attempt");
        assertEquals(onA.sliceId(), copy.sliceId());
        ok(s, onA, "a"); // the late attempt on a answers first
        assertEquals(0, s.inFlight("a"), "a's slot is the one freed");
        assertEquals(0, s.inFlight("b"), "b's copy is stopped (issue 36): its slot is free too");
        assertEquals(List.of(new JobState.LiveAttempt(copy.sliceId(), copy.attempt(), "b")), s.takeStopped());
        List<JobState.SliceSent> more = dispatch(s, SETTINGS.firstDeadlineNanos() + 1);
        assertEquals(List.of("a", "b"), more.stream().map(JobState.SliceSent::node).sorted().toList(),
                "both nodes take new slices");
    }

    @Test
    void a_failed_slice_goes_to_another_node_and_a_failing_node_leaves_the_rotation() {
        JobRun s = new JobRun(new JobState(100, SETTINGS));
        s.updated(new JobState.NodeUp("full", 1)).updated(new JobState.NodeUp("good", 1));
        List<String> last = new ArrayList<>();
        for (int round = 0; round < 40 && !s.done(); round++) {
            for (JobState.SliceSent x : dispatch(s, round)) {
                if (x.node().equals("full")) {
                    answer(s, x, new byte[0], 0, 0, "No space left on device", null);
                } else {
                    ok(s, x, "g" + x.start());
                }
                last.add(x.node());
            }
            merged(s);
            assertNull(s.failure(), "one full disk does not fail the job");
        }
        assertEquals(3, last.stream().filter("full"::equals).count(), "three failures in a row and it is out");
        assertTrue(s.retired().get("full").contains("3 failed slices in a row; last: No space left on device"),
                s.retired().toString());
        s.updated(new JobState.NodeUp("full", 1));
        assertEquals(1, s.nodes(), "a retired node that comes up again stays out of this job");
        for (int round = 0; !s.done(); round++) {
            for (JobState.SliceSent x : dispatch(s, round)) {
                ok(s, x, "g" + x.start());
            }
            merged(s);
        }
        // every failed slice was redone on the good node: its attempt 2
        assertEquals(3, journal.stream().filter(e -> e instanceof JobState.SliceFinished f && f.attempt() == 2).count());
    }

    @Test
    void when_every_node_keeps_failing_the_job_fails_naming_them() {
        JobRun s = new JobRun(new JobState(100, SETTINGS));
        s.updated(new JobState.NodeUp("a", 1));
        for (int i = 0; i < 3; i++) {
            answer(s, dispatch(s, 0).get(0), new byte[0], 0, 0, "cannot fetch the capture", null);
        }
        assertNotNull(s.failure());
        assertTrue(s.failure().contains("cannot fetch the capture"), s.failure());
    }

    @Test
    void slices_grow_toward_the_target_time_and_a_slice_that_keeps_failing_fails_the_job() {
        JobRun s = new JobRun(new JobState(1_000_000, new JobState.Settings(1_000_000_000L, 60_000_000_000L, 10,
                1_000_000_000L, 3, 100)));
        s.updated(new JobState.NodeUp("a", 1));
        JobState.SliceSent first = dispatch(s, 0).get(0);
        answer(s, first, H1, 1, 10_000_000L, "", "x"); // 10 ms a group
        merged(s);
        JobState.SliceSent second = dispatch(s, 0).get(0);
        assertEquals(100, second.count(), "about a second of work");
        answer(s, second, new byte[0], 0, 0, "no capture", null);
        answer(s, dispatch(s, 0).get(0), new byte[0], 0, 0, "no capture", null);
        answer(s, dispatch(s, 0).get(0), new byte[0], 0, 0, "no capture", null);
        assertNotNull(s.failure());
        assertTrue(s.failure().contains("no capture"), s.failure());
    }

    @Test
    void tiny_groups_never_make_a_slice_larger_than_the_cap() {
        JobRun s = new JobRun(new JobState(10_000_000, SETTINGS));
        s.updated(new JobState.NodeUp("a", 1));
        answer(s, dispatch(s, 0).get(0), H1, 1, 100, "", "g0"); // 100 ns a group
        merged(s);
        List<JobState.SliceSent> next = dispatch(s, 0);
        assertEquals(1, next.size());
        assertEquals(JobState.MAX_SLICE_GROUPS, next.get(0).count());
    }

    @Test
    void a_leaving_node_gets_no_new_slices_but_keeps_its_own_until_it_is_gone() {
        JobRun s = new JobRun(new JobState(10, SETTINGS));
        s.updated(new JobState.NodeUp("a", 1)).updated(new JobState.NodeUp("b", 1));
        List<JobState.SliceSent> sends = dispatch(s, 0);
        JobState.SliceSent onB = sends.stream().filter(x -> x.node().equals("b")).findFirst().orElseThrow();
        s.updated(new JobState.NodeLeaving("b"));
        assertTrue(dispatch(s, 0).isEmpty(), "a's window is full and b takes nothing new");
        assertEquals(JobState.Accepted.NEW, ok(s, onB, "from b"));
        s.updated(new JobState.NodeGone("b"));
        assertEquals(0, s.resent(), "the slice b finished is not sent again");
    }

    /**
     * A job stopped part way and rebuilt from its durable events: the merged slices come out again (to
     * merge, without evaluating them), only the groups no finished slice covers are sent, and the merge is
     * the same as an uninterrupted run's.
     */
    @Test
    void a_state_rebuilt_from_its_journal_sends_only_what_did_not_finish() {
        JobRun s = new JobRun(new JobState(40, SETTINGS));
        s.updated(new JobState.NodeUp("a", 3)).updated(new JobState.NodeUp("b", 3));
        List<String> mergedBefore = new ArrayList<>();
        List<JobState.SliceSent> pending = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            pending.addAll(dispatch(s, 0));
            // answer every other slice, oldest last: leaves holes and finished slices waiting behind them
            for (int i = pending.size() - 1; i >= 0; i -= 2) {
                ok(s, pending.remove(i), "g" + i);
            }
            mergedBefore.addAll(merged(s));
        }
        long finishedBefore = s.groupsFinished();
        assertTrue(finishedBefore > 0 && finishedBefore < 40, "part way: " + finishedBefore);
        assertTrue(s.buffered() > 0, "some finished slices wait behind a hole");

        JobRun r = new JobRun(new JobState(40, SETTINGS));
        journal.forEach(r::updated);
        r.updated(new JobState.Restarted());
        List<String> replayed = merged(r);
        assertEquals(mergedBefore, replayed, "the merged slices merge again, in the same order");
        assertEquals(finishedBefore, r.groupsFinished());
        r.updated(new JobState.NodeUp("c", 2));
        long sentGroups = 0;
        java.util.Set<Long> covered = journal.stream().filter(e -> e instanceof JobState.SliceFinished)
                .map(e -> (JobState.SliceFinished) e)
                .flatMap(f -> java.util.stream.LongStream.range(f.start(), f.start() + f.count()).boxed())
                .collect(Collectors.toSet());
        java.util.Set<Long> ids = journal.stream().filter(e -> e instanceof JobState.SliceFinished)
                .map(e -> ((JobState.SliceFinished) e).sliceId()).collect(Collectors.toSet());
        for (int round = 0; !r.done() && round < 100; round++) {
            for (JobState.SliceSent x : dispatch(r, 0)) {
                for (long g = x.start(); g < x.start() + x.count(); g++) {
                    assertFalse(covered.contains(g), "group " + g + " finished before the restart; sent again");
                }
                assertFalse(ids.contains(x.sliceId()), "a new slice id, not one of the journal's");
                sentGroups += x.count();
                ok(r, x, "n" + x.start());
            }
            merged(r);
        }
        assertTrue(r.done());
        assertEquals(40 - finishedBefore, sentGroups, "exactly the groups that had not finished");
        assertEquals(40, r.groupsMerged());
    }

    @Test
    void after_a_cancel_nothing_is_sent_counted_or_merged_and_the_job_is_never_done() {
        JobRun s = new JobRun(new JobState(4, SETTINGS));
        s.updated(new JobState.NodeUp("a", 2));
        s.updated(new JobState.NodeUp("b", 2));
        List<JobState.SliceSent> sent = dispatch(s, 0);
        assertEquals(4, sent.size());
        // slice 1 (groups 1) finishes first: it waits for slice 0 to be merged in group order
        assertEquals(JobState.Accepted.NEW, ok(s, sent.get(1), "one"));
        assertEquals(List.of(), merged(s));
        s.updated(new JobState.Cancelled());
        assertTrue(s.cancelled());
        // the results of the slices in flight arrive after the cancel: none counts, nothing is released
        for (JobState.SliceSent x : List.of(sent.get(0), sent.get(2), sent.get(3))) {
            assertEquals(JobState.Accepted.UNKNOWN, ok(s, x, "late"));
        }
        assertEquals(List.of(), merged(s));
        assertEquals(1, s.groupsFinished());
        assertFalse(s.done());
        assertEquals(List.of(), s.dispatch(1));
        s.updated(new JobState.NodeUp("c", 4));
        assertEquals(List.of(), s.dispatch(2), "a node joining after the cancel gets nothing");
    }
}
