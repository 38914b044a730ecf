package org.replayfarm.cli.commands;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.report.Comparison;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.batch.Baseline;
import org.replayfarm.cli.batch.BatchRun;
import org.replayfarm.cli.batch.RunTimings;
import org.replayfarm.cli.daemon.RunDaemon;
import org.replayfarm.cli.divergence.FirstDivergence;
import org.replayfarm.cli.divergence.ProbeDivergence;

@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Evaluate groups of a capture on an embedded cluster in this process: one ActorSystem with "
                + "the coordinator and eval roles, the capture stored by the coordinator (served over loopback HTTP to any "
                + "other node; this node's evaluators take the copy this command decoded), groups sharded in slices "
                + "over evaluator entities on a dedicated dispatcher.",
                "Then compares the host's merged memory and images with the device's (--device): every texel and "
                        + "byte a host store wrote, and what the device changed that no host store wrote.",
                "Writes DIR/report.json (replay-farm/run-report/2, docs/report-schema.md), DIR/summary.txt, "
                        + "DIR/junit.xml, DIR/host/ and DIR/device/ (guest-<n>.bin, image-<k>.raw and .png) and "
                        + "DIR/diff/image-<k>.png; a live progress bar (groups done, rate, ETA) goes to stderr.",
                "Exit status 0 when equal (or host only without faults), 1 when different (or a group faulted, "
                        + "groups conflicted, or slices were nondeterministic), 2 on error."})
