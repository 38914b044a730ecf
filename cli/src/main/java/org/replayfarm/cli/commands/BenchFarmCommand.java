package org.replayfarm.cli.commands;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.StreamSupport;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.job.JobProgress;
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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;

@Command(name = "bench-farm", mixinStandardHelpOptions = true,
        description = {"Time one ALU-bound capture (built with clang-19) four ways: replay eval on one thread, replay "
                + "eval on all cores, the embedded cluster of replay run, and a cluster of two evaluator JVMs "
                + "(replay node --role eval, half the cores each) with this process as coordinator; then, on that "
                + "cluster, the coordinator's peak live heap for jobs of few and of many tiny groups. Prints figures; "
                + "asserts nothing."})
public final class BenchFarmCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--groups", defaultValue = "64", description = "Groups of 64 work-items (default ${DEFAULT-VALUE}).")
    int groups;

    @Option(names = "--iters", defaultValue = "40000", description = "Loop trips per work-item (default ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = "--threads", description = "Threads for the all-cores rows (default: all cores).")
    Integer threads;

    @Option(names = "--repeat", defaultValue = "3",
            description = "Alternating runs of eval on all cores and run (embedded); each row is their median "
                    + "(default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--memory-groups", split = ",", defaultValue = "1000,100000",
            description = "Group counts of the coordinator memory runs (default ${DEFAULT-VALUE}).")
    List<Integer> memoryGroups;

    static final String SPIN = """
            __kernel void spin(__global uint *out, uint iters) {
                uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
                uint x = i;
                for (uint k = 0; k < iters; k++) {
                    x = x * 1664525u + 1013904223u;
                }
                out[i & 1023] = x;
            }
            """;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (repeat < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--repeat must be at least 1, not " + repeat);
        }
        Path dir = Files.createTempDirectory("replay-bench-farm");
        try {
            Files.writeString(dir.resolve("spin.cl"), SPIN);
            Llvm.run(List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-nogpulib",
                    "-O2", "-c", dir.resolve("spin.cl").toString(), "-o", dir.resolve("spin.o").toString()));
            int cores = threads != null ? threads : Runtime.getRuntime().availableProcessors();
            Path capture = capture(dir, groups, iters);
            out.printf(Locale.ROOT, "%d groups x 64 work-items, %d loop trips each, %d cores%n", groups, iters, cores);
            out.printf(Locale.ROOT, "%-28s %10s %12s%n", "", "seconds", "groups/s");
            Kernel kernel = new Kernel(CaptureFile.open(capture));
            List<int[]> all = GroupSelection.everyGroup().resolve(kernel.dispatch());
            Evaluation.run(kernel, all.subList(0, Math.min(4, all.size())), cores, HostModel.DEFAULT_BUDGET, d -> { });
            row(out, "eval, 1 thread", Evaluation.run(kernel, all, 1, HostModel.DEFAULT_BUDGET, d -> { }).wallTime().toNanos());
            // the two rows the 5% target compares alternate, repeat times each; each row is the median
            long[] allCoresRuns = new long[repeat];
            long[] embeddedRuns = new long[repeat];
            try (FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("embedded"))
                    .withEvalThreads(cores))) {
                String sha = node.jobs().storeCapture(capture);
                job(node, sha, dir.resolve("warm"), null); // fetch, decode, JIT
                for (int r = 0; r < repeat; r++) {
                    allCoresRuns[r] = Evaluation.run(kernel, all, cores, HostModel.DEFAULT_BUDGET, d -> { }).wallTime().toNanos();
                    embeddedRuns[r] = job(node, sha, dir.resolve("embedded-out-" + r), null);
                }
            }
            long allCores = median(allCoresRuns);
            long embedded = median(embeddedRuns);
            row(out, "eval, " + cores + " threads", allCores);
            row(out, "run (embedded), " + cores + " threads", embedded);
            out.printf(Locale.ROOT, "%-28s %+9.1f%%   (medians of %d alternating runs; each pair: %s)%n", "  embedded vs eval",
                    100.0 * (embedded - allCores) / allCores, repeat, pairs(allCoresRuns, embeddedRuns));
            out.flush();
            twoJvms(dir, Math.max(1, cores / 2), coordinator -> {
                String sha = coordinator.jobs().storeCapture(capture);
                job(coordinator, sha, dir.resolve("two-warm"), null);
                row(out, "cluster, 2 eval JVMs", job(coordinator, sha, dir.resolve("two-out"), null));
                // the coordinator's memory: this JVM holds only the coordinator here (the evaluators are the
                // two child JVMs), sampled as live heap after a collection while a job of tiny groups runs
                for (int n : memoryGroups) {
                    String small = coordinator.jobs().storeCapture(capture(dir, n, 1));
                    AtomicLong peak = new AtomicLong();
                    Thread sampler = new Thread(() -> {
                        var memory = java.lang.management.ManagementFactory.getMemoryMXBean();
                        while (!Thread.currentThread().isInterrupted()) {
                            System.gc();
                            peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                            try {
                                TimeUnit.MILLISECONDS.sleep(100);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    }, "heap-sampler");
                    sampler.setDaemon(true);
                    sampler.start();
                    long t;
                    try {
                        t = job(coordinator, small, dir.resolve("memory-out-" + n), null);
                    } finally {
                        sampler.interrupt();
                        sampler.join();
                    }
                    out.printf(Locale.ROOT, "coordinator, %7d groups: %.2f s, peak live heap %.1f MiB (its own JVM; after "
                            + "GC, sampled every 100 ms)%n", n, t / 1e9, peak.get() / 1048576.0);
                    out.flush();
                }
            });
        } finally {
            RunCommand.deleteTree(dir);
        }
        return Replay.EXIT_OK;
    }

    private Path capture(Path dir, int n, int trips) throws Exception {
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(dir.resolve("spin.o")), "spin",
                new DispatchShape(n, 1, 1, 64, 1, 1, 1), List.of(KernelArg.parse("zeros:4096"), KernelArg.parse("u32:" + trips)),
                Provenance.newBuilder().setTool("replay bench-farm").build());
        Path capture = dir.resolve("spin-" + n + "-" + trips + ".capture");
        built.write(capture);
        return capture;
    }

    private static long median(long[] runs) {
        long[] sorted = runs.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String pairs(long[] eval, long[] embedded) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < eval.length; i++) {
            b.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%+.1f%%", 100.0 * (embedded[i] - eval[i]) / eval[i]));
        }
        return b.toString();
    }

    private void row(PrintWriter out, String what, long nanos) {
        out.printf(Locale.ROOT, "%-28s %10.3f %12.1f%n", what, nanos / 1e9, groups / (nanos / 1e9));
        out.flush();
    }

    /** Runs a job to its end; returns its time (ns). {@code peak}: sampled heap in use. */
    private static long job(FarmNode node, String sha, Path out, AtomicLong peak) throws Exception {
        CompletableFuture<JobProgress> end = new CompletableFuture<>();
        String id = "bench-" + System.nanoTime();
        long start = System.nanoTime();
        node.jobs().start(id, sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, out);
        try (AutoCloseable sub = node.jobs().subscribe(id, p -> {
            if (peak != null) {
                Runtime r = Runtime.getRuntime();
                peak.accumulateAndGet(r.totalMemory() - r.freeMemory(), Math::max);
            }
            if (p.ended()) {
                end.complete(p);
            }
        })) {
            JobProgress p = end.get(30, TimeUnit.MINUTES);
            if (!p.state().equals("finished")) {
                throw new IllegalStateException("the job failed: " + p.error());
            }
        }
        return System.nanoTime() - start;
    }

    /** What to do with the coordinator of the two-JVM cluster. */
    interface WithCoordinator {
        void accept(FarmNode coordinator) throws Exception;
    }

    /** Starts this process as coordinator and two evaluator JVMs, then hands the coordinator to {@code then}. */
    private static void twoJvms(Path dir, int threads, WithCoordinator then) throws Exception {
        List<Process> children = new ArrayList<>();
        // the children are started inside the coordinator's block, so none outlives a failed start
        try (FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR), dir.resolve("two")))) {
            try {
                withEvaluators(coordinator, dir, threads, children, then);
            } finally {
                // the evaluators leave first (SIGTERM: each drains and leaves the cluster), then the coordinator
                // closes: closing it first left their connections to be aborted, which Akka logs as warnings
                stop(children);
            }
        }
    }

    /**
     * Starts two evaluator JVMs joined to {@code coordinator} (into {@code children}), waits until their shard
     * regions are known, then runs {@code then}.
     */
    private static void withEvaluators(FarmNode coordinator, Path dir, int threads, List<Process> children,
                                       WithCoordinator then) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int i = 0; i < 2; i++) {
            ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    Replay.class.getName(), "node", "--role", "eval", "--host", "127.0.0.1", "--port", "0", "--seed",
                    coordinator.seed(), "--threads", String.valueOf(threads), "--metrics-port", "0", "--work-dir",
                    dir.resolve("two-eval-" + i).toString());
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            Process p = pb.start();
            children.add(p);
            String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (line == null || !line.startsWith("node ")) {
                throw new IllegalStateException("an evaluator JVM did not start");
            }
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (upMembers(coordinator) < 3) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("the evaluator JVMs did not join");
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        while (coordinator.evaluatorRegions(Duration.ofSeconds(1)) < 2) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("the evaluator JVMs' shard regions are not known");
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        then.accept(coordinator);
    }

    /** SIGTERM to each child still running, then waits for all (up to 30 s each before SIGKILL). */
    private static void stop(List<Process> children) throws InterruptedException {
        for (Process p : children) {
            p.destroy();
        }
        for (Process p : children) {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private static long upMembers(FarmNode node) {
        return StreamSupport.stream(Cluster.get(node.system()).state().getMembers().spliterator(), false)
                .filter(m -> m.status() == MemberStatus.up()).count();
    }
}
