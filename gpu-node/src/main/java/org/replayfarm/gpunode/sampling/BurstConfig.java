package org.replayfarm.gpunode.sampling;

import java.util.concurrent.TimeUnit;

/**
 * The burst controller's settings. Defaults follow the seed's: 50 ms bursts (held fixed), 100 (PC, stall)
 * pairs per second, duty at most 5% (measured +4.31% cost at 5%, +8.93% at 10% on an RTX 3090), a gap of
 * at most 10 s, loop gain 0.5.
 */
public record BurstConfig(long burstNs, double targetPairsPerSecond, double maxDuty, long maxGapNs, double gain) {
    public static final BurstConfig DEFAULT =
            new BurstConfig(TimeUnit.MILLISECONDS.toNanos(50), 100, 0.05, TimeUnit.SECONDS.toNanos(10), 0.5);

    public BurstConfig {
        if (burstNs <= 0) {
            throw new IllegalArgumentException("replay.gpu.sampling.burst must be positive, got " + burstNs + " ns");
        }
        if (!(targetPairsPerSecond > 0) || Double.isInfinite(targetPairsPerSecond)) {
            throw new IllegalArgumentException("replay.gpu.sampling.target-pairs-per-second must be positive and finite, got "
                    + targetPairsPerSecond);
        }
        if (!(maxDuty > 0 && maxDuty <= 1)) {
            throw new IllegalArgumentException("replay.gpu.sampling.max-duty must be in (0, 1], got " + maxDuty);
        }
        if (maxGapNs <= 0) {
            throw new IllegalArgumentException("replay.gpu.sampling.max-gap must be positive, got " + maxGapNs + " ns");
        }
        if (!(gain > 0 && gain <= 1)) {
            throw new IllegalArgumentException("replay.gpu.sampling.gain must be in (0, 1], got " + gain);
        }
    }
}
