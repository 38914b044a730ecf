package org.replayfarm.evalnode.probe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.StoreTracer;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Disassembler;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Syntax;

/**
 * The host model's run of one group, instruction by instruction ({@link HostModel#runStepped}): per wave, each
 * executed instruction with the registers it reads and writes, and which execution of its PC it is; and the last
 * store or atomic of the group to a chosen element. The values of registers are not kept here (a long run would need
 * gigabytes): {@link #values} runs the group again and keeps those of the steps asked for.
 */
public final class Execution {
    /**
     * One executed instruction of a wave: its index in the wave's sequence, PC, listing, access, and {@code hit}: how
     * many times the wave executed this PC before (0 the first time).
     */
    public record Step(int wave, int index, long pc, Instruction insn, String text, Registers.Access access, int hit,
                       long exec, int seq) {
    }

    /** What to find the last write of: bytes {@code [offset, offset + length)} of a range, or a texel of an image. */
    public record Target(int range, long offset, int length, int image, long texel) {
        public static Target range(int range, long offset, int length) {
            return new Target(range, offset, length, -1, -1);
        }

        public static Target texel(int image, long texel) {
            return new Target(-1, -1, 0, image, texel);
        }

        boolean hit(StoreTracer.Event e) {
            if (range >= 0) {
                return e.range() == range && e.offset() < offset + length && e.offset() + e.value().length > offset;
            }
            return e.image() == image && e.texel() == texel;
        }
    }

    /** The last write of the target: the wave, its step, the lane and the bytes the host wrote there. */
    public record Store(int wave, int step, long pc, int lane, String kind) {
    }

    private final int[] group;
    private final int waveSize;
    private final List<List<Step>> waves;
    private final List<Step> order;
    private final Store store;
    private final Map<Integer, List<Target>> atomics;
    private final InitialMemory memory;
    private final InitialImages images;

    private Execution(int[] group, int waveSize, List<List<Step>> waves, List<Step> order, Store store,
                      Map<Integer, List<Target>> atomics, InitialMemory memory, InitialImages images) {
        this.group = group;
        this.waveSize = waveSize;
        this.waves = waves;
        this.order = order;
        this.store = store;
        this.atomics = atomics;
        this.memory = memory;
        this.images = images;
    }

    /**
     * The bytes of guest memory each atomic step (by {@link Step#seq}) of the group read and wrote, one target per
     * lane: what a returning atomic gave back came from there.
     */
    public List<Target> atomicTargets(int seq) {
        return atomics.getOrDefault(seq, List.of());
    }

    /** Every step of the group in execution order (index = {@link Step#seq}). */
    public List<Step> order() {
        return order;
    }

    public int[] group() {
        return group.clone();
    }

    public int waveSize() {
        return waveSize;
    }

    /** The steps of wave {@code w} in execution order (empty for a wave that does not exist). */
    public List<Step> steps(int w) {
        return w < waves.size() ? waves.get(w) : List.of();
    }

    /** The last write to the target, or null when the group wrote none. */
    public Store store() {
        return store;
    }

    /** Records group {@code g}'s run on {@code model}, and the last write to {@code target} (may be null). */
    public static Execution record(HostModel model, int[] g, Target target) {
        return record(model, g, target, model.kernel().memory(), model.kernel().images());
    }

