package org.replayfarm.coordinator.cluster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a job's slices stand, as a plain value the job actor drives (no Akka here): planning slices from
 * the measured time per group, a bounded window of slices per evaluator node, re-sending a slice whose
 * node left or whose deadline passed, counting each slice once, comparing the hash of a slice that came
 * back twice, and releasing finished slices strictly in group order.
 *
 * <p>Memory stays flat however many groups the job has: a slice is outstanding from the moment it is
 * planned until it is merged, and no more slices are outstanding than the nodes' windows add up to, so
 * the buffer of slices waiting for an earlier one is bounded by the in-flight window. Only each merged
 * slice's hash is kept (32 bytes a slice, to check late duplicates).
 *
 * @param <P> what a finished slice carries to the merge (its group outcomes)
 */
public final class JobState<P> {
    /** Tunables: target work per slice, deadlines. */
    public record Settings(long targetSliceNanos, long firstDeadlineNanos, double deadlineFactor, long minDeadlineNanos,
                           int maxFailures) {
    }

    /** A slice to send (again) to {@code node}. */
    public record Send(long sliceId, long start, int count, int attempt, String node) {
    }

    /** What became of a result. */
    public enum Accepted { NEW, DUPLICATE, NONDETERMINISTIC, FAILED_ATTEMPT, UNKNOWN }

    /** A finished slice released for merging, in group order. */
    public record Ready<P>(long sliceId, long start, int count, P payload) {
    }

    private static final class Slice<P> {
        final long id;
        final long start;
        final int count;
        int attempts;
        int failures;
        String node;            // where the latest attempt runs; null while waiting to be (re)sent
        long deadline;
        byte[] hash;            // set once finished
        P payload;

        Slice(long id, long start, int count) {
            this.id = id;
            this.start = start;
            this.count = count;
        }
    }

    /**
     * The most groups one slice holds, whatever the measured rate: a slice's results wait in the
     * coordinator until merged, so this caps the bytes the in-flight window can hold (window x 4096 x one
     * group's stores) for dispatches of many tiny groups. At 4096 groups the per-slice overhead (one
     * message round trip, about a millisecond) stays under a few percent even for groups of a few
     * microseconds.
     */
    static final long MAX_SLICE_GROUPS = 4096;

    private final long total;
    private final Settings settings;
    private final Map<String, Integer> capacity = new LinkedHashMap<>();
    private final Map<String, Integer> inFlight = new HashMap<>();
    private final Map<Long, Slice<P>> outstanding = new HashMap<>();
    private final Deque<Slice<P>> resend = new ArrayDeque<>();
    private final TreeMap<Long, Slice<P>> finished = new TreeMap<>();
    private final Map<Long, byte[]> mergedHashes = new HashMap<>();
    private long nextStart;
    private long nextSliceId;
    private long mergedUpTo;
    private long groupsFinished;
    private double nanosPerGroup = -1;
    private long duplicates;
    private long nondeterministic;
    private long resent;
    private String failure;

    public JobState(long totalGroups, Settings settings) {
        this.total = totalGroups;
        this.settings = settings;
    }

    /** An evaluator node is available and takes up to {@code slots} slices at once. */
    public void nodeUp(String node, int slots) {
        capacity.put(node, Math.max(1, slots));
        inFlight.putIfAbsent(node, 0);
    }

    /**
     * A node is leaving gracefully: it gets no new slices, and the ones it holds stay its own (it finishes
     * them before it exits) until {@link #nodeGone} or their deadline.
     */
    public void nodeLeaving(String node) {
        capacity.remove(node);
    }

    /** A node left (or became unreachable): its slices go back to be sent elsewhere. */
    public void nodeGone(String node) {
        capacity.remove(node);
        inFlight.remove(node);
        for (Slice<P> s : outstanding.values()) {
            if (node.equals(s.node) && s.hash == null) {
                s.node = null;
                resend.add(s);
            }
        }
    }

    /** The slices to send now: first those to re-send, then new ones while the window has room. */
    public List<Send> dispatch(long now) {
        List<Send> sends = new ArrayList<>();
        int window = capacity.values().stream().mapToInt(Integer::intValue).sum();
        while (true) {
            String node = freest();
            if (node == null) {
                break;
            }
            Slice<P> s = resend.poll();
            if (s == null) {
                if (nextStart >= total || outstanding.size() >= window) {
                    break;
                }
                int count = (int) Math.min(sliceSize(), total - nextStart);
                s = new Slice<>(nextSliceId++, nextStart, count);
                nextStart += count;
                outstanding.put(s.id, s);
            } else if (s.hash != null || s.node != null) {
                continue; // finished (or sent) since it was queued
            } else {
                resent++;
            }
            s.attempts++;
            s.node = node;
            s.deadline = now + deadline(s.count);
            inFlight.merge(node, 1, Integer::sum);
            sends.add(new Send(s.id, s.start, s.count, s.attempts, node));
        }
        return sends;
    }

