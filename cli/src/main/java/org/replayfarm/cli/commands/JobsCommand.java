package org.replayfarm.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.client.CoordinatorClient;

@Command(name = "jobs", mixinStandardHelpOptions = true,
        description = {"List the coordinator's jobs, newest first (GET /jobs): id, state, groups done of the total, "
                + "rate, when it was accepted (UTC), the selection and the capture's name.",
                "Exit status 0, 2 when the coordinator cannot be asked."})
public final class JobsCommand implements Callable<Integer> {
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

    @Spec
    CommandSpec spec;

    @Mixin
    CoordinatorOption coordinator;

    @Option(names = "--limit", defaultValue = "50", paramLabel = "N", description = "At most N jobs (1 to 500; default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--offset", defaultValue = "0", paramLabel = "N", description = "Skip the N newest jobs (paging).")
    int offset;

    @Override
    public Integer call() throws Exception {
        CoordinatorClient client;
        try {
            if (limit < 1 || limit > 500 || offset < 0) {
                throw new IllegalArgumentException("--limit takes 1 to 500 and --offset 0 or more");
            }
            client = coordinator.client();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        CoordinatorClient.JobPage page = client.jobs(offset, limit);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("%-36s  %-9s  %15s  %12s  %-19s  %-12s  %s%n", "JOB", "STATE", "GROUPS", "RATE", "ACCEPTED (UTC)",
                "SELECTION", "CAPTURE");
        for (JsonNode j : page.jobs()) {
            double rate = j.path("groups_per_second").asDouble(-1);
            long at = j.path("accepted_at_millis").asLong();
            out.printf("%-36s  %-9s  %15s  %12s  %-19s  %-12s  %s%n", j.path("job").asText(), j.path("state").asText(),
                    j.path("groups_done").asLong() + "/" + j.path("groups_total").asLong(),
                    rate < 0 ? "-" : String.format("%.1f/s", rate), at == 0 ? "-" : WHEN.format(Instant.ofEpochMilli(at)),
                    j.path("selection").asText(), j.path("capture_name").asText());
        }
        int shown = page.jobs().size();
        out.printf("%d of %d job(s)%s%n", shown, page.total(), offset + shown < page.total()
                ? "; more with --offset " + (offset + shown) : "");
        out.flush();
        return Replay.EXIT_OK;
    }
}
