package org.replayfarm.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.divergence.ExecMutant;
import org.replayfarm.cli.divergence.Mutants;

@Command(name = "bench-first-divergence", mixinStandardHelpOptions = true,
        description = {"Plant single-instruction bugs in translations and see whether the farm names them: for each "
                + "capture (default: the examples), translate it, plant mutants (Mutants: a destination bit flipped, "
                + "operands swapped, EXEC ignored, a scalar condition inverted, wrong rounding, the denormal mode "
                + "flipped, a cross-lane read one lane off), run each as --device cuda-cpu:DIR over the whole dispatch, "
                + "and where an output changed, replay explain --first-divergence. Prints each mutant's verdict and the "
                + "figures: mutants, changed an output, named exactly, named a neighbour (within 2 instructions), "
                + "missed. Asserts nothing."})
public final class BenchFirstDivergenceCommand implements Callable<Integer> {
    @Spec
    public CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE", arity = "0..*")
    public List<Path> captures = new ArrayList<>();

    @Option(names = "--mutants", defaultValue = "12", description = "Mutants per capture (default ${DEFAULT-VALUE}).")
    public int perCapture;

    @Option(names = "--seed", defaultValue = "34", description = "The sample's seed (default ${DEFAULT-VALUE}).")
    public long seed;

    @Option(names = "--method", defaultValue = "both", paramLabel = "trace|probes|both",
            description = "Which half to measure: lockstep traces of mutated translations (cuda-cpu:DIR), probe "
                    + "bisection of an exec: device that mutates the same kind of instruction in whatever capture it is "
                    + "given (replay mutant-run), or both (default).")
    public String method;

    @Option(names = "--work", paramLabel = "DIR", description = "Where the mutant folders and runs go (default: a temporary folder, removed).")
    public Path work;

    /** One exec: mutant's verdict under probe bisection, with the probe runs its search took. */
    public record ProbeVerdict(String capture, long pc, String instruction, Mutants.Operator op, String outcome, long foundPc,
                        int probeRuns, double seconds) {
    }