    private String freest() {
        String best = null;
        int room = 0;
        for (Map.Entry<String, Integer> e : capacity.entrySet()) {
            int free = e.getValue() - inFlight.getOrDefault(e.getKey(), 0);
            if (free > room) {
                room = free;
                best = e.getKey();
            }
        }
        return best;
    }

    /**
     * Groups for the next slice: one until a rate is measured, then about the target time's worth, but
     * never more than an even share of what is left over the in-flight window (guided scheduling: slices
     * shrink toward the end of the job, so no evaluator sits idle while another finishes a long slice).
     */
    long sliceSize() {
        if (nanosPerGroup <= 0) {
            return 1;
        }
        long byTime = (long) (settings.targetSliceNanos() / nanosPerGroup);
        long window = Math.max(1, capacity.values().stream().mapToInt(Integer::intValue).sum());
        long byShare = (total - nextStart + window - 1) / window;
        return Math.max(1, Math.min(MAX_SLICE_GROUPS, Math.min(byTime, byShare)));
    }

    private long deadline(int count) {
        if (nanosPerGroup <= 0) {
            return settings.firstDeadlineNanos();
        }
        return Math.max(settings.minDeadlineNanos(), (long) (settings.deadlineFactor() * nanosPerGroup * count));
    }

    /** Slices whose deadline passed go back to be re-sent (their node's slot is freed). */
    public int expire(long now) {
        int n = 0;
        for (Slice<P> s : outstanding.values()) {
            if (s.hash == null && s.node != null && now - s.deadline > 0) {
                release(s);
                resend.add(s);
                n++;
            }
        }
        return n;
    }

    private void release(Slice<P> s) {
        if (s.node != null) {
            inFlight.computeIfPresent(s.node, (k, v) -> Math.max(0, v - 1));
            s.node = null;
        }
    }

    /**
     * A slice's result arrived. The first result of a slice counts ({@code NEW}); a later one is compared
     * by hash ({@code DUPLICATE} when equal, {@code NONDETERMINISTIC} when not). {@code error} non-empty:
     * the attempt failed and the slice is sent again (the job fails after too many failures).
     */
    public Accepted onResult(long sliceId, byte[] hash, int groups, long evalNanos, String error, P payload) {
        byte[] merged = mergedHashes.get(sliceId);
        Slice<P> s = outstanding.get(sliceId);
        if (s == null && merged == null) {
            return Accepted.UNKNOWN;
        }
        if (!error.isEmpty()) {
            if (s != null && s.hash == null) {
                s.failures++;
                release(s);
                if (s.failures >= settings.maxFailures()) {
                    failure = "slice " + sliceId + " failed " + s.failures + " times; last: " + error;
                } else {
                    resend.add(s);
                }
            }
            return Accepted.FAILED_ATTEMPT;
        }
        byte[] known = merged != null ? merged : s.hash;
        if (known != null) {
            if (Arrays.equals(known, hash)) {
                duplicates++;
                return Accepted.DUPLICATE;
            }
            nondeterministic++;
            return Accepted.NONDETERMINISTIC;
        }
        release(s);
        s.hash = hash;
        s.payload = payload;
        finished.put(s.start, s);
        groupsFinished += s.count;
        if (groups > 0 && evalNanos > 0) {
            double measured = (double) evalNanos / groups;
            nanosPerGroup = nanosPerGroup <= 0 ? measured : 0.7 * nanosPerGroup + 0.3 * measured;
        }
        return Accepted.NEW;
    }

    /** Finished slices that are next in group order, removed from the buffer. */
    public List<Ready<P>> mergeable() {
        List<Ready<P>> ready = new ArrayList<>();
        Iterator<Map.Entry<Long, Slice<P>>> it = finished.entrySet().iterator();
        while (it.hasNext()) {
            Slice<P> s = it.next().getValue();
            if (s.start != mergedUpTo) {
                break;
            }
            it.remove();
            outstanding.remove(s.id);
            mergedHashes.put(s.id, s.hash);
            mergedUpTo += s.count;
            ready.add(new Ready<>(s.id, s.start, s.count, s.payload));
            s.payload = null;
        }
        return ready;
    }

    public boolean done() {
        return mergedUpTo >= total;
    }

    public String failure() {
        return failure;
    }

    public long total() {
        return total;
    }

    public long groupsFinished() {
        return groupsFinished;
    }

    public long groupsMerged() {
        return mergedUpTo;
    }

    public long duplicates() {
        return duplicates;
    }

    public long nondeterministic() {
        return nondeterministic;
    }

    public long resent() {
        return resent;
    }

    public int outstanding() {
        return outstanding.size();
    }

    public int buffered() {
        return finished.size();
    }

    public int window() {
        return capacity.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Slices sent and not back yet, over every node. */
    public int inFlight() {
        return inFlight.values().stream().mapToInt(Integer::intValue).sum();
    }

    public int inFlight(String node) {
        return inFlight.getOrDefault(node, 0);
    }

    public int nodes() {
        return capacity.size();
    }

    public long slicesPlanned() {
        return nextSliceId;
    }
}
