package org.replayfarm.gpunode.sampling;

/**
 * The duty-cycle loop of Tier A (seed 000): after each burst, the gap before the next one, as a pure
 * function of the target rate, the observed rate and the elapsed time. No clock, no state: the caller
 * (the {@link BurstScheduler}) measures, this decides, and tests drive it with a fake clock.
 *
 * <p>The loop is damped and multiplicative: the next cycle (burst plus gap) is the elapsed cycle scaled
 * by (observed / target)^gain, so a steady workload settles where observed equals target. Two clamps
 * hold whatever the observed rate does: the gap is never below {@code burst * (1/maxDuty - 1)}, charged
 * against the burst's actual duration, so the duty never passes maxDuty and a zero observed rate leaves
 * the gap at that floor rather than at zero; and it is never above maxGap, unless the duty floor itself
 * is higher (the duty ceiling wins).
 */
public final class BurstController {
    private BurstController() {
    }

    /** The least gap after a burst that lasted {@code actualBurstNs}: the duty ceiling. */
    public static long minGapNs(BurstConfig c, long actualBurstNs) {
        double gap = Math.max(actualBurstNs, 0) * (1.0 / c.maxDuty() - 1.0);
        return (long) Math.ceil(gap);
    }

    /**
     * The gap to wait after a burst.
     *
     * @param observedPairsPerSecond the (PC, stall) pairs the burst collected over {@code elapsedNs};
     *                               zero, negative and NaN read as zero, +infinity as very high
     * @param elapsedNs              the cycle the observation covers (from the previous burst's end to
     *                               this one's); at least the burst
     * @param actualBurstNs          how long this burst really ran (it stops on a launch exit, so it can
     *                               run longer than planned)
     */
    public static long nextGapNs(BurstConfig c, double observedPairsPerSecond, long elapsedNs, long actualBurstNs) {
        long floor = minGapNs(c, actualBurstNs);
        double observed = Double.isNaN(observedPairsPerSecond) || observedPairsPerSecond < 0 ? 0 : observedPairsPerSecond;
        double cycle = Math.max(elapsedNs, actualBurstNs) * Math.pow(observed / c.targetPairsPerSecond(), c.gain());
        double gap = cycle - actualBurstNs;
        double bounded = Math.min(gap, c.maxGapNs()); // NaN/inf never reach here: pow of a finite ratio >= 0
        return Math.max(floor, bounded >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) bounded);
    }
}
