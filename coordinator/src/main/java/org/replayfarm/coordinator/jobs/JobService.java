package org.replayfarm.coordinator.jobs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.capture.CaptureFormatException;

/**
 * What a coordinator offers its clients (the HTTP API, {@code replay run}): captures stored by their
 * SHA-256, jobs that evaluate groups of a capture, their progress, and their outputs in the layout
 * {@code replay eval} writes ({@code host/guest-<n>.bin}, {@code report.json}).
 */
public interface JobService extends AutoCloseable {
    /** Validates a capture file and stores it under its SHA-256, which it returns. */
    String storeCapture(Path file) throws IOException, CaptureFormatException;

    /** Whether a capture with this SHA-256 is stored. */
    boolean hasCapture(String sha256);

    /** Starts evaluating the selected groups of a stored capture; returns the job id. */
    String start(String captureSha256, GroupSelection groups);

    Optional<JobProgress> progress(String jobId);

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
