package org.replayfarm.coordinator.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link JobState#slicesQueued}, the backlog the queue metrics export for a scaler: before a rate is
 * measured every unsent group is a slice; once measured, the unsent groups count in slices of the target
 * time's worth whatever the window (so more nodes do not shrink it); a slice to send again counts once;
 * nothing is queued once every group was sent.
 */
@Tag("unit")
class JobStateQueueTest {
    // target 1 s a slice; first deadline 60 s; deadline 10 x expected, at least 1 s; 3 failures
    static final JobState.Settings SETTINGS = new JobState.Settings(1_000_000_000L, 60_000_000_000L, 10, 1_000_000_000L,
            3, 3);

    static List<JobState.SliceSent> dispatch(JobRun s, long now) {
        List<JobState.SliceSent> sends = s.dispatch(now);
        sends.forEach(s::updated);
        return sends;
    }

    static void finish(JobRun s, JobState.SliceSent sent, long nanosPerGroup) {
        JobState.Verdict v = s.result(sent.sliceId(), sent.attempt(), sent.node(), new byte[] {1}, sent.count(),
                nanosPerGroup * sent.count(), "", new byte[0]);
        s.updated(v.event());
    }

    @Test
    void unsent_groups_count_in_target_sized_slices_and_resends_once_each() {
        JobRun s = new JobRun(new JobState(10_000, SETTINGS));
        assertEquals(10_000, s.slicesQueued(), "no node, no rate: every group a slice of one");
        s.updated(new JobState.NodeUp("a", 2));
        List<JobState.SliceSent> first = dispatch(s, 0);
        assertEquals(2, first.size());
        assertEquals(9_998, s.slicesQueued(), "two groups sent, one a slice");
        // 10 ms a group: a target-sized slice is 100 groups
        finish(s, first.get(0), 10_000_000L);
        assertEquals((9_998 + 99) / 100, s.slicesQueued(), "9,998 unsent groups in slices of 100");
        s.updated(new JobState.NodeUp("b", 30));
        long before = s.slicesQueued();
        assertEquals(before, s.slicesQueued(), "a bigger window does not change the backlog");
        // the other first slice's node leaves: it is to be sent again, and counts as one queued slice
        s.updated(new JobState.NodeGone("a"));
        assertEquals(before + 1, s.slicesQueued());
        // send everything: nothing waits
        for (int i = 0; i < 1000 && s.slicesQueued() > 0; i++) {
            s.updated(new JobState.NodeUp("c" + i, 64));
            dispatch(s, 1);
        }
        assertEquals(0, s.slicesQueued(), "every group sent");
        assertEquals(s.slicesPlanned() - 1, s.inFlight(), "all but the finished slice in flight");
    }
}
