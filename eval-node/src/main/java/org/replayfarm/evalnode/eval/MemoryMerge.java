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
import org.replayfarm.evalnode.hostmodel.MemoryOps;
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

    private record Contribution(AtomicContribution atomic, int group) {
    }

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
            atomics.computeIfAbsent(location, k -> new ArrayList<>()).add(new Contribution(a, key));
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

    /** Applies the atomics and returns the locations whose final value depends on the groups' order. */
    public List<OrderDependent> applyAtomics() {
        List<OrderDependent> dependent = new ArrayList<>();
        for (var e : atomics.entrySet()) {
            List<Contribution> list = e.getValue();
            AtomicContribution first = list.get(0).atomic();
            Set<Integer> groups = new TreeSet<>();
            boolean commutative = true;
            for (Contribution c : list) {
                groups.add(c.group());
                commutative &= COMMUTATIVE.contains(c.atomic().op());
            }
            if (!commutative && groups.size() > 1) {
                dependent.add(new OrderDependent(first.range(), first.offset(), first.op(),
                        groups.stream().map(this::name).toList()));
            }
            long value = read(first.range(), first.offset(), first.bytes());
            for (Contribution c : list) {
                value = apply(c.atomic(), value);
            }
            write(first.range(), first.offset(), first.bytes(), value);
            int[] who = new int[1 + groups.size()];
            who[0] = first.bytes();
            int g = 1;
            for (int k : groups) {
                who[g++] = k;
            }
            atomicGroups.put(e.getKey(), who);
            int last = list.get(list.size() - 1).group();
            for (int i = 0; i < first.bytes(); i++) {
                storer[first.range()][(int) first.offset() + i] = last;
            }
        }
        return dependent;
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
