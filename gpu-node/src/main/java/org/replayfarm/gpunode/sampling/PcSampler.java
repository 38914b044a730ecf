package org.replayfarm.gpunode.sampling;

import java.util.List;
import java.util.OptionalLong;

/**
 * The device side of PC sampling: CUPTI through the JNI shim ({@link CuptiShim}) on a GPU, the
 * simulated device of the tests elsewhere. Every call is made on the launching thread, by {@link SamplingSession}.
 */
public interface PcSampler {
    /** Enables collection in {@code mode} with start/stop control (off until {@link #start}); reads the stall reasons. */
    void configure(SamplingMode mode) throws SamplingException;

    /**
     * The context exists and no module is loaded on it yet (at every launch, before the module lookup): a
     * configured sampler whose context was made again configures it now, before its modules are loaded.
     */
    default void contextReady() throws SamplingException {
    }

    void start() throws SamplingException;

    void stop() throws SamplingException;

    /** PC records collected since the last drain and kernel activity records completed since then. */
    Drained drain() throws SamplingException;

    /** At exit: stop, drain and disable. */
    default void close() {
    }

    /** Stall-reason names by the index PC records carry; read at run time (indices differ per device and driver). */
    List<String> stallReasons();

    /** The device clock kernel activity records use (ns). */
    long timestampNs();

    /**
     * The CRC CUPTI's PC records give the module {@code cubin} (empty where the sampler has no such CRC): the key
     * that says which module a sample's PC is in.
     */
    default OptionalLong cubinCrc(byte[] cubin) throws SamplingException {
        return OptionalLong.empty();
    }

    /** One (PC, stall reason) pair of a burst; {@code cubinCrc} names the module (0: not given). */
    record PcRecord(String function, long cubinCrc, long pcOffset, int stallReasonIndex, int samples, int correlationId) {
        /** A pair with no module CRC. */
        public PcRecord(String function, long pcOffset, int stallReasonIndex, int samples, int correlationId) {
            this(function, 0, pcOffset, stallReasonIndex, samples, correlationId);
        }
    }

    /** One kernel execution (CUPTI's kernel activity record). graphId != 0: launched from a CUDA graph. */
    record KernelRecord(String name, long startNs, long endNs, int correlationId, int graphId) {
    }

    record Drained(List<PcRecord> pcs, List<KernelRecord> kernels) {
        public static final Drained EMPTY = new Drained(List.of(), List.of());

        /** What the two buffers hold, copied; the buffers are left empty for the next burst. */
        public static Drained takeFrom(List<PcRecord> pcs, List<KernelRecord> kernels) {
            Drained d = new Drained(List.copyOf(pcs), List.copyOf(kernels));
            pcs.clear();
            kernels.clear();
            return d;
        }
    }

    /** A sampling call failed; says which and why (a CUPTI result code on a GPU). */
    final class SamplingException extends Exception {
        public SamplingException(String message) {
            super(message);
        }
    }
}
