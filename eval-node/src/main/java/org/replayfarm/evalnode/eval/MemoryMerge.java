package org.replayfarm.evalnode.eval;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;
import org.replayfarm.evalnode.hostmodel.StoreRun;

/**
 * Merges the groups' results into final memory: every range's initial bytes, then every group's stores,
 * then the atomics. Two groups storing different values to one byte is a store conflict, reported, never
 * resolved silently (the later group's value stays, and the report says so). Commutative atomics (add,
 * sub, and, or, xor, min, max) combine exactly whatever the order; others (swap, compare-swap,
 * wrapping inc/dec, float add) on a location more than one group touches are order-dependent: applied
 * in group order and reported by location and groups.
 */
public final class MemoryMerge {
    /** Two groups stored different values to one byte. */
    public record StoreConflict(int range, long offset, String firstGroup, String secondGroup) {
    }

    /** A non-commutative atomic on a location several groups touched: the final value depends on their order. */
    public record OrderDependent(int range, long offset, String op, List<String> groups) {
    }

    /** Ops whose combined result is the same in any order (float add is not: its rounding depends on order). */
    private static final Set<String> COMMUTATIVE = Set.of("add", "sub", "and", "or", "xor", "smin", "smax", "umin",
            "umax", "fmin", "fmax");

    private final InitialMemory initial;
    private final byte[][] bytes;
    private final int[][] storer;
    private final List<StoreConflict> conflicts = new ArrayList<>();
    private long conflictCount;
    /** Per location, the contributions in group order, each with its group's key. */
    private final Map<Long, List<Contribution>> atomics = new LinkedHashMap<>();
    private final int groupsX;
    private final int groupsY;
    /** Approximate instructions executed, per group key, for the groups that executed any (diffs trace to them). */
    private final Map<Integer, Long> approximateByGroup = new HashMap<>();

    /** One atomic with its group's key and its place in add order (group order, then program order). */
    private record Contribution(AtomicContribution atomic, int group, long sequence) {
    }

    private long sequence;

    /** Per merged atomic location (range &lt;&lt; 40 | offset): its width and every contributing group's key, in order. */
    private final Map<Long, int[]> atomicGroups = new HashMap<>();

    /** Whether contributions of {@code op} combine to the same value in any order (image atomics too). */
    static boolean commutative(String op) {
        return COMMUTATIVE.contains(op);
    }

    /** {@code dispatch} gives the group counts that turn a group's key back into its id in reports. */
    public MemoryMerge(InitialMemory initial, org.replayfarm.proto.Dispatch dispatch) {
        this.initial = initial;
        this.groupsX = Math.max(1, dispatch.getGroupCountX());
        this.groupsY = Math.max(1, dispatch.getGroupCountY());
        List<InitialMemory.Range> ranges = initial.ranges();
        this.bytes = new byte[ranges.size()][];
        this.storer = new int[ranges.size()][];
        for (int i = 0; i < ranges.size(); i++) {
            InitialMemory.Range r = ranges.get(i);
            bytes[i] = new byte[(int) r.size()];
            r.initial().duplicate().get(bytes[i]);
            storer[i] = new int[(int) r.size()];
        }
    }

    /** Adds one group's result (groups must come in the order the output is defined by). */
    public void add(GroupResult g) {
        int key = key(g);
        if (g.approximate() > 0) {
            approximateByGroup.merge(key, g.approximate(), Long::sum);
        }
        for (StoreRun run : g.stores()) {
            byte[] target = bytes[run.range()];
            int[] who = storer[run.range()];
            for (int i = 0; i < run.data().length; i++) {
                int at = (int) run.offset() + i;
                if (who[at] != 0 && who[at] != key && target[at] != run.data()[i]) {
                    conflictCount++;
                    if (conflicts.size() < 1000) {
                        conflicts.add(new StoreConflict(run.range(), at, name(who[at]), name(key)));
                    }
                }
                target[at] = run.data()[i];
                who[at] = key;
            }
        }
        for (AtomicContribution a : g.atomics()) {
            long location = (long) a.range() << 40 | a.offset();
            atomics.computeIfAbsent(location, k -> new ArrayList<>()).add(new Contribution(a, key, sequence++));
        }
    }

    /** A group's key: its linear id plus one (0 means "no group"), so per-byte owners cost an int. */
    private int key(GroupResult g) {
        return (int) (g.x() + (long) groupsX * (g.y() + (long) groupsY * g.z())) + 1;
    }

    /** A group's name, "(x, y, z)", from its key (linear id plus one). */
    public String groupName(int key) {
        return name(key);
    }

    /** Approximate instructions the group with this key executed (0 for a group that executed none or was not added). */
    public long approximateExecuted(int key) {
        return approximateByGroup.getOrDefault(key, 0L);
    }

    /**
     * Which group last wrote each byte of range {@code n}: its key (linear id plus one), 0 where no group
     * stored. After {@link #applyAtomics} an atomic's bytes name the last group (in group order) that
     * contributed to it, so merged atomics count as stored bytes (the array is the merge's own; do not change it).
     */
    public int[] storers(int n) {
        return storer[n];
    }

