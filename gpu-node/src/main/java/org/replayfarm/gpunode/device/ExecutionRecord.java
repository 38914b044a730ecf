package org.replayfarm.gpunode.device;

/**
 * One execution of the dispatch on the device: an id unique within the run, how long it took
 * ({@code durationNanos}, -1 when unknown), and whether it ran kernel-serialized (seed 000: unknown is
 * the zero value and is never omitted).
 */
public record ExecutionRecord(String id, long durationNanos, Serialized serialized) {
    /** Whether the execution ran kernel-serialized, for the PC-sampling disclosure. */
    public enum Serialized { UNKNOWN, TRUE, FALSE }
}
