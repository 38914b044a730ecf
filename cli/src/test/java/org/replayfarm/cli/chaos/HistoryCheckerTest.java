package org.replayfarm.cli.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.cli.chaos.History.Event;
import org.replayfarm.cli.chaos.History.Kind;

/** The checker on hand-written histories: one that holds, and one breaking each rule, each caught by name. */
@Tag("unit")
class HistoryCheckerTest {
    private static final String C = "http://127.0.0.2:8080";
    private static final String CAPTURE = "cafe";
    private static final String GOOD = "good-digest";
    private final HistoryChecker checker = new HistoryChecker(Map.of(CAPTURE, GOOD));

    /** A small history builder: each event one tick after the last. */
    private static final class H {
        final List<Event> events = new ArrayList<>();

        H add(Kind kind, java.util.function.UnaryOperator<Event> fill) {
            events.add(fill.apply(Event.of(events.size() * 1_000_000L, kind)));
            return this;
        }

        H accepted(String job) {
            return add(Kind.SUBMIT, e -> e.node(C).capture(CAPTURE))
                    .add(Kind.ACCEPTED, e -> e.node(C).job(job).capture(CAPTURE));
        }

        H progress(String job, long done) {
            return add(Kind.PROGRESS, e -> e.node(C).job(job).progress("running", done, 10));
        }

        H finished(String job, String digest) {
            return add(Kind.FINISHED, e -> e.node(C).job(job).progress("finished", 10, 10).detail(digest));
        }
    }

    private List<String> check(H h) {
        return checker.violations(h.events);
    }

    private static void assertOne(String rule, List<String> violations) {
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).startsWith(rule + ":"), violations.toString());
    }

    @Test
    void a_job_that_progresses_and_finishes_with_replay_evals_outputs_through_a_partition_holds() {
        H h = new H().accepted("j1").progress("j1", 2)
                .add(Kind.FAULT, e -> e.detail("partition 127.0.0.3 | rest").nodes(List.of("127.0.0.3")))
                .progress("j1", 2).progress("j1", 6).add(Kind.HEAL, e -> e).finished("j1", GOOD).finished("j1", GOOD);
        assertEquals(List.of(), check(h));
    }

    @Test
    void an_accepted_job_never_seen_to_end_is_lost() {
        assertOne("lost", check(new H().accepted("j1").progress("j1", 3)));
    }

    @Test
    void a_job_seen_finished_and_failed_has_two_ends() {
        H h = new H().accepted("j1").finished("j1", GOOD)
                .add(Kind.FAILED, e -> e.node("http://127.0.0.9:8080").job("j1").detail("evaluators unreachable"));
        assertOne("two ends", check(h));
    }

    @Test
    void a_job_seen_finished_with_two_different_outputs_has_two_ends() {
        H h = new H().accepted("j1").finished("j1", GOOD).finished("j1", "other");
        assertOne("two ends", check(h));
    }

    @Test
    void a_finished_job_whose_outputs_are_not_replay_evals_has_a_hole() {
        assertOne("hole", check(new H().accepted("j1").finished("j1", "missing-a-group")));
    }

    @Test
    void a_finished_job_with_fewer_groups_done_than_it_has_has_a_hole() {
        H h = new H().accepted("j1").add(Kind.FINISHED, e -> e.node(C).job("j1").progress("finished", 9, 10).detail(GOOD));
        assertOne("hole", check(h));
    }

    @Test
    void a_failure_whose_reason_names_no_fault_is_unexplained() {
        H h = new H().accepted("j1").add(Kind.FAILED, e -> e.node(C).job("j1").detail("NullPointerException"));
        assertOne("unexplained failure", check(h));
        H named = new H().accepted("j1").add(Kind.FAILED, e -> e.node(C).job("j1")
                .detail("every evaluator node left the job's rotation: akka://farm@127.0.0.3:25520 unreachable"));
        assertEquals(List.of(), check(named));
    }

    @Test
    void a_cancel_no_client_asked_for_is_caught() {
        H h = new H().accepted("j1").add(Kind.CANCELLED, e -> e.node(C).job("j1").progress("cancelled", 3, 10));
        assertOne("unasked cancel", check(h));
        H asked = new H().accepted("j1").add(Kind.CANCEL, e -> e.node(C).job("j1"))
                .add(Kind.CANCELLED, e -> e.node(C).job("j1").progress("cancelled", 3, 10));
        assertEquals(List.of(), check(asked));
    }

    @Test
    void groups_done_going_down_is_progress_backwards() {
        H h = new H().accepted("j1").progress("j1", 5).progress("j1", 4).finished("j1", GOOD);
        assertOne("progress backwards", check(h));
    }

    @Test
    void a_job_seen_running_after_it_ended_ran_after_its_end() {
        H h = new H().accepted("j1").finished("j1", GOOD)
                .add(Kind.PROGRESS, e -> e.node(C).job("j1").progress("running", 10, 10));
        assertOne("ran after its end", check(h));
    }

    @Test
    void a_coordinator_cut_off_from_the_majority_must_refuse_with_503_and_a_reason() {
        H accepting = new H().add(Kind.CUT_OFF, e -> e.node(C)).accepted("j1").finished("j1", GOOD);
        assertOne("cut off but accepting", check(accepting));
        H wrongStatus = new H().add(Kind.CUT_OFF, e -> e.node(C))
                .add(Kind.REFUSED, e -> e.node(C).status(500).detail("boom"));
        assertOne("cut off but accepting", check(wrongStatus));
        H silent = new H().add(Kind.CUT_OFF, e -> e.node(C)).add(Kind.REFUSED, e -> e.node(C).status(503).detail(""));
        assertOne("cut off but accepting", check(silent));
        H refusing = new H().add(Kind.CUT_OFF, e -> e.node(C))
                .add(Kind.REFUSED, e -> e.node(C).status(503).detail("cut off from the majority"))
                .add(Kind.HEAL, e -> e).accepted("j1").finished("j1", GOOD);
        assertEquals(List.of(), check(refusing));
    }

    @Test
    void a_history_written_to_a_file_reads_back_the_same(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("history.jsonl");
        long[] now = {100};
        List<Event> written = new ArrayList<>();
        try (History h = History.create(file, () -> now[0])) {
            now[0] = 150;
            written.add(h.record(h.now(Kind.ACCEPTED).node(C).job("j1").capture(CAPTURE)));
            now[0] = 170;
            written.add(h.record(h.now(Kind.FAULT).detail("partition").nodes(List.of("127.0.0.3"))));
            written.add(h.record(h.now(Kind.PROGRESS).node(C).job("j1").progress("running", 3, 10)));
        }
        List<Event> read = History.read(file);
        assertEquals(written, read);
        assertEquals(50, read.get(0).nanos());
    }
}
