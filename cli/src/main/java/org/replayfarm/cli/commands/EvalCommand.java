package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.batch.RunTimings;

@Command(name = "eval", mixinStandardHelpOptions = true,
        description = {"Evaluate groups of a capture on the host model in this process (no cluster).",
                "Writes DIR/host/guest-<n>.bin (each memory range's final bytes: initial contents, every store, "
                        + "merged atomics) and DIR/report.json. Exit status 0, or 1 when a group faulted."})
public final class EvalCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE")
    Path capture;

    @ArgGroup(exclusive = true, multiplicity = "1")
    GroupOptions selection;

    @Option(names = "--threads", paramLabel = "N", description = "Threads (default: all cores).")
    Integer threads;

    @Option(names = "--budget", paramLabel = "N", description = "Instructions one wave may execute (default ${DEFAULT-VALUE}).",
            defaultValue = "" + HostModel.DEFAULT_BUDGET)
    long budget;

    @Option(names = "--tier", paramLabel = "compiled|fast|reference", description = "Host-model tier: compiled (hot "
            + "runs of vector instructions as JVM code), fast (pre-resolved steps) or reference (the interpreter every "
            + "result is defined by); the same results on each (default: the replay.tier property, else "
            + "the host model's default tier).")
    String tier;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    Path out;

    @Option(names = "--timings",
            description = "Print each phase's wall and CPU seconds to stderr (as replay run --timings).")
    boolean timings;

    @Override
    public Integer call() throws Exception {
        Replay.checkOutDir(spec, out);
        RunTimings clock = timings ? RunTimings.start("replay eval") : RunTimings.off();
        CaptureFile file = CaptureFile.open(capture);
        Kernel kernel = new Kernel(file);
        List<int[]> groups;
        try {
            groups = selection.selection()
                    .resolve(kernel.dispatch());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (budget <= 0) {
            throw new ParameterException(spec.commandLine(), "--budget must be positive");
        }
        int n = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
        if (n < 1) {
            throw new ParameterException(spec.commandLine(), "--threads must be at least 1");
        }
        Replay.checkThreads(spec, "--threads", n);
        HostModel.Tier t;
        try {
            t = tier == null ? HostModel.Tier.byDefault() : HostModel.Tier.parse(tier);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--tier: " + e.getMessage());
        }
        clock.mark("parse and check");
        Evaluation.Outcome outcome = Evaluation.run(kernel, groups, n, budget, t, done -> { });
        clock.mark("evaluate");
        Evaluation.write(outcome, kernel, file.identity(), out);
        clock.mark("write outputs");
        PrintWriter w = spec.commandLine().getOut();
        String name = kernel.capture().getProgram().getKernelName();
        w.printf("capture         %s%s%n", capture.getFileName(), name.isEmpty() ? "" : " (" + name + ")");
        Evaluation.summarize(outcome, w);
        w.printf("output          %s%n", out); // report.json there, the outputs in host/
        w.flush();
        clock.print(spec.commandLine().getErr());
        return outcome.faults().isEmpty() ? Replay.EXIT_OK : Replay.EXIT_DIFFERENCES;
    }
}
