package org.replayfarm.coordinator.job;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.capture.CaptureFormatException;

/**
 * What a coordinator offers its clients (the HTTP API, {@code replay run}): captures stored by their
 * SHA-256, jobs that evaluate groups of a capture, their progress, and their outputs in the layout
 * {@code replay run} writes ({@code report.json} run-report/1, {@code summary.txt}, {@code junit.xml},
 * {@code host/}, {@code device/}, {@code diff/}).
 */
public interface JobService extends AutoCloseable {
    /**
     * Thrown by a coordinator's service that is not (or no longer: the split-brain resolver downed it, the singleton
     * moved) the active one; the API answers it as a standby does (503, {@code X-Replay-Standby}), never 500.
     */
    final class StandingBy extends IllegalStateException {
        public StandingBy(String message) {
            super(message);
        }
    }

    /**
     * A job's own bounds: the instructions one wave may execute ({@code budget}) and how long one slice may
     * take before it is sent once more ({@code sliceDeadlineNanos}; 0: the coordinator's, measured from the
     * time per group).
     */
    record Limits(long budget, long sliceDeadlineNanos) {
        public static final Limits DEFAULT = new Limits(org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET, 0);

        public Limits {
            if (budget <= 0) {
                throw new IllegalArgumentException("the budget must be positive, not " + budget);
            }
            if (sliceDeadlineNanos < 0) {
                throw new IllegalArgumentException("the slice deadline cannot be negative");
            }
        }
    }

    /** Validates a capture file and stores it under its SHA-256, which it returns. */
    String storeCapture(Path file) throws IOException, CaptureFormatException;

    /**
     * Stores a capture this process has already opened (and so validated), without opening it again; returns its
     * SHA-256.
     */
    default String storeCapture(org.replayfarm.model.capture.CaptureFile validated) throws IOException, CaptureFormatException {
        return storeCapture(validated.path());
    }

    /** Whether a capture with this SHA-256 is stored. */
    boolean hasCapture(String sha256);

    /** Starts evaluating the selected groups of a stored capture, compared with {@code --device auto}; returns the job id. */
    default String start(String captureSha256, GroupSelection groups) {
        return start(captureSha256, groups, CompareWith.auto(), captureSha256 + ".capture");
    }

    /**
     * Starts evaluating the selected groups of a stored capture; at the end the host's results are compared
     * with the device {@code compare} names and the run report is written ({@code replay run}'s outputs,
     * docs/report-schema.md); {@code captureName} names the capture there. Returns the job id.
     *
     * @throws IllegalArgumentException when the capture is not stored, a group is outside its dispatch, or
     *         the device asked for is not in the capture (a recorded run it lacks)
     */
    default String start(String captureSha256, GroupSelection groups, CompareWith compare, String captureName) {
        return start(captureSha256, groups, compare, captureName, Limits.DEFAULT);
    }

    /** As above, with the job's own budget and slice deadline. */
    String start(String captureSha256, GroupSelection groups, CompareWith compare, String captureName, Limits limits);

    Optional<JobProgress> progress(String jobId);

    /** Every job this coordinator knows (journaled ones included) with its latest progress, newest first. */
    java.util.List<java.util.Map.Entry<JobInfo, JobProgress>> jobs();

    /** The job's progress over time, oldest first ({@link ProgressBoard.Point}); empty for an unknown job. */
    java.util.List<ProgressBoard.Point> series(String jobId);

    /** An evaluator node's part of a job: groups it finished (first results only) and their rate over the job's time. */
    record NodeShare(String node, long groups, double groupsPerSecond) {
    }

    /** Each evaluator node's part of the job so far (empty when not known, e.g. a job resumed from the journal). */
    default java.util.List<NodeShare> nodes(String jobId) {
        return java.util.List.of();
    }

    /** What a cancel came to: the job is cancelled now, it had ended already, or it is not known. */
    enum CancelOutcome { CANCELLED, ALREADY_ENDED, UNKNOWN }

    /** A cancel's outcome and the job's progress after it (empty for an unknown job). */
    record Cancel(CancelOutcome outcome, Optional<JobProgress> progress) {
    }

    /**
     * Cancels a running job: nothing is merged after (results of slices in flight are dropped), its state
     * becomes {@code cancelled}, it writes no outputs, and a restarted coordinator does not resume it. A job
     * that has ended stays as it ended.
     */
    Cancel cancel(String jobId);

    /** What a removal came to: the job is removed, it still runs (cancel it first), or it is not known. */
    enum RemoveOutcome { REMOVED, RUNNING, UNKNOWN }

    /** A removal's outcome and the job's progress before it (empty for an unknown job). */
    record Removal(RemoveOutcome outcome, Optional<JobProgress> progress) {
    }

    /**
     * Removes a job that has ended (finished, failed or cancelled): from the list and the journal (a
     * restarted coordinator does not know it either), its outputs and, when no other job uses it, its
     * capture. A running job is left alone ({@link RemoveOutcome#RUNNING}).
     */
    default Removal remove(String jobId) {
        throw new UnsupportedOperationException("this job service does not remove jobs");
    }

    /**
     * Calls {@code listener} with the job's progress now and on every change until the job ends (the
     * last call carries the final state). Closing the handle stops the calls.
     */
    AutoCloseable subscribe(String jobId, Consumer<JobProgress> listener);

    /** The directory holding a finished job's outputs. */
    Optional<Path> results(String jobId);

    @Override
    void close();
}
