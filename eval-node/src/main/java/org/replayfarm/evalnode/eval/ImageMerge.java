package org.replayfarm.evalnode.eval;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;
import org.replayfarm.evalnode.hostmodel.TexelAtomic;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.model.capture.TexelLayout;

/**
 * Merges the groups' texel stores into final images: every image's initial texels, then every group's
 * stores in group order, then the image atomics ({@link #applyAtomics}). Two groups storing different
 * values to one texel is a store conflict, reported, never resolved silently (the later group's value
 * stays). Commutative atomics (add, sub, and, or, xor, min, max, as for memory) of any number of groups on
 * a texel combine exactly in any order; a texel that non-commutative atomics (swap, compare-swap, wrapping
 * inc/dec) of more than one group touch, or that one group's atomics and another group's store both
 * touch, has a value that depends on the groups' order: applied in group order and reported. Each texel
 * remembers which group stored it last (for atomics, the last contributing group in group order), so
 * differences can be traced back to groups.
 */
public final class ImageMerge {
    /** Two groups stored different values to one texel. */
    public record TexelConflict(int image, long texel, TexelLayout.Texel at, String firstGroup, String secondGroup) {
    }

    /**
     * A texel whose final value depends on the order of the groups that touched it: {@code op} is the
     * non-commutative atomic, or the atomic a store of another group meets ({@code afterStore}).
     */
    public record OrderDependent(int image, long texel, TexelLayout.Texel at, String op, boolean afterStore,
                                 List<String> groups) {
    }

    /** One image atomic with its group's key and the group's place in add order. */
    private record Contribution(TexelAtomic atomic, int group, long order) {
    }

    /** Groups added so far (a group's place in add order). */
    private long added;
    /** The place in add order of every group that performed image atomics, by key. */
    private final Map<Integer, Long> orderOfKey = new java.util.HashMap<>();

    private final InitialImages initial;
    /** Per texel (image in the high bits), its atomic contributions in group order. */
    private final Map<Long, List<Contribution>> atomics = new LinkedHashMap<>();
    private List<OrderDependent> orderDependent;
    private final byte[][] texels;
    private final int[][] storer;
    private final List<TexelConflict> conflicts = new ArrayList<>();
    private long conflictCount;
    private final int groupsX;
    private final int groupsY;

    public ImageMerge(InitialImages initial, org.replayfarm.proto.Dispatch dispatch) {
        this.initial = initial;
        this.groupsX = Math.max(1, dispatch.getGroupCountX());
        this.groupsY = Math.max(1, dispatch.getGroupCountY());
        int n = initial.size();
        this.texels = new byte[n][];
        this.storer = new int[n][];
        for (int i = 0; i < n; i++) {
            InitialImages.Entry e = initial.get(i);
            texels[i] = new byte[e.texels().remaining()];
            e.texels().duplicate().get(texels[i]);
            storer[i] = new int[Math.toIntExact(e.texelCount())];
        }
    }

    /** Adds one group's texel stores (groups must come in the order the output is defined by). */
    public void add(GroupResult g) {
        int key = (int) (g.x() + (long) groupsX * (g.y() + (long) groupsY * g.z())) + 1;
        for (TexelStore t : g.texels()) {
            byte[] target = texels[t.image()];
            int bpt = t.value().length;
            int at = Math.toIntExact(t.texel() * bpt);
            int[] who = storer[t.image()];
            int was = who[(int) t.texel()];
            if (was != 0 && was != key && !java.util.Arrays.equals(target, at, at + bpt, t.value(), 0, bpt)) {
                conflictCount++;
                if (conflicts.size() < 1000) {
                    conflicts.add(new TexelConflict(t.image(), t.texel(),
                            TexelLayout.texelAt(initial.get(t.image()).image(), t.texel()), name(was), name(key)));
                }
            }
            System.arraycopy(t.value(), 0, target, at, bpt);
            who[(int) t.texel()] = key;
        }
        long order = added++;
        for (TexelAtomic a : g.texelAtomics()) {
            atomics.computeIfAbsent((long) a.image() << 40 | a.texel(), k -> new ArrayList<>())
                    .add(new Contribution(a, key, order));
        }
        if (!g.texelAtomics().isEmpty()) {
            orderOfKey.put(key, order);
        }
    }

    /**
     * The groups (key to place in add order) whose non-commutative image atomics meet another group's on one
     * texel: the groups the in-order pass runs again ({@link InOrder}). Before {@link #applyAtomics}.
     */
    public Map<Integer, Long> orderDependentGroups() {
        Map<Integer, Long> out = new LinkedHashMap<>();
        for (List<Contribution> list : atomics.values()) {
            Set<Integer> groups = new TreeSet<>();
            boolean nonCommutative = false;
            for (Contribution c : list) {
                groups.add(c.group());
                nonCommutative |= !MemoryMerge.commutative(c.atomic().op());
            }
            if (nonCommutative && groups.size() > 1) {
                list.forEach(c -> out.put(c.group(), c.order()));
            }
        }
        return out;
    }

