package org.replayfarm.cli.commands;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Where a node serves its metrics: a flag wins over its environment variable, which wins over
 * {@code replay.metrics.*} in the {@code --config} file. {@code replay node}'s port defaults to
 * {@value #DEFAULT_PORT}; an embedded cluster ({@code replay run}) takes a free port on loopback, so a taken
 * 9095 never touches a run. The address defaults to the node's bind address (its {@code --bind}, else its
 * {@code --host}; loopback for {@code replay run}): nothing listens on 0.0.0.0 unless asked.
 */
public final class MetricsOptions {
    static final int DEFAULT_PORT = 9095;
    /** The port of an embedded cluster's endpoint: a free one. */
    static final int EMBEDDED_PORT = 0;

    @Option(names = "--metrics", negatable = true, defaultValue = "${env:REPLAY_METRICS}", fallbackValue = "true",
            description = "Serve metrics for Prometheus (default: on; REPLAY_METRICS).")
    Boolean enabled;

    @Option(names = {"--metrics-bind", "--metrics-host"}, paramLabel = "ADDR", defaultValue = "${env:REPLAY_METRICS_HOST}",
            description = "Address the metrics endpoint binds (default: the node's --bind, else --host; loopback for "
                    + "replay run; 0.0.0.0 for every interface; REPLAY_METRICS_HOST).")
    String host;

    @Option(names = "--metrics-port", paramLabel = "P", defaultValue = "${env:REPLAY_METRICS_PORT}",
            description = "Port of http://HOST:P/metrics (replay node: default " + DEFAULT_PORT + "; replay run: a free "
                    + "one; 0 picks a free one; REPLAY_METRICS_PORT).")
    Integer port;

    /** As below, with {@code replay node}'s default port ({@value #DEFAULT_PORT}). */
    public Config overlay(Config config, String onPortTaken, CommandSpec spec) {
        return overlay(config, onPortTaken, DEFAULT_PORT, spec);
    }

    /**
     * {@code config} with these options laid over it; {@code onPortTaken}: fail or warn; {@code defaultPort}:
     * the port when neither a flag, its variable nor {@code config} names one.
     */
    public Config overlay(Config config, String onPortTaken, int defaultPort, CommandSpec spec) {
        Config c = config;
        if (enabled != null) {
            c = c.withValue("replay.metrics.enabled", ConfigValueFactory.fromAnyRef(enabled));
        }
        if (host != null) {
            c = c.withValue("replay.metrics.host", ConfigValueFactory.fromAnyRef(host));
        }
        if (port != null && (port < 0 || port > 65535)) {
            throw new ParameterException(spec.commandLine(), "--metrics-port must be in [0, 65535]: " + port);
        }
        if (port != null) {
            c = c.withValue("replay.metrics.port", ConfigValueFactory.fromAnyRef(port));
        } else if (!c.hasPath("replay.metrics.port")) {
            c = c.withValue("replay.metrics.port", ConfigValueFactory.fromAnyRef(defaultPort));
        }
        return c.withValue("replay.metrics.on-port-taken", ConfigValueFactory.fromAnyRef(onPortTaken))
                .withFallback(ConfigFactory.empty());
    }
}
