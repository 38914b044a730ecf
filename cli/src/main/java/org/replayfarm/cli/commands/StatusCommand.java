package org.replayfarm.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.client.CoordinatorClient;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Ask each coordinator given (GET /status, its own answer, never forwarded) what it is: active or "
                + "standing by, the active coordinator's API URL, its journal, the other coordinators it knows, and its "
                + "warnings (e.g. coordinator-role nodes that do not share one PostgreSQL journal).",
                "Exit status 0 when every coordinator answered (warnings included), 2 when one cannot be asked."})
public final class StatusCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    CoordinatorOption coordinator;

    @Override
    public Integer call() throws Exception {
        CoordinatorClient client = coordinator.client(spec, List.of());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int status = Replay.EXIT_OK;
        for (String base : client.bases()) {
            JsonNode s;
            try {
                s = client.status(base);
            } catch (java.io.IOException e) {
                err.printf("replay status: %s%n", e.getMessage());
                status = Replay.EXIT_ERROR;
                continue;
            }
            boolean active = s.path("active").asBoolean();
            out.printf("%s  %s  %s  journal %s (%s)%n", base, s.path("node").asText(), active ? "active" : "standby",
                    s.path("journal").asText(), s.path("journal_url").asText());
            if (!active) {
                out.printf("  active coordinator: %s%n", s.path("active_http").isTextual()
                        ? s.path("active_http").asText() + " (" + s.path("active_node").asText() + "); requests here are forwarded there"
                        : "none known (requests here answer 503 until one is)");
            }
            for (JsonNode p : s.path("coordinators")) {
                out.printf("  other coordinator: %s %s journal %s%n", p.path("node").asText(), p.path("http").asText(),
                        p.path("journal").asText());
            }
            for (JsonNode w : s.path("warnings")) {
                out.printf("  warning: %s%n", w.asText());
            }
        }
        out.flush();
        err.flush();
        return status;
    }
}
