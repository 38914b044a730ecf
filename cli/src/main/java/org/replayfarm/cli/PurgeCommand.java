package org.replayfarm.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "purge", mixinStandardHelpOptions = true,
        description = {"Remove jobs that have ended (DELETE /jobs/<id>?purge=true): from the coordinator's job list and "
                + "journal (a restarted coordinator does not know them), their outputs, and their capture when no other "
                + "job uses it. A running job is refused: cancel it first (replay cancel). The coordinator also removes "
                + "ended jobs on its own (replay node --job-retention, --max-finished-jobs).",
                "Exit status 0 when every job named was removed, 2 when one still runs, is unknown, or the coordinator "
                        + "cannot be asked (each is said on standard error)."})
final class PurgeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB", arity = "1..*", description = "Job ids, as 'replay submit' or 'replay jobs' print them.")
    List<String> jobs;

    @Mixin
    CoordinatorOption coordinator;

    @Override
    public Integer call() throws Exception {
        CoordinatorClient client;
        try {
            jobs.forEach(CoordinatorClient::checkJobId);
            client = coordinator.client();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int status = Replay.EXIT_OK;
        for (String job : jobs) {
            try {
                CoordinatorClient.Purged p = client.purge(job);
                if (p.purged()) {
                    out.printf("job %s purged%n", job);
                } else {
                    err.printf("replay purge: %s%n", p.message());
                    status = Replay.EXIT_ERROR;
                }
            } catch (java.io.IOException e) {
                err.printf("replay purge: %s%n", e.getMessage());
                status = Replay.EXIT_ERROR;
            }
        }
        out.flush();
        err.flush();
        return status;
    }
}
