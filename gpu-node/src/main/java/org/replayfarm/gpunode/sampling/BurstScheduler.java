package org.replayfarm.gpunode.sampling;

/**
 * When Tier A's bursts open and close, from times the caller reads on its clock: a burst opens at the
 * first launch at or after the planned start and closes at the first launch exit at or after the planned
 * length (start and stop happen on the launching thread, seed 000 / perf-agent issue #101), and the gap
 * after it comes from {@link BurstController} once the burst's pairs are known (after the drain that
 * follows the stop). Not thread-safe: the launching thread owns it.
 */
final class BurstScheduler {
    private final BurstConfig config;
    private final long sessionStartNs;
    private long nextStartNs;
    private long openedNs = -1;
    private long lastEndNs;
    private long pendingBurstNs = -1;
    private long pendingElapsedNs;
    private long bursts;
    private long busyNs;
    private long pairs;
    private long gapNs;

    BurstScheduler(BurstConfig config, long sessionStartNs) {
        this.config = config;
        this.sessionStartNs = sessionStartNs;
        this.lastEndNs = sessionStartNs;
        this.nextStartNs = sessionStartNs;
    }

    boolean open() {
        return openedNs >= 0;
    }

    boolean dueToStart(long now) {
        return !open() && pendingBurstNs < 0 && now >= nextStartNs;
    }

    void started(long now) {
        openedNs = now;
    }

    boolean dueToStop(long now) {
        return open() && now - openedNs >= config.burstNs();
    }

    /** The burst closed at {@code now}; its pairs follow through {@link #observed}. */
    void stopped(long now) {
        long burst = Math.max(0, now - openedNs);
        pendingBurstNs = burst;
        pendingElapsedNs = Math.max(burst, now - lastEndNs);
        busyNs += burst;
        bursts++;
        lastEndNs = now;
        openedNs = -1;
    }

    /** The pairs of the burst that just stopped: plans the next start. */
    void observed(long burstPairs) {
        if (pendingBurstNs < 0) {
            throw new IllegalStateException("observed() without a stopped burst");
        }
        pairs += burstPairs;
        double rate = burstPairs / (pendingElapsedNs / 1e9);
        gapNs = BurstController.nextGapNs(config, rate, pendingElapsedNs, pendingBurstNs);
        nextStartNs = lastEndNs + gapNs;
        pendingBurstNs = -1;
    }

    /** A due burst did not start (refused or failed): the next try is one duty-limited cycle later. */
    void skipped(long now) {
        nextStartNs = now + config.burstNs() + BurstController.minGapNs(config, config.burstNs());
    }

    long bursts() {
        return bursts;
    }

    long pairs() {
        return pairs;
    }

    long gapNs() {
        return gapNs;
    }

    long nextStartNs() {
        return nextStartNs;
    }

    /** The fraction of the time since the session began that bursts were open (closed bursts only). */
    double dutyAchieved(long now) {
        long span = now - sessionStartNs;
        return span <= 0 ? 0 : (double) busyNs / span;
    }
}
