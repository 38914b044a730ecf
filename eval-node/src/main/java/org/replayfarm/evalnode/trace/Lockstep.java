package org.replayfarm.evalnode.trace;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.StoreTracer;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.compare.Ulps;
import org.replayfarm.model.isa.Disassembler;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.Syntax;

/**
 * The first wrong instruction of a translation, from lockstep traces: the host model runs the traced group and, after
 * each instruction, compares its registers and next PC with the device's record of the same instruction (the same
 * wave's same step). While both sides' registers agree, the first step whose results differ is the answer (unless the
 * instruction is approximate in the ISA and every difference is a float within the tolerance: then the search goes
 * on). Once they differ (a tolerated difference), a step is judged by executing its instruction on the host model
 * with the device's registers before it: the device is wrong where the ISA, given the device's own inputs, gives
 * something else. A store or atomic whose bytes end differently in the device's memory, executed while every register
 * agreed, is the answer when it comes first (a wrong store changes no register).
 */
public final class Lockstep {
    /** A register (lane -1 for a scalar) with both sides' values. */
    public record Value(String register, int lane, int host, int device) {
    }

    /** One of the last steps before the divergence: its instruction and each side's register changes. */
    public record Recent(int wave, long pc, String instruction, String host, String device) {
    }

    /**
     * The first divergence.
     *
     * @param kind      {@code registers} (its results differ), {@code path} (the next PC differs), {@code fault} (one
     *                  side faulted there, the other did not), {@code ended} (the device's wave ended before it),
     *                  {@code store} (the bytes it stored end differently), {@code start} (the waves start differently)
     * @param why       one line saying what differs
     * @param differs   the registers whose results differ (or for a store, the first differing bytes as words)
     * @param operands  the instruction's register operands before it, both sides, on the lanes that differ
     * @param recent    up to 8 steps of the same wave before it
     */
    public record Divergence(int wave, long pc, String instruction, String kind, String why, List<Value> differs,
                             List<Value> operands, List<Recent> recent, long step) {
    }

    /**
     * What the search found.
     *
     * @param divergence the first divergence, or empty when the whole trace agrees
     * @param steps      the steps compared
     * @param tolerated  approximate instructions whose results differed within the tolerance
     * @param notes      what limits the answer (a truncated trace, a device trace that ends early)
     */
    public record Result(Optional<Divergence> divergence, long steps, int tolerated, List<String> notes) {
    }

    private static final int RECENT = 8;
    private static final Pattern REGISTER = Pattern.compile(
            "\\b([vs])\\[(\\d+):(\\d+)\\]|\\b([vs])(\\d+)\\b|\\b(vcc_lo|vcc_hi|vcc|exec_lo|exec_hi|exec|m0|scc)\\b");

    private final HostModel model;
    private final DeviceTrace trace;
    private final int ulp;
    private final int ws;
    private final int nv;
    private final int size;
    private final Syntax syntax;

    private final Map<Integer, int[]> host = new HashMap<>();
    private final Map<Integer, int[]> device = new HashMap<>();
    private final Map<Integer, BitSet> diff = new HashMap<>();
    private final Map<Integer, Integer> index = new HashMap<>();
    private final Map<Integer, ArrayDeque<Past>> recent = new HashMap<>();
    private final int[] pre;
    private boolean preAgreed;
    private long step;
    private int tolerated;
    private Divergence found;
    private final List<String> notes = new ArrayList<>();
    /** Per byte (range, offset) the last host write: its step and whether every register agreed before it. */
    private final Map<Long, long[]> lastWriter = new HashMap<>();
    private final Map<Long, Divergence> storeCandidates = new HashMap<>();
    private final Map<Long, StepInfo> stepInfo = new HashMap<>();
    /** Waves whose device trace ended before the host's; the first such, reported if nothing else is found. */
    private final java.util.Set<Integer> ended = new java.util.HashSet<>();
    private Divergence endedEarly;

