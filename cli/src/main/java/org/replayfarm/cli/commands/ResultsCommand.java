package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.client.CoordinatorClient;

@Command(name = "results", mixinStandardHelpOptions = true,
        description = {"Download a finished job's outputs into DIR, in the layout replay run writes: DIR/report.json "
                + "(replay-farm/run-report/2, docs/report-schema.md), DIR/summary.txt, DIR/junit.xml, DIR/host/, "
                + "DIR/device/ and DIR/diff/; prints the summary.",
                "Exit status as replay run's: 0 when equal (or host only without faults), 1 when different (or a "
                        + "group faulted, groups conflicted, or slices were nondeterministic), 2 on error."})
public final class ResultsCommand implements Callable<Integer> {
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
        Replay.checkOutDir(spec, out);
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
        if (files.stream().anyMatch(f -> f.path().startsWith("device/"))) {
            // a run compared with a device has a diff/ folder even when it drew nothing into it (replay run's layout);
            // the coordinator lists files, so an empty folder is made here
            Files.createDirectories(dir.resolve("diff"));
        }
        PrintWriter w = spec.commandLine().getOut();
        Path summary = dir.resolve("summary.txt");
        if (Files.isRegularFile(summary)) {
            w.print(Files.readString(summary));
        }
        w.printf("job %s: %d file(s), %d bytes, in %s%n", job, files.size(), bytes, out);
        w.flush();
        return exitStatus(dir.resolve("report.json"), job);
    }

    /** The run report's {@code result.exit_status} (0 equal, 1 different); a report without one is an error. */
    static int exitStatus(Path report, String job) throws java.io.IOException {
        if (!Files.isRegularFile(report)) {
            throw new IllegalStateException("job " + job + " has no report.json among its results");
        }
        com.fasterxml.jackson.databind.JsonNode status = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(report.toFile()).path("result").path("exit_status");
        if (!status.isInt() || (status.asInt() != Replay.EXIT_OK && status.asInt() != Replay.EXIT_DIFFERENCES)) {
            throw new IllegalStateException("report.json of job " + job + " has no result.exit_status of 0 or 1: " + status);
        }
        return status.asInt();
    }
}
