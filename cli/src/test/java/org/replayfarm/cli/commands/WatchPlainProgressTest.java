package org.replayfarm.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.coordinator.job.JobProgress;

/** replay watch into a pipe: plain lines at most once a second and per change; no ETA until a rate is measured. */
@Tag("unit")
class WatchPlainProgressTest {
    private static final long S = 1_000_000_000L;

    private static JobProgress running(long done) {
        return new JobProgress("job-abc", "sha", "running", 100, done, 1.0, 1.0, 0, 0, "");
    }

    @Test
    void no_eta_until_the_groups_grew_for_two_seconds_then_the_measured_rate() {
        WatchCommand.Eta eta = new WatchCommand.Eta();
        eta.observe(0, 0, 100);
        assertEquals(Optional.empty(), eta.remaining(), "nothing measured");
        eta.observe(S / 10, 1, 100); // the first slice back after 0.1 s: 999 s would be a wild guess either way
        assertEquals(Optional.empty(), eta.remaining());
        eta.observe(S, 10, 100);
        assertEquals(Optional.empty(), eta.remaining(), "under two seconds");
        eta.observe(4 * S, 40, 100); // 40 groups in 4 s: 10/s, 60 left
        assertEquals(Optional.of(Duration.ofSeconds(6)), eta.remaining());
    }

    @Test
    void lines_come_at_most_once_a_second_and_only_on_change_and_the_last_always() {
        StringWriter text = new StringWriter();
        WatchCommand.PlainLines lines = new WatchCommand.PlainLines(new PrintWriter(text));
        lines.offer(running(0), Optional.empty(), 0);
        lines.offer(running(0), Optional.empty(), 2 * S);          // no change: no line
        lines.offer(running(5), Optional.empty(), 2 * S + S / 10);
        lines.offer(running(6), Optional.empty(), 2 * S + S / 5); // within the second: held back
        lines.offer(running(7), Optional.of(Duration.ofSeconds(93)), 3 * S + S / 5);
        lines.offer(running(8), Optional.empty(), 3 * S + S / 2); // held back, printed at close
        lines.close();
        List<String> got = text.toString().lines().toList();
        assertEquals(List.of(
                "job job-abc running: 0/100 groups (0%), 1.0 groups/s",
                "job job-abc running: 5/100 groups (5%), 1.0 groups/s",
                "job job-abc running: 7/100 groups (7%), 1.0 groups/s, ETA 0:01:33",
                "job job-abc running: 8/100 groups (8%), 1.0 groups/s"), got);
        assertTrue(!text.toString().contains("\r"));
    }

    @Test
    void the_end_of_the_job_is_printed_at_once() {
        StringWriter text = new StringWriter();
        WatchCommand.PlainLines lines = new WatchCommand.PlainLines(new PrintWriter(text));
        lines.offer(running(99), Optional.empty(), 0);
        lines.offer(new JobProgress("job-abc", "sha", "finished", 100, 100, 1.0, 0, 0, 0, ""), Optional.empty(), S / 10);
        lines.close();
        assertEquals(List.of("job job-abc running: 99/100 groups (99%), 1.0 groups/s",
                "job job-abc finished: 100/100 groups (100%), 1.0 groups/s"), text.toString().lines().toList());
    }
}