    /**
     * One of a wave's last steps as the search keeps it: its instruction and the registers each side changed with
     * their new values (in the order of the set bits), made into a {@link Recent} (disassembled, spelled) only when a
     * divergence is reported, not at every step.
     */
    private record Past(int wave, long pc, Instruction insn, BitSet host, int[] hostValues, BitSet device,
                        int[] deviceValues) {
    }

    /** The values of {@code state} at the set bits of {@code touched}, in order. */
    private static int[] packed(BitSet touched, int[] state) {
        int[] out = new int[touched.cardinality()];
        int k = 0;
        for (int i = touched.nextSetBit(0); i >= 0; i = touched.nextSetBit(i + 1)) {
            out[k++] = state[i];
        }
        return out;
    }

    /** A wave's last steps, spelled for the report. */
    private List<Recent> recentOf(ArrayDeque<Past> steps) {
        List<Recent> out = new ArrayList<>();
        for (Past p : steps) {
            out.add(new Recent(p.wave(), p.pc(), text(p.insn()), changes(p.host(), p.hostValues()),
                    changes(p.device(), p.deviceValues())));
        }
        return out;
    }

    /** A store or atomic executed while every register agreed: its instruction and operands, for the report. */
    private record StepInfo(int wave, long pc, Instruction insn, List<Value> operands) {
    }

    /** At most this many stores are remembered (their operands), the earliest. */
    private static final int STORES_KEPT = 1 << 16;

    private Lockstep(HostModel model, DeviceTrace trace, int ulp) {
        this.model = model;
        this.trace = trace;
        this.ulp = ulp;
        this.ws = model.kernel().waveSize();
        this.nv = Math.min(model.kernel().vgprCount(), trace.vgprs());
        this.size = 128 + nv * ws + 2;
        this.pre = new int[size];
        this.syntax = ws == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
    }

    /**
     * Runs the search over group {@code trace.group()}.
     *
     * @param deviceRanges the device's final ranges after running only that group (range index to bytes), for the
     *                     stores; empty to leave stores out
     * @param ulp          the tolerance, in units in the last place, for approximate instructions' float results
     */
    public static Result search(HostModel model, DeviceTrace trace, Map<Integer, ByteBuffer> deviceRanges, int ulp) {
        if (trace.waveSize() != model.kernel().waveSize()) {
            throw new IllegalArgumentException("the trace is of a wave" + trace.waveSize() + " translation, the capture's "
                    + "program runs in wave" + model.kernel().waveSize());
        }
        Lockstep l = new Lockstep(model, trace, ulp);
        return l.run(deviceRanges);
    }

    private Result run(Map<Integer, ByteBuffer> deviceRanges) {
        int[] g = trace.group();
        Stop stop = new Stop();
        HostModel.Run run;
        try {
            run = model.runStepped(g[0], g[1], g[2], new HostModel.StepListener() {
                @Override
                public void before(Wave wave, long pc, Instruction insn) {
                    Lockstep.this.before(wave);
                }

                @Override
                public void after(Wave wave, long pc, Instruction insn) {
                    Lockstep.this.after(wave, pc, insn);
                    if (found != null) {
                        throw stop;
                    }
                }
            }, this::written);
        } catch (Stop s) {
            run = null;
        }
        if (found == null && run != null && run.result().fault().isPresent()) {
            var f = run.result().fault().get();
            List<DeviceTrace.Step> steps = stepsOf(f.wave());
            int k = index.getOrDefault(f.wave(), 0);
            DeviceTrace.Step d = k < steps.size() ? steps.get(k) : null;
            if (d == null || d.next() != DeviceTrace.STOPPED) {
                found = new Divergence(f.wave(), f.pc(), f.instruction(), "fault", "the host model faults here ("
                        + f.message() + "); the device " + (d == null ? "recorded no step here"
                        : "went on to pc 0x" + Long.toHexString(d.next())), List.of(), List.of(),
                        recentOf(recent.getOrDefault(f.wave(), new ArrayDeque<>())), step);
            }
        }
        if (found == null && run != null) {
            for (int w = 0; w < trace.steps().size(); w++) {
                int k = index.getOrDefault(w, 0);
                if (k < stepsOf(w).size()) {
                    DeviceTrace.Step d = stepsOf(w).get(k);
                    found = new Divergence(w, d.pc(), text(d.pc()), "path", "the host model's wave " + w + " ended after "
                            + k + " instructions; the device's went on to execute this one", List.of(), List.of(),
                            recentOf(recent.getOrDefault(w, new ArrayDeque<>())), step);
                    break;
                }
            }
        }
        if (found == null && endedEarly != null) {
            found = endedEarly;
        }
        Divergence store = firstStore(deviceRanges);
        if (store != null && (found == null || store.step() < found.step())) {
            found = store;
        }
        if (trace.truncated()) {
            notes.add("the device's trace stopped at its step limit: steps past it were not compared");
        }
        return new Result(Optional.ofNullable(found), step, tolerated, List.copyOf(notes));
    }

