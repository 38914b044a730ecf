package org.replayfarm.coordinator.job;

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
     * host against device and how many differ (device-only changes included: each is a difference), and
     * where the GPU nodes' PC sampling stands ({@link Sampling}).
     */
    public record Figures(long laneInstructions, double waveInstructionsPerSecond, double laneInstructionsPerSecond,
                          long slicesInFlight, long slicesResent, long storeConflicts, long nondeterministicSlices,
                          long texelsCompared, long texelsDiffering, long bytesCompared, long bytesDiffering,
                          Sampling sampling, long slicesQueued, long elementsCompared, long elementsDiffering,
                          long orderDependent) {
        public static final Figures NONE = new Figures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        public Figures {
            if (sampling == null) {
                throw new IllegalArgumentException("figures need their sampling part (Sampling.NONE when no GPU node reported)");
            }
        }

        /**
         * Figures without the memory's element counts: {@code elementsCompared} and {@code elementsDiffering} count
         * a typed range's elements and an untyped range's bytes, {@code orderDependent} the locations whose value
         * depends on the order of the groups' atomics (all three set by the comparison, {@link #withComparison}).
         */
        public Figures(long laneInstructions, double waveInstructionsPerSecond, double laneInstructionsPerSecond,
                       long slicesInFlight, long slicesResent, long storeConflicts, long nondeterministicSlices,
                       long texelsCompared, long texelsDiffering, long bytesCompared, long bytesDiffering,
                       Sampling sampling, long slicesQueued) {
            this(laneInstructions, waveInstructionsPerSecond, laneInstructionsPerSecond, slicesInFlight, slicesResent,
                    storeConflicts, nondeterministicSlices, texelsCompared, texelsDiffering, bytesCompared, bytesDiffering,
                    sampling, slicesQueued, 0, 0, 0);
        }

        /** Figures with no slices queued (the queue is the job actor's: {@link #withSlicesQueued}). */
        public Figures(long laneInstructions, double waveInstructionsPerSecond, double laneInstructionsPerSecond,
                       long slicesInFlight, long slicesResent, long storeConflicts, long nondeterministicSlices,
                       long texelsCompared, long texelsDiffering, long bytesCompared, long bytesDiffering,
                       Sampling sampling) {
            this(laneInstructions, waveInstructionsPerSecond, laneInstructionsPerSecond, slicesInFlight, slicesResent,
                    storeConflicts, nondeterministicSlices, texelsCompared, texelsDiffering, bytesCompared, bytesDiffering,
                    sampling, 0);
        }

        /**
         * These figures with {@code n} slices waiting for an evaluator slot (JobState.slicesQueued: the
         * backlog the queue metrics export for a scaler).
         */
        public Figures withSlicesQueued(long n) {
            return new Figures(laneInstructions, waveInstructionsPerSecond, laneInstructionsPerSecond, slicesInFlight,
                    slicesResent, storeConflicts, nondeterministicSlices, texelsCompared, texelsDiffering, bytesCompared,
                    bytesDiffering, sampling, n, elementsCompared, elementsDiffering, orderDependent);
        }

        /** Figures without sampling (no GPU node reported). */
        public Figures(long laneInstructions, double waveInstructionsPerSecond, double laneInstructionsPerSecond,
                       long slicesInFlight, long slicesResent, long storeConflicts, long nondeterministicSlices,
                       long texelsCompared, long texelsDiffering, long bytesCompared, long bytesDiffering) {
            this(laneInstructions, waveInstructionsPerSecond, laneInstructionsPerSecond, slicesInFlight, slicesResent,
                    storeConflicts, nondeterministicSlices, texelsCompared, texelsDiffering, bytesCompared, bytesDiffering,
                    Sampling.NONE);
        }

        /** These figures with the diff's counts. */
        public Figures withComparison(long texels, long texelsDiffer, long bytes, long bytesDiffer) {
            return withComparison(texels, texelsDiffer, bytes, bytesDiffer, 0, 0, 0);
        }

        /** These figures with the diff's counts, the memory's in elements too, and its order-dependent locations. */
        public Figures withComparison(long texels, long texelsDiffer, long bytes, long bytesDiffer, long elements,
                                      long elementsDiffer, long ordered) {
            return new Figures(laneInstructions, waveInstructionsPerSecond, laneInstructionsPerSecond, slicesInFlight,
                    slicesResent, storeConflicts, nondeterministicSlices, texels, texelsDiffer, bytes, bytesDiffer, sampling,
                    slicesQueued, elements, elementsDiffer, ordered);
        }

        /** These figures with the GPU nodes' sampling as the coordinator's store knows it now. */
        public Figures withSampling(Sampling s) {
            return new Figures(laneInstructions, waveInstructionsPerSecond, laneInstructionsPerSecond, slicesInFlight,
                    slicesResent, storeConflicts, nondeterministicSlices, texelsCompared, texelsDiffering, bytesCompared,
                    bytesDiffering, s, slicesQueued, elementsCompared, elementsDiffering, orderDependent);
        }
    }

    /**
     * The GPU nodes' PC sampling, as report.json's sampling section counts it (SamplingReport): the mode
     * ({@code none} when no GPU node reported), bursts received, the duty achieved, (PC, stall) pairs, and
     * device executions by {@code serialized} (true + false + unknown == executions).
     */
    public record Sampling(String mode, long bursts, double duty, long pairs, long executions, long serialized,
                           long notSerialized, long unknown) {
        public static final Sampling NONE = new Sampling("none", 0, 0, 0, 0, 0, 0, 0);

        public boolean reported() {
            return !mode.equals("none");
        }
    }

    /** This progress with other figures. */
    public JobProgress withFigures(Figures f) {
        return new JobProgress(jobId, captureSha256, state, groupsTotal, groupsDone, groupsPerSecond, etaSeconds, faults,
                waveInstructions, error, f);
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
