package org.replayfarm.cli.commands;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.client.CoordinatorClient;

/**
 * {@code --coordinator URL}: the coordinator whose job API a client command talks to; without it, the
 * environment's {@code REPLAY_COORDINATOR}. Also the shape the per-job commands share ({@code replay cancel},
 * {@code replay purge}): job ids checked, one request per job, a line per job, exit status 2 when one failed.
 */
final class CoordinatorOption {
    /** The environment variable every client command reads when {@code --coordinator} is not given. */
    static final String ENV = "REPLAY_COORDINATOR";

    @Option(names = "--coordinator", paramLabel = "URL[,URL...]", defaultValue = "${env:" + ENV + "}",
            description = "The coordinator's HTTP address, e.g. http://coordinator:8080 (default: the environment's "
                    + ENV + "). Several, comma-separated: the coordinators of a cluster (one active, the others "
                    + "standing by); a request goes on to the next when one refuses the connection or stands by.")
    String url;

    /** The client; an {@link IllegalArgumentException} names what is missing or wrong. */
    CoordinatorClient client() {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("no coordinator: give --coordinator URL or set " + ENV);
        }
        return new CoordinatorClient(url.strip());
    }

    /**
     * The client for {@code spec}'s command after checking {@code jobs}' ids: a bad id or a missing coordinator is
     * a usage error of that command (picocli prints it with the usage, exit status 2).
     */
    CoordinatorClient client(CommandSpec spec, List<String> jobs) {
        try {
            jobs.forEach(CoordinatorClient::checkJobId);
            return client();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** What one job's request came to: the line for standard output, or the coordinator's refusal. */
    record Outcome(boolean done, String text) {
        static Outcome done(String line) {
            return new Outcome(true, line);
        }

        static Outcome refused(String message) {
            return new Outcome(false, message);
        }
    }

    /** One job's request. */
    @FunctionalInterface
    interface PerJob {
        Outcome apply(CoordinatorClient client, String job) throws IOException;
    }

    /**
     * Runs {@code action} for each job in turn (a failure does not stop the rest): a done job's line goes to
     * standard output, a refusal or an unreachable coordinator to standard error as "replay NAME: message".
     * Returns {@link Replay#EXIT_OK} when every job was done, {@link Replay#EXIT_ERROR} otherwise.
     */
    int forEachJob(CommandSpec spec, List<String> jobs, PerJob action) {
        CoordinatorClient client = client(spec, jobs);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = "replay " + spec.name();
        int status = Replay.EXIT_OK;
        for (String job : jobs) {
            String failure;
            try {
                Outcome o = action.apply(client, job);
                if (o.done()) {
                    out.println(o.text());
                    continue;
                }
                failure = o.text();
            } catch (IOException e) {
                failure = e.getMessage();
            }
            err.printf("%s: %s%n", name, failure);
            status = Replay.EXIT_ERROR;
        }
        out.flush();
        err.flush();
        return status;
    }
}
