package org.replayfarm.coordinator.jobs;

/**
 * Where a job stands: its state ({@code running}, {@code finished}, {@code failed}), groups done of the
 * total, the rate and the estimated time left, faults and instructions so far, the further
 * {@link Figures}, and the error that failed it (empty otherwise). The one source of the figures that
 * progress bars, server-sent events and the job's metrics show ({@link ProgressMetrics}).
 */
public record JobProgress(String jobId, String captureSha256, String state, long groupsTotal, long groupsDone,
                          double groupsPerSecond, double etaSeconds, long faults, long waveInstructions, String error,
                          Figures figures) {
    /**
     * What the slices, the merge and the diff counted so far: lane instructions, instruction rates, slices
     * in flight and sent again, store conflicts, nondeterministic slices, texels and guest bytes compared
     * host against device and how many differ.
     */
    public record Figures(long laneInstructions, double waveInstructionsPerSecond, double laneInstructionsPerSecond,
                          long slicesInFlight, long slicesResent, long storeConflicts, long nondeterministicSlices,
                          long texelsCompared, long texelsDiffering, long bytesCompared, long bytesDiffering) {
        public static final Figures NONE = new Figures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        /** These figures with the diff's counts. */
        public Figures withComparison(long texels, long texelsDiffer, long bytes, long bytesDiffer) {
            return new Figures(laneInstructions, waveInstructionsPerSecond, laneInstructionsPerSecond, slicesInFlight,
                    slicesResent, storeConflicts, nondeterministicSlices, texels, texelsDiffer, bytes, bytesDiffer);
        }
    }

    public JobProgress {
        if (figures == null) {
            throw new IllegalArgumentException("job progress needs its figures (Figures.NONE when there are none)");
        }
    }

    /** Progress with no further figures (none counted yet). */
    public JobProgress(String jobId, String captureSha256, String state, long groupsTotal, long groupsDone,
                       double groupsPerSecond, double etaSeconds, long faults, long waveInstructions, String error) {
        this(jobId, captureSha256, state, groupsTotal, groupsDone, groupsPerSecond, etaSeconds, faults, waveInstructions,
                error, Figures.NONE);
    }

    public boolean ended() {
        return !state.equals("running");
    }
}
