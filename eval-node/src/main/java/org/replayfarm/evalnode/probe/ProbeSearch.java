package org.replayfarm.evalnode.probe;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.compare.Ulps;

/**
 * Probe bisection along a slice: the slice's instructions that can be probed, in the group's execution order (any
 * wave: the slice follows LDS across waves), are searched for
 * the first whose result differs on the device; a run of the device takes a probe capture ({@link ProbePatcher}) with
 * up to {@link #BATCH} PCs, splitting the interval still open into {@code BATCH + 1} parts (every execution of a
 * probed PC up to the one needed comes back, and is judged too). A candidate is accepted once the instructions that
 * wrote its inputs agree (probed if they were not yet); if one of them differs, the search goes on before it. The
 * store at the slice's end is the answer when everything it reads agrees. Values are compared with the host model's
 * at the same step of the original capture; an approximate instruction's float lanes within the tolerance agree, as
 * {@code Lockstep} tolerates them.
 */
public final class ProbeSearch {
    /** PCs per probe capture. */
    public static final int BATCH = 4;
    /** Executions of one PC a probe records at most. */
    public static final int MAX_HITS = 1 << 14;

    /** Runs a probe capture on the device and returns the probe range's final bytes. */
    @FunctionalInterface
    public interface Device {
        ByteBuffer run(CaptureFile probeCapture, int probeRange) throws Exception;
    }

    /** A register (lane -1 a scalar) with the host's value and the device's (null: not probed). */
    public record Value(String register, int lane, int host, Integer device) {
    }

    /** One probed execution: which run, the instruction, and the verdict. */
    public record Probe(int run, int wave, long pc, int hit, String instruction, String verdict) {
    }

    /** One device run of a probe capture: the PCs it probed and how long it took. */
    public record Run(int number, List<Long> pcs, double seconds) {
    }

    /**
     * The answer: {@code kind} {@code registers} (its result differs while its inputs agree), {@code store} (the
     * store's bytes differ while the registers it reads agree), {@code path} (the device executed the instruction
     * fewer times than the host model: the path diverged before it).
     */
    public record Answer(int wave, long pc, int step, String instruction, String kind, String why,
                         List<Value> differs, List<Value> operands) {
    }

    /** What the search found, with every probe and run. */
    public record Result(Optional<Answer> answer, List<Probe> probes, List<Run> runs, int sliceSize, int probeable,
                         List<String> notes) {
        public double deviceSeconds() {
            return runs.stream().mapToDouble(Run::seconds).sum();
        }
    }

    private enum Verdict { AGREES, TOLERATED, DIFFERS, NOT_REACHED }

    private final CaptureFile file;
    private final HostModel model;
    private final Execution execution;
    private final Slice slice;
    private final Device device;
    private final int ulp;
    private final Path work;
    private final List<Slice.Entry> cands = new ArrayList<>();
    private final Map<Integer, Integer> candOfStep = new HashMap<>();
    private final Map<Integer, Execution.Values> host;
    private final Map<Integer, Verdict> verdicts = new HashMap<>();
    private final Map<Integer, ProbePatcher.Record> deviceRecords = new HashMap<>();
    private final Map<Integer, String> reasons = new HashMap<>();
    private final List<Probe> probes = new ArrayList<>();
    private final List<Run> runs = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private ProbeSearch(CaptureFile file, HostModel model, Execution execution, Slice slice, Device device, int ulp,
                        Path work, ProbeSearch before) {
        if (before != null) {
            probes.addAll(before.probes);
            runs.addAll(before.runs);
            notes.addAll(before.notes);
        }
        this.file = file;
        this.model = model;
        this.execution = execution;
        this.slice = slice;
        this.device = device;
        this.ulp = ulp;
        this.work = work;
        List<Slice.Entry> entries = slice.entries();
        for (int i = 0; i < entries.size() - 1; i++) {
            Slice.Entry e = entries.get(i);
            if (e.step().access().writes().length > 0 && ProbePatcher.probeable(e.step().insn())) {
                candOfStep.put(e.step().seq(), cands.size());
                cands.add(e);
            }
        }
        Set<Integer> steps = entries.stream().map(e -> e.step().seq()).collect(Collectors.toSet());
        this.host = execution.values(model, steps);
    }

