package org.replayfarm.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.replayfarm.coordinator.jobs.JobProgress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "results", mixinStandardHelpOptions = true,
        description = {"Download a finished job's outputs into DIR, in the layout replay eval writes: "
                + "DIR/host/guest-<n>.bin and DIR/report.json.",
                "Exit status 0, or 1 when a group of the job faulted (as replay eval)."})
final class ResultsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB", description = "The job id 'replay submit' printed.")
    String job;

    @Mixin
    CoordinatorOption coordinator;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    Path out;

    @Override
    public Integer call() throws Exception {
        CoordinatorClient client;
        try {
            CoordinatorClient.checkJobId(job);
            client = coordinator.client();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<CoordinatorClient.ResultFile> files = client.results(job);
        Path dir = out.toAbsolutePath().normalize();
        long bytes = 0;
        for (CoordinatorClient.ResultFile f : files) {
            Path target = dir.resolve(f.path()).normalize();
            if (f.path().isEmpty() || f.path().startsWith("/") || !target.startsWith(dir) || target.equals(dir)) {
                throw new IllegalStateException("the coordinator listed a result file outside the output directory: '"
                        + f.path() + "'");
            }
            Files.createDirectories(target.getParent());
            client.download(job, f.path(), target);
            long size = Files.size(target);
            if (size != f.bytes()) {
                throw new IllegalStateException(f.path() + " of job " + job + " arrived with " + size
                        + " bytes; the coordinator listed " + f.bytes());
            }
            bytes += size;
        }
        JobProgress p = client.progress(job);
        PrintWriter w = spec.commandLine().getOut();
        w.printf("job %s: %d file(s), %d bytes, in %s%n", job, files.size(), bytes, out);
        w.printf("faults          %d%n", p.faults());
        w.flush();
        return p.faults() == 0 ? Replay.EXIT_OK : Replay.EXIT_DIFFERENCES;
    }
}
