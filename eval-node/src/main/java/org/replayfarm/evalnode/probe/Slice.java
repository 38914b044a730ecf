package org.replayfarm.evalnode.probe;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.replayfarm.model.isa.MemoryAccess;

/**
 * The backward slice of a store over its group's executed instructions (every wave, in the host model's order): the
 * steps whose results reached the stored value or its address, through registers (def/use per wave over the host's
 * sequence, {@link Registers}) and through memory (a load in the slice brings in every earlier store and atomic of
 * the group, LDS and global alike: the farm does not track which bytes a load read, so the slice over-approximates
 * there, and it follows LDS written by another wave of the group) and through control (the conditional branch each
 * step's wave executed last before it, and what that branch read). Each step in the slice knows, per register it
 * reads, the step of its wave that last wrote it before (its input's definer, as a {@link Execution.Step#seq}; -1:
 * the register's value when the wave started, the same on both sides).
 */
public final class Slice {
    /** A step of the slice and the definers of the registers it reads (register key to seq, -1 initial). */
    public record Entry(Execution.Step step, Map<Integer, Integer> inputs) {
    }

    private final List<Entry> entries;
    private final int wave;

    private Slice(int wave, List<Entry> entries) {
        this.wave = wave;
        this.entries = entries;
    }

    /** The wave of the store the slice ends at. */
    public int wave() {
        return wave;
    }

    /** The slice in execution order, the store last. */
    public List<Entry> entries() {
        return entries;
    }

    /** The slice of step {@code storeStep} of wave {@code w}. */
    public static Slice of(Execution e, int w, int storeStep) {
        List<Execution.Step> wave = e.steps(w);
        if (storeStep < 0 || storeStep >= wave.size()) {
            throw new IllegalArgumentException("wave " + w + " has no step " + storeStep);
        }
        List<Execution.Step> order = e.order();
        int end = wave.get(storeStep).seq();
        Map<Integer, Long> full = new HashMap<>();
        for (Execution.Step s : order) {
            full.putIfAbsent(s.wave(), s.exec());
        }
        // control dependence: the conditional branch each step's wave executed last before it
        int[] branch = new int[end + 1];
        Map<Integer, Integer> lastBranch = new HashMap<>();
        for (int i = 0; i <= end; i++) {
            Execution.Step s = order.get(i);
            branch[i] = lastBranch.getOrDefault(s.wave(), -1);
            if (s.insn().mnemonic().startsWith("s_cbranch")) {
                lastBranch.put(s.wave(), i);
            }
        }
        Map<Integer, BitSet> needed = new HashMap<>();
        BitSet in = new BitSet();
        BitSet forced = new BitSet();
        in.set(end);
        if (branch[end] >= 0) {
            forced.set(branch[end]);
        }
        Execution.Step store = order.get(end);
        for (int r : reads(store, full.get(store.wave()))) {
            needed.computeIfAbsent(store.wave(), k -> new BitSet()).set(r);
        }
        boolean memory = isLoad(store);
        for (int i = end - 1; i >= 0; i--) {
            Execution.Step s = order.get(i);
            BitSet mine = needed.computeIfAbsent(s.wave(), k -> new BitSet());
            boolean take = (memory && isStore(s)) || forced.get(i);
            for (int r : s.access().writes()) {
                take |= mine.get(r);
            }
            if (!take) {
                continue;
            }
            in.set(i);
            if (branch[i] >= 0) {
                forced.set(branch[i]);
            }
            for (int r : s.access().writes()) {
                mine.clear(r);
            }
            for (int r : reads(s, full.get(s.wave()))) {
                mine.set(r);
            }
            memory |= isLoad(s);
        }
        // the definers, forward: the last writer of each register of each wave before each step
        Map<Integer, Map<Integer, Integer>> lastWriter = new HashMap<>();
        Map<Integer, Map<Integer, Integer>> branchInputs = new HashMap<>();
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i <= end; i++) {
            Execution.Step s = order.get(i);
            Map<Integer, Integer> writers = lastWriter.computeIfAbsent(s.wave(), k -> new HashMap<>());
            if (in.get(i)) {
                Map<Integer, Integer> inputs = new LinkedHashMap<>();
                for (int r : reads(s, full.get(s.wave()))) {
                    inputs.put(r, writers.getOrDefault(r, -1));
                }
                if (branch[i] >= 0) {
                    // the condition that chose the path to it: a wrong one makes the device miss this step
                    branchInputs.getOrDefault(branch[i], Map.of()).forEach(inputs::putIfAbsent);
                }
                out.add(new Entry(s, inputs));
                if (s.insn().mnemonic().startsWith("s_cbranch")) {
                    branchInputs.put(i, inputs);
                }
            }
            for (int r : s.access().writes()) {
                writers.put(r, i);
            }
        }
        return new Slice(w, out);
    }

    /**
     * What a step reads: its access's reads, and the VGPRs it writes when some of the wave's lanes are inactive (their
     * lanes keep the value an earlier instruction wrote).
     */
    static int[] reads(Execution.Step s, long full) {
        if (s.exec() == full) {
            return s.access().reads();
        }
        TreeSet<Integer> all = new TreeSet<>();
        for (int r : s.access().reads()) {
            all.add(r);
        }
        for (int r : s.access().writes()) {
            if (r >= Registers.VGPR) {
                all.add(r);
            }
        }
        return all.stream().mapToInt(Integer::intValue).toArray();
    }

    private static boolean isLoad(Execution.Step s) {
        MemoryAccess m = s.insn().opcode().memory();
        return m != null && (m.kind() == MemoryAccess.Kind.LOAD || m.kind() == MemoryAccess.Kind.ATOMIC);
    }

    private static boolean isStore(Execution.Step s) {
        MemoryAccess m = s.insn().opcode().memory();
        return m != null && (m.kind() == MemoryAccess.Kind.STORE || m.kind() == MemoryAccess.Kind.ATOMIC);
    }
}