    /** Searches {@code slice} of {@code execution} on {@code device}; probe captures are written under {@code work}. */
    public static Result search(CaptureFile file, HostModel model, Execution execution, Slice slice, Device device,
                                int ulp, Path work) throws Exception {
        ProbeSearch s = new ProbeSearch(file, model, execution, slice, device, ulp, work, null);
        Optional<Execution.Step> diverged = s.firstDivergingBranch();
        if (diverged.isEmpty()) {
            return s.run();
        }
        Execution.Step b = diverged.get();
        Slice cond = Slice.of(execution, b.wave(), b.index());
        return new ProbeSearch(file, model, execution, cond, device, ulp, work, s).run();
    }

    /**
     * A conditional branch a wave of the slice executed before the slice's end, and the steps of its wave that last
     * wrote the registers its condition reads (register key to seq, -1: the wave's initial value).
     */
    private record Control(Execution.Step branch, Map<Integer, Integer> definers) {
    }

    /**
     * Matching executions by iteration, not by count: the k-th execution of a PC on the device is the host's k-th only
     * while every conditional branch its wave took before it went the same way on both sides (then the two have run the
     * same path, the same iterations of every loop). This probes the instructions that wrote the conditions of the
     * branches the slice's waves executed before its end (few PCs: a loop's compare is one PC however often it runs)
     * and walks each wave's branches in order; the first whose outcome differs on the device (its condition's
     * definers are still aligned: every branch before it agreed) is where control diverged, and the first wrong
     * instruction is at or before it, in the slice of its condition. Empty when every branch agrees: then every
     * execution of the slice is matched by its count exactly.
     */
    private Optional<Execution.Step> firstDivergingBranch() throws Exception {
        Set<Integer> waves = slice.entries().stream().map(e -> e.step().wave()).collect(Collectors.toSet());
        int end = slice.entries().get(slice.entries().size() - 1).step().seq();
        List<Control> controls = new ArrayList<>();
        Map<Integer, Map<Integer, Integer>> lastWriter = new HashMap<>();
        for (Execution.Step s : execution.order().subList(0, end)) {
            if (!waves.contains(s.wave())) {
                continue;
            }
            Map<Integer, Integer> writers = lastWriter.computeIfAbsent(s.wave(), k -> new HashMap<>());
            if (condition(s.insn().mnemonic()) != null) {
                Map<Integer, Integer> d = new LinkedHashMap<>();
                for (int r : s.access().reads()) {
                    d.put(r, writers.getOrDefault(r, -1));
                }
                controls.add(new Control(s, d));
            }
            for (int r : s.access().writes()) {
                writers.put(r, s.seq());
            }
        }
        // the definers to probe: one point per PC, up to the last execution a branch needs
        Map<Long, Integer> hits = new LinkedHashMap<>();
        Map<Long, int[]> registers = new HashMap<>();
        Set<Integer> definerSteps = new java.util.HashSet<>();
        for (Control c : controls) {
            for (int d : c.definers().values()) {
                if (d < 0) {
                    continue;
                }
                Execution.Step s = execution.order().get(d);
                if (!ProbePatcher.probeable(s.insn()) || s.hit() >= MAX_HITS) {
                    continue;
                }
                hits.merge(s.pc(), s.hit() + 1, Math::max);
                registers.put(s.pc(), s.access().writes());
                definerSteps.add(d);
            }
        }
        if (hits.isEmpty()) {
            return Optional.empty();
        }
        Set<Integer> wanted = new java.util.HashSet<>(definerSteps);
        controls.forEach(c -> wanted.add(c.branch().seq()));
        Map<Integer, Execution.Values> hostValues = execution.values(model, wanted);
        Map<Long, List<List<ProbePatcher.Record>>> records = new HashMap<>();
        List<Long> pcs = new ArrayList<>(hits.keySet());
        for (int from = 0; from < pcs.size(); from += 2 * BATCH) {
            List<ProbePatcher.Point> list = new ArrayList<>();
            for (long pc : pcs.subList(from, Math.min(pcs.size(), from + 2 * BATCH))) {
                list.add(new ProbePatcher.Point(pc, registers.get(pc), hits.get(pc)));
            }
            records.putAll(runProbe(list));
        }
        Execution.Step first = null;
        String why = null;
        Set<Integer> settled = new java.util.HashSet<>();
        for (Control c : controls) {
            Execution.Step b = c.branch();
            if (settled.contains(b.wave()) || (first != null && b.seq() > first.seq())) {
                continue;
            }
            Map<Integer, Integer> host = new HashMap<>();
            Map<Integer, Integer> dev = new HashMap<>();
            boolean known = true;
            String missing = null;
            Execution.Values atBranch = hostValues.get(b.seq());
            for (var in : c.definers().entrySet()) {
                int reg = in.getKey();
                int d = in.getValue();
                int[] hb = atBranch == null ? null : atBranch.before().get(reg);
                if (hb == null) {
                    known = false;
                    break;
                }
                host.put(reg, hb[0]);
                dev.put(reg, hb[0]); // the wave's initial value (d < 0) is the same capture on both sides
                if (d < 0) {
                    continue;
                }
                Execution.Step s = execution.order().get(d);
                Execution.Values h = hostValues.get(d);
                List<List<ProbePatcher.Record>> byWave = records.get(s.pc());
                if (h == null || byWave == null || h.after().get(reg) == null) {
                    known = false;
                    break;
                }
                List<ProbePatcher.Record> got = s.wave() < byWave.size() ? byWave.get(s.wave()) : List.of();
                if (s.hit() >= got.size()) {
                    missing = String.format("the device executed pc 0x%x (%s), which writes its condition, %d time(s), "
                            + "the host model at least %d", s.pc(), s.text(), got.size(), s.hit() + 1);
                    break;
                }
                int[] dv = got.get(s.hit()).values().get(reg);
                if (dv != null) {
                    dev.put(reg, dv[0]);
                }
            }
            if (!known) {
                continue;
            }
            if (missing != null) {
                // the wave left the host's path before the condition was even written (another branch, a fault that
                // ended the wave): no branch to name here, and counts still match up to the last branch that agreed
                settled.add(b.wave());
                notes.add("control: wave " + b.wave() + " " + missing + "; the search keeps to the slice");
                continue;
            }
            String m = b.insn().mnemonic();
            if (taken(m, host) != taken(m, dev)) {
                settled.add(b.wave());
                if (first == null || b.seq() < first.seq()) {
                    first = b;
                    why = String.format("its condition (%s) is %s on the host, %s on the "
                            + "device: the branch is %s on the host, %s on the device", condition(m),
                            show(host), show(dev), taken(m, host) ? "taken" : "not taken",
                            taken(m, dev) ? "taken" : "not taken");
                }
            }
        }
        if (first == null) {
            return Optional.empty();
        }
        notes.add(String.format("control diverged first at wave %d pc 0x%x %s (its execution %d): %s; the search "
                + "follows the slice of that branch's condition", first.wave(), first.pc(), first.text(),
                first.hit() + 1, why));
        return Optional.of(first);
    }

