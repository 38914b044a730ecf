package org.replayfarm.evalnode.probe;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.replayfarm.model.isa.MemoryAccess;

/**
 * The backward slice of a store over one wave's executed instructions: the steps whose results reached the stored
 * value or its address, through registers (def/use over the host's sequence, {@link Registers}) and through memory
 * (a load in the slice brings in every earlier store and atomic of the wave: the farm does not track which bytes a
 * load read, so the slice is an over-approximation there). Each step in the slice knows, per register it reads, the
 * step that last wrote it before (its input's definer; -1: the register's value when the wave started, the same on
 * both sides).
 */
public final class Slice {
    /** A step of the slice and the definers of the registers it reads (register key to step index, -1 initial). */
    public record Entry(Execution.Step step, Map<Integer, Integer> inputs) {
    }

    private final List<Entry> entries;
    private final int wave;

    private Slice(int wave, List<Entry> entries) {
        this.wave = wave;
        this.entries = entries;
    }

    public int wave() {
        return wave;
    }

    /** The slice in execution order, the store last. */
    public List<Entry> entries() {
        return entries;
    }

    /** The slice of step {@code storeStep} of wave {@code w}. */
    public static Slice of(Execution e, int w, int storeStep) {
        List<Execution.Step> steps = e.steps(w);
        if (storeStep < 0 || storeStep >= steps.size()) {
            throw new IllegalArgumentException("wave " + w + " has no step " + storeStep);
        }
        long full = steps.isEmpty() ? 0 : steps.get(0).exec();
        BitSet needed = new BitSet();
        BitSet in = new BitSet();
        in.set(storeStep);
        for (int r : steps.get(storeStep).access().reads()) {
            needed.set(r);
        }
        boolean memory = isLoad(steps.get(storeStep));
        for (int i = storeStep - 1; i >= 0; i--) {
            Execution.Step s = steps.get(i);
            boolean take = false;
            for (int r : s.access().writes()) {
                if (needed.get(r)) {
                    take = true;
                    break;
                }
            }
            if (!take && memory && isStore(s)) {
                take = true;
            }
            if (!take) {
                continue;
            }
            in.set(i);
            for (int r : s.access().writes()) {
                needed.clear(r);
            }
            for (int r : reads(s, full)) {
                needed.set(r);
            }
            memory |= isLoad(s);
        }
        // the definers, forward: the last writer of each register before each step
        Map<Integer, Integer> lastWriter = new HashMap<>();
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i <= storeStep; i++) {
            Execution.Step s = steps.get(i);
            if (in.get(i)) {
                Map<Integer, Integer> inputs = new java.util.LinkedHashMap<>();
                for (int r : reads(s, full)) {
                    inputs.put(r, lastWriter.getOrDefault(r, -1));
                }
                out.add(new Entry(s, inputs));
            }
            for (int r : s.access().writes()) {
                lastWriter.put(r, i);
            }
        }
        return new Slice(w, out);
    }

    /**
     * What a step reads: its access's reads, and the VGPRs it writes when some of the wave's lanes are inactive (their
     * lanes keep the value an earlier instruction wrote).
     */
    private static int[] reads(Execution.Step s, long full) {
        if (s.exec() == full) {
            return s.access().reads();
        }
        java.util.TreeSet<Integer> all = new java.util.TreeSet<>();
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
