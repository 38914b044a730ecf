package org.replayfarm.cli.commands;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.client.CoordinatorClient;

@Command(name = "purge", mixinStandardHelpOptions = true,
        description = {"Remove jobs that have ended (DELETE /jobs/<id>?purge=true): from the coordinator's job list and "
                + "journal (a restarted coordinator does not know them), their outputs, and their capture when no other "
                + "job uses it. A running job is refused: cancel it first (replay cancel). The coordinator also removes "
                + "ended jobs on its own (replay node --job-retention, --max-finished-jobs).",
                "Exit status 0 when every job named was removed, 2 when one still runs, is unknown, or the coordinator "
                        + "cannot be asked (each is said on standard error)."})
public final class PurgeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB", arity = "1..*", description = "Job ids, as 'replay submit' or 'replay jobs' print them.")
    List<String> jobs;

    @Mixin
    CoordinatorOption coordinator;

    @Override
    public Integer call() {
        return coordinator.forEachJob(spec, jobs, (client, job) -> {
            CoordinatorClient.Purged p = client.purge(job);
            return p.purged() ? CoordinatorOption.Outcome.done("job " + job + " purged")
                    : CoordinatorOption.Outcome.refused(p.message());
        });
    }
}
