package org.replayfarm.cli;

import picocli.CommandLine.Option;

/** {@code --coordinator URL}: the coordinator whose job API a client command talks to. */
final class CoordinatorOption {
    @Option(names = "--coordinator", required = true, paramLabel = "URL",
            description = "The coordinator's HTTP address, e.g. http://coordinator:8080.")
    String url;

    CoordinatorClient client() {
        return new CoordinatorClient(url);
    }
}