    /**
     * Replaces what the group {@code g} names contributed with {@code g} (its result when run again on the texels
     * earlier groups left): its texel stores are written again, its image atomics take the place of the earlier
     * ones at {@code order} in add order. Before {@link #applyAtomics}.
     */
    public void replace(GroupResult g, long order) {
        int key = (int) (g.x() + (long) groupsX * (g.y() + (long) groupsY * g.z())) + 1;
        for (TexelStore t : g.texels()) {
            int bpt = t.value().length;
            System.arraycopy(t.value(), 0, texels[t.image()], Math.toIntExact(t.texel() * bpt), bpt);
            storer[t.image()][(int) t.texel()] = key;
        }
        for (var it = atomics.values().iterator(); it.hasNext(); ) {
            List<Contribution> list = it.next();
            list.removeIf(c -> c.group() == key);
            if (list.isEmpty()) {
                it.remove();
            }
        }
        for (TexelAtomic a : g.texelAtomics()) {
            List<Contribution> list = atomics.computeIfAbsent((long) a.image() << 40 | a.texel(), k -> new ArrayList<>());
            list.add(new Contribution(a, key, order));
            list.sort(java.util.Comparator.comparingLong(Contribution::order)); // stable: program order kept
        }
        if (!g.texelAtomics().isEmpty()) {
            orderOfKey.put(key, order);
        }
    }

    /**
     * Applies the image atomics over the stored texels (once, after every group was added) and returns
     * the texels whose final value depends on the groups' order.
     */
    public List<OrderDependent> applyAtomics() {
        if (orderDependent != null) {
            throw new IllegalStateException("image atomics were already applied");
        }
        List<OrderDependent> dependent = new ArrayList<>();
        for (List<Contribution> list : atomics.values()) {
            TexelAtomic first = list.get(0).atomic();
            int[] who = storer[first.image()];
            int texel = Math.toIntExact(first.texel());
            Set<Integer> groups = new TreeSet<>();
            String nonCommutative = null;
            for (Contribution c : list) {
                groups.add(c.group());
                if (nonCommutative == null && !MemoryMerge.commutative(c.atomic().op())) {
                    nonCommutative = c.atomic().op();
                }
            }
            int storedBy = who[texel];
            boolean afterStore = storedBy != 0 && (groups.size() > 1 || !groups.contains(storedBy));
            if (nonCommutative != null && groups.size() > 1 || afterStore) {
                Set<Integer> named = new TreeSet<>(groups);
                if (afterStore) {
                    named.add(storedBy);
                }
                dependent.add(new OrderDependent(first.image(), first.texel(),
                        TexelLayout.texelAt(initial.get(first.image()).image(), first.texel()),
                        nonCommutative != null ? nonCommutative : first.op(), afterStore,
                        named.stream().map(this::name).toList()));
            }
            byte[] target = texels[first.image()];
            int at = texel * first.bytes();
            long value = MemoryOps.littleEndian(target, at, first.bytes());
            for (Contribution c : list) {
                TexelAtomic a = c.atomic();
                value = MemoryOps.atomic(a.op(), value, a.operand(), a.comparand(), a.bytes());
            }
            MemoryOps.putLittleEndian(target, at, value, first.bytes());
            who[texel] = list.get(list.size() - 1).group();
            atomicGroups.put((long) first.image() << 40 | first.texel(), groups.stream().mapToInt(Integer::intValue).toArray());
        }
        orderDependent = List.copyOf(dependent);
        return orderDependent;
    }

    /** Per texel an atomic changed (image &lt;&lt; 40 | texel): every contributing group's key, ascending. */
    private final java.util.Map<Long, int[]> atomicGroups = new java.util.HashMap<>();

    /**
     * Every group (by key, ascending) whose atomics contributed to texel {@code texel} of image {@code image};
     * empty when no atomic changed it (after {@link #applyAtomics}).
     */
    public List<Integer> atomicContributors(int image, long texel) {
        int[] who = atomicGroups.get((long) image << 40 | texel);
        return who == null ? List.of() : java.util.Arrays.stream(who).boxed().toList();
    }

    /** The texels {@link #applyAtomics} found order-dependent (empty before it ran). */
    public List<OrderDependent> orderDependent() {
        return orderDependent == null ? List.of() : orderDependent;
    }

    /** A group's name from its key (linear id plus one). */
    public String name(int key) {
        long linear = key - 1L;
        return "(" + linear % groupsX + ", " + linear / groupsX % groupsY + ", " + linear / ((long) groupsX * groupsY) + ")";
    }

    /** Image {@code n}'s final texels, in the capture's texel layout. */
    public byte[] texels(int n) {
        return texels[n];
    }

    /**
     * Which group last stored each texel of image {@code n}: the group's linear id plus one, 0 where no
     * group stored (the array is the merge's own; do not change it).
     */
    public int[] storers(int n) {
        return storer[n];
    }

    public List<TexelConflict> conflicts() {
        return conflicts;
    }

    public long conflictCount() {
        return conflictCount;
    }

    public InitialImages initial() {
        return initial;
    }

    public int imageCount() {
        return texels.length;
    }
}
