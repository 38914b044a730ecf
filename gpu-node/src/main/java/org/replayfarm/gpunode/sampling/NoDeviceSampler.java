package org.replayfarm.gpunode.sampling;

import java.util.List;

/**
 * The sampler of a GPU node that has no device runner yet: CUPTI samples a CUDA context, and the runner
 * that creates one (JCuda) comes in a later issue. Sampling that is off never calls it; sampling that is
 * on is refused at its first launch, loudly (the session logs it and samples nothing) — and until a
 * runner exists there are no launches.
 */
public final class NoDeviceSampler implements PcSampler {
    private static final String WHY = "this GPU node has no device runner yet (the CUDA context CUPTI samples comes "
            + "with the JCuda runner); nothing to sample";

    @Override
    public void configure(SamplingMode mode) throws SamplingException {
        throw new SamplingException(WHY);
    }

    @Override
    public void start() throws SamplingException {
        throw new SamplingException(WHY);
    }

    @Override
    public void stop() throws SamplingException {
        throw new SamplingException(WHY);
    }

    @Override
    public Drained drain() {
        return Drained.EMPTY;
    }

    @Override
    public List<String> stallReasons() {
        return List.of();
    }

    @Override
    public long timestampNs() {
        return System.nanoTime();
    }
}