    /**
     * As above, the group running on {@code memory} and {@code images} (a group of the in-order pass: what the groups
     * before it left; kept by the execution, which runs the group again on them for {@link #values}).
     */
    public static Execution record(HostModel model, int[] g, Target target, InitialMemory memory,
                                   InitialImages images) {
        Map<Integer, List<Target>> atomics = new HashMap<>();
        int ws = model.kernel().waveSize();
        Syntax syntax = ws == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
        List<List<Step>> waves = new ArrayList<>();
        List<Step> order = new ArrayList<>();
        Map<Long, Object[]> byPc = new HashMap<>();
        List<Map<Long, Integer>> hits = new ArrayList<>();
        Store[] last = new Store[1];
        int[] current = {0, 0};
        model.runStepped(g[0], g[1], g[2], new HostModel.StepListener() {
            @Override
            public void before(Wave wave, long pc, Instruction insn) {
                int w = wave.index();
                while (waves.size() <= w) {
                    waves.add(new ArrayList<>());
                    hits.add(new HashMap<>());
                }
                Object[] known = byPc.computeIfAbsent(pc, p -> {
                    String text = text(insn, syntax);
                    return new Object[] {text, Registers.of(insn, text, ws)};
                });
                int hit = hits.get(w).merge(pc, 1, Integer::sum) - 1;
                List<Step> steps = waves.get(w);
                Step step = new Step(w, steps.size(), pc, insn, (String) known[0], (Registers.Access) known[1], hit,
                        wave.exec(), order.size());
                steps.add(step);
                order.add(step);
                current[0] = w;
                current[1] = steps.size() - 1;
            }

            @Override
            public void after(Wave wave, long pc, Instruction insn) {
            }
        }, e -> {
            if (target != null && target.hit(e)) {
                last[0] = new Store(e.wave(), current[1], e.pc(), e.lane(), e.kind());
            }
            if (e.range() >= 0 && e.kind().startsWith("atomic")) {
                atomics.computeIfAbsent(order.size() - 1, k -> new ArrayList<>())
                        .add(Target.range(e.range(), e.offset(), e.value().length));
            }
        }, memory, images);
        return new Execution(g.clone(), ws, waves, order, last[0], atomics, memory, images);
    }

    static String text(Instruction insn, Syntax syntax) {
        try {
            return Disassembler.text(insn, syntax);
        } catch (IllegalArgumentException e) {
            return insn.mnemonic();
        }
    }

    /**
     * The registers of some steps of one wave as the host model has them: for each step asked for, the values after
     * it of the registers it writes and before it of those it reads or writes (a VGPR: every lane), and EXEC before it.
     */
    public record Values(Map<Integer, int[]> after, Map<Integer, int[]> before, long execBefore) {
    }

    /** Runs the group again and keeps the values of the steps {@code wanted} (by {@link Step#seq}), of any wave. */
    public Map<Integer, Values> values(HostModel model, Set<Integer> wanted) {
        Map<Integer, Values> out = new HashMap<>();
        int[] seq = {-1};
        Map<Integer, Map<Integer, int[]>> before = new HashMap<>();
        Map<Integer, Long> exec = new HashMap<>();
        Map<Integer, Integer> current = new HashMap<>();
        model.runStepped(group[0], group[1], group[2], new HostModel.StepListener() {
            @Override
            public void before(Wave wave, long pc, Instruction insn) {
                seq[0]++;
                current.put(wave.index(), seq[0]);
                if (wanted.contains(seq[0])) {
                    Step s = order.get(seq[0]);
                    Map<Integer, int[]> b = read(wave, s.access().reads());
                    b.putAll(read(wave, s.access().writes())); // what a partial write keeps
                    before.put(seq[0], b);
                    exec.put(seq[0], wave.exec());
                }
            }

            @Override
            public void after(Wave wave, long pc, Instruction insn) {
                int at = current.get(wave.index());
                if (wanted.contains(at)) {
                    Step s = order.get(at);
                    out.put(at, new Values(read(wave, s.access().writes()), before.remove(at), exec.remove(at)));
                }
            }
        }, null, memory, images);
        return out;
    }

    /** The values of registers {@code keys} of a wave: a VGPR's every lane, a scalar's one value. */
    static Map<Integer, int[]> read(Wave wave, int[] keys) {
        Map<Integer, int[]> out = new HashMap<>();
        for (int k : keys) {
            if (k >= Registers.VGPR) {
                int r = k - Registers.VGPR;
                int[] lanes = new int[wave.waveSize()];
                if (r < wave.vgprCount()) {
                    for (int l = 0; l < lanes.length; l++) {
                        lanes[l] = wave.vgpr(r, l);
                    }
                }
                out.put(k, lanes);
            } else if (k == Registers.SCC) {
                out.put(k, new int[] {wave.scc() ? 1 : 0});
            } else {
                out.put(k, new int[] {k == 125 ? 0 : wave.sgpr(k)});
            }
        }
        return out;
    }
}