    /** Unwinds the host model's run once the answer is known. */
    private static final class Stop extends RuntimeException {
        Stop() {
            super(null, null, false, false);
        }
    }

    private List<DeviceTrace.Step> stepsOf(int wave) {
        return wave < trace.steps().size() ? trace.steps().get(wave) : List.of();
    }

    // ---------------------------------------------------------------- state

    private int slotOf(int reg, int lane) {
        if (reg < 128) {
            return reg;
        }
        if (reg == DeviceTrace.SCC) {
            return 128 + nv * ws;
        }
        if (reg == DeviceTrace.MODE) {
            return 128 + nv * ws + 1;
        }
        int r = reg - DeviceTrace.VGPR;
        return r >= 0 && r < nv && lane >= 0 && lane < ws ? 128 + r * ws + lane : -1;
    }

    private String nameOf(int slot) {
        if (slot < 128) {
            return switch (slot) {
                case 106 -> "vcc_lo";
                case 107 -> "vcc_hi";
                case 124 -> "m0";
                case 126 -> "exec_lo";
                case 127 -> "exec_hi";
                default -> "s" + slot;
            };
        }
        if (slot == 128 + nv * ws) {
            return "scc";
        }
        if (slot == 128 + nv * ws + 1) {
            return "mode";
        }
        return "v" + (slot - 128) / ws;
    }

    private int laneOf(int slot) {
        return slot >= 128 && slot < 128 + nv * ws ? (slot - 128) % ws : -1;
    }

    private void capture(Wave w, int[] into) {
        for (int c = 0; c < 128; c++) {
            into[c] = c == 125 ? 0 : w.sgpr(c);
        }
        System.arraycopy(w.vgprFile(), 0, into, 128, nv * ws);
        into[128 + nv * ws] = w.scc() ? 1 : 0;
        into[128 + nv * ws + 1] = w.mode();
    }

    private void apply(int[] state, int[] changes, BitSet touched) {
        for (int i = 0; i < changes.length; i += 3) {
            int slot = slotOf(changes[i], changes[i + 1]);
            if (slot >= 0 && slot != 125) {
                state[slot] = changes[i + 2];
                if (touched != null) {
                    touched.set(slot);
                }
            }
        }
    }

