package org.replayfarm.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.replayfarm.coordinator.cluster.FarmNode;
import org.replayfarm.coordinator.diff.CompareWith;
import org.replayfarm.coordinator.diff.Comparison;
import org.replayfarm.coordinator.jobs.JobProgress;
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

@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Evaluate groups of a capture on an embedded cluster in this process: one ActorSystem with "
                + "the coordinator and eval roles, the capture served over loopback HTTP, groups sharded in slices "
                + "over evaluator entities on a dedicated dispatcher.",
                "Then compares the host's merged memory and images with the device's (--device): every texel and "
                        + "byte a host store wrote, and what the device changed that no host store wrote.",
                "Writes DIR/report.json (replay-farm/run-report/1, docs/report-schema.md), DIR/summary.txt, "
                        + "DIR/junit.xml, DIR/host/ and DIR/device/ (guest-<n>.bin, image-<k>.raw and .png) and "
                        + "DIR/diff/image-<k>.png; a live progress bar (groups done, rate, ETA) goes to stderr.",
                "Exit status 0 when equal (or host only without faults), 1 when different (or a group faulted, "
                        + "groups conflicted, or slices were nondeterministic), 2 on error."})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE")
    Path capture;

    @ArgGroup(exclusive = true, multiplicity = "1")
    GroupOptions selection;

    @Option(names = "--evaluators", paramLabel = "N", description = "Evaluator threads (default: all cores).")
    Integer evaluators;

    @Option(names = "--budget", paramLabel = "N", description = "Instructions one wave may execute (default ${DEFAULT-VALUE}).",
            defaultValue = "" + HostModel.DEFAULT_BUDGET)
    long budget;

    @Option(names = "--progress", negatable = true,
            description = "Draw the progress bar on stderr (default: when stderr is a terminal).")
    Boolean progress;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    Path out;

    @picocli.CommandLine.Mixin
    CompareOptions comparison = new CompareOptions();

    @picocli.CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @Override
    public Integer call() throws Exception {
        CaptureFile file = CaptureFile.open(capture);
        Kernel kernel = new Kernel(file);
        GroupSelection chosen = selection.selection();
        long total;
        try {
            total = chosen.resolve(kernel.dispatch()).size();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (budget <= 0) {
            throw new ParameterException(spec.commandLine(), "--budget must be positive");
        }
        int n = evaluators == null ? Runtime.getRuntime().availableProcessors() : evaluators;
        if (n < 1) {
            throw new ParameterException(spec.commandLine(), "--evaluators must be at least 1");
        }
        CompareWith compare;
        try {
            compare = comparison.compareWith();
            compare.device().resolve(file); // refuse a missing recorded run before evaluating
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        boolean bar = progress != null ? progress : System.console() != null;
        Path work = Files.createTempDirectory("replay-run");
        AtomicReference<Comparison.Result> result = new AtomicReference<>();
        JobProgress end;
        // a taken metrics port only warns: the run's outputs do not depend on it
        com.typesafe.config.Config overlay = metrics.overlay(com.typesafe.config.ConfigFactory.empty(), "warn", spec);
        // a machine with a GPU runs a GPU node too: cuda (and auto) device runs go to it as in a cluster
        Set<String> roles = org.replayfarm.gpunode.cuda.GpuProbe.once().available()
                ? Set.of(FarmNode.COORDINATOR, "eval", "gpu") : Set.of(FarmNode.COORDINATOR, "eval");
        try (FarmNode node = FarmNode.start(FarmNode.Settings.of(roles, work)
                .withEvalThreads(n).withConfig(overlay))) {
            String sha = node.jobs().storeCapture(capture);
            CompletableFuture<JobProgress> ended = new CompletableFuture<>();
            ProgressBar pb = bar ? new ProgressBarBuilder().setTaskName("groups").setInitialMax(total)
                    .setStyle(ProgressBarStyle.COLORFUL_UNICODE_BLOCK).setUnit(" groups", 1).showSpeed()
                    .setUpdateIntervalMillis(200).setConsumer(new ConsoleProgressBarConsumer(System.err)).build() : null;
            try {
                // the job compares and writes the report as the coordinator's jobs do (one path)
                node.jobs().start("run", sha, chosen, budget, out.toAbsolutePath(), compare,
                        capture.getFileName().toString(), result::set);
                try (AutoCloseable sub = node.jobs().subscribe("run", p -> {
                    if (pb != null) {
                        pb.stepTo(p.groupsDone());
                    }
                    if (p.ended()) {
                        ended.complete(p);
                    }
                })) {
                    end = ended.get();
                }
            } finally {
                if (pb != null) {
                    pb.close();
                }
            }
        } finally {
            deleteTree(work);
        }
        if (!end.state().equals("finished")) {
            throw new IllegalStateException("the job failed: " + end.error());
        }
        PrintWriter w = spec.commandLine().getOut();
        w.print(result.get().summary());
        w.printf("output          %s%n", out);
        w.flush();
        return result.get().verdict().exitStatus();
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is not an error
        }
    }
}
