package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.http.JobRequest;
import org.replayfarm.evalnode.eval.GroupSelection;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.client.CoordinatorClient;

@Command(name = "submit", mixinStandardHelpOptions = true,
        description = {"Start a job on a coordinator: uploads the capture unless the coordinator already has it "
                + "(by SHA-256), starts evaluating the selected groups and prints the job id.",
                "When every group is done the coordinator compares the results with the device (--device, --ulp, "
                        + "--abs, --rel, --approximate, --view, as replay run does) and writes the run report (docs/report-schema.md).",
                "Follow it with 'replay watch JOB', fetch its outputs with 'replay results JOB'."})
public final class SubmitCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE")
    Path capture;

    @Mixin
    CoordinatorOption coordinator;

    @ArgGroup(exclusive = true, multiplicity = "1")
    GroupOptions selection;

    @picocli.CommandLine.Mixin
    CompareOptions comparison = new CompareOptions();

    @Option(names = "--budget", paramLabel = "N", description = "Instructions one wave may execute (default ${DEFAULT-VALUE}).",
            defaultValue = "" + org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET)
    long budget;

    @Option(names = "--slice-deadline", paramLabel = "SECONDS", description = "How long one slice may run before the "
            + "coordinator sends it once more to another node (default: the coordinator's, from the time per group).")
    Double sliceDeadline;

    @Override
    public Integer call() throws Exception {
        GroupSelection groups;
        CoordinatorClient client;
        CompareWith compare;
        org.replayfarm.coordinator.job.JobService.Limits limits;
        try {
            if (sliceDeadline != null && !(sliceDeadline > 0)) {
                throw new IllegalArgumentException("--slice-deadline must be a number of seconds above 0");
            }
            limits = new org.replayfarm.coordinator.job.JobService.Limits(budget,
                    sliceDeadline == null ? 0 : (long) (sliceDeadline * 1e9));
            groups = selection.selection();
            compare = comparison.compareWith();
            client = coordinator.client();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!Files.isRegularFile(capture)) {
            throw new NoSuchFileException(capture.toString());
        }
        PrintWriter err = spec.commandLine().getErr();
        String sha = CoordinatorClient.sha256(capture);
        if (client.hasCapture(sha)) {
            err.printf("capture %s is already on %s%n", sha, client.url());
        } else {
            err.printf("uploading %s (%d bytes) to %s%n", capture, Files.size(capture), client.url());
            err.flush();
            String stored = client.upload(capture);
            if (!stored.equals(sha)) {
                throw new IllegalStateException("the coordinator stored " + capture + " as " + stored
                        + ", but its SHA-256 is " + sha + " (did the file change while uploading?)");
            }
        }
        String job = client.start(new JobRequest(sha, groups, compare, capture.getFileName().toString(), limits));
        err.flush();
        PrintWriter out = spec.commandLine().getOut();
        out.println(job);
        out.flush();
        return Replay.EXIT_OK;
    }
}
