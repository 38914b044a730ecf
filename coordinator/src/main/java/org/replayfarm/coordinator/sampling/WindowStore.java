package org.replayfarm.coordinator.sampling;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.replayfarm.proto.GpuSamplingWindowV1;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's sampling windows, per GPU node incarnation, by burst sequence. Supersedes one way
 * only (seed 000): a closed record replaces an open one with the same start; an open record never
 * replaces a closed one, so a lossy or reordering transport cannot resurrect an open window over a
 * closed one. Not thread-safe: the store actor owns it.
 */
public final class WindowStore {
    private static final Logger LOG = LoggerFactory.getLogger(WindowStore.class);

    /** What became of an offered record. */
    public enum Outcome { OPENED, CLOSED, CLOSED_AN_OPEN_ONE, DUPLICATE, OPEN_AFTER_CLOSED, CONFLICT }

    public record NodeKey(String node, long incarnation) {
    }

    /** One burst as the store knows it; {@code endNs == 0}: open (its close has not arrived, or never will). */
    public record Window(long sequence, long startNs, long endNs, org.replayfarm.proto.SamplingMode mode, long pairs) {
        public boolean open() {
            return endNs == 0;
        }

        static Window of(GpuSamplingWindowV1 r) {
            return new Window(r.getSequence(), r.getStartNs(), r.getEndNs(), r.getMode(), r.getPairs());
        }
    }

    private final Map<NodeKey, TreeMap<Long, Window>> histories = new HashMap<>();
    private final EnumMap<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);

    public Outcome offer(GpuSamplingWindowV1 r) {
        Outcome o = decide(r);
        outcomes.merge(o, 1L, Long::sum);
        return o;
    }

    private Outcome decide(GpuSamplingWindowV1 r) {
        if (r.getSequence() == 0 || r.getStartNs() == 0 || (r.getEndNs() != 0 && r.getEndNs() < r.getStartNs())) {
            LOG.error("a sampling window from {} is malformed and kept out of the history (sequence {}, start_ns {}, end_ns {})",
                    r.getNode(), r.getSequence(), r.getStartNs(), r.getEndNs());
            return Outcome.CONFLICT;
        }
        TreeMap<Long, Window> h = histories.computeIfAbsent(new NodeKey(r.getNode(), r.getIncarnation()), k -> new TreeMap<>());
        Window incoming = Window.of(r);
        Window known = h.get(r.getSequence());
        if (known == null) {
            h.put(r.getSequence(), incoming);
            return incoming.open() ? Outcome.OPENED : Outcome.CLOSED;
        }
        if (known.startNs() != incoming.startNs() || (!known.open() && !incoming.open() && !known.equals(incoming))) {
            LOG.error("sampling window {} of {} arrived twice with different contents; the first is kept: {} vs {}",
                    r.getSequence(), r.getNode(), known, incoming);
            return Outcome.CONFLICT;
        }
        if (known.equals(incoming)) {
            return Outcome.DUPLICATE;
        }
        if (known.open()) {
            h.put(r.getSequence(), incoming);
            return Outcome.CLOSED_AN_OPEN_ONE;
        }
        return Outcome.OPEN_AFTER_CLOSED; // never replaces a closed record
    }

    /** The node incarnation's windows in sequence order. */
    public List<Window> history(NodeKey key) {
        TreeMap<Long, Window> h = histories.get(key);
        return h == null ? List.of() : new ArrayList<>(h.values());
    }

    public Map<NodeKey, List<Window>> histories() {
        Map<NodeKey, List<Window>> all = new HashMap<>();
        histories.forEach((k, h) -> all.put(k, new ArrayList<>(h.values())));
        return all;
    }

    public long count(Outcome o) {
        return outcomes.getOrDefault(o, 0L);
    }
}