    /** The register a conditional branch tests ({@code scc}, {@code vcc}, {@code exec}), or null for any other. */
    static String condition(String mnemonic) {
        return switch (mnemonic) {
            case "s_cbranch_scc0", "s_cbranch_scc1" -> "scc";
            case "s_cbranch_vccz", "s_cbranch_vccnz" -> "vcc";
            case "s_cbranch_execz", "s_cbranch_execnz" -> "exec";
            default -> null;
        };
    }

    /** Whether the branch {@code mnemonic} is taken with its condition's registers at {@code values} (key to value). */
    static boolean taken(String mnemonic, Map<Integer, Integer> values) {
        boolean zero = values.values().stream().allMatch(v -> v == 0);
        return switch (mnemonic) {
            case "s_cbranch_scc0", "s_cbranch_vccz", "s_cbranch_execz" -> zero;
            default -> !zero;
        };
    }

    private static String show(Map<Integer, Integer> values) {
        return new TreeMap<>(values).entrySet().stream()
                .map(e -> Registers.name(e.getKey()) + "=0x" + Integer.toHexString(e.getValue()))
                .collect(Collectors.joining(" "));
    }

    /** One device run of a probe capture of {@code list}: the records it brought back. */
    private Map<Long, List<List<ProbePatcher.Record>>> runProbe(List<ProbePatcher.Point> list) throws Exception {
        int number = runs.size() + 1;
        Path out = work.resolve("probe-" + number + ".capture");
        ProbePatcher.Patched patched = ProbePatcher.write(file, execution.group(), list, out);
        CaptureFile probe = CaptureFile.open(out);
        long start = System.nanoTime();
        ByteBuffer bytes = device.run(probe, patched.range());
        double seconds = (System.nanoTime() - start) / 1e9;
        runs.add(new Run(number, list.stream().map(ProbePatcher.Point::pc).toList(), seconds));
        Files.deleteIfExists(out);
        return patched.read(bytes);
    }

