package org.replayfarm.coordinator.jobs;

/**
 * Where a job stands: its state ({@code running}, {@code finished}, {@code failed}), groups done of the
 * total, the rate and the estimated time left, faults and instructions so far, and the error that
 * failed it (empty otherwise). The same figures feed progress bars, server-sent events and metrics.
 */
public record JobProgress(String jobId, String captureSha256, String state, long groupsTotal, long groupsDone,
                          double groupsPerSecond, double etaSeconds, long faults, long waveInstructions, String error) {
    public boolean ended() {
        return !state.equals("running");
    }
}