    private void before(Wave w) {
        int wave = w.index();
        if (!host.containsKey(wave)) {
            int[] h = new int[size];
            capture(w, h);
            int[] d = new int[size];
            DeviceTrace.Step init = wave < trace.initial().size() ? trace.initial().get(wave) : null;
            if (init != null) {
                apply(d, init.changes(), null);
            }
            host.put(wave, h);
            device.put(wave, d);
            BitSet b = new BitSet(size);
            for (int i = 0; i < size; i++) {
                if (h[i] != d[i]) {
                    b.set(i);
                }
            }
            diff.put(wave, b);
            recent.put(wave, new ArrayDeque<>());
            if (init == null) {
                notes.add("the device's trace has no wave " + wave);
            } else if (!b.isEmpty()) {
                int first = b.nextSetBit(0);
                found = new Divergence(wave, w.pc(), text(w.pc()), "start", "the wave starts with different registers "
                        + "(" + b.cardinality() + " differ, the first " + nameOf(first) + ")", values(b, host.get(wave),
                        device.get(wave), 16), List.of(), List.of(), step);
                throw new Stop();
            }
        }
        capture(w, pre);
        preAgreed = diff.get(wave).isEmpty();
    }

    private void after(Wave w, long pc, Instruction insn) {
        int wave = w.index();
        long at = step++;
        int[] h = host.get(wave);
        int[] d = device.get(wave);
        BitSet differ = diff.get(wave);
        int[] hostPre = pre.clone();
        int[] devicePre = d.clone();
        capture(w, h);
        BitSet touched = new BitSet(size);
        for (int i = 0; i < size; i++) {
            if (h[i] != hostPre[i]) {
                touched.set(i);
            }
        }
        BitSet hostTouched = (BitSet) touched.clone();
        long hostNext = w.ended() ? DeviceTrace.ENDED : w.pc();
        List<DeviceTrace.Step> steps = stepsOf(wave);
        int k = index.merge(wave, 1, Integer::sum) - 1;
        ArrayDeque<Past> last = recent.get(wave);
        if (ended.contains(wave)) {
            return;
        }
        if (k >= steps.size()) {
            // a wave the device stopped early (another wave's fault stops the group): that wave's own divergence comes
            // first when the host reaches it; this one is the answer only if none does
            if (!trace.truncated() && endedEarly == null) {
                endedEarly = new Divergence(wave, pc, text(insn), "ended", "the device's wave " + wave + " recorded "
                        + steps.size() + " instructions; the host model's executes this one next", List.of(), List.of(),
                        recentOf(last), at);
            }
            ended.add(wave);
            return;
        }
        DeviceTrace.Step ds = steps.get(k);
        if (ds.pc() != pc) {
            found = new Divergence(wave, pc, text(insn), "path", "the device executed pc 0x" + Long.toHexString(ds.pc())
                    + " where the host model executes this instruction", List.of(), List.of(), recentOf(last), at);
            return;
        }
        BitSet deviceTouched = new BitSet(size);
        apply(d, ds.changes(), deviceTouched);
        touched.or(deviceTouched);
        for (int i = touched.nextSetBit(0); i >= 0; i = touched.nextSetBit(i + 1)) {
            differ.set(i, h[i] != d[i]);
        }
        MemoryAccess access = insn.opcode().memory();
        if (preAgreed && access != null && (access.kind() == MemoryAccess.Kind.STORE
                || access.kind() == MemoryAccess.Kind.ATOMIC) && stepInfo.size() < STORES_KEPT) {
            stepInfo.put(at, new StepInfo(wave, pc, insn, operands(text(insn), new BitSet(), hostPre, devicePre)));
        }
        Past mine = new Past(wave, pc, insn, hostTouched, packed(hostTouched, h), deviceTouched, packed(deviceTouched, d));
        boolean agree = differ.isEmpty() && hostNext == ds.next();
        if (!agree) {
            String verdict;
            BitSet wrong;
            if (preAgreed) {
                wrong = new BitSet(size);
                for (int i = touched.nextSetBit(0); i >= 0; i = touched.nextSetBit(i + 1)) {
                    if (h[i] != d[i]) {
                        wrong.set(i);
                    }
                }
                verdict = judge(insn, wrong, h, d, hostNext, ds.next());
            } else {
                // the inputs may differ (an earlier tolerated difference): what does the ISA give on the device's own?
                Shadow s = shadow(w, insn, devicePre);
                wrong = new BitSet(size);
                BitSet both = (BitSet) deviceTouched.clone();
                both.or(s.touched);
                for (int i = both.nextSetBit(0); i >= 0; i = both.nextSetBit(i + 1)) {
                    if (s.state[i] != d[i]) {
                        wrong.set(i);
                    }
                }
                verdict = s.fault != null ? (ds.next() == DeviceTrace.STOPPED ? null
                        : "on the device's registers the host model faults here (" + s.fault + "); the device went on")
                        : judge(insn, wrong, s.state, d, s.next, ds.next());
                h = s.state; // the values the device should have produced, for the report
            }
            if (verdict != null) {
                found = new Divergence(wave, pc, text(insn), verdict.startsWith("the next PC") ? "path" : ds.next()
                        == DeviceTrace.STOPPED || verdict.contains("faults") ? "fault" : "registers", verdict,
                        values(wrong, h, d, 8), operands(text(insn), wrong, hostPre, devicePre), recentOf(last), at);
                return;
            }
        }
        last.addLast(mine);
        if (last.size() > RECENT) {
            last.removeFirst();
        }
    }