    private Result run() throws Exception {
        int sentinel = cands.size();
        int good = -1;
        int bad = sentinel;
        Optional<Answer> answer = Optional.empty();
        for (int round = 0; round < 64 && answer.isEmpty(); round++) {
            while (bad - good > 1) {
                List<Integer> points = new ArrayList<>();
                int open = bad - good - 1;
                int parts = Math.min(BATCH, open);
                for (int k = 1; k <= parts; k++) {
                    int i = good + (int) Math.round((double) k * (open + 1) / (parts + 1));
                    i = Math.max(good + 1, Math.min(bad - 1, i));
                    if (!points.contains(i) && !verdicts.containsKey(i)) {
                        points.add(i);
                    }
                }
                if (!points.isEmpty()) {
                    probe(points);
                }
                int newBad = bad;
                for (int i = good + 1; i < bad; i++) {
                    Verdict v = verdicts.get(i);
                    if (v == Verdict.DIFFERS || v == Verdict.NOT_REACHED) {
                        newBad = i;
                        break;
                    }
                }
                int newGood = good;
                for (int i = newBad - 1; i > good; i--) {
                    Verdict v = verdicts.get(i);
                    if (v == Verdict.AGREES || v == Verdict.TOLERATED) {
                        newGood = i;
                        break;
                    }
                }
                if (newBad == bad && newGood == good) {
                    break; // nothing left to learn in this interval
                }
                bad = newBad;
                good = newGood;
            }
            // the candidate's inputs: the instructions that last wrote what it reads
            Slice.Entry c = bad == sentinel ? slice.entries().get(slice.entries().size() - 1) : cands.get(bad);
            List<Integer> unknown = new ArrayList<>();
            int worst = -1;
            List<Integer> definers = inputsOf(c);
            for (int d : definers) {
                Integer ci = d < 0 ? null : candOfStep.get(d);
                if (ci == null) {
                    continue;
                }
                if (!verdicts.containsKey(ci) && !unknown.contains(ci)) {
                    unknown.add(ci);
                }
            }
            if (!unknown.isEmpty()) {
                for (int from = 0; from < unknown.size(); from += BATCH) {
                    probe(unknown.subList(from, Math.min(unknown.size(), from + BATCH)));
                }
            }
            for (int d : definers) {
                Integer ci = d < 0 ? null : candOfStep.get(d);
                Verdict v = ci == null ? null : verdicts.get(ci);
                if (v == Verdict.DIFFERS || v == Verdict.NOT_REACHED) {
                    worst = worst < 0 ? ci : Math.min(worst, ci);
                }
            }
            if (worst >= 0) {
                bad = worst;
                good = -1;
                for (int i = bad - 1; i >= 0; i--) {
                    Verdict v = verdicts.get(i);
                    if (v == Verdict.AGREES || v == Verdict.TOLERATED) {
                        good = i;
                        break;
                    }
                }
                continue;
            }
            answer = Optional.of(answerFor(c, bad == sentinel ? null : verdicts.get(bad)));
        }
        return new Result(answer, List.copyOf(probes), List.copyOf(runs), slice.entries().size(), cands.size(),
                List.copyOf(notes));
    }

