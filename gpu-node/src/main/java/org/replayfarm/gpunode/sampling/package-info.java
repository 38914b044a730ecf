/**
 * PC sampling on a GPU node: {@link org.replayfarm.gpunode.sampling.SamplingSession} (called by the launching
 * thread around every kernel launch) drives a {@link org.replayfarm.gpunode.sampling.PcSampler} ({@code CuptiShim}
 * on a GPU) in the configured mode ({@code SamplingSettings}, {@code SamplingMode}), with Tier A's bursts timed by
 * {@code BurstScheduler} and {@link org.replayfarm.gpunode.sampling.BurstController}, and hands its records to a
 * {@code SamplingSink}. The GPU node's sampling side and the {@code cuda} backend use it; {@code SamplingBenchmark}
 * measures Tier A's overhead.
 */
package org.replayfarm.gpunode.sampling;