public final class RunCommand implements Callable<Integer> {
    @Spec
    public CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE", arity = "0..*",
            description = "The capture; several (or --manifest) run as a batch in one cluster, each into DIR/<name>/.")
    public List<Path> captures = new ArrayList<>();

    public Path capture;

    @Option(names = "--manifest", paramLabel = "FILE",
            description = "A batch: one capture per line (relative to the file; # comments), added to those given; "
                    + "after the path a line may give its capture --ulp N, --abs X, --rel X and --view SPEC of its own.")
    public Path manifest;

    @Option(names = "--baseline", paramLabel = "FILE",
            description = "Known differences (CAPTURE range NAME bytes A..B, CAPTURE image K x X0..X1 y Y0..Y1, ... *): a "
                    + "capture whose differences are all known is expected-fail; one no longer seen is a note.")
    public Path baseline;

    @Option(names = "--write-baseline", paramLabel = "FILE",
            description = "Write every difference of this batch as a baseline file (to accept them as known).")
    public Path writeBaseline;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "A batch's capture that has no result after this long is a timeout (default: no limit).")
    public long timeout;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "2",
            description = "Captures of a batch run at once (default ${DEFAULT-VALUE}).")
    public int parallel;

    @ArgGroup(exclusive = true, multiplicity = "1")
    public GroupOptions selection;

    @Option(names = "--evaluators", paramLabel = "N", description = "Evaluator threads (default: all cores).")
    public Integer evaluators;

    @Option(names = "--first-divergence",
            description = "When the device differs, find the first wrong instruction as replay explain OUT "
                    + "--first-divergence does (a translation device: cuda-cpu, cuda-cpu:DIR), print it after the summary "
                    + "and write it into the report.")
    public boolean firstDivergence;

    @Option(names = "--budget", paramLabel = "N", description = "Instructions one wave may execute (default ${DEFAULT-VALUE}).",
            defaultValue = "" + HostModel.DEFAULT_BUDGET)
    public long budget;

    @Option(names = "--tier", paramLabel = "compiled|fast|reference", description = "Host-model tier the evaluators "
            + "run (default: the replay.tier property, else the host model's default tier; the same results on every "
            + "tier). A run with --tier runs in its own process, not in the run daemon.")
    public String tier;

    @Option(names = "--progress", negatable = true,
            description = "Draw the progress bar on stderr (default: when stderr is a terminal).")
    public Boolean progress;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    public Path out;

    @picocli.CommandLine.Mixin
    public CompareOptions comparison = new CompareOptions();

    @picocli.CommandLine.Mixin
    public MetricsOptions metrics = new MetricsOptions();

    @Option(names = "--timings",
            description = "Print where the run's time went (JVM start, node start, evaluation, comparison and report, "
                    + "shutdown: wall and process CPU seconds) to stderr.")
    public boolean timings;

    @Option(names = "--daemon", negatable = true,
            description = "Run in this user's run daemon (replay daemon --help), started when there is none: no JVM or "
                    + "cluster start, code already compiled; same outputs (default: REPLAY_DAEMON, else off).")
    public Boolean daemon;

    /** Set when the run daemon runs this command for a client: its node, the client's terminal and stderr. */
    public RunDaemon.Session session;

    /** Why the run daemon does not run a batch ({@link #batch()}): its client runs it in its own process. */
    public static final String BATCH_DECLINED = "a batch (several captures, --manifest, --baseline, --write-baseline or "
            + "--timeout) does not go to the run daemon";

    /**
     * Why the run daemon does not run an {@code exec:} device ({@link #execDevice()}): its program is to run in the
     * client's folder and environment (relative paths in COMMAND, PATH), which the daemon, in /, does not have.
     */
    public static final String EXEC_DECLINED = "--device exec: runs its program in the folder and environment of the run, "
            + "and does not go to the run daemon";

    /** Whether the device is a program ({@code --device exec:COMMAND}). */
    public boolean execDevice() {
        return comparison.device != null && comparison.device.startsWith("exec:");
    }

    /** Whether this is a batch: several captures, a manifest, a baseline or a timeout (a cluster of its own). */
    public boolean batch() {
        return captures.size() > 1 || manifest != null || baseline != null || writeBaseline != null || timeout > 0;
    }

    /** Why the run daemon does not run a run with {@code --tier}: its evaluators keep the tier they started with. */
    public static final String TIER_DECLINED = "--tier picks the evaluators' tier, which the run daemon's node keeps as it "
            + "started; the run goes to its own process";

    @Override
    public Integer call() throws Exception {
        Replay.checkOutDir(spec, out);
        if (tier != null) {
            HostModel.Tier t;
            try {
                t = HostModel.Tier.parse(tier);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--tier: " + e.getMessage());
            }
            if (session != null) {
                session.decline(TIER_DECLINED);
                return Replay.EXIT_OK;
            }
            System.setProperty(HostModel.Tier.PROPERTY, t.name().toLowerCase(java.util.Locale.ROOT));
        }
        List<BatchRun.Listed> all = new ArrayList<>(captures.stream().map(BatchRun.Listed::of).toList());
        if (manifest != null) {
            try {
                all.addAll(BatchRun.manifest(manifest));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--manifest " + e.getMessage());
            }
        }
        if (all.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "give a CAPTURE (or several, or --manifest FILE)");
        }
        if (batch()) {
            if (session != null) {
                // a batch starts a cluster of its own for its captures: in the client's process, not beside the
                // daemon's node in the daemon's heap
                session.decline(BATCH_DECLINED);
                return Replay.EXIT_OK;
            }
            return batch(all);
        }
        if (session != null && execDevice()) {
            session.decline(EXEC_DECLINED);
            return Replay.EXIT_OK;
        }
        capture = all.get(0).capture();
        RunTimings clock = !timings ? RunTimings.off()
                : session != null ? RunTimings.startAt("replay run", session.clientStartMillis()) : RunTimings.start();
        if (budget <= 0) {
            throw new ParameterException(spec.commandLine(), "--budget must be positive");
        }
        int n = evaluators == null ? Runtime.getRuntime().availableProcessors() : evaluators;
        if (n < 1) {
            throw new ParameterException(spec.commandLine(), "--evaluators must be at least 1");
        }
        Replay.checkThreads(spec, "--evaluators", n);
        // a taken metrics port only warns: the run's outputs do not depend on it
        // SIGTERM or Ctrl-C stops the run at once: no drain of the embedded evaluators (they would finish the
        // slices they hold first, up to the drain timeout), only the work directory is removed; outputs are
        // written last, through OutputFolder, so an interrupted run leaves none or says they are incomplete
        com.typesafe.config.Config overlay = metrics.overlay(com.typesafe.config.ConfigFactory.parseString(
                "akka.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n" + FarmNode.EMBEDDED_KEY + " = on"), "warn", MetricsOptions.EMBEDDED_PORT, spec);
        // in the run daemon: its node (kept between runs), no work directory or signal hook of this run's own
        Path work = session == null ? Files.createTempDirectory("replay-run") : null;
        PrintWriter errors = spec.commandLine().getErr();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        // registered before the node starts writing into the work directory, so a signal at any point removes it
        Thread onSignal = session == null ? interruptHook(errors, work, done) : null;
        // the embedded cluster starts on another thread while this one opens the capture and checks the options
        // (a capture that is not there starts none: that error needs no cluster); a refused option closes it
        CompletableFuture<FarmNode> starting = !Files.isRegularFile(capture)
                ? CompletableFuture.failedFuture(new IllegalStateException("no capture"))
                : session == null ? startNode(work, n, overlay) : heldNode(session.daemon(), n, overlay);
        CaptureFile file;
        Kernel kernel;
        GroupSelection chosen;
        long total;
        CompareWith compare;
        try {
            file = CaptureFile.open(capture);
            kernel = new Kernel(file);
            chosen = selection.selection();
            try {
                total = chosen.resolve(kernel.dispatch()).size();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            try {
                compare = comparison.compareWith().withOrigin(capture);
                compare.device().resolve(file); // refuse a missing recorded run before evaluating
                org.replayfarm.coordinator.report.RangeViews.of(kernel.memory(), kernel.capture().getProgram().getKernelName(),
                        compare.views()); // and a --view naming no range
                org.replayfarm.coordinator.report.RangeViews.images(kernel.images(), compare.views()); // or no image
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        } catch (Exception | Error e) {
            if (session == null) {
                starting.thenAccept(FarmNode::close).exceptionally(x -> null).join();
            } else {
                starting.exceptionally(x -> null).join(); // the daemon's node stays for the next run
            }
            done.set(true);
            deleteTree(work);
            removeHook(onSignal);
            throw e;
        }
        boolean bar = progress != null ? progress : session != null ? session.terminal() : System.console() != null;
        AtomicReference<Comparison.Result> result = new AtomicReference<>();
        JobProgress end;
        clock.mark("parse and check");
        FarmNode started = null;
        FarmNode held = awaitNode(starting);
        String id = session == null ? "run" : session.daemon().nextJobId(held);
        try (Lease lease = lease(held, id)) {
            FarmNode node = started = lease.node();
            clock.mark("node start");
            String sha = node.jobs().storeCapture(file); // opened (validated) above: not opened again
            lease.sha().set(sha);
            node.jobs().holdOpened(sha, file, kernel); // the job launched below takes them as they are
            if (node.evaluator() != null) {
                // this node's evaluators take the kernel decoded above instead of fetching the capture from this
                // node's coordinator over loopback and decoding it again
                node.evaluator().cache().hold(sha, kernel);
            }
            clock.mark("store capture");
            CompletableFuture<JobProgress> ended = new CompletableFuture<>();
            // the embedded node's metrics port is a free one: say which, so that the run can be watched there
            errors.printf("replay run: evaluating %d group(s) on %d evaluator thread(s)%s%n", total, n,
                    node.metricsUrl().map(u -> "; metrics at " + u).orElse(""));
            errors.flush();
            ProgressBar pb = bar ? new ProgressBarBuilder().setTaskName("groups").setInitialMax(total)
                    .setStyle(ProgressBarStyle.COLORFUL_UNICODE_BLOCK).setUnit(" groups", 1).showSpeed()
                    .setUpdateIntervalMillis(200).setConsumer(new ConsoleProgressBarConsumer(
                            session != null ? session.err() : System.err)).build() : null;
            try {
                // the job compares and writes the report as the coordinator's jobs do (one path); it reports every
                // group done (evaluated and merged) before it compares, which ends the "evaluate" phase
                node.jobs().start(id, sha, chosen, budget, out.toAbsolutePath(), compare,
                        capture.getFileName().toString(), result::set);
                if (session != null) {
                    session.onHangUp(() -> node.jobs().cancel(id)); // the client's Ctrl-C (or at once: it came already)
                }
                try (AutoCloseable sub = node.jobs().subscribe(id, p -> {
                    if (pb != null) {
                        pb.stepTo(p.groupsDone());
                    }
                    if (p.groupsDone() >= total) {
                        clock.markOnce("evaluate");
                    }
                    if (p.ended()) {
                        ended.complete(p);
                    }
                })) {
                    end = ended.get();
                }
                clock.mark("compare and report");
            } finally {
                if (pb != null) {
                    pb.close();
                }
            }
        } finally {
            if (started != null) {
                clock.mark("shutdown");
            }
            done.set(true);
            if (session == null) {
                deleteTree(work);
                removeHook(onSignal);
            } else {
                session.onHangUp(null);
            }
        }
        if (!end.state().equals("finished")) {
            throw new IllegalStateException("the job failed: " + end.error());
        }
        PrintWriter w = spec.commandLine().getOut();
        w.print(result.get().summary());
        w.printf("output          %s%n", session != null ? session.shown(out) : out);
        w.flush();
        int status = result.get().verdict().exitStatus();
        if (firstDivergence && status == Replay.EXIT_DIFFERENCES) {
            // the first wrong instruction, as explain --first-divergence finds it, in the same report
            org.replayfarm.gpunode.device.DeviceChoice choice = compare.device();
            if (choice.kind() == org.replayfarm.gpunode.device.DeviceChoice.Kind.CUDA_CPU) {
                com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(out.resolve("report.json").toFile());
                FirstDivergence.Outcome o = FirstDivergence.search(file, FirstDivergence.firstDifferingGroup(report),
                        choice.spelling(), 1_000_000, Math.max(1, report.path("comparison").path("tolerances")
                                .path("ulp").asInt(0)));
                var lines = org.replayfarm.coordinator.report.DwarfLines.forCapture(file, capture);
                FirstDivergence.print(w, o, lines);
                FirstDivergence.record(out, o, lines);
            } else {
                com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(out.resolve("report.json").toFile());
                ProbeDivergence.explain(w, out, file, report, null, choice, Math.max(1, report.path("comparison")
                        .path("tolerances").path("ulp").asInt(0)), org.replayfarm.coordinator.report.DwarfLines
                        .forCapture(file, capture));
            }
            w.flush();
        }
        clock.print(errors);
        return status;
    }

    /**
     * Starts the embedded node (coordinator and eval roles; gpu too on a machine with a GPU: cuda and auto
     * device runs go to it as in a cluster) on a thread of its own.
     */
    private static CompletableFuture<FarmNode> startNode(Path work, int threads, com.typesafe.config.Config overlay) {
        CompletableFuture<FarmNode> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                Set<String> roles = org.replayfarm.gpunode.cuda.GpuProbe.once().available()
                        ? Set.of(FarmNode.COORDINATOR, "eval", "gpu") : Set.of(FarmNode.COORDINATOR, "eval");
                f.complete(FarmNode.start(FarmNode.Settings.of(roles, work).withEvalThreads(threads).withConfig(overlay)));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "replay-run-node-start");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * The shutdown hook of a run or batch: on SIGTERM or Ctrl-C before {@code done}, it says the run stopped and
     * removes the work directory.
     */
    private Thread interruptHook(PrintWriter errors, Path work, java.util.concurrent.atomic.AtomicBoolean done) {
        Thread onSignal = new Thread(() -> {
            if (!done.get()) {
                errors.println("replay run: interrupted; the job stops here, " + out + " holds no new report");
                errors.flush();
                deleteTree(work);
                deleteTree(work); // again: the node may have been writing into it
            }
        }, "replay-run-interrupted");
        Runtime.getRuntime().addShutdownHook(onSignal);
        return onSignal;
    }

    /** Many runs in one JVM (tests, batches) keep no hook behind them. */
    private static void removeHook(Thread hook) {
        if (hook == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting: the hook runs, sees done and does nothing
        }
    }

    /** The daemon's node for these settings, on a thread of its own as {@link #startNode} (it may start one). */
    private static CompletableFuture<FarmNode> heldNode(RunDaemon d, int threads, com.typesafe.config.Config overlay) {
        CompletableFuture<FarmNode> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(d.node(threads, overlay));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "replay-run-daemon-node");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * The node a run holds: its own, closed at the end; or the daemon's, which keeps the node but not the run: the
     * job, the decoded capture and the stored copy go at the end, so a daemon does not grow with its runs (the
     * outputs in --out are the user's and stay).
     */
    private record Lease(FarmNode node, String jobId, boolean own, AtomicReference<String> sha) implements AutoCloseable {
        @Override
        public void close() {
            if (own) {
                node.close();
                return;
            }
            // the job's actor stops just after its end is reported: removal waits for it (briefly; a job still there
            // after that stays, and the next run takes another id)
            RuntimeException last = null;
            for (int i = 0; i < 150; i++) {
                try {
                    var outcome = node.jobs().remove(jobId).outcome();
                    if (outcome != org.replayfarm.coordinator.job.JobService.RemoveOutcome.RUNNING) {
                        last = null;
                        break;
                    }
                } catch (IllegalStateException notYet) {
                    last = notYet;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (last != null) {
                org.slf4j.LoggerFactory.getLogger(RunCommand.class).warn("run daemon: job {} not removed: {}", jobId,
                        last.getMessage());
            }
            String stored = sha.get();
            if (stored != null) {
                if (node.evaluator() != null) {
                    node.evaluator().cache().release(stored);
                }
                node.jobs().deleteCaptureNow(stored);
            }
        }
    }

    private Lease lease(FarmNode node, String id) {
        return new Lease(node, id, session == null, new AtomicReference<>());
    }

    /** The started node, or what its start threw. */
    private static FarmNode awaitNode(CompletableFuture<FarmNode> starting) throws Exception {
        try {
            return starting.get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            if (e.getCause() instanceof Error x) {
                throw x;
            }
            throw e;
        }
    }

    /** Many captures (or one with a baseline or timeout): {@link BatchRun} in one embedded cluster. */
    private int batch(List<BatchRun.Listed> all) throws Exception {
        if (budget <= 0) {
            throw new ParameterException(spec.commandLine(), "--budget must be positive");
        }
        int n = evaluators == null ? Runtime.getRuntime().availableProcessors() : evaluators;
        if (n < 1 || parallel < 1 || timeout < 0) {
            throw new ParameterException(spec.commandLine(), "--evaluators and --parallel must be at least 1, --timeout 0 or more");
        }
        Replay.checkThreads(spec, "--evaluators", n);
        Replay.checkThreads(spec, "--parallel", parallel);
        CompareWith compare;
        Baseline known;
        try {
            compare = comparison.compareWith();
            known = baseline == null ? Baseline.empty() : Baseline.read(baseline);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        for (BatchRun.Listed l : all) {
            if (!Files.isRegularFile(l.capture())) {
                throw new ParameterException(spec.commandLine(), "no such capture: " + l.capture());
            }
        }
        Files.createDirectories(out);
        Path work = Files.createTempDirectory("replay-run");
        PrintWriter errors = spec.commandLine().getErr();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        // registered before the node starts writing into the work directory, so a signal at any point removes it
        Thread onSignal = interruptHook(errors, work, done);
        List<BatchRun.Result> results;
        long start = System.nanoTime();
        PrintWriter w = spec.commandLine().getOut();
        com.typesafe.config.Config overlay = metrics.overlay(com.typesafe.config.ConfigFactory.parseString(
                FarmNode.EMBEDDED_KEY + " = on"), "warn", MetricsOptions.EMBEDDED_PORT, spec);
        try (FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), work)
                .withEvalThreads(n).withConfig(overlay))) {
            BatchRun batch = new BatchRun(node, selection.selection(), budget, compare, known, timeout, out.toAbsolutePath());
            results = batch.run(BatchRun.items(all), parallel, spec.commandLine().getErr());
        } finally {
            // the batch ended (or failed with an error it reports): the hook must not say "interrupted" at exit
            done.set(true);
            deleteTree(work);
            removeHook(onSignal);
        }
        String summary = BatchRun.write(out, results, (System.nanoTime() - start) / 1e9);
        if (writeBaseline != null) {
            List<String> lines = new ArrayList<>(List.of("# known differences written by replay run --write-baseline"));
            for (BatchRun.Result r : results) {
                Path report = out.resolve(r.item().name()).resolve("report.json");
                if (Files.isRegularFile(report) && !r.status().equals("pass")) {
                    lines.addAll(Baseline.lines(r.sha(), Baseline.Differences.of(
                            new com.fasterxml.jackson.databind.ObjectMapper().readTree(report.toFile()))));
                }
            }
            Files.write(writeBaseline, lines);
        }
        w.print(summary);
        w.printf("output          %s%n", out);
        w.flush();
        return BatchRun.exitStatus(results);
    }

    public static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is not an error
        }
    }
}