    /**
     * The steps that wrote what {@code c} read: its registers' (and its branch condition's) definers, and for a load,
     * those of every store before it in the slice (the bytes it loaded may come from any of them, another wave's
     * included).
     */
    private List<Integer> inputsOf(Slice.Entry c) {
        List<Integer> out = new ArrayList<>(c.inputs().values());
        var m = c.step().insn().opcode().memory();
        if (m != null && (m.kind() == org.replayfarm.model.isa.MemoryAccess.Kind.LOAD
                || m.kind() == org.replayfarm.model.isa.MemoryAccess.Kind.ATOMIC)) {
            for (Slice.Entry e : slice.entries()) {
                if (e.step().seq() >= c.step().seq()) {
                    break;
                }
                var em = e.step().insn().opcode().memory();
                if (em != null && (em.kind() == org.replayfarm.model.isa.MemoryAccess.Kind.STORE
                        || em.kind() == org.replayfarm.model.isa.MemoryAccess.Kind.ATOMIC)) {
                    out.addAll(e.inputs().values());
                }
            }
        }
        return out;
    }

    /** One device run probing the PCs of the candidates {@code points} (and their earlier executions). */
    private void probe(List<Integer> points) throws Exception {
        Map<Long, Integer> hits = new LinkedHashMap<>();
        Map<Long, int[]> registers = new HashMap<>();
        for (int i : points) {
            Execution.Step s = cands.get(i).step();
            hits.merge(s.pc(), s.hit() + 1, Math::max);
            registers.put(s.pc(), s.access().writes());
        }
        List<ProbePatcher.Point> list = new ArrayList<>();
        for (var e : hits.entrySet()) {
            if (e.getValue() > MAX_HITS) {
                throw new IllegalArgumentException(String.format("pc 0x%x executes %d times before the execution to "
                        + "probe: more than a probe records (%d)", e.getKey(), e.getValue(), MAX_HITS));
            }
            list.add(new ProbePatcher.Point(e.getKey(), registers.get(e.getKey()), e.getValue()));
        }
        Map<Long, List<List<ProbePatcher.Record>>> records = runProbe(list);
        int number = runs.size();
        // judge every candidate at a probed PC whose execution came back
        for (int i = 0; i < cands.size(); i++) {
            Execution.Step s = cands.get(i).step();
            Integer max = hits.get(s.pc());
            if (max == null || s.hit() >= max || verdicts.containsKey(i)) {
                continue;
            }
            List<List<ProbePatcher.Record>> byWave = records.getOrDefault(s.pc(), List.of());
            List<ProbePatcher.Record> got = s.wave() < byWave.size() ? byWave.get(s.wave()) : List.of();
            Verdict v;
            if (s.hit() >= got.size()) {
                v = Verdict.NOT_REACHED;
                reasons.put(i, "the device executed it " + got.size() + " time(s), the host model at least "
                        + (s.hit() + 1));
            } else {
                deviceRecords.put(i, got.get(s.hit()));
                v = judge(i, s, got.get(s.hit()));
            }
            verdicts.put(i, v);
            probes.add(new Probe(number, s.wave(), s.pc(), s.hit(), s.text(), describe(i, v)));
        }
    }

    private String describe(int i, Verdict v) {
        return switch (v) {
            case AGREES -> "agrees";
            case TOLERATED -> "agrees (approximate, within the tolerance)";
            case NOT_REACHED -> "not reached: " + reasons.get(i);
            case DIFFERS -> "differs: " + reasons.get(i);
        };
    }

