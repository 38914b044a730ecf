package org.replayfarm.cli.commands;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Provenance;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.harness.NativeHarness;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure the host model on one core: wave- and lane-instructions per second on an ALU-heavy "
                + "and a memory-heavy kernel, and the ratio of its time to the same kernel compiled natively "
                + "(clang-19, x86-64) and run in one thread, for each host-model tier (compiled, fast and reference, measured in "
                + "the same run, with the ratio of each pair; native: the best of five runs, host: the best of --repeat; ratio: host wall / native, cpu ratio: "
                + "the host process's CPU time / native, the figure a loaded machine distorts least); --capture adds whole captures evaluated on both tiers, each "
                + "cold (its first whole pass, after a one-group warm-up on every tier; --cold-first picks which tier goes first) and warm (the best of --repeat further passes). Prints "
                + "figures; asserts nothing."})
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--groups", defaultValue = "8", description = "Groups of 64 work-items per kernel (default ${DEFAULT-VALUE}).")
    int groups;

    @Option(names = "--rounds", defaultValue = "2000", description = "Loop trips per work-item (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--tier", defaultValue = "all", paramLabel = "compiled|fast|reference|both|all|LIST",
            description = "Host-model tier(s) to measure: one, a comma-separated list, both (reference and fast) or all "
                    + "(default ${DEFAULT-VALUE}).")
    String tier;

    @Option(names = "--capture", paramLabel = "FILE", description = "Also evaluate every group of this capture on "
            + "each tier (repeatable), once cold and --repeat times warm, and print the fast tier's speed-up for both.")
    List<Path> captures = new ArrayList<>();

    @Option(names = "--threads", defaultValue = "1", paramLabel = "N", description = "Threads for --capture (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--repeat", defaultValue = "3", paramLabel = "N", description = "Measure each tier's run of a "
            + "kernel N times and keep the best (the least disturbed on a shared machine; default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--cold-first", defaultValue = "reference", paramLabel = "reference|fast|compiled", description = "With "
            + "--capture and several tiers: the tier whose cold pass runs first (the others follow, slowest first) (default ${DEFAULT-VALUE}); after the shared "
            + "warm-up the first still finds less of the shared code JIT-compiled, so run both orders to bound what is left.")
    String coldFirst;

    private List<HostModel.Tier> tiers;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        tiers = tiers(tier);
        for (Path c : captures) {
            benchCapture(c, out);
        }
        Path dir = Files.createTempDirectory("replay-bench");
        out.printf(Locale.ROOT, "%-8s %-9s %12s %14s %16s %10s %10s %10s %8s %9s%n", "kernel", "tier", "wave instr",
                "wave instr/s", "lane instr/s", "host s", "host cpu s", "native s", "ratio", "cpu ratio");
        bench("alu", dir, out, List.of("zeros:" + groups * 64 * 4, "u32:" + rounds), "(void *) __replay_buf[0], "
                + rounds + "u");
        byte[] table = new byte[4096 * 4];
        for (int i = 0; i < 4096; i++) {
            int v = (int) (i * 2654435761L >>> 7); // a scrambled permutation-like walk over the table
            table[4 * i] = (byte) v;
            table[4 * i + 1] = (byte) (v >>> 8);
        }
        Files.write(dir.resolve("table.bin"), table);
        bench("memory", dir, out, List.of("buffer:" + dir.resolve("table.bin"), "zeros:" + 16384 * 4, "u32:" + rounds),
                "(void *) __replay_buf[0], (void *) __replay_buf[1], " + rounds + "u");
        out.flush();
        return Replay.EXIT_OK;
    }

    private void bench(String name, Path root, PrintWriter out, List<String> args, String callArgs) throws Exception {
        Path dir = Files.createDirectories(root.resolve(name));
        try (InputStream in = BenchCommand.class.getResourceAsStream("/org/replayfarm/cli/bench/" + name + ".cl")) {
            Files.write(dir.resolve("kernel.cl"), in.readAllBytes());
        }
        Llvm.run(List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-nogpulib",
                "-O2", "-ffp-contract=off", "-c", dir.resolve("kernel.cl").toString(), "-o", dir.resolve("kernel.o").toString()));
        List<KernelArg> kernelArgs = new ArrayList<>();
        for (String a : args) {
            kernelArgs.add(KernelArg.parse(a));
        }
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(dir.resolve("kernel.o")), name,
                new DispatchShape(groups, 1, 1, 64, 1, 1, 1), kernelArgs, Provenance.newBuilder().setTool("replay bench").build());
        Path capture = dir.resolve("k.capture");
        built.write(capture);
        Kernel kernel = new Kernel(CaptureFile.open(capture));
        List<int[]> all = GroupSelection.everyGroup().resolve(kernel.dispatch());
        List<Evaluation.Outcome> outcomes = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        for (HostModel.Tier t : tiers) {
            Evaluation.run(kernel, all.subList(0, 1), 1, HostModel.DEFAULT_BUDGET, t, done -> { }); // warm-up
            Evaluation.Outcome o = null;
            double bestCpu = Double.MAX_VALUE;
            for (int r = 0; r < Math.max(1, repeat); r++) {
                long cpu0 = processCpuNanos();
                Evaluation.Outcome run = Evaluation.run(kernel, all, 1, HostModel.DEFAULT_BUDGET, t, done -> { });
                bestCpu = Math.min(bestCpu, (processCpuNanos() - cpu0) / 1e9);
                if (o == null || run.wallTime().compareTo(o.wallTime()) < 0) {
                    o = run;
                }
            }
            cpu.add(bestCpu);
            if (!o.faults().isEmpty()) {
                throw new IllegalStateException(name + ": the host model faulted: " + o.faults().get(0));
            }
            outcomes.add(o);
        }
        // the same source natively, one thread, work-items one after another
        Files.writeString(dir.resolve("prelude.h"), NativeHarness.prelude());
        int buffers = (int) args.stream().filter(a -> a.startsWith("buffer:") || a.startsWith("zeros:")).count();
        Files.writeString(dir.resolve("harness.c"), NativeHarness.source(name, new int[] {groups, 1, 1},
                new int[] {64, 1, 1}, buffers, callArgs, false));
        Llvm.run(NativeHarness.compileCommand(dir, 32, 1)); // a 1-D dispatch of wave32 groups
        List<String> run = new ArrayList<>(List.of(dir.resolve("native").toString()));
        for (int i = 0; i < buffers; i++) {
            Path in = dir.resolve("in" + i + ".bin");
            String a = args.get(i);
            Files.write(in, a.startsWith("buffer:") ? Files.readAllBytes(Path.of(a.substring(7)))
                    : new byte[Integer.parseInt(a.substring(6))]);
            run.add(in.toString());
            run.add(dir.resolve("out" + i + ".bin").toString());
        }
        // the best of five runs: the machine is shared, and the best is the run least slowed by other work
        double nativeSeconds = Double.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            nativeSeconds = Math.min(nativeSeconds, Long.parseLong(Llvm.run(run).trim()) / 1e9);
        }
        for (int i = 0; i < tiers.size(); i++) {
            Evaluation.Outcome o = outcomes.get(i);
            double hostSeconds = o.wallTime().toNanos() / 1e9;
            out.printf(Locale.ROOT, "%-8s %-9s %12d %14.0f %16.0f %10.3f %10.3f %10.4f %8.1f %9s%n", name,
                    tiers.get(i).name().toLowerCase(Locale.ROOT), o.waveInstructions(), o.waveInstructions() / hostSeconds,
                    o.laneInstructions() / hostSeconds, hostSeconds, cpu.get(i), nativeSeconds, hostSeconds / nativeSeconds,
                    ratio(cpu.get(i), nativeSeconds));
        }
        // each pair measured, the faster (later) tier first; kernel passes are warm (after a one-group warm-up, best of
        // --repeat)
        for (int j = tiers.size() - 1; j > 0; j--) {
            for (int i = j - 1; i >= 0; i--) {
                out.printf(Locale.ROOT, "%-8s %s tier %.1fx faster than the %s tier warm (wall), %sx (process CPU)%n",
                        name, name(tiers.get(j)), outcomes.get(i).wallTime().toNanos()
                                / (double) outcomes.get(j).wallTime().toNanos(), name(tiers.get(i)),
                        ratio(cpu.get(i), cpu.get(j)));
            }
        }
        if (tiers.contains(HostModel.Tier.COMPILED)) {
            out.printf(Locale.ROOT, "%-8s compiled tier code cache: %s%n", name, HostModel.compiledCodeCache());
        }
        out.flush();
    }

    /**
     * The tiers {@code --tier} names, slowest first (reference, fast, compiled) whatever order it lists them in, so that
     * every ratio line reads "the faster tier N.Nx faster than the slower".
     */
    static List<HostModel.Tier> tiers(String option) {
        java.util.Set<HostModel.Tier> named = java.util.EnumSet.noneOf(HostModel.Tier.class);
        for (String t : option.split(",")) {
            if (t.trim().equalsIgnoreCase("all")) {
                named.addAll(List.of(HostModel.Tier.values()));
            } else if (t.trim().equalsIgnoreCase("both")) {
                named.addAll(List.of(HostModel.Tier.REFERENCE, HostModel.Tier.FAST));
            } else {
                named.add(HostModel.Tier.parse(t));
            }
        }
        List<HostModel.Tier> out = new ArrayList<>();
        for (HostModel.Tier t : List.of(HostModel.Tier.REFERENCE, HostModel.Tier.FAST, HostModel.Tier.COMPILED)) {
            if (named.contains(t)) {
                out.add(t);
            }
        }
        return out;
    }

    private static String name(HostModel.Tier t) {
        return t.name().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code a / b} to one decimal, or "n/a" when {@code b} is no time the process CPU clock can tell (a pass of a few
     * milliseconds reads 0: the ratio would print as Infinity).
     */
    private static String ratio(double a, double b) {
        return b > 0 ? String.format(Locale.ROOT, "%.1f", a / b) : "n/a";
    }

    /**
     * Every group of a capture on each tier, one after the other in this process. First a shared warm-up: the
     * capture's first group once on every tier, so the class loading and first use of the code both tiers share
     * (capture, groups, memory, the scalar unit, the reference handlers) is paid there and not by whichever tier's
     * cold pass comes first (which favoured the fast tier's cold figure when the reference always ran first). Then
     * each tier, in the order {@code --cold-first} gives (printed), runs the whole capture once cold (its first
     * whole pass: its own specialisation, interpretation and JIT compilation included; the tier measured second
     * still finds shared code the first made hot compiled, a smaller bias {@code --cold-first} lets one measure),
     * then {@code --repeat} more passes of which the best is its steady state (warm): both tiers warm up alike, on a
     * whole pass each, and the ratio is printed for both.
     */
    private void benchCapture(Path path, PrintWriter out) throws Exception {
        Kernel kernel = new Kernel(CaptureFile.open(path));
        List<int[]> all = GroupSelection.everyGroup().resolve(kernel.dispatch());
        int n = tiers.size();
        List<HostModel.Tier> order = new ArrayList<>(tiers);
        HostModel.Tier first = HostModel.Tier.parse(coldFirst);
        if (order.remove(first)) {
            order.add(0, first);
        }
        for (HostModel.Tier t : order) {
            Evaluation.run(kernel, all.subList(0, Math.min(1, all.size())), threads, HostModel.DEFAULT_BUDGET, t, d -> { });
        }
        out.printf(Locale.ROOT, "capture %s  warm-up: group %s once on each tier before any cold pass (the code both "
                        + "tiers share loaded and run there); cold passes in the order %s (the later one still finds shared "
                        + "code the earlier made hot JIT-compiled; --cold-first swaps the order)%n", path.getFileName(),
                all.isEmpty() ? "none" : java.util.Arrays.toString(all.get(0)),
                order.stream().map(t -> t.name().toLowerCase(Locale.ROOT)).toList());
        double[] coldWall = new double[n];
        double[] coldCpu = new double[n];
        double[] wall = new double[n];
        double[] cpu = new double[n];
        for (HostModel.Tier t : order) {
            int i = tiers.indexOf(t); // figures by tier (reference, fast, compiled) whatever the order
            wall[i] = Double.MAX_VALUE;
            cpu[i] = Double.MAX_VALUE;
            Evaluation.Outcome o = null;
            for (int r = 0; r <= Math.max(1, repeat); r++) {
                if (r == 0 && t == HostModel.Tier.COMPILED) {
                    HostModel.clearCompiledCodeCache(); // the cold pass compiles every run it uses, counted in its time
                }
                long cpu0 = processCpuNanos();
                o = Evaluation.run(kernel, all, threads, HostModel.DEFAULT_BUDGET, t, d -> { });
                double c = (processCpuNanos() - cpu0) / 1e9;
                double s = o.wallTime().toNanos() / 1e9;
                if (r == 0) {
                    coldWall[i] = s;
                    coldCpu[i] = c;
                    if (t == HostModel.Tier.COMPILED) {
                        out.printf(Locale.ROOT, "capture %s  compiled tier cold pass: %s%n", path.getFileName(),
                                HostModel.compiledCodeCache());
                    }
                } else {
                    wall[i] = Math.min(wall[i], s);
                    cpu[i] = Math.min(cpu[i], c);
                }
            }
            out.printf(Locale.ROOT, "capture %s  tier %-9s  %d groups on %d thread(s)  %d wave / %d lane instr  "
                            + "cold %.3f s wall %.3f s process CPU  warm (best of %d) %.3f s wall %.3f s process CPU  "
                            + "%d fault(s)%n", path.getFileName(), t.name().toLowerCase(Locale.ROOT), o.groups(), threads,
                    o.waveInstructions(), o.laneInstructions(), coldWall[i], coldCpu[i], Math.max(1, repeat), wall[i],
                    cpu[i], o.faults().size());
        }
        for (int j = n - 1; j > 0; j--) {
            for (int i = j - 1; i >= 0; i--) {
                out.printf(Locale.ROOT, "capture %s  %s tier %sx faster than the %s tier warm (wall), %sx (process "
                                + "CPU); cold %sx (wall), %sx (process CPU), %s cold pass first%n", path.getFileName(),
                        name(tiers.get(j)), ratio(wall[i], wall[j]), name(tiers.get(i)), ratio(cpu[i], cpu[j]),
                        ratio(coldWall[i], coldWall[j]), ratio(coldCpu[i], coldCpu[j]), name(order.get(0)));
            }
        }
        if (tiers.contains(HostModel.Tier.COMPILED)) {
            out.printf(Locale.ROOT, "capture %s  compiled tier code cache: %s (its compilation is inside the compiled "
                    + "tier's cold figures)%n", path.getFileName(), HostModel.compiledCodeCache());
        }
        out.flush();
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }
}
