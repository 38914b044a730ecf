package org.replayfarm.coordinator.job;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.pcollections.HashTreePMap;
import org.pcollections.HashTreePSet;
import org.pcollections.OrderedPMap;
import org.pcollections.PMap;
import org.pcollections.PSet;
import org.pcollections.PSortedMap;
import org.pcollections.PVector;
import org.pcollections.TreePMap;
import org.pcollections.TreePVector;

/**
 * Where a job's slices stand, as an immutable value the job actor drives (no Akka here), shaped as the
 * akka-samples' {@code WorkState}: {@link #updated} applies an {@link Event} and returns the next state,
 * the only way a state changes; the decisions ({@link #dispatch}, {@link #expire}, {@link #result}) only
 * compute the events to apply, and take the time from the caller (the job's injected clock). What an
 * event releases for merging and the attempts it stops are part of the state it gives ({@link #released},
 * {@link #stopped}). The parts are persistent collections, so a new state shares all but what changed.
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
 * copy; the late attempt keeps its slot for as long again, then gives it back); each further copy, sent only
 * when no attempt of the slice is in time, has twice the time of the one before. So a runaway group costs
 * a number of extra attempts logarithmic in its run time, and a result lost on the way (a node that stays
 * up and reachable but whose answer never comes) is sent again, never waited for for ever.
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
     * to {@code node} at {@code sent}, due by {@code deadline}; {@code planned}: the slice is new.
     */
    public record SliceSent(long sliceId, long start, int count, int attempt, String node, long sent, long deadline,
                            boolean planned) implements Event {
    }

    /**
     * An attempt passed its deadline: one in time becomes late, a late one is given up (see {@link #expire});
     * {@code resend}: the slice is sent once more.
     */
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

    /** A slice planned and not merged yet (or merged while late attempts of it still run). */
    private record Slice(long id, long start, int count, int attempts, int failures, int copies,
                         PSortedMap<Integer, Attempt> live, PSet<String> failedOn, byte[] hash, byte[] payload) {
        static Slice planned(long id, long start, int count) {
            return new Slice(id, start, count, 0, 0, 0, TreePMap.empty(), HashTreePSet.empty(), null, null);
        }

        Slice live(PSortedMap<Integer, Attempt> l) {
            return new Slice(id, start, count, attempts, failures, copies, l, failedOn, hash, payload);
        }

        Slice sent(int attempt, Attempt a) {
            return new Slice(id, start, count, Math.max(attempts, attempt), failures, copies, live.plus(attempt, a),
                    failedOn, hash, payload);
        }

        Slice copies(int c) {
            return new Slice(id, start, count, attempts, failures, c, live, failedOn, hash, payload);
        }

        /** Whether an attempt other than {@code attempt} still runs in time or late (not given up). */
        boolean othersActive(int attempt) {
            for (Map.Entry<Integer, Attempt> a : live.entrySet()) {
                if (a.getKey() != attempt && a.getValue().stage() != Stage.GIVEN_UP) {
                    return true;
                }
            }
            return false;
        }

        Slice failedOn(String node) {
            return new Slice(id, start, count, attempts, failures + 1, copies, live, failedOn.plus(node), hash,
                    payload);
        }

        Slice finished(byte[] h, byte[] p) {
            return new Slice(id, start, count, attempts, failures, copies, TreePMap.empty(), failedOn, h, p);
        }

        Slice merged() {
            return new Slice(id, start, count, attempts, failures, copies, live, failedOn, hash, null);
        }
    }

    /**
     * Where an attempt stands against its deadline: in time; {@code LATE}: past its deadline, still holding
     * its node's slot for one more span (sent at {@code sent}, due at {@code deadline}); {@code GIVEN_UP}:
     * past that too, its slot free (its result would still count; it is still stopped when its slice ends).
     */
    private enum Stage { IN_TIME, LATE, GIVEN_UP }

    private record Attempt(String node, long sent, long deadline, Stage stage) {
        boolean holdsSlot() {
            return stage != Stage.GIVEN_UP;
        }
    }

    /** Groups {@code start} to {@code start + count} a restart left unplanned. */
    private record Hole(long start, long count) {
    }

    /**
     * The most groups one slice holds, whatever the measured rate: a slice's results wait in the
     * coordinator until merged, so this caps the bytes the in-flight window can hold.
     */
    static final long MAX_SLICE_GROUPS = 4096;

    private final long total;
    private final Settings settings;
    private final PMap<String, Integer> capacity;        // in the order nodes came up (ties go to the first)
    private final PMap<String, Integer> inFlight;
    private final PMap<String, Integer> failuresInARow;
    private final PMap<String, String> retired;
    private final PSortedMap<Long, Slice> outstanding;  // by slice id
    private final PVector<Long> resend;                 // slice ids queued to be sent again, oldest first
    private final PVector<Hole> holes;                  // group ranges to plan again after a restart
    private final PSortedMap<Long, Long> finished;      // first group -> slice id: finished, not merged yet
    private final PMap<Long, byte[]> mergedHashes;
    private final PVector<Ready> released;              // by the last event applied
    private final PVector<LiveAttempt> stopped;         // by the last event applied
    private final long nextStart;
    private final long nextSliceId;
    private final long mergedUpTo;
    private final long groupsFinished;
    private final double nanosPerGroup;
    private final long duplicates;
    private final long nondeterministic;
    private final long resent;
    private final String failure;
    private final boolean cancelled;

    public JobState(long totalGroups, Settings settings) {
        this(new Next(totalGroups, settings));
    }

    private JobState(Next n) {
        total = n.total;
        settings = n.settings;
        capacity = n.capacity;
        inFlight = n.inFlight;
        failuresInARow = n.failuresInARow;
        retired = n.retired;
        outstanding = n.outstanding;
        resend = n.resend;
        holes = n.holes;
        finished = n.finished;
        mergedHashes = n.mergedHashes;
        released = n.released;
        stopped = n.stopped;
        nextStart = n.nextStart;
        nextSliceId = n.nextSliceId;
        mergedUpTo = n.mergedUpTo;
        groupsFinished = n.groupsFinished;
        nanosPerGroup = n.nanosPerGroup;
        duplicates = n.duplicates;
        nondeterministic = n.nondeterministic;
        resent = n.resent;
        failure = n.failure;
        cancelled = n.cancelled;
    }

    /**
     * The state after {@code event} (live, or replayed from the journal); this one is unchanged. What the
     * event released for merging and the attempts it made unwanted are the new state's {@link #released}
     * and {@link #stopped} (empty after any other event).
     */
    public JobState updated(Event event) {
        Next n = new Next(this);
        // Java 17: no pattern switch; the interface is sealed, so this chain covers every event
        if (event instanceof NodeUp e) {
            if (!n.retired.containsKey(e.node())) {
                n.capacity = n.capacity.plus(e.node(), Math.max(1, e.slots()));
                if (!n.inFlight.containsKey(e.node())) {
                    n.inFlight = n.inFlight.plus(e.node(), 0);
                }
            }
        } else if (event instanceof NodeLeaving e) {
            n.capacity = n.capacity.minus(e.node());
        } else if (event instanceof NodeGone e) {
            n.gone(e.node());
        } else if (event instanceof SliceSent e) {
            n.sent(e);
        } else if (event instanceof AttemptExpired e) {
            n.expired(e);
        } else if (event instanceof Restarted) {
            n.restarted();
        } else if (event instanceof Cancelled) {
            n.cancelled = true;
            n.resend = TreePVector.empty();
            n.finished = TreePMap.empty();
            n.capacity = OrderedPMap.empty();
        } else if (event instanceof SliceFinished e) {
            n.finished(e);
        } else if (event instanceof AttemptFailed e) {
            n.failed(e);
        } else if (event instanceof ResultRepeated e) {
            n.repeated(e);
        }
        return new JobState(n);
    }

    /** Every event of {@code events} applied in order to this state. */
    public JobState updated(List<? extends Event> events) {
        JobState s = this;
        for (Event e : events) {
            s = s.updated(e);
        }
        return s;
    }

    // ---- decisions: they compute events and change nothing ----

    /** The sends to make now: slices to re-send first, then new ones while the window has room. */
    public List<SliceSent> dispatch(long now) {
        List<SliceSent> sends = new ArrayList<>();
        if (cancelled) {
            return sends;
        }
        Map<String, Integer> busy = new HashMap<>(inFlight);
        Iterator<Long> again = resend.iterator();
        Set<Long> taken = new HashSet<>();
        Deque<long[]> gaps = new ArrayDeque<>();
        holes.forEach(h -> gaps.add(new long[] {h.start(), h.count()}));
        long start = nextStart;
        long id = nextSliceId;
        int planned = outstanding.size();
        int window = window();
        while (true) {
            Slice s = null;
            while (again.hasNext()) {
                Slice c = outstanding.get(again.next());
                if (c != null && c.hash() == null && taken.add(c.id())) {
                    s = c;
                    break;
                }
            }
            if (s != null) {
                String node = freest(busy, s.failedOn());
                if (node == null) {
                    break;
                }
                busy.merge(node, 1, Integer::sum);
                sends.add(new SliceSent(s.id(), s.start(), s.count(), s.attempts() + 1, node, now,
                        now + (deadline(s.count()) << Math.min(s.copies(), 16)), false));
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
            sends.add(new SliceSent(id++, sliceStart, count, 1, node, now, now + deadline(count), true));
        }
        return sends;
    }

    /**
     * The attempts whose deadline passed by {@code now}. An attempt in time becomes late (it keeps its slot
     * one more span, as long as it had); when no attempt of its unfinished slice is in time any more, the
     * slice is sent once more ({@code resend}), each such copy given twice the time of the one before. A late
     * attempt past that span is given up: its slot is free (a result lost on the way, or a node that stopped
     * answering, would otherwise hold it for ever).
     */
    public List<AttemptExpired> expire(long now) {
        List<AttemptExpired> out = new ArrayList<>();
        for (Slice s : outstanding.values()) {
            int inTime = 0;
            List<Integer> due = new ArrayList<>();
            for (Map.Entry<Integer, Attempt> a : s.live().entrySet()) {
                Attempt at = a.getValue();
                if (at.stage() == Stage.GIVEN_UP) {
                    continue;
                }
                if (now - at.deadline() > 0) {
                    if (at.stage() == Stage.IN_TIME) {
                        due.add(a.getKey());
                    } else {
                        out.add(new AttemptExpired(s.id(), a.getKey(), false));
                    }
                } else if (at.stage() == Stage.IN_TIME) {
                    inTime++;
                }
            }
            for (int i = 0; i < due.size(); i++) {
                boolean last = i == due.size() - 1;
                out.add(new AttemptExpired(s.id(), due.get(i), last && inTime == 0 && s.hash() == null));
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
            long start = s == null ? -1 : s.start();
            int count = s == null ? 0 : s.count();
            AttemptFailed e = new AttemptFailed(sliceId, start, count, attempt, node, error);
            return new Verdict(s == null || superseded(s, attempt) ? Accepted.STALE_FAILURE : Accepted.FAILED_ATTEMPT, e);
        }
        byte[] known = merged != null ? merged : s.hash();
        if (known != null) {
            boolean same = Arrays.equals(known, hash);
            return new Verdict(same ? Accepted.DUPLICATE : Accepted.NONDETERMINISTIC,
                    new ResultRepeated(sliceId, attempt, node, same));
        }
        return new Verdict(Accepted.NEW, new SliceFinished(sliceId, s.start(), s.count(), attempt, node, hash, groups,
                evalNanos, payload));
    }

    private static boolean superseded(Slice s, int attempt) {
        return s.hash() != null || s.othersActive(attempt);
    }

    // ---- event handlers: they build the next state ----

    /** The next state while an event is applied: the current one's (persistent) parts, replaced one by one. */
    private static final class Next {
        final long total;
        final Settings settings;
        PMap<String, Integer> capacity = OrderedPMap.empty();
        PMap<String, Integer> inFlight = HashTreePMap.empty();
        PMap<String, Integer> failuresInARow = HashTreePMap.empty();
        PMap<String, String> retired = OrderedPMap.empty();
        PSortedMap<Long, Slice> outstanding = TreePMap.empty();
        PVector<Long> resend = TreePVector.empty();
        PVector<Hole> holes = TreePVector.empty();
        PSortedMap<Long, Long> finished = TreePMap.empty();
        PMap<Long, byte[]> mergedHashes = HashTreePMap.empty();
        PVector<Ready> released = TreePVector.empty();
        PVector<LiveAttempt> stopped = TreePVector.empty();
        long nextStart;
        long nextSliceId;
        long mergedUpTo;
        long groupsFinished;
        double nanosPerGroup = -1;
        long duplicates;
        long nondeterministic;
        long resent;
        String failure;
        boolean cancelled;

        Next(long total, Settings settings) {
            this.total = total;
            this.settings = settings;
        }

        Next(JobState s) {
            total = s.total;
            settings = s.settings;
            capacity = s.capacity;
            inFlight = s.inFlight;
            failuresInARow = s.failuresInARow;
            retired = s.retired;
            outstanding = s.outstanding;
            resend = s.resend;
            holes = s.holes;
            finished = s.finished;
            mergedHashes = s.mergedHashes;
            // released and stopped stay empty: they are what this event does
            nextStart = s.nextStart;
            nextSliceId = s.nextSliceId;
            mergedUpTo = s.mergedUpTo;
            groupsFinished = s.groupsFinished;
            nanosPerGroup = s.nanosPerGroup;
            duplicates = s.duplicates;
            nondeterministic = s.nondeterministic;
            resent = s.resent;
            failure = s.failure;
            cancelled = s.cancelled;
        }

        /** Keeps {@code s}, or drops it once it is merged and no attempt of it runs any more. */
        void put(Slice s) {
            if (s.hash() != null && s.live().isEmpty() && mergedHashes.containsKey(s.id())) {
                outstanding = outstanding.minus(s.id());
            } else {
                outstanding = outstanding.plus(s.id(), s);
            }
        }

        void gone(String node) {
            capacity = capacity.minus(node);
            inFlight = inFlight.minus(node);
            for (Slice s : outstanding.values()) {
                PSortedMap<Integer, Attempt> live = s.live();
                for (Map.Entry<Integer, Attempt> a : s.live().entrySet()) {
                    if (a.getValue().node().equals(node)) {
                        live = live.minus(a.getKey());
                    }
                }
                if (live != s.live()) {
                    Slice t = s.live(live); // a node gone frees no slot of its own: it has none left
                    put(t);
                    queueIfIdle(t);
                }
            }
        }

        void sent(SliceSent e) {
            Slice s;
            if (e.planned()) {
                s = Slice.planned(e.sliceId(), e.start(), e.count());
                nextSliceId = Math.max(nextSliceId, e.sliceId() + 1);
                Hole gap = holes.isEmpty() ? null : holes.get(0);
                if (gap != null && gap.start() == e.start()) {
                    holes = gap.count() == e.count() ? holes.minus(0)
                            : holes.with(0, new Hole(gap.start() + e.count(), gap.count() - e.count()));
                } else {
                    nextStart = Math.max(nextStart, e.start() + e.count());
                }
            } else {
                s = outstanding.get(e.sliceId());
                if (s == null || s.hash() != null) {
                    return;
                }
                resent++;
                resend = resend.minus(Long.valueOf(s.id()));
            }
            put(s.sent(e.attempt(), new Attempt(e.node(), e.sent(), e.deadline(), Stage.IN_TIME)));
            inFlight = inFlight.plus(e.node(), inFlight.getOrDefault(e.node(), 0) + 1);
        }

        void expired(AttemptExpired e) {
            Slice s = outstanding.get(e.sliceId());
            if (s == null) {
                return;
            }
            Attempt a = s.live().get(e.attempt());
            if (a == null) {
                return;
            }
            if (s.hash() != null) {
                // the slice finished; this late attempt no longer holds its node's slot
                put(s.live(s.live().minus(e.attempt())));
                if (a.holdsSlot()) {
                    free(a.node());
                }
                return;
            }
            Slice t;
            if (a.stage() == Stage.IN_TIME) {
                // late: it keeps running, and its slot, for as long again as it had
                t = s.live(s.live().plus(e.attempt(), new Attempt(a.node(), a.sent(), a.deadline() + (a.deadline()
                        - a.sent()), Stage.LATE)));
                if (e.resend()) {
                    t = t.copies(t.copies() + 1);
                    queue(t);
                }
            } else if (a.stage() == Stage.LATE) {
                // given up: its slot is free; it is still stopped when the slice ends, and its result still counts
                free(a.node());
                t = s.live(s.live().plus(e.attempt(), new Attempt(a.node(), a.sent(), a.deadline(), Stage.GIVEN_UP)));
                queueIfIdle(t);
            } else {
                return;
            }
            put(t);
        }

        void restarted() {
            capacity = OrderedPMap.empty();
            inFlight = HashTreePMap.empty();
            resend = TreePVector.empty();
            List<Slice> all = new ArrayList<>(outstanding.values());
            all.sort((x, y) -> Long.compare(x.start(), y.start()));
            for (Slice s : all) {
                Slice t = s.live(TreePMap.empty()).copies(0);
                put(t);
                queueIfIdle(t);
            }
        }

        void finished(SliceFinished e) {
            if (cancelled) {
                return;
            }
            Slice s = outstanding.get(e.sliceId());
            if (s == null) {
                if (mergedHashes.containsKey(e.sliceId())) {
                    return; // merged already
                }
                // replayed from the journal: the slice was planned by a run before the restart
                s = Slice.planned(e.sliceId(), e.start(), e.count());
                nextSliceId = Math.max(nextSliceId, e.sliceId() + 1);
                coverReplayed(e.start(), e.count());
            }
            if (s.hash() != null) {
                return;
            }
            Attempt a = s.live().get(e.attempt());
            if (a != null && a.holdsSlot()) {
                free(a.node());
            }
            // the slice's other attempts (a copy sent at its deadline, or the late first one after its copy won) are
            // not wanted: their slots are free now, and the job tells their nodes to stop them as a cancelled job's are
            for (Map.Entry<Integer, Attempt> other : s.live().entrySet()) {
                if (other.getKey() != e.attempt()) {
                    if (other.getValue().holdsSlot()) {
                        free(other.getValue().node());
                    }
                    stopped = stopped.plus(new LiveAttempt(s.id(), other.getKey(), other.getValue().node()));
                }
            }
            resend = resend.minus(Long.valueOf(s.id()));
            failuresInARow = failuresInARow.minus(e.node());
            Slice t = s.finished(e.hash(), e.payload());
            put(t);
            finished = finished.plus(t.start(), t.id());
            groupsFinished += t.count();
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
        void coverReplayed(long start, int count) {
            if (start >= nextStart) {
                if (start > nextStart) {
                    holes = holes.plus(new Hole(nextStart, start - nextStart));
                }
                nextStart = start + count;
                return;
            }
            // inside a hole recorded earlier: split it
            List<Hole> kept = new ArrayList<>();
            for (Hole h : holes) {
                long end = h.start() + h.count();
                if (start >= h.start() && start + count <= end) {
                    if (start > h.start()) {
                        kept.add(new Hole(h.start(), start - h.start()));
                    }
                    if (end > start + count) {
                        kept.add(new Hole(start + count, end - start - count));
                    }
                } else {
                    kept.add(h);
                }
            }
            holes = TreePVector.from(kept);
        }

        void failed(AttemptFailed e) {
            Slice s = outstanding.get(e.sliceId());
            int inARow = failuresInARow.getOrDefault(e.node(), 0) + 1;
            failuresInARow = failuresInARow.plus(e.node(), inARow);
            if (inARow >= settings.nodeFailureLimit() && !retired.containsKey(e.node())) {
                retired = retired.plus(e.node(), "taken out of the job's rotation after " + inARow
                        + " failed slices in a row; last: " + e.error());
                capacity = capacity.minus(e.node());
                if (capacity.isEmpty()) {
                    failure = "every evaluator node was taken out of the job's rotation: " + retiredReasons();
                }
            }
            if (s == null) {
                return; // merged already
            }
            boolean stale = superseded(s, e.attempt());
            Attempt a = s.live().get(e.attempt());
            if (a != null) {
                if (a.holdsSlot()) {
                    free(a.node());
                }
                s = s.live(s.live().minus(e.attempt()));
            }
            if (stale) {
                put(s);
                return;
            }
            s = s.failedOn(e.node());
            put(s);
            if (s.failures() >= settings.maxFailures()) {
                failure = "slice " + s.id() + " (groups " + s.start() + " to " + (s.start() + s.count() - 1) + ") failed "
                        + s.failures() + " times; last, on " + e.node() + ": " + e.error();
            } else {
                queueIfIdle(s);
            }
        }

        String retiredReasons() {
            List<String> r = new ArrayList<>();
            retired.forEach((node, why) -> r.add(node + " " + why));
            return String.join("; ", r);
        }

        void repeated(ResultRepeated e) {
            if (e.same()) {
                duplicates++;
            } else {
                nondeterministic++;
            }
            Slice s = outstanding.get(e.sliceId());
            if (s != null) {
                Attempt a = s.live().get(e.attempt());
                if (a != null) {
                    if (a.holdsSlot()) {
                        free(a.node());
                    }
                    put(s.live(s.live().minus(e.attempt())));
                }
            }
        }

        /** Queues {@code s} to be sent again when no attempt of it runs (in time or late). */
        void queueIfIdle(Slice s) {
            if (s.hash() == null && !s.othersActive(Integer.MIN_VALUE)) {
                queue(s);
            }
        }

        void queue(Slice s) {
            if (!resend.contains(s.id())) {
                resend = resend.plus(s.id());
            }
        }

        void free(String node) {
            Integer n = inFlight.get(node);
            if (n != null) {
                inFlight = inFlight.plus(node, Math.max(0, n - 1));
            }
        }

        /** Finished slices next in group order move to the merge. */
        void release() {
            while (!finished.isEmpty() && finished.firstKey() == mergedUpTo) {
                Slice s = outstanding.get(finished.get(finished.firstKey()));
                finished = finished.minus(finished.firstKey());
                mergedHashes = mergedHashes.plus(s.id(), s.hash());
                mergedUpTo += s.count();
                released = released.plus(new Ready(s.id(), s.start(), s.count(), s.payload()));
                // a merged slice whose late attempts still run stays outstanding (their slots) until they answer
                put(s.merged());
            }
        }
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

    /** The finished slices the last event released for merging, in group order (a {@link SliceFinished} only). */
    public List<Ready> released() {
        return released;
    }

    /**
     * The attempts the last event stopped because another attempt of their slice finished first (a
     * {@link SliceFinished} only); a late answer of one is still counted as a duplicate, its slot already free.
     */
    public List<LiveAttempt> stopped() {
        return stopped;
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
        return retired;
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

    /** Every attempt sent and not back yet (a cancelled job tells their nodes to stop them). */
    public List<LiveAttempt> liveAttempts() {
        List<LiveAttempt> live = new ArrayList<>();
        for (Slice s : outstanding.values()) {
            s.live().forEach((attempt, a) -> live.add(new LiveAttempt(s.id(), attempt, a.node())));
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

    /** The slots of {@code node} in this job's rotation (0: not in it). */
    public int slots(String node) {
        return capacity.getOrDefault(node, 0);
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
        long waiting = resend.stream().map(outstanding::get).filter(s -> s != null && s.hash() == null).count();
        long size = 1;
        if (nanosPerGroup > 0) {
            size = Math.max(1, Math.min(MAX_SLICE_GROUPS, (long) (settings.targetSliceNanos() / nanosPerGroup)));
        }
        long unsent = Math.max(0, total - nextStart);
        for (Hole h : holes) {
            unsent += h.count();
        }
        return waiting + (unsent + size - 1) / size;
    }
}
