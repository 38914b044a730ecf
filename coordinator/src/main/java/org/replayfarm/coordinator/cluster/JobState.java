package org.replayfarm.coordinator.cluster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where a job's slices stand, as a plain value the job actor drives (no Akka here), shaped as the
 * akka-samples' {@code WorkState}: every change is an {@link Event} applied by {@link #updated}; the
 * decisions ({@link #dispatch}, {@link #expire}, {@link #result}) only compute the events to apply.
 *
 * <p>Two kinds of event. The {@link Durable} ones are what a job's journal keeps: a slice's result
 * ({@link SliceFinished}, with its payload, so a restarted job merges it again without recomputing it),
 * a failed attempt ({@link AttemptFailed}: failure limits and node rotation), a repeated result
 * ({@link ResultRepeated}: the duplicate and nondeterminism counts the report gives). The others follow
 * the cluster and the wire (nodes, sends, deadlines) and are rebuilt after a restart: {@link Restarted}
 * puts every unfinished slice back to be sent.
 *
 * <p>Attempts count: a slice may run as several attempts (re-sent after a failure, a node leaving or a
 * deadline); each result names its attempt and frees the slot of the node that ran that attempt only. A
 * failure of an attempt that was superseded (the slice finished, or a newer attempt runs) neither queues
 * another attempt nor counts toward the slice's failure limit. A failed slice goes to a node that has not
 * failed it where one is up; a node that fails {@code nodeFailureLimit} attempts in a row leaves the job's
 * rotation ({@link #retired}, with the reason). A slice past its deadline is sent once more (a speculative
 * copy; the late attempt keeps its slot until it answers or its node leaves) and never again for a
 * deadline, so a runaway group costs at most one extra attempt.
 *
 * <p>Memory stays flat however many groups the job has: no more slices are outstanding than the nodes'
 * windows add up to, so the buffer of slices waiting for an earlier one is bounded by the window. Only
 * each merged slice's hash is kept (to check late duplicates).
 */
public final class JobState {
    /** Tunables: target work per slice, deadlines, failure limits. */
    public record Settings(long targetSliceNanos, long firstDeadlineNanos, double deadlineFactor, long minDeadlineNanos,
                           int maxFailures, int nodeFailureLimit) {
    }

    /** Everything that changes a job's state. */
    public sealed interface Event permits Durable, NodeUp, NodeLeaving, NodeGone, SliceSent, AttemptExpired, Restarted,
            Cancelled {
    }

    /** The events a job's journal keeps. */
    public sealed interface Durable extends Event permits SliceFinished, AttemptFailed, ResultRepeated {
    }

    /** An evaluator node is available and takes up to {@code slots} slices at once. */
    public record NodeUp(String node, int slots) implements Event {
    }

    /** A node leaves gracefully: no new slices; the ones it holds stay its own until it is gone or they expire. */
    public record NodeLeaving(String node) implements Event {
    }

    /** A node left or became unreachable: its attempts are lost and their slices go elsewhere. */
    public record NodeGone(String node) implements Event {
    }

    /**
     * Attempt {@code attempt} of slice {@code sliceId} (groups {@code start} to {@code start + count}) goes
     * to {@code node}, due by {@code deadline}; {@code planned}: the slice is new.
     */
    public record SliceSent(long sliceId, long start, int count, int attempt, String node, long deadline,
                            boolean planned) implements Event {
    }

    /** An attempt passed its deadline; {@code resend}: the slice is sent once more (at most once a slice). */
    public record AttemptExpired(long sliceId, int attempt, boolean resend) implements Event {
    }

    /** The job runs again after a restart: no node is known, every unfinished slice is to be sent again. */
    public record Restarted() implements Event {
    }

    /**
     * The job is cancelled: from now on nothing is sent, no result counts (those of slices in flight are
     * {@code UNKNOWN}) and nothing more is released for merging. The coordinator's registry journals it
     * (a {@code JobEnded} with state {@code cancelled}), so a restarted coordinator does not resume the job.
     */
    public record Cancelled() implements Event {
    }

    /** The first result of a slice (it counts): its groups, hash and what the merge takes. */
    public record SliceFinished(long sliceId, long start, int count, int attempt, String node, byte[] hash, int groups,
                                long evalNanos, byte[] payload) implements Durable {
    }

    /** An attempt failed with {@code error}. */
    public record AttemptFailed(long sliceId, long start, int count, int attempt, String node, String error)
            implements Durable {
    }

    /** A slice that had finished came back again: with the same hash, or ({@code same} false) not. */
    public record ResultRepeated(long sliceId, int attempt, String node, boolean same) implements Durable {
    }

    /** What became of a result. */
    public enum Accepted { NEW, DUPLICATE, NONDETERMINISTIC, FAILED_ATTEMPT, STALE_FAILURE, UNKNOWN }

    /** A result classified, and the event that records it (null for UNKNOWN). */
    public record Verdict(Accepted accepted, Durable event) {
    }

    /** A finished slice released for merging, in group order. */
    public record Ready(long sliceId, long start, int count, byte[] payload) {
    }

    private static final class Slice {
        final long id;
        final long start;
        final int count;
        int attempts;           // the highest attempt number sent
        int failures;           // attempts that failed while no newer one ran
        boolean speculated;     // sent once more for a deadline already
        boolean queued;         // waiting in the resend queue
        final Map<Integer, Attempt> live = new LinkedHashMap<>();
        final Set<String> failedOn = new HashSet<>();
        byte[] hash;            // set once finished
        byte[] payload;

        Slice(long id, long start, int count) {
            this.id = id;
            this.start = start;
            this.count = count;
        }
    }

    private record Attempt(String node, long deadline) {
    }

    /**
     * The most groups one slice holds, whatever the measured rate: a slice's results wait in the
     * coordinator until merged, so this caps the bytes the in-flight window can hold.
     */
    static final long MAX_SLICE_GROUPS = 4096;

    private final long total;
    private final Settings settings;
    private final Map<String, Integer> capacity = new LinkedHashMap<>();
    private final Map<String, Integer> inFlight = new HashMap<>();
    private final Map<String, Integer> failuresInARow = new HashMap<>();
    private final Map<String, String> retired = new LinkedHashMap<>();
    private final Map<Long, Slice> outstanding = new HashMap<>();
    private final Deque<Slice> resend = new ArrayDeque<>();
    private final Deque<long[]> holes = new ArrayDeque<>(); // group ranges to plan again after a restart
    private final TreeMap<Long, Slice> finished = new TreeMap<>();
    private final Map<Long, byte[]> mergedHashes = new HashMap<>();
    private final List<Ready> ready = new ArrayList<>();
    /** Attempts no longer wanted (their slice finished by another attempt): the job tells their nodes to stop them. */
    private final List<LiveAttempt> stopped = new ArrayList<>();
    private long nextStart;
    private long nextSliceId;
    private long mergedUpTo;
    private long groupsFinished;
    private double nanosPerGroup = -1;
    private long duplicates;
    private long nondeterministic;
    private long resent;
    private String failure;
    private boolean cancelled;

    public JobState(long totalGroups, Settings settings) {
        this.total = totalGroups;
        this.settings = settings;
    }

    /** Applies one event (live, or replayed from the journal) and returns this state. */
    public JobState updated(Event event) {
        // Java 17: no pattern switch; the interface is sealed, so this chain covers every event
        if (event instanceof NodeUp e) {
            if (!retired.containsKey(e.node())) {
                capacity.put(e.node(), Math.max(1, e.slots()));
                inFlight.putIfAbsent(e.node(), 0);
            }
        } else if (event instanceof NodeLeaving e) {
            capacity.remove(e.node());
        } else if (event instanceof NodeGone e) {
            gone(e.node());
        } else if (event instanceof SliceSent e) {
            sent(e);
        } else if (event instanceof AttemptExpired e) {
            expired(e);
        } else if (event instanceof Restarted) {
            restarted();
        } else if (event instanceof Cancelled) {
            cancelled = true;
            resend.clear();
            ready.clear();
            finished.clear();
            capacity.clear();
        } else if (event instanceof SliceFinished e) {
            finished(e);
        } else if (event instanceof AttemptFailed e) {
            failed(e);
        } else if (event instanceof ResultRepeated e) {
            repeated(e);
        }
        return this;
    }

    // ---- decisions: they compute events and change nothing ----

    /** The sends to make now: slices to re-send first, then new ones while the window has room. */
    public List<SliceSent> dispatch(long now) {
        List<SliceSent> sends = new ArrayList<>();
        if (cancelled) {
            return sends;
        }
        Map<String, Integer> busy = new HashMap<>(inFlight);
        Iterator<Slice> again = resend.iterator();
        Set<Long> taken = new HashSet<>();
        Deque<long[]> gaps = new ArrayDeque<>();
        holes.forEach(h -> gaps.add(h.clone()));
        long start = nextStart;
        long id = nextSliceId;
        int planned = outstanding.size();
        int window = window();
        while (true) {
            Slice s = null;
            while (again.hasNext()) {
                Slice c = again.next();
                if (c.hash == null && outstanding.containsKey(c.id) && taken.add(c.id)) {
                    s = c;
                    break;
                }
            }
            if (s != null) {
                String node = freest(busy, s.failedOn);
                if (node == null) {
                    break;
                }
                busy.merge(node, 1, Integer::sum);
                sends.add(new SliceSent(s.id, s.start, s.count, s.attempts + 1, node, now + deadline(s.count), false));
                continue;
            }
            long sliceStart;
            int count;
            long[] gap = gaps.peek();
            if (gap == null && planned >= window) {
                break;
            }
            if (gap != null) { // a hole a restart left: planned whatever the window (the merge waits on it)
                count = (int) Math.min(sliceSize(start), gap[1]);
                sliceStart = gap[0];
                gap[0] += count;
                gap[1] -= count;
                if (gap[1] == 0) {
                    gaps.poll();
                }
            } else if (start < total) {
                count = (int) Math.min(sliceSize(start), total - start);
                sliceStart = start;
                start += count;
            } else {
                break;
            }
            String node = freest(busy, Set.of());
            if (node == null) {
                break;
            }
            busy.merge(node, 1, Integer::sum);
            planned++;
            sends.add(new SliceSent(id++, sliceStart, count, 1, node, now + deadline(count), true));
        }
        return sends;
    }

    /** The attempts whose deadline passed; the first expiry of a slice sends it once more. */
    public List<AttemptExpired> expire(long now) {
        List<AttemptExpired> out = new ArrayList<>();
        for (Slice s : outstanding.values()) {
            boolean resendOnce = s.hash == null && !s.speculated;
            for (Map.Entry<Integer, Attempt> a : s.live.entrySet()) {
                if (a.getValue().deadline() != Long.MIN_VALUE && now - a.getValue().deadline() > 0) {
                    out.add(new AttemptExpired(s.id, a.getKey(), resendOnce));
                    resendOnce = false;
                }
            }
        }
        return out;
    }

    /**
     * Classifies a result of attempt {@code attempt} of slice {@code sliceId} from {@code node}: the first
     * result of a slice counts ({@code NEW}); a later one is compared by hash ({@code DUPLICATE} or
     * {@code NONDETERMINISTIC}); {@code error} non-empty: the attempt failed ({@code STALE_FAILURE} when the
     * slice finished or a newer attempt runs).
     */
    public Verdict result(long sliceId, int attempt, String node, byte[] hash, int groups, long evalNanos, String error,
                          byte[] payload) {
        byte[] merged = mergedHashes.get(sliceId);
        Slice s = outstanding.get(sliceId);
        if (cancelled || s == null && merged == null) {
            return new Verdict(Accepted.UNKNOWN, null);
        }
        if (!error.isEmpty()) {
            long start = s == null ? -1 : s.start;
            int count = s == null ? 0 : s.count;
            AttemptFailed e = new AttemptFailed(sliceId, start, count, attempt, node, error);
            return new Verdict(s == null || superseded(s, attempt) ? Accepted.STALE_FAILURE : Accepted.FAILED_ATTEMPT, e);
        }
        byte[] known = merged != null ? merged : s.hash;
        if (known != null) {
            boolean same = Arrays.equals(known, hash);
            return new Verdict(same ? Accepted.DUPLICATE : Accepted.NONDETERMINISTIC,
                    new ResultRepeated(sliceId, attempt, node, same));
        }
        return new Verdict(Accepted.NEW, new SliceFinished(sliceId, s.start, s.count, attempt, node, hash, groups,
                evalNanos, payload));
    }

    private static boolean superseded(Slice s, int attempt) {
        if (s.hash != null) {
            return true;
        }
        for (int a : s.live.keySet()) {
            if (a != attempt) {
                return true;
            }
        }
        return false;
    }

    // ---- event handlers ----

    private void gone(String node) {
        capacity.remove(node);
        inFlight.remove(node);
        for (Slice s : outstanding.values()) {
            s.live.values().removeIf(a -> a.node().equals(node));
            queueIfIdle(s);
        }
    }

    private void sent(SliceSent e) {
        Slice s;
        if (e.planned()) {
            s = new Slice(e.sliceId(), e.start(), e.count());
            outstanding.put(s.id, s);
            nextSliceId = Math.max(nextSliceId, e.sliceId() + 1);
            long[] gap = holes.peek();
            if (gap != null && gap[0] == e.start()) {
                gap[0] += e.count();
                gap[1] -= e.count();
                if (gap[1] == 0) {
                    holes.poll();
                }
            } else {
                nextStart = Math.max(nextStart, e.start() + e.count());
            }
        } else {
            s = outstanding.get(e.sliceId());
            if (s == null || s.hash != null) {
                return;
            }
            resent++;
            resend.remove(s);
            s.queued = false;
        }
        s.attempts = Math.max(s.attempts, e.attempt());
        s.live.put(e.attempt(), new Attempt(e.node(), e.deadline()));
        inFlight.merge(e.node(), 1, Integer::sum);
    }

    private void expired(AttemptExpired e) {
        Slice s = outstanding.get(e.sliceId());
        if (s == null) {
            return;
        }
        Attempt a = s.live.get(e.attempt());
        if (a == null) {
            return;
        }
        if (s.hash != null) {
            // the slice finished; this late attempt no longer holds its node's slot
            s.live.remove(e.attempt());
            free(a.node());
            return;
        }
        // the late attempt keeps running (and its slot); it is not timed again
        s.live.put(e.attempt(), new Attempt(a.node(), Long.MIN_VALUE));
        if (e.resend() && !s.speculated) {
            s.speculated = true;
            queue(s);
        }
    }

    private void restarted() {
        capacity.clear();
        inFlight.clear();
        resend.clear();
        List<Slice> all = new ArrayList<>(outstanding.values());
        all.sort((x, y) -> Long.compare(x.start, y.start));
        for (Slice s : all) {
            s.live.clear();
            s.queued = false;
            s.speculated = false;
            queueIfIdle(s);
        }
    }

    private void finished(SliceFinished e) {
        if (cancelled) {
            return;
        }
        Slice s = outstanding.get(e.sliceId());
        if (s == null) {
            // replayed from the journal: the slice was planned by a run before the restart
            s = new Slice(e.sliceId(), e.start(), e.count());
            outstanding.put(s.id, s);
            nextSliceId = Math.max(nextSliceId, e.sliceId() + 1);
            coverReplayed(e.start(), e.count());
        }
        if (s.hash != null) {
            return;
        }
        Attempt a = s.live.remove(e.attempt());
        if (a != null) {
            free(a.node());
        }
        // the slice's other attempts (a copy sent at its deadline, or the late first one after its copy won) are not
        // wanted: their slots are free now, and the job tells their nodes to stop them as a cancelled job's are
        for (Map.Entry<Integer, Attempt> other : s.live.entrySet()) {
            free(other.getValue().node());
            stopped.add(new LiveAttempt(s.id, other.getKey(), other.getValue().node()));
        }
        s.live.clear();
        resend.remove(s);
        s.queued = false;
        failuresInARow.remove(e.node());
        s.hash = e.hash();
        s.payload = e.payload();
        finished.put(s.start, s);
        groupsFinished += s.count;
        if (e.groups() > 0 && e.evalNanos() > 0) {
            double measured = (double) e.evalNanos() / e.groups();
            nanosPerGroup = nanosPerGroup <= 0 ? measured : 0.7 * nanosPerGroup + 0.3 * measured;
        }
        release();
    }

    /**
     * A slice from the journal covers groups {@code start} to {@code start + count}: what lies between the
     * planning frontier and it becomes a hole to plan again (a slice the earlier run planned and lost).
     */
    private void coverReplayed(long start, int count) {
        if (start >= nextStart) {
            if (start > nextStart) {
                holes.add(new long[] {nextStart, start - nextStart});
            }
            nextStart = start + count;
            return;
        }
        // inside a hole recorded earlier: split it
        List<long[]> kept = new ArrayList<>();
        for (long[] h : holes) {
            long end = h[0] + h[1];
            if (start >= h[0] && start + count <= end) {
                if (start > h[0]) {
                    kept.add(new long[] {h[0], start - h[0]});
                }
                if (end > start + count) {
                    kept.add(new long[] {start + count, end - start - count});
                }
            } else {
                kept.add(h);
            }
        }
        holes.clear();
        holes.addAll(kept);
    }

    private void failed(AttemptFailed e) {
        Slice s = outstanding.get(e.sliceId());
        int inARow = failuresInARow.merge(e.node(), 1, Integer::sum);
        if (inARow >= settings.nodeFailureLimit() && !retired.containsKey(e.node())) {
            retired.put(e.node(), "taken out of the job's rotation after " + inARow + " failed slices in a row; last: "
                    + e.error());
            capacity.remove(e.node());
            if (capacity.isEmpty()) {
                failure = "every evaluator node was taken out of the job's rotation: " + retiredReasons();
            }
        }
        if (s == null) {
            return; // merged already
        }
        boolean stale = superseded(s, e.attempt());
        Attempt a = s.live.remove(e.attempt());
        if (a != null) {
            free(a.node());
        }
        if (stale) {
            return;
        }
        s.failures++;
        s.failedOn.add(e.node());
        if (s.failures >= settings.maxFailures()) {
            failure = "slice " + s.id + " (groups " + s.start + " to " + (s.start + s.count - 1) + ") failed " + s.failures
                    + " times; last, on " + e.node() + ": " + e.error();
        } else {
            queueIfIdle(s);
        }
    }

    private String retiredReasons() {
        List<String> r = new ArrayList<>();
        retired.forEach((node, why) -> r.add(node + " " + why));
        return String.join("; ", r);
    }

    private void repeated(ResultRepeated e) {
        if (e.same()) {
            duplicates++;
        } else {
            nondeterministic++;
        }
        Slice s = outstanding.get(e.sliceId());
        if (s != null) {
            Attempt a = s.live.remove(e.attempt());
            if (a != null) {
                free(a.node());
            }
        }
    }

    private void queueIfIdle(Slice s) {
        if (s.hash == null && s.live.isEmpty()) {
            queue(s);
        }
    }

    private void queue(Slice s) {
        if (!s.queued) {
            s.queued = true;
            resend.add(s);
        }
    }

    private void free(String node) {
        inFlight.computeIfPresent(node, (k, v) -> Math.max(0, v - 1));
    }

    /** Finished slices next in group order move to the merge. */
    private void release() {
        Iterator<Map.Entry<Long, Slice>> it = finished.entrySet().iterator();
        while (it.hasNext()) {
            Slice s = it.next().getValue();
            if (s.start != mergedUpTo) {
                break;
            }
            it.remove();
            if (s.live.isEmpty()) {
                outstanding.remove(s.id);
            }
            mergedHashes.put(s.id, s.hash);
            mergedUpTo += s.count;
            ready.add(new Ready(s.id, s.start, s.count, s.payload));
            s.payload = null;
        }
        // a merged slice whose late attempts still run stays outstanding (their slots) until they answer
        outstanding.values().removeIf(s -> s.hash != null && s.live.isEmpty() && mergedHashes.containsKey(s.id));
    }

    private String freest(Map<String, Integer> busy, Set<String> avoid) {
        String best = null;
        int room = 0;
        boolean others = capacity.keySet().stream().anyMatch(n -> !avoid.contains(n));
        for (Map.Entry<String, Integer> e : capacity.entrySet()) {
            if (others && avoid.contains(e.getKey())) {
                continue; // a failed slice goes to a node that has not failed it, where one is up
            }
            int free = e.getValue() - busy.getOrDefault(e.getKey(), 0);
            if (free > room) {
                room = free;
                best = e.getKey();
            }
        }
        return best;
    }

    /**
     * Groups for the next slice: one until a rate is measured, then about the target time's worth, but
     * never more than an even share of what is left over the in-flight window (guided scheduling).
     */
    long sliceSize(long from) {
        if (nanosPerGroup <= 0) {
            return 1;
        }
        long byTime = (long) (settings.targetSliceNanos() / nanosPerGroup);
        long window = Math.max(1, window());
        long byShare = (total - from + window - 1) / window;
        return Math.max(1, Math.min(MAX_SLICE_GROUPS, Math.min(byTime, byShare)));
    }

    private long deadline(int count) {
        if (nanosPerGroup <= 0) {
            return settings.firstDeadlineNanos();
        }
        return Math.max(settings.minDeadlineNanos(), (long) (settings.deadlineFactor() * nanosPerGroup * count));
    }

    /** The finished slices released for merging since the last call, in group order. */
    public List<Ready> takeMergeable() {
        List<Ready> out = List.copyOf(ready);
        ready.clear();
        return out;
    }

    public boolean done() {
        return !cancelled && mergedUpTo >= total;
    }

    /** Whether the job was cancelled ({@link Cancelled}). */
    public boolean cancelled() {
        return cancelled;
    }

    public String failure() {
        return failure;
    }

    /** Nodes taken out of this job's rotation, with why. */
    public Map<String, String> retired() {
        return Map.copyOf(retired);
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

    /** An attempt sent and not back yet: its slice, number and node. */
    public record LiveAttempt(long sliceId, int attempt, String node) {
    }

    /**
     * The attempts stopped since the last call because another attempt of their slice finished first (each once);
     * a late answer of one is still counted as a duplicate, its slot already free.
     */
    public List<LiveAttempt> takeStopped() {
        List<LiveAttempt> out = List.copyOf(stopped);
        stopped.clear();
        return out;
    }

    /** Every attempt sent and not back yet (a cancelled job tells their nodes to stop them). */
    public List<LiveAttempt> liveAttempts() {
        List<LiveAttempt> live = new ArrayList<>();
        for (Slice s : outstanding.values()) {
            s.live.forEach((attempt, a) -> live.add(new LiveAttempt(s.id, attempt, a.node())));
        }
        return live;
    }

    /** Attempts sent and not back yet, over every node. */
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

    /**
     * Slices waiting for an evaluator slot: those queued to be sent again, plus the groups not sent yet
     * counted in slices of the target time's worth at the measured rate (one group a slice before a rate
     * is measured, {@link #MAX_SLICE_GROUPS} at most). Unlike {@link #sliceSize} this ignores the window, so
     * the figure does not shrink because more nodes joined: it is the backlog a scaler reads (more nodes
     * would take these slices now). 0 once every group was sent.
     */
    public long slicesQueued() {
        long waiting = resend.stream().filter(s -> s.hash == null && outstanding.containsKey(s.id)).count();
        long size = 1;
        if (nanosPerGroup > 0) {
            size = Math.max(1, Math.min(MAX_SLICE_GROUPS, (long) (settings.targetSliceNanos() / nanosPerGroup)));
        }
        long unsent = Math.max(0, total - nextStart);
        for (long[] h : holes) {
            unsent += h[1];
        }
        return waiting + (unsent + size - 1) / size;
    }
}
