package org.replayfarm.cli.commands;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.client.CoordinatorClient;

@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = {"Cancel running jobs (DELETE /jobs/<id>): nothing more of them is evaluated or merged (the "
                + "results of slices in flight are dropped), they write no outputs, and a restarted coordinator does "
                + "not resume them.",
                "Exit status 0 when every job named was cancelled, 2 when one had ended already, is unknown, or the "
                        + "coordinator cannot be asked (each is said on standard error)."})
public final class CancelCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB", arity = "1..*", description = "Job ids, as 'replay submit' or 'replay jobs' print them.")
    List<String> jobs;

    @Mixin
    CoordinatorOption coordinator;

    @Override
    public Integer call() {
        return coordinator.forEachJob(spec, jobs, (client, job) -> {
            CoordinatorClient.Cancelled c = client.cancel(job);
            return c.cancelled()
                    ? CoordinatorOption.Outcome.done(String.format("job %s cancelled after %d of %d groups", job,
                            c.progress().groupsDone(), c.progress().groupsTotal()))
                    : CoordinatorOption.Outcome.refused(c.message());
        });
    }
}
