package org.replayfarm.cli;

import picocli.CommandLine.Option;

/**
 * {@code --coordinator URL}: the coordinator whose job API a client command talks to; without it, the
 * environment's {@code REPLAY_COORDINATOR}.
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
}
