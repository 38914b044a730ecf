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

    /**
     * A non-commutative atomic on a location several groups touched: the final value depends on their order.
     * {@code bytes} is the location's extent from {@code offset}; {@code changes} counts the contributions that
     * changed it as they were applied, and {@code absSumF32} / {@code absSumF64} add up the magnitudes of the
     * initial value and of every change (new minus old), read as 4- or 8-byte floats: the terms of a float
     * accumulation, whatever instruction made it (a native float add or a compare-and-swap loop).
     */
    public record OrderDependent(int range, long offset, String op, List<String> groups, int bytes, int changes,
                                 double absSumF32, double absSumF64, Set<Long> lastValues) {
        public OrderDependent(int range, long offset, String op, List<String> groups) {
            this(range, offset, op, groups, 0, 0, 0, 0, Set.of());
        }

        /**
         * Whether {@code value} is one this location holds after some order of its contributions: where every one is
         * an exchange at the location's place and width, the value the last one wrote, whichever group's it is
         * ({@code lastValues}); unknown (false) for other ops.
         */
        public boolean anotherOrderGives(long value) {
            return lastValues.contains(value);
        }

        /**
         * How far apart two sums of this location's terms in different orders can be when its elements are floats
         * of {@code width} bytes (4 or 8): 2·γ(n)·Σ|terms|, γ(n) = n·u / (1 − n·u), u the unit roundoff (each order's
         * sum is within γ(n)·Σ|terms| of the exact one); infinite where n·u reaches 1.
         */
        public double reassociationBound(int width) {
            double u = width == 8 ? 0x1p-53 : 0x1p-24;
            double nu = changes * u;
            if (nu >= 1) {
                return Double.POSITIVE_INFINITY;
            }
            return 2 * nu / (1 - nu) * (width == 8 ? absSumF64 : absSumF32);
        }
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

    /**
     * One atomic with its group's key and its place in add order: the group's place ({@code order}, group order)
     * then its place in the group's program order ({@code index}).
     */
    private record Contribution(AtomicContribution atomic, int group, long order, int index) {
    }

    private static final java.util.Comparator<Contribution> ADD_ORDER =
            java.util.Comparator.comparingLong(Contribution::order).thenComparingInt(Contribution::index);

    /** Groups added so far (a group's place in add order). */
    private long added;
    /** The place in add order of every group that contributed atomics, by key. */
    private final Map<Integer, Long> orderOfKey = new HashMap<>();

    /** The order-dependent locations per range, by their lowest offset (after {@link #applyAtomics}). */
    private final Map<Integer, java.util.TreeMap<Long, OrderDependent>> dependentAt = new HashMap<>();

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
        long order = added++;
        addAtomics(g, key, order);
    }

    private void addAtomics(GroupResult g, int key, long order) {
        int index = 0;
        for (AtomicContribution a : g.atomics()) {
            long location = (long) a.range() << 40 | a.offset();
            atomics.computeIfAbsent(location, k -> new ArrayList<>()).add(new Contribution(a, key, order, index++));
        }
        if (!g.atomics().isEmpty()) {
            orderOfKey.put(key, order);
        }
    }

    /**
     * The groups (by key, in add order) whose atomics meet another group's on a location where order matters
     * (see {@link #applyAtomics}): the groups that must run one after another, memory carried, for the merged
     * value to be one some execution produces. Before {@link #applyAtomics}; empty when there are none.
     */
    public List<Integer> orderDependentGroups() {
        return List.copyOf(orderDependentOrders().keySet());
    }

    /** As {@link #orderDependentGroups}, each key with its group's place in add order. */
    public Map<Integer, Long> orderDependentOrders() {
        Set<Integer> keys = new java.util.HashSet<>();
        for (List<Contribution> cluster : clusters()) {
            Set<Integer> groups = new TreeSet<>();
            cluster.forEach(c -> groups.add(c.group()));
            if (groups.size() > 1 && !independent(cluster)) {
                keys.addAll(groups);
            }
        }
        List<Integer> ordered = new ArrayList<>(keys);
        ordered.sort(java.util.Comparator.comparingLong(orderOfKey::get));
        Map<Integer, Long> out = new LinkedHashMap<>();
        ordered.forEach(k -> out.put(k, orderOfKey.get(k)));
        return out;
    }

    /**
     * Replaces what the group {@code g} names contributed with {@code g} (its result when run again on the memory
     * earlier groups left): its stores are written again over the merged bytes, and its atomics take the place
     * of the earlier ones in add order. Before {@link #applyAtomics}; the group must have been added.
     */
    public void replace(GroupResult g) {
        Long order = orderOfKey.get(key(g));
        if (order == null) {
            throw new IllegalArgumentException("group " + name(key(g)) + " contributed no atomics to this merge");
        }
        replace(g, order);
    }

    /** As above, the group's place in add order given ({@code order}: a group the image merge named). */
    public void replace(GroupResult g, long order) {
        int key = key(g);
        for (StoreRun run : g.stores()) {
            for (int i = 0; i < run.data().length; i++) {
                int at = (int) run.offset() + i;
                bytes[run.range()][at] = run.data()[i];
                storer[run.range()][at] = key;
            }
        }
        for (var it = atomics.values().iterator(); it.hasNext(); ) {
            List<Contribution> list = it.next();
            list.removeIf(c -> c.group() == key);
            if (list.isEmpty()) {
                it.remove();
            }
        }
        addAtomics(g, key, order);
        orderOfKey.put(key, order);
    }

    /** The group with this key as (x, y, z). */
    public int[] groupId(int key) {
        long linear = key - 1L;
        return new int[] {(int) (linear % groupsX), (int) (linear / groupsX % groupsY),
                (int) (linear / ((long) groupsX * groupsY))};
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
        List<List<Contribution>> clusters = clusters();
        for (List<Contribution> cluster : clusters) {
            AtomicContribution first = cluster.get(0).atomic();
            Set<Integer> groups = new TreeSet<>();
            for (Contribution c : cluster) {
                groups.add(c.group());
            }
            boolean orderMatters = !independent(cluster) && groups.size() > 1;
            long lowest = cluster.stream().mapToLong(c -> c.atomic().offset()).min().orElse(first.offset());
            long end = cluster.stream().mapToLong(c -> c.atomic().offset() + c.atomic().bytes()).max().orElse(lowest);
            int changes = 0;
            double sum32 = 0;
            double sum64 = 0;
            if (orderMatters && end - lowest <= 8) {
                long initialValue = read(first.range(), lowest, (int) (end - lowest));
                sum32 = Math.abs(f32(initialValue));
                sum64 = Math.abs(f64(initialValue));
            }
            // each contribution at its own place and width, in sequence
            for (Contribution c : cluster) {
                AtomicContribution a = c.atomic();
                long old = read(a.range(), a.offset(), a.bytes());
                long now = apply(a, old);
                write(a.range(), a.offset(), a.bytes(), now);
                if (orderMatters && now != old) {
                    changes++;
                    sum32 += Math.abs(f32(now) - f32(old));
                    sum64 += Math.abs(f64(now) - f64(old));
                }
                for (int i = 0; i < a.bytes(); i++) {
                    storer[a.range()][(int) a.offset() + i] = c.group();
                }
            }
            if (orderMatters) {
                Set<Long> lastValues = new java.util.HashSet<>();
                for (Contribution c : cluster) {
                    AtomicContribution a = c.atomic();
                    if (!a.op().equals("swap") || a.offset() != lowest || a.bytes() != end - lowest) {
                        lastValues.clear();
                        break;
                    }
                    lastValues.add(a.bytes() == 8 ? a.operand() : a.operand() & 0xFFFF_FFFFL);
                }
                OrderDependent d = new OrderDependent(first.range(), lowest, first.op(),
                        groups.stream().map(this::name).toList(), (int) (end - lowest), changes,
                        finite(sum32), finite(sum64), Set.copyOf(lastValues));
                dependent.add(d);
                dependentAt.computeIfAbsent(first.range(), k -> new java.util.TreeMap<>()).put(lowest, d);
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

    /**
     * Contributions whose bytes overlap, each cluster in add order: per range, contributions sorted by offset,
     * swept into runs of overlapping byte intervals.
     */
    private List<List<Contribution>> clusters() {
        List<Contribution> byPlace = new ArrayList<>();
        for (List<Contribution> list : atomics.values()) {
            byPlace.addAll(list);
        }
        byPlace.sort(java.util.Comparator.comparingInt((Contribution c) -> c.atomic().range())
                .thenComparingLong(c -> c.atomic().offset()).thenComparing(ADD_ORDER));
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
            cluster.sort(ADD_ORDER);
        }
        return clusters;
    }

    /** Whether a cluster's contributions give one value in any order: one place, one width, one commutative op. */
    private static boolean independent(List<Contribution> cluster) {
        AtomicContribution first = cluster.get(0).atomic();
        String kind = additive(first.op());
        for (Contribution c : cluster) {
            AtomicContribution a = c.atomic();
            if (!(COMMUTATIVE.contains(a.op()) && additive(a.op()).equals(kind) && a.offset() == first.offset()
                    && a.bytes() == first.bytes())) {
                return false;
            }
        }
        return true;
    }

    private static double f32(long bits) {
        return Float.intBitsToFloat((int) bits);
    }

    private static double f64(long bits) {
        return Double.longBitsToDouble(bits);
    }

    /** A sum of magnitudes that met a NaN or an infinity bounds nothing. */
    private static double finite(double sum) {
        return Double.isFinite(sum) ? sum : Double.POSITIVE_INFINITY;
    }

    /**
     * The order-dependent location covering byte {@code offset} of range {@code n}, or null (after {@link
     * #applyAtomics}).
     */
    public OrderDependent orderDependentAt(int n, long offset) {
        java.util.TreeMap<Long, OrderDependent> m = dependentAt.get(n);
        if (m == null) {
            return null;
        }
        Map.Entry<Long, OrderDependent> e = m.floorEntry(offset);
        return e != null && offset < e.getKey() + Math.max(1, e.getValue().bytes()) ? e.getValue() : null;
    }

    /** Whether any location of range {@code n} is order-dependent (after {@link #applyAtomics}). */
    public boolean hasOrderDependent(int n) {
        return dependentAt.containsKey(n);
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
