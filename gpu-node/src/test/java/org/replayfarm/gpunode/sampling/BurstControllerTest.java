package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The duty-cycle loop on a fake clock: it converges, never passes the duty ceiling, and zero does not collapse the gap. */
@Tag("unit")
class BurstControllerTest {
    private static final BurstConfig C = BurstConfig.DEFAULT;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** burst * (1/duty - 1) at the defaults: 50 ms * 19. */
    private static final long FLOOR_NS = 950 * MS;

    /** One scheduler cycle on the clock: wait for the start, run the burst for {@code burstNs}, observe {@code pairs}. */
    private static long cycle(BurstScheduler s, ManualClock clock, long burstNs, long pairs) {
        clock.advance(Math.max(0, s.nextStartNs() - clock.nanos()));
        assertTrue(s.dueToStart(clock.nanos()));
        s.started(clock.nanos());
        clock.advance(burstNs);
        assertTrue(s.dueToStop(clock.nanos()));
        s.stopped(clock.nanos());
        s.observed(pairs);
        return s.gapNs();
    }

    @Test
    void a_steady_workload_converges_to_the_target_pair_rate() {
        // 500 pairs per burst: the target 100 pairs/s is held by a 5 s cycle, i.e. a 4.95 s gap
        ManualClock clock = new ManualClock(0);
        BurstScheduler s = new BurstScheduler(C, 0);
        long gap = 0;
        for (int i = 0; i < 40; i++) {
            gap = cycle(s, clock, 50 * MS, 500);
        }
        assertEquals(4950 * MS, gap, 5 * MS, "gap after 40 bursts");
        double rate = 500 / ((50 * MS + gap) / 1e9);
        assertEquals(100, rate, 0.2, "pairs per second held");
    }

    @Test
    void a_rate_the_duty_ceiling_cannot_reach_holds_the_gap_at_the_duty_floor() {
        // 20 pairs per burst: even at 5% duty (1 burst/s) only 20 pairs/s; the loop asks for more and gets the floor
        ManualClock clock = new ManualClock(0);
        BurstScheduler s = new BurstScheduler(C, 0);
        for (int i = 0; i < 20; i++) {
            assertEquals(FLOOR_NS, cycle(s, clock, 50 * MS, 20));
        }
        // over whole cycles (burst and the gap it is charged), measured when the next burst is due
        assertEquals(0.05, s.dutyAchieved(s.nextStartNs()), 1e-9);
    }

    @Test
    void the_duty_never_passes_the_ceiling_whatever_the_observed_rate_and_burst_length() {
        SplittableRandom random = new SplittableRandom(9);
        double[] adversarial = {0, -5, Double.NaN, Double.POSITIVE_INFINITY, Double.MIN_VALUE, 1e-9, 1e12, Double.MAX_VALUE};
        for (int i = 0; i < 20_000; i++) {
            double observed = i % 3 == 0 ? adversarial[random.nextInt(adversarial.length)] : random.nextDouble() * 1e6;
            long burst = 50 * MS + random.nextLong(2000 * MS);      // a stop waits for a launch exit: bursts overrun
            long elapsed = burst + random.nextLong(60_000 * MS);
            long gap = BurstController.nextGapNs(C, observed, elapsed, burst);
            double duty = (double) burst / (burst + gap);
            assertTrue(duty <= C.maxDuty() + 1e-12, "duty " + duty + " at observed " + observed + ", burst " + burst);
            assertTrue(gap >= BurstController.minGapNs(C, burst));
        }
        // and over a run on the clock, with overrunning bursts and rates swinging between extremes
        ManualClock clock = new ManualClock(0);
        BurstScheduler s = new BurstScheduler(C, 0);
        for (int i = 0; i < 500; i++) {
            cycle(s, clock, 50 * MS + random.nextLong(500 * MS), i % 2 == 0 ? 0 : 1_000_000);
            double duty = s.dutyAchieved(s.nextStartNs()); // each burst is charged with the gap that follows it
            assertTrue(duty <= C.maxDuty() + 1e-9, "cumulative duty " + duty);
        }
    }

    @Test
    void a_zero_observed_rate_leaves_the_gap_at_the_duty_floor_never_at_zero() {
        for (long elapsed : new long[] {50 * MS, 1000 * MS, 10_000 * MS, 1_000_000 * MS}) {
            assertEquals(FLOOR_NS, BurstController.nextGapNs(C, 0, elapsed, 50 * MS), "elapsed " + elapsed);
        }
        ManualClock clock = new ManualClock(0);
        BurstScheduler s = new BurstScheduler(C, 0);
        cycle(s, clock, 50 * MS, 2000);               // a long gap first
        for (int i = 0; i < 30; i++) {
            long gap = cycle(s, clock, 50 * MS, 0);   // then nothing at all, for a long time
            assertTrue(gap >= FLOOR_NS, "gap " + gap);
        }
        assertEquals(FLOOR_NS, s.gapNs());
    }

    @Test
    void a_very_high_rate_waits_at_most_the_maximum_gap_unless_the_duty_floor_is_higher() {
        assertEquals(10_000 * MS, BurstController.nextGapNs(C, 1e9, 1000 * MS, 50 * MS));
        assertEquals(10_000 * MS, BurstController.nextGapNs(C, Double.POSITIVE_INFINITY, 1000 * MS, 50 * MS));
        // a burst that overran to 1 s needs 19 s of gap for 5%: the duty ceiling wins over the maximum gap
        assertEquals(19_000 * MS, BurstController.nextGapNs(C, 1e9, 2000 * MS, 1000 * MS));
    }
}