    /** One mutant's verdict. */
    public record Verdict(String capture, long pc, String instruction, Mutants.Operator op, String outcome, long foundPc,
                   double seconds) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (captures.isEmpty()) {
            Path root = Path.of("examples");
            captures = List.of(root.resolve("saxpy/saxpy.capture"), root.resolve("shadow-pass/shadow.capture"),
                    root.resolve("hip-reduce/reduce.capture"), root.resolve("bloom-tiles/bloom.capture"));
        }
        setUp();
        Path dir = work != null ? Files.createDirectories(work) : Files.createTempDirectory("replay-mutants");
        if (!List.of("trace", "probes", "both").contains(method)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--method " + method
                    + ": expected trace, probes or both");
        }
        List<Verdict> all = new ArrayList<>();
        List<ProbeVerdict> probed = new ArrayList<>();
        try {
            for (Path c : captures) {
                if (!method.equals("probes")) {
                    all.addAll(bench(c, dir, out));
                }
                if (!method.equals("trace")) {
                    probed.addAll(benchProbes(c, dir, out));
                }
            }
        } finally {
            if (work == null) {
                CpuBuild.deleteTree(dir);
            }
        }
        if (!method.equals("probes")) {
            out.println("lockstep traces (cuda-cpu:DIR mutants):");
            summary(all, out);
        }
        if (!method.equals("trace")) {
            out.println("probe bisection (exec: mutants):");
            probeSummary(probed, out);
        }
        out.flush();
        return Replay.EXIT_OK;
    }

    /** The builds of the mutants' runs: -O0 (the same results, the cheapest builds). */
    public static void setUp() {
        if (System.getProperty("replay.cuda-cpu.opt") == null) {
            System.setProperty("replay.cuda-cpu.opt", "-O0");
        }
    }

    /**
     * Instructions one wave may execute on both sides, so that a mutant that loops for ever stops soon: four times the
     * most any group of the capture executes on the host model (a bound on any of its waves), and at least 10000.
     */
    public static long budgetOf(CaptureFile capture) {
        org.replayfarm.evalnode.hostmodel.Kernel kernel = new org.replayfarm.evalnode.hostmodel.Kernel(capture);
        org.replayfarm.evalnode.hostmodel.HostModel host = new org.replayfarm.evalnode.hostmodel.HostModel(kernel,
                org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET);
        var d = kernel.dispatch();
        long most = 0;
        for (int z = 0; z < d.getGroupCountZ(); z++) {
            for (int y = 0; y < d.getGroupCountY(); y++) {
                for (int x = 0; x < d.getGroupCountX(); x++) {
                    most = Math.max(most, host.runGroup(x, y, z).waveInstructions());
                }
            }
        }
        return Math.max(10_000, 4 * most);
    }

    /** Plants and judges the mutants of one capture. */
    public List<Verdict> bench(Path file, Path dir, PrintWriter out) throws Exception {
        CaptureFile capture = CaptureFile.open(file);
        Translation t = new Translator().translate(ProgramInfo.of(capture));
        String name = file.getFileName().toString().replaceAll("\\.capture$", "");
        out.printf("%s: wave%d, %d instructions translated%n", file, capture.metadata().getProgram().getWaveSize() == 0
                ? 32 : capture.metadata().getProgram().getWaveSize(), Mutants.sites(t.source()).size());
        out.flush();
        Path base = dir.resolve(name + "-translation");
        CpuBuild.writeSources(t, base);
        String kernel = Files.readString(base.resolve("kernel.cu"));
        List<Mutants.Site> sites = Mutants.sites(kernel);
        List<Object[]> candidates = new ArrayList<>();
        for (Mutants.Site s : sites) {
            for (Mutants.Operator op : Mutants.Operator.values()) {
                Mutants.apply(kernel, s, op).ifPresent(k -> candidates.add(new Object[] {s, op, k}));
            }
        }
        Collections.shuffle(candidates, new Random(seed));
        List<Verdict> verdicts = new ArrayList<>();
        long budget = budgetOf(capture);
        System.setProperty("replay.cuda-cpu.budget", Long.toString(budget));
        // the translation as made, before any bug is planted: equal to the host model, no group faulting
        Path baseline = dir.resolve(name + "-baseline-run");
        CpuBuild.deleteTree(baseline);
        int status = quiet("run", file.toString(), "--every-group", "--device", "cuda-cpu:" + base, "--out",
                baseline.toString(), "--budget", Long.toString(budget));
        JsonNode report = Files.isRegularFile(baseline.resolve("report.json"))
                ? new ObjectMapper().readTree(baseline.resolve("report.json").toFile()) : null;
        if (status != Replay.EXIT_OK || report == null || report.path("faults").size() > 0
                || report.path("device").path("fidelity").path("faulted_groups").asInt(0) > 0) {
            throw new IllegalStateException(file + ": the unplanted translation does not compare equal to the host model "
                    + "without faults within " + budget + " instructions per wave (exit " + status + "; see " + baseline
                    + ")");
        }
        for (Object[] c : candidates.subList(0, Math.min(perCapture, candidates.size()))) {
            Mutants.Site site = (Mutants.Site) c[0];
            Mutants.Operator op = (Mutants.Operator) c[1];
            Verdict v = judge(file, name, base, dir, sites, site, op, (String) c[2], budget);
            verdicts.add(v);
            out.printf(Locale.ROOT, "  0x%x %-40s %-9s %-10s%s (%.1f s)%n", v.pc(), trim(v.instruction()), v.op(),
                    v.outcome(), v.foundPc() >= 0 && v.foundPc() != v.pc() ? " named 0x" + Long.toHexString(v.foundPc())
                            : "", v.seconds());
            out.flush();
        }
        return verdicts;
    }

    private static String trim(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }

    private Verdict judge(Path capture, String name, Path base, Path dir, List<Mutants.Site> sites, Mutants.Site site,
                          Mutants.Operator op, String kernel, long budget) throws Exception {
        long start = System.nanoTime();
        String tag = name + "-" + Long.toHexString(site.pc()) + "-" + op.name().toLowerCase(Locale.ROOT);
        Path mutant = dir.resolve(tag);
        CpuBuild.deleteTree(mutant);
        Files.createDirectories(mutant);
        try (var list = Files.list(base)) {
            for (Path f : list.toList()) {
                Files.copy(f, mutant.resolve(f.getFileName()));
            }
        }
        Files.writeString(mutant.resolve("kernel.cu"), kernel);
        Path run = dir.resolve(tag + "-run");
        CpuBuild.deleteTree(run);
        int status = quiet("run", capture.toString(), "--every-group", "--device", "cuda-cpu:" + mutant, "--out",
                run.toString(), "--budget", Long.toString(budget));
        String outcome;
        long found = -1;
        if (status == Replay.EXIT_OK) {
            outcome = "unchanged";
        } else if (status != Replay.EXIT_DIFFERENCES) {
            outcome = "no-run";
        } else {
            int e = quiet("explain", run.toString(), "--first-divergence");
            JsonNode f = Files.isRegularFile(run.resolve("report.json"))
                    ? new ObjectMapper().readTree(run.resolve("report.json").toFile()).path("first_divergence")
                    : null;
            if (e != 0 || f == null || !f.path("found").asBoolean(false)) {
                outcome = "missed";
            } else {
                found = Long.parseUnsignedLong(f.path("pc").asText().substring(2), 16);
                int at = indexOf(sites, site.pc());
                int got = indexOf(sites, found);
                outcome = found == site.pc() ? "exact" : got >= 0 && Math.abs(got - at) <= 2 ? "neighbour" : "missed";
            }
        }
        return new Verdict(name, site.pc(), site.instruction(), op, outcome, found, (System.nanoTime() - start) / 1e9);
    }

    private static int indexOf(List<Mutants.Site> sites, long pc) {
        for (int i = 0; i < sites.size(); i++) {
            if (sites.get(i).pc() == pc) {
                return i;
            }
        }
        return -1;
    }

    /** Runs a replay command in this JVM with its output discarded; its exit status. */
    private static int quiet(String... args) {
        CommandLine cli = Replay.commandLine(args[0]);
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(new StringWriter()));
        return cli.execute(args);
    }

    public static void summary(List<Verdict> all, PrintWriter out) {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        Map<Mutants.Operator, int[]> byOp = new EnumMap<>(Mutants.Operator.class);
        for (Verdict v : all) {
            counts.merge(v.outcome(), 1, Integer::sum);
            int[] c = byOp.computeIfAbsent(v.op(), k -> new int[3]);
            if (!v.outcome().equals("unchanged") && !v.outcome().equals("no-run")) {
                c[0]++;
                c[1] += v.outcome().equals("exact") ? 1 : 0;
            }
        }
        int changed = counts.getOrDefault("exact", 0) + counts.getOrDefault("neighbour", 0)
                + counts.getOrDefault("missed", 0);
        int exact = counts.getOrDefault("exact", 0);
        out.printf(Locale.ROOT, "mutants %d, changed an output %d, named exactly %d (%.1f%%), named a neighbour %d, "
                        + "missed %d; unchanged %d, did not run %d%n", all.size(), changed, exact,
                changed == 0 ? 0.0 : 100.0 * exact / changed, counts.getOrDefault("neighbour", 0),
                counts.getOrDefault("missed", 0), counts.getOrDefault("unchanged", 0), counts.getOrDefault("no-run", 0));
        for (Map.Entry<Mutants.Operator, int[]> e : byOp.entrySet()) {
            out.printf("  %-10s changed %d, exact %d%n", e.getKey().name().toLowerCase(Locale.ROOT), e.getValue()[0],
                    e.getValue()[1]);
        }
    }

    /**
     * The exec: half: plants mutants into the host model through {@code replay mutant-run} run as an {@code exec:}
     * device (a new JVM per run, as any exec: program is), runs each over the whole dispatch, and where an output
     * changed, {@code explain --first-divergence} (probe bisection, the default for exec:).
     */
    public List<ProbeVerdict> benchProbes(Path file, Path dir, PrintWriter out) throws Exception {
        CaptureFile capture = CaptureFile.open(file);
        org.replayfarm.evalnode.hostmodel.Kernel kernel = new org.replayfarm.evalnode.hostmodel.Kernel(capture);
        int ws = kernel.waveSize();
        String name = file.getFileName().toString().replaceAll("\\.capture$", "");
        List<org.replayfarm.model.isa.Instruction> program = new ArrayList<>();
        for (var insn : kernel.program().instructions()) {
            if (!insn.mnemonic().equals("s_code_end")) {
                program.add(insn);
            }
        }
        List<Object[]> candidates = new ArrayList<>();
        for (var insn : program) {
            if (!org.replayfarm.evalnode.probe.ProbePatcher.probeable(insn)) {
                continue;
            }
            for (Mutants.Operator op : Mutants.Operator.values()) {
                if (ExecMutant.applies(op, insn, ws)) {
                    candidates.add(new Object[] {insn, op});
                }
            }
        }
        Collections.shuffle(candidates, new Random(seed));
        out.printf("%s (exec: mutants): wave%d, %d instructions, %d candidate mutants%n", file, ws, program.size(),
                candidates.size());
        out.flush();
        long budget = budgetOf(capture);
        var p = capture.metadata().getProgram();
        java.nio.ByteBuffer code = capture.blob(p.getCode()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        List<ProbeVerdict> verdicts = new ArrayList<>();
        for (Object[] c : candidates.subList(0, Math.min(perCapture, candidates.size()))) {
            var insn = (org.replayfarm.model.isa.Instruction) c[0];
            Mutants.Operator op = (Mutants.Operator) c[1];
            long start = System.nanoTime();
            int word = code.getInt((int) (insn.pc() - p.getCodeAddress()));
            String tag = name + "-exec-" + Long.toHexString(insn.pc()) + "-" + op.name().toLowerCase(Locale.ROOT);
            Path run = dir.resolve(tag + "-run");
            CpuBuild.deleteTree(run);
            String device = "exec:" + mutantCommand(op, insn.pc(), word, budget);
            int status = quiet("run", file.toString(), "--every-group", "--device", device, "--out", run.toString(),
                    "--budget", Long.toString(budget));
            String outcome;
            long found = -1;
            int runs = 0;
            if (status == Replay.EXIT_OK) {
                outcome = "unchanged";
            } else if (status != Replay.EXIT_DIFFERENCES) {
                outcome = "no-run";
            } else {
                int e = quiet("explain", run.toString(), "--first-divergence");
                JsonNode f = Files.isRegularFile(run.resolve("report.json"))
                        ? new ObjectMapper().readTree(run.resolve("report.json").toFile()).path("first_divergence")
                        : null;
                runs = f == null ? 0 : f.path("probe_runs").asInt(0);
                if (e != 0 || f == null || !f.path("found").asBoolean(false)) {
                    outcome = "missed";
                } else {
                    found = Long.parseUnsignedLong(f.path("pc").asText().substring(2), 16);
                    int at = indexIn(program, insn.pc());
                    int got = indexIn(program, found);
                    outcome = found == insn.pc() ? "exact" : got >= 0 && Math.abs(got - at) <= 2 ? "neighbour" : "missed";
                }
            }
            if (work == null) {
                CpuBuild.deleteTree(run);
            }
            String text = org.replayfarm.model.isa.Disassembler.text(insn, ws == 64
                    ? org.replayfarm.model.isa.Syntax.WAVE64 : org.replayfarm.model.isa.Syntax.WAVE32);
            ProbeVerdict v = new ProbeVerdict(name, insn.pc(), text, op, outcome, found, runs,
                    (System.nanoTime() - start) / 1e9);
            verdicts.add(v);
            out.printf(Locale.ROOT, "  0x%x %-40s %-9s %-10s%s%s (%.1f s)%n", v.pc(), trim(v.instruction()), v.op(),
                    v.outcome(), v.foundPc() >= 0 && v.foundPc() != v.pc() ? " named 0x" + Long.toHexString(v.foundPc())
                            : "", v.probeRuns() > 0 ? ", " + v.probeRuns() + " probe run(s)" : "", v.seconds());
            out.flush();
        }
        return verdicts;
    }

    /** The exec: command that runs a capture on the host model with the planted bug: this JVM's java, class path. */
    public static String mutantCommand(Mutants.Operator op, long pc, int word, long budget) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return java + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp " + System.getProperty("java.class.path")
                + " org.replayfarm.cli.Replay mutant-run {capture} {out} --op " + op.name() + " --pc 0x"
                + Long.toHexString(pc) + " --word 0x" + Integer.toHexString(word) + " --budget " + budget;
    }

    private static int indexIn(List<org.replayfarm.model.isa.Instruction> program, long pc) {
        for (int i = 0; i < program.size(); i++) {
            if (program.get(i).pc() == pc) {
                return i;
            }
        }
        return -1;
    }

    public static void probeSummary(List<ProbeVerdict> all, PrintWriter out) {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        Map<Mutants.Operator, int[]> byOp = new EnumMap<>(Mutants.Operator.class);
        int searches = 0;
        int runs = 0;
        int most = 0;
        for (ProbeVerdict v : all) {
            counts.merge(v.outcome(), 1, Integer::sum);
            if (!v.outcome().equals("unchanged") && !v.outcome().equals("no-run")) {
                int[] c = byOp.computeIfAbsent(v.op(), k -> new int[2]);
                c[0]++;
                c[1] += v.outcome().equals("exact") ? 1 : 0;
                searches++;
                runs += v.probeRuns();
                most = Math.max(most, v.probeRuns());
            }
        }
        int exact = counts.getOrDefault("exact", 0);
        out.printf(Locale.ROOT, "mutants %d, changed an output %d, named exactly %d (%.1f%%), named a neighbour %d, "
                        + "missed %d; unchanged %d, did not run %d; probe runs per search: mean %.1f, max %d%n",
                all.size(), searches, exact, searches == 0 ? 0.0 : 100.0 * exact / searches,
                counts.getOrDefault("neighbour", 0), counts.getOrDefault("missed", 0),
                counts.getOrDefault("unchanged", 0), counts.getOrDefault("no-run", 0),
                searches == 0 ? 0.0 : (double) runs / searches, most);
        for (Map.Entry<Mutants.Operator, int[]> e : byOp.entrySet()) {
            out.printf("  %-10s changed %d, exact %d%n", e.getKey().name().toLowerCase(Locale.ROOT), e.getValue()[0],
                    e.getValue()[1]);
        }
    }

    /** For tests: the share of probe verdicts named exactly among those that changed an output. */
    public static Optional<Double> probeExactShare(List<ProbeVerdict> all) {
        long changed = all.stream().filter(v -> !v.outcome().equals("unchanged") && !v.outcome().equals("no-run")).count();
        long exact = all.stream().filter(v -> v.outcome().equals("exact")).count();
        return changed == 0 ? Optional.empty() : Optional.of((double) exact / changed);
    }

    /** For tests: the figures of a list of verdicts, as {@link #summary} counts them. */
    public static Optional<Double> exactShare(List<Verdict> all) {
        long changed = all.stream().filter(v -> !v.outcome().equals("unchanged") && !v.outcome().equals("no-run")).count();
        long exact = all.stream().filter(v -> v.outcome().equals("exact")).count();
        return changed == 0 ? Optional.empty() : Optional.of((double) exact / changed);
    }
}