    /**
     * Every group (by key, ascending) whose atomics contributed to the merged atomic covering byte
     * {@code offset} of range {@code n}; empty when no merged atomic covers it (after {@link #applyAtomics}).
     */
    public List<Integer> atomicContributors(int n, long offset) {
        if (atomicGroups.isEmpty()) {
            return List.of();
        }
        for (int back = 0; back < 8 && back <= offset; back++) {
            int[] who = atomicGroups.get((long) n << 40 | (offset - back));
            if (who != null && back < who[0]) {
                List<Integer> keys = new ArrayList<>();
                for (int i = 1; i < who.length; i++) {
                    keys.add(who[i]);
                }
                return keys;
            }
        }
        return List.of();
    }

    private String name(int key) {
        long linear = key - 1L;
        return "(" + linear % groupsX + ", " + linear / groupsX % groupsY + ", " + linear / ((long) groupsX * groupsY) + ")";
    }

    /**
     * Applies the atomics and returns the locations whose final value depends on the groups' order.
     *
     * <p>Contributions whose bytes overlap (one location, or an 8-byte atomic over a 4-byte one, or two
     * widths at one offset) form one cluster, applied in the order the groups were added and, within a group,
     * in its program order, each at its own offset and width. A cluster is order-independent only when every
     * contribution has the same offset, width and a commutative op (add and sub count as one op); any other
     * cluster that more than one group touched is reported.
     */
    public List<OrderDependent> applyAtomics() {
        List<OrderDependent> dependent = new ArrayList<>();
        // every contribution in add order (group order, then program order): its index is its sequence
        List<Contribution> all = new ArrayList<>();
        for (List<Contribution> list : atomics.values()) {
            all.addAll(list);
        }
        all.sort(java.util.Comparator.comparingLong(Contribution::sequence));
        // clusters: per range, contributions sorted by offset, swept into runs of overlapping byte intervals
        List<Contribution> byPlace = new ArrayList<>(all);
        byPlace.sort(java.util.Comparator.comparingInt((Contribution c) -> c.atomic().range())
                .thenComparingLong(c -> c.atomic().offset()).thenComparingLong(Contribution::sequence));
        List<List<Contribution>> clusters = new ArrayList<>();
        List<Contribution> current = null;
        int currentRange = -1;
        long currentEnd = -1;
        for (Contribution c : byPlace) {
            AtomicContribution a = c.atomic();
            if (current == null || a.range() != currentRange || a.offset() >= currentEnd) {
                current = new ArrayList<>();
                clusters.add(current);
                currentRange = a.range();
                currentEnd = a.offset() + a.bytes();
            } else {
                currentEnd = Math.max(currentEnd, a.offset() + a.bytes());
            }
            current.add(c);
        }
        for (List<Contribution> cluster : clusters) {
            cluster.sort(java.util.Comparator.comparingLong(Contribution::sequence));
            AtomicContribution first = cluster.get(0).atomic();
            Set<Integer> groups = new TreeSet<>();
            boolean independent = true;
            String kind = additive(first.op());
            for (Contribution c : cluster) {
                groups.add(c.group());
                AtomicContribution a = c.atomic();
                independent &= COMMUTATIVE.contains(a.op()) && additive(a.op()).equals(kind)
                        && a.offset() == first.offset() && a.bytes() == first.bytes();
            }
            if (!independent && groups.size() > 1) {
                long lowest = cluster.stream().mapToLong(c -> c.atomic().offset()).min().orElse(first.offset());
                dependent.add(new OrderDependent(first.range(), lowest, first.op(),
                        groups.stream().map(this::name).toList()));
            }
            // each contribution at its own place and width, in sequence
            for (Contribution c : cluster) {
                AtomicContribution a = c.atomic();
                write(a.range(), a.offset(), a.bytes(), apply(a, read(a.range(), a.offset(), a.bytes())));
                for (int i = 0; i < a.bytes(); i++) {
                    storer[a.range()][(int) a.offset() + i] = c.group();
                }
            }
            // contributors per location: its widest width, and every group of the cluster (all of them shaped the bytes)
            Map<Long, Integer> widths = new LinkedHashMap<>();
            for (Contribution c : cluster) {
                widths.merge((long) c.atomic().range() << 40 | c.atomic().offset(), c.atomic().bytes(), Math::max);
            }
            for (var w : widths.entrySet()) {
                int[] who = new int[1 + groups.size()];
                who[0] = w.getValue();
                int g = 1;
                for (int k : groups) {
                    who[g++] = k;
                }
                atomicGroups.put(w.getKey(), who);
            }
        }
        return dependent;
    }

    /** add and sub combine with each other in any order; every other op only with itself. */
    private static String additive(String op) {
        return op.equals("sub") ? "add" : op;
    }

    private static long apply(AtomicContribution a, long old) {
        return MemoryOps.atomic(a.op(), old, a.operand(), a.comparand(), a.bytes());
    }

    private long read(int range, long offset, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            v |= (long) (bytes[range][(int) offset + i] & 0xFF) << (8 * i);
        }
        return v;
    }

    private void write(int range, long offset, int n, long value) {
        for (int i = 0; i < n; i++) {
            bytes[range][(int) offset + i] = (byte) (value >>> (8 * i));
        }
    }

    /** Range {@code n}'s final bytes. */
    public byte[] range(int n) {
        return bytes[n];
    }

    public List<StoreConflict> conflicts() {
        return conflicts;
    }

    public long conflictCount() {
        return conflictCount;
    }

    public InitialMemory initial() {
        return initial;
    }
}