    /** Null when the difference is tolerated (an approximate instruction within the tolerance), else why not. */
    private String judge(Instruction insn, BitSet wrong, int[] expected, int[] d, long expectedNext, long deviceNext) {
        if (expectedNext != deviceNext) {
            if (deviceNext == DeviceTrace.STOPPED) {
                return "the device stopped at a fault here; the host model did not";
            }
            return "the next PC differs: host 0x" + pcText(expectedNext) + ", device 0x" + pcText(deviceNext);
        }
        if (wrong.isEmpty()) {
            return null;
        }
        if (model.approximate(insn)) {
            boolean within = true;
            for (int i = wrong.nextSetBit(0); i >= 0 && within; i = wrong.nextSetBit(i + 1)) {
                within = i >= 128 && i < 128 + nv * ws && Ulps.f32NaNsAgree(expected[i], d[i]) <= Math.max(1, ulp);
            }
            if (within) {
                tolerated++;
                return null;
            }
        }
        int first = wrong.nextSetBit(0);
        return wrong.cardinality() + " register value(s) differ, the first " + nameOf(first)
                + (laneOf(first) >= 0 ? " lane " + laneOf(first) : "");
    }

    private static String pcText(long pc) {
        return pc == DeviceTrace.ENDED ? "(ended)" : pc == DeviceTrace.STOPPED ? "(stopped)" : Long.toHexString(pc);
    }

    private record Shadow(int[] state, BitSet touched, long next, String fault) {
    }

    /** Executes {@code insn} on a copy of {@code like} holding the device's registers {@code devicePre}. */
    private Shadow shadow(Wave like, Instruction insn, int[] devicePre) {
        MemoryAccess m = insn.opcode().memory();
        if (m != null && (m.kind() == MemoryAccess.Kind.STORE || m.kind() == MemoryAccess.Kind.ATOMIC)) {
            // executing it again would write the host's memory twice: its registers are the host's answer
            int[] s = host.get(like.index()).clone();
            BitSet t = new BitSet(size);
            return new Shadow(s, t, like.ended() ? DeviceTrace.ENDED : like.pc(), null);
        }
        Wave c = new Wave(like.group(), like.index(), ws, like.vgprCount(), insn.pc(), devicePre[128 + nv * ws + 1]);
        for (int r = 0; r < 128; r++) {
            c.setSgpr(r, devicePre[r]);
        }
        int[] file = c.vgprFile();
        int[] own = like.vgprFile();
        System.arraycopy(own, 0, file, 0, Math.min(own.length, file.length)); // registers past the compared ones
        System.arraycopy(devicePre, 128, file, 0, nv * ws);
        c.setScc(devicePre[128 + nv * ws] != 0);
        c.setFlatScratch(like.flatScratch());
        String fault = null;
        try {
            model.executeDetached(c, insn);
        } catch (GuestFault f) {
            fault = f.getMessage();
        } catch (RuntimeException e) {
            fault = "host model error: " + e;
        }
        int[] s = new int[size];
        capture(c, s);
        BitSet t = new BitSet(size);
        for (int i = 0; i < size; i++) {
            if (s[i] != devicePre[i]) {
                t.set(i);
            }
        }
        return new Shadow(s, t, c.ended() ? DeviceTrace.ENDED : c.pc(), fault);
    }

