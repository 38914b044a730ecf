package org.replayfarm.coordinator.sampling;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.SamplingMode;

/**
 * Decides {@link Serialized} for the executions of one GPU node incarnation from its own configured mode
 * and its window history (seed 000):
 * <ul>
 * <li>not Tier A (off, continuous, or a refused mode, which the node reports as off): FALSE, unconditionally;
 * <li>Tier A: TRUE when the execution intersects a window (a closed one, or an open one that started while
 *     it ran); otherwise UNKNOWN when any part of it lies where the history cannot tell — after the
 *     node's reported horizon, after the start of a window that never closed, or where a burst the node
 *     started is missing (a dropped record, a late attach, a sequence gap); otherwise FALSE;
 * <li>a mode the node did not state: UNKNOWN.
 * </ul>
 * The node's horizon is (bursts started, as of): every burst 1..burstsStarted started by asOfNs.
 */
public final class Disclosure {
    private final SamplingMode configured;
    private final WindowStore.Window[] byStart;
    private final long[] starts;
    private final long[] maxEndUpTo;                   // the latest end among byStart[0..i] (open: +inf)
    private final long asOfNs;
    private final List<long[]> blind = new ArrayList<>(); // [from, to): the history cannot tell

    public Disclosure(SamplingMode configured, List<WindowStore.Window> history, long burstsStarted, long asOfNs) {
        this.configured = configured;
        this.asOfNs = asOfNs;
        byStart = history.stream().sorted(java.util.Comparator.comparingLong(WindowStore.Window::startNs))
                .toArray(WindowStore.Window[]::new);
        starts = new long[byStart.length];
        maxEndUpTo = new long[byStart.length];
        long maxEnd = Long.MIN_VALUE;
        for (int i = 0; i < byStart.length; i++) {
            starts[i] = byStart[i].startNs();
            maxEnd = Math.max(maxEnd, byStart[i].open() ? Long.MAX_VALUE : byStart[i].endNs());
            maxEndUpTo[i] = maxEnd;
        }
        long previousEnd = 0;  // a burst missing before the first known one may have run from the start
        long expected = 1;
        for (WindowStore.Window w : history) {      // by sequence
            if (w.sequence() > expected) {
                blind.add(new long[] {previousEnd, w.startNs()});
            }
            if (w.open()) {
                blind.add(new long[] {w.startNs(), Long.MAX_VALUE}); // opened, never closed: everything after its start
            }
            previousEnd = w.open() ? Long.MAX_VALUE : w.endNs();
            expected = w.sequence() + 1;
        }
        if (burstsStarted >= expected) {
            blind.add(new long[] {previousEnd, Long.MAX_VALUE}); // the last bursts the node started never arrived
        }
    }

    public Serialized of(GpuExecution e) {
        return switch (configured) {
            case SAMPLING_MODE_OFF, SAMPLING_MODE_CONTINUOUS -> Serialized.FALSE;
            case SAMPLING_MODE_KERNEL_SERIALIZED -> tierA(e.getStartNs(), e.getEndNs());
            default -> Serialized.UNKNOWN;
        };
    }

    private Serialized tierA(long start, long end) {
        // windows that began before the execution ended, latest first, while any of them can still reach it
        int i = lastStartBefore(end);
        for (int j = i; j >= 0 && maxEndUpTo[j] > start; j--) {
            WindowStore.Window w = byStart[j];
            // a window is [start, end): a kernel that ended as a burst began, or began as it ended, ran outside it
            boolean intersects = w.open() ? w.startNs() >= start : start < w.endNs();
            if (intersects) {
                return Serialized.TRUE;
            }
        }
        if (end > asOfNs) {
            return Serialized.UNKNOWN;
        }
        for (long[] b : blind) {
            if (start < b[1] && end > b[0]) {
                return Serialized.UNKNOWN;
            }
        }
        return Serialized.FALSE;
    }

    /** The index of the last window whose start is before {@code t}; -1 when none. */
    private int lastStartBefore(long t) {
        int lo = 0;
        int hi = starts.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (starts[mid] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }
}
