package org.replayfarm.gpunode.sampling;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told: the simulated device and the tests drive sampling with it. */
public final class ManualClock implements NanoClock {
    private final AtomicLong now;

    public ManualClock(long startNs) {
        now = new AtomicLong(startNs);
    }

    @Override
    public long nanos() {
        return now.get();
    }

    public long advance(long ns) {
        if (ns < 0) {
            throw new IllegalArgumentException("a clock does not go back: advance(" + ns + ")");
        }
        return now.addAndGet(ns);
    }
}