    // ---------------------------------------------------------------- stores

    private void written(StoreTracer.Event e) {
        if (e.range() < 0) {
            return; // texels: not compared here
        }
        long at = step; // the step being executed (after() numbers it so)
        for (int i = 0; i < e.value().length; i++) {
            long key = (long) e.range() << 40 | (e.offset() + i);
            lastWriter.put(key, new long[] {at, preAgreed ? 1 : 0, e.wave(), e.lane(), e.pc(), e.value()[i] & 0xff});
        }
    }

    private Divergence firstStore(Map<Integer, ByteBuffer> deviceRanges) {
        if (deviceRanges == null || deviceRanges.isEmpty()) {
            return null;
        }
        long[] best = null;
        long bestKey = 0;
        for (Map.Entry<Long, long[]> e : lastWriter.entrySet()) {
            long[] w = e.getValue();
            if (w[1] == 0 || (best != null && w[0] >= best[0])) {
                continue;
            }
            int range = (int) (e.getKey() >>> 40);
            long offset = e.getKey() & ((1L << 40) - 1);
            ByteBuffer b = deviceRanges.get(range);
            if (b == null || offset >= b.limit()) {
                continue;
            }
            int dev = b.get((int) offset) & 0xff;
            if (dev != (int) w[5]) {
                best = w;
                bestKey = e.getKey();
            }
        }
        if (best == null || (found != null && best[0] >= found.step())) {
            return null;
        }
        StepInfo info = stepInfo.get(best[0]);
        int range = (int) (bestKey >>> 40);
        long offset = bestKey & ((1L << 40) - 1);
        long word = offset & ~3L;
        ByteBuffer b = deviceRanges.get(range);
        int hostWord = 0;
        int deviceWord = 0;
        for (int i = 0; i < 4; i++) {
            long key = (long) range << 40 | (word + i);
            long[] w = lastWriter.get(key);
            int dv = word + i < b.limit() ? b.get((int) (word + i)) & 0xff : 0;
            hostWord |= (w != null ? (int) w[5] : dv) << (8 * i);
            deviceWord |= dv << (8 * i);
        }
        long pc = best[4];
        String text = info != null ? text(info.insn()) : text(pc);
        return new Divergence((int) best[2], pc, text, "store", "the bytes it stored end differently in the device's "
                + "memory (range " + range + " offset " + offset + ", lane " + best[3] + ") while every register "
                + "agreed before it", List.of(new Value("range " + range + " bytes " + word + ".." + (word + 3), (int) best[3], hostWord,
                deviceWord)), info == null ? List.of() : info.operands(),
                List.of(), best[0]);
    }

    // ---------------------------------------------------------------- text

    private String text(Instruction insn) {
        try {
            return Disassembler.text(insn, syntax);
        } catch (IllegalArgumentException e) {
            return insn.mnemonic();
        }
    }

    private String text(long pc) {
        try {
            return text(model.kernel().program().at(pc));
        } catch (RuntimeException | org.replayfarm.model.isa.DecodeException e) {
            return "<no instruction>";
        }
    }

    private List<Value> values(BitSet slots, int[] h, int[] d, int max) {
        List<Value> out = new ArrayList<>();
        for (int i = slots.nextSetBit(0); i >= 0 && out.size() < max; i = slots.nextSetBit(i + 1)) {
            out.add(new Value(nameOf(i), laneOf(i), h[i], d[i]));
        }
        return out;
    }

