package org.replayfarm.coordinator.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.job.JobService;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.proto.JobAccepted;

/**
 * A job's tolerances survive its coordinator as --ulp does: what the journal keeps of an accepted job (its
 * JobAccepted event, through its bytes) gives a restarted or standby coordinator the same --abs, --rel, --ulp,
 * --approximate and views (with their own tolerances) to compare with.
 */
@Tag("unit")
class JournaledToleranceTest {
    @Test
    void the_journal_keeps_abs_rel_ulp_and_the_views_tolerances() throws Exception {
        CompareWith asked = new CompareWith(DeviceChoice.parse("recorded"), 16, 2.4e-7, 1e-5, true,
                List.of("C=f32[16x32],abs=1e-6", "image:1=rel=1e-3"), 7, "/tmp/k.capture");
        JobAccepted a = ClusterJobService.accepted("job-1", "c".repeat(64), GroupSelection.everyGroup(),
                JobService.Limits.DEFAULT, Path.of("/tmp/out"), asked, "k.capture");
        CompareWith resumed = ClusterJobService.compare(JobAccepted.parseFrom(a.toByteArray()));
        assertEquals(asked.abs(), resumed.abs());
        assertEquals(asked.rel(), resumed.rel());
        assertEquals(asked.ulp(), resumed.ulp());
        assertEquals(asked.approximate(), resumed.approximate());
        assertEquals(asked.views(), resumed.views());
        assertEquals(asked.options(GroupSelection.everyGroup()), resumed.options(GroupSelection.everyGroup()));
        // a job journaled before these fields: exact as it was
        JobAccepted old = a.toBuilder().clearAbs().clearRel().build();
        CompareWith before = ClusterJobService.compare(JobAccepted.parseFrom(old.toByteArray()));
        assertEquals(0.0, before.abs());
        assertEquals(0.0, before.rel());
    }
}
