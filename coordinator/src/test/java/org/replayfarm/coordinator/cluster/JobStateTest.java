package org.replayfarm.coordinator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The job's decisions without actors: window, re-sends, counting once, hashes, group order. */
class JobStateTest {
    static final JobState.Settings SETTINGS = new JobState.Settings(1_000_000_000L, 60_000_000_000L, 10, 1_000_000_000L, 3);
    static final byte[] H1 = {1};
    static final byte[] H2 = {2};

    @Test
    void at_most_the_window_is_in_flight_per_node_and_outstanding_overall() {
        JobState<String> s = new JobState<>(1000, SETTINGS);
        s.nodeUp("a", 2);
        s.nodeUp("b", 3);
        List<JobState.Send> sends = s.dispatch(0);
        assertEquals(5, sends.size());
        assertEquals(2, s.inFlight("a"));
        assertEquals(3, s.inFlight("b"));
        assertTrue(s.dispatch(0).isEmpty(), "the window is full");
        sends.forEach(x -> assertEquals(1, x.count(), "one group per slice before a rate is measured"));
    }

    @Test
    void a_slice_finished_twice_counts_once_and_a_different_hash_is_nondeterminism() {
        JobState<String> s = new JobState<>(2, SETTINGS);
        s.nodeUp("a", 2);
        List<JobState.Send> sends = s.dispatch(0);
        assertEquals(JobState.Accepted.NEW, s.onResult(sends.get(0).sliceId(), H1, 1, 1000, "", "p0"));
        assertEquals(JobState.Accepted.DUPLICATE, s.onResult(sends.get(0).sliceId(), H1, 1, 1000, "", "p0"));
        assertEquals(1, s.groupsFinished());
        assertEquals(1, s.mergeable().size());
        assertEquals(JobState.Accepted.DUPLICATE, s.onResult(sends.get(0).sliceId(), H1, 1, 1000, "", "p0"),
                "still recognised after the merge");
        assertEquals(JobState.Accepted.NONDETERMINISTIC, s.onResult(sends.get(0).sliceId(), H2, 1, 1000, "", "x"));
        assertEquals(1, s.nondeterministic());
        assertEquals(2, s.duplicates());
        assertEquals(JobState.Accepted.UNKNOWN, s.onResult(99, H1, 1, 1000, "", "?"));
    }

    @Test
    void slices_are_released_in_group_order_and_the_buffer_is_bounded_by_the_window() {
        JobState<String> s = new JobState<>(10, SETTINGS);
        s.nodeUp("a", 3);
        List<JobState.Send> sends = s.dispatch(0);
        assertEquals(3, sends.size());
        s.onResult(sends.get(2).sliceId(), H1, 1, 1000, "", "g2");
        s.onResult(sends.get(1).sliceId(), H1, 1, 1000, "", "g1");
        assertTrue(s.mergeable().isEmpty(), "group 0 is not back yet");
        assertEquals(2, s.buffered());
        List<JobState.Send> more = s.dispatch(0);
        assertEquals(0, more.size(), "finished-but-unmerged slices still count against the window");
        s.onResult(sends.get(0).sliceId(), H1, 1, 1000, "", "g0");
        List<JobState.Ready<String>> ready = s.mergeable();
        assertEquals(List.of("g0", "g1", "g2"), ready.stream().map(JobState.Ready::payload).toList());
        assertEquals(3, s.groupsMerged());
        assertFalse(s.dispatch(0).isEmpty());
    }

    @Test
    void a_node_that_leaves_gives_its_slices_back_and_a_late_deadline_resends() {
        JobState<String> s = new JobState<>(4, SETTINGS);
        s.nodeUp("a", 2);
        s.nodeUp("b", 2);
        List<JobState.Send> sends = s.dispatch(0);
        assertEquals(4, sends.size());
        s.nodeGone("a");
        List<JobState.Send> again = s.dispatch(0);
        assertEquals(0, again.size(), "b is full");
        JobState.Send onB = sends.stream().filter(x -> x.node().equals("b")).findFirst().orElseThrow();
        s.onResult(onB.sliceId(), H1, 1, 1000, "", "b");
        again = s.dispatch(0);
        assertEquals(1, again.size());
        assertEquals("b", again.get(0).node());
        assertEquals(2, again.get(0).attempt());
        assertEquals(1, s.resent());
        // deadlines: nothing expires early, everything in flight expires late
        assertEquals(0, s.expire(1));
        assertEquals(2, s.expire(SETTINGS.firstDeadlineNanos() + 1));
    }

    @Test
    void slices_grow_toward_the_target_time_and_a_slice_that_keeps_failing_fails_the_job() {
        JobState<String> s = new JobState<>(1_000_000, SETTINGS);
        s.nodeUp("a", 1);
        JobState.Send first = s.dispatch(0).get(0);
        s.onResult(first.sliceId(), H1, 1, 10_000_000L, "", "x"); // 10 ms a group
        s.mergeable();
        JobState.Send second = s.dispatch(0).get(0);
        assertEquals(100, second.count(), "about a second of work");
        s.onResult(second.sliceId(), new byte[0], 0, 0, "no capture", null);
        s.onResult(s.dispatch(0).get(0).sliceId(), new byte[0], 0, 0, "no capture", null);
        s.onResult(s.dispatch(0).get(0).sliceId(), new byte[0], 0, 0, "no capture", null);
        assertNotNull(s.failure());
        assertTrue(s.failure().contains("no capture"), s.failure());
    }

    @Test
    void tiny_groups_never_make_a_slice_larger_than_the_cap() {
        JobState<String> s = new JobState<>(10_000_000, SETTINGS);
        s.nodeUp("a", 1);
        List<JobState.Send> first = s.dispatch(0);
        // one group took 100 ns: a second of work would be ten million groups
        s.onResult(first.get(0).sliceId(), H1, 1, 100, "", "g0");
        s.mergeable();
        List<JobState.Send> next = s.dispatch(0);
        assertEquals(1, next.size());
        assertEquals(JobState.MAX_SLICE_GROUPS, next.get(0).count());
    }

    @Test
    void a_leaving_node_gets_no_new_slices_but_keeps_its_own_until_it_is_gone() {
        JobState<String> s = new JobState<>(10, SETTINGS);
        s.nodeUp("a", 1);
        s.nodeUp("b", 1);
        List<JobState.Send> sends = s.dispatch(0);
        JobState.Send onB = sends.stream().filter(x -> x.node().equals("b")).findFirst().orElseThrow();
        s.nodeLeaving("b");
        assertTrue(s.dispatch(0).isEmpty(), "a's window is full and b takes nothing new");
        assertEquals(JobState.Accepted.NEW, s.onResult(onB.sliceId(), H1, 1, 1000, "", "from b"));
        s.nodeGone("b");
        assertEquals(0, s.resent(), "the slice b finished is not sent again");
    }
}