    /** A step's register changes, short: {@code s0=0x10 v3[32 lanes, lane 0=0x0] scc=0x1}; {@code values} in bit order. */
    private String changes(BitSet touched, int[] values) {
        StringBuilder b = new StringBuilder();
        int i = touched.nextSetBit(0);
        int k = 0;
        while (i >= 0) {
            String name = nameOf(i);
            if (laneOf(i) < 0) {
                b.append(b.isEmpty() ? "" : " ").append(name).append("=0x").append(Integer.toHexString(values[k++]));
                i = touched.nextSetBit(i + 1);
                continue;
            }
            int first = i;
            int firstValue = values[k];
            int n = 0;
            while (i >= 0 && nameOf(i).equals(name)) {
                n++;
                k++;
                i = touched.nextSetBit(i + 1);
            }
            b.append(b.isEmpty() ? "" : " ").append(name).append("[").append(n).append(n == 1 ? " lane" : " lanes")
                    .append(", lane ").append(laneOf(first)).append("=0x").append(Integer.toHexString(firstValue))
                    .append("]");
        }
        return b.isEmpty() ? "-" : b.toString();
    }

    /** The instruction's register operands before it, both sides, on the lanes that differ (lane 0 if none). */
    private List<Value> operands(String text, BitSet wrong, int[] hostPre, int[] devicePre) {
        List<Integer> lanes = new ArrayList<>();
        for (int i = wrong.nextSetBit(0); i >= 0 && lanes.size() < 2; i = wrong.nextSetBit(i + 1)) {
            int l = laneOf(i);
            if (l >= 0 && !lanes.contains(l)) {
                lanes.add(l);
            }
        }
        if (lanes.isEmpty()) {
            lanes.add(0);
        }
        List<Value> out = new ArrayList<>();
        Matcher m = REGISTER.matcher(text.contains(" ") ? text.substring(text.indexOf(' ')) : "");
        java.util.Set<String> seen = new java.util.HashSet<>();
        while (m.find() && out.size() < 24) {
            List<Integer> slots = new ArrayList<>();
            boolean vector = false;
            if (m.group(1) != null || m.group(4) != null) {
                boolean v = "v".equals(m.group(1) != null ? m.group(1) : m.group(4));
                int lo = Integer.parseInt(m.group(1) != null ? m.group(2) : m.group(5));
                int hi = m.group(1) != null ? Integer.parseInt(m.group(3)) : lo;
                for (int r = lo; r <= hi && r - lo < 8; r++) {
                    if (v) {
                        if (r < nv) {
                            slots.add(128 + r * ws);
                        }
                    } else if (r < 128) {
                        slots.add(r);
                    }
                }
                vector = v;
            } else {
                switch (m.group(6)) {
                    case "vcc", "vcc_lo" -> slots.addAll(ws == 64 && m.group(6).equals("vcc") ? List.of(106, 107) : List.of(106));
                    case "vcc_hi" -> slots.add(107);
                    case "exec", "exec_lo" -> slots.addAll(ws == 64 && m.group(6).equals("exec") ? List.of(126, 127) : List.of(126));
                    case "exec_hi" -> slots.add(127);
                    case "m0" -> slots.add(124);
                    default -> slots.add(128 + nv * ws);
                }
            }
            for (int s : slots) {
                if (vector) {
                    for (int l : lanes) {
                        if (seen.add(s + ":" + l)) {
                            out.add(new Value(nameOf(s), l, hostPre[s + l], devicePre[s + l]));
                        }
                    }
                } else if (seen.add(String.valueOf(s))) {
                    out.add(new Value(nameOf(s), -1, hostPre[s], devicePre[s]));
                }
            }
        }
        return out;
    }
}