    private Verdict judge(int i, Execution.Step s, ProbePatcher.Record r) {
        Execution.Values h = host.get(s.seq());
        List<Value> wrong = differing(s, h, r);
        if (wrong.isEmpty()) {
            return Verdict.AGREES;
        }
        if (model.approximate(s.insn()) && wrong.stream().allMatch(w -> w.lane() >= 0
                && Ulps.f32NaNsAgree(w.host(), w.device()) <= Math.max(1, ulp))) {
            return Verdict.TOLERATED;
        }
        Value first = wrong.get(0);
        reasons.put(i, wrong.size() + " value(s) differ, the first " + first.register()
                + (first.lane() >= 0 ? " lane " + first.lane() : ""));
        return Verdict.DIFFERS;
    }

    /** The registers {@code s} wrote whose probed values differ from the host's (VGPRs: on the host's active lanes). */
    private List<Value> differing(Execution.Step s, Execution.Values h, ProbePatcher.Record r) {
        List<Value> out = new ArrayList<>();
        for (int reg : s.access().writes()) {
            int[] hv = h.after().get(reg);
            int[] dv = r.values().get(reg);
            if (hv == null || dv == null) {
                continue;
            }
            if (reg >= Registers.VGPR) {
                for (int l = 0; l < hv.length; l++) {
                    if ((h.execBefore() >>> l & 1) != 0 && hv[l] != dv[l]) {
                        out.add(new Value(Registers.name(reg), l, hv[l], dv[l]));
                    }
                }
            } else if (hv[0] != dv[0]) {
                out.add(new Value(Registers.name(reg), -1, hv[0], dv[0]));
            }
        }
        return out;
    }

    private Answer answerFor(Slice.Entry c, Verdict v) {
        Execution.Step s = c.step();
        Execution.Values h = host.get(s.seq());
        List<Value> differs = List.of();
        String kind;
        String why;
        int lane = 0;
        if (v == null && condition(s.insn().mnemonic()) != null) {
            kind = "path";
            why = "the branch went another way on the device while the instructions that wrote its condition agree "
                    + "where they could be probed";
        } else if (v == null) {
            kind = "store";
            why = "the bytes it stored differ while every register it reads agrees (probed where they were written)";
        } else if (v == Verdict.NOT_REACHED) {
            kind = "path";
            why = "the path diverged before it: " + reasons.get(candOfStep.get(s.seq()));
        } else {
            kind = "registers";
            differs = differing(s, h, deviceRecords.get(candOfStep.get(s.seq())));
            lane = differs.stream().filter(d -> d.lane() >= 0).mapToInt(Value::lane).findFirst().orElse(0);
            why = reasons.get(candOfStep.get(s.seq())) + " while the instructions that wrote its inputs agree";
            differs = differs.subList(0, Math.min(8, differs.size()));
        }
        List<Value> operands = new ArrayList<>();
        for (var in : new TreeMap<>(c.inputs()).entrySet()) {
            int reg = in.getKey();
            int[] hv = h.before().get(reg);
            if (hv == null) {
                continue; // the condition of the branch that led here: judged as an input, not an operand
            }
            Integer dv;
            Integer ci = in.getValue() < 0 ? null : candOfStep.get(in.getValue());
            int l = reg >= Registers.VGPR ? lane : -1;
            if (in.getValue() < 0) {
                dv = hv[Math.max(0, l)]; // the wave's initial value, the same capture on both sides
            } else if (ci != null && deviceRecords.containsKey(ci)) {
                int[] d = deviceRecords.get(ci).values().get(reg);
                dv = d == null ? null : d[Math.max(0, l)];
            } else {
                dv = null;
            }
            operands.add(new Value(Registers.name(reg), l, hv[Math.max(0, l)], dv));
        }
        return new Answer(s.wave(), s.pc(), s.index(), s.text(), kind, why, differs, operands);
    }
}
