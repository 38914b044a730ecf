package org.replayfarm.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Where a node serves its metrics: a flag wins over its environment variable, which wins over
 * {@code replay.metrics.*} in the {@code --config} file; the port defaults to {@value #DEFAULT_PORT}
 * (in-process nodes elsewhere, such as tests, default to a free port).
 */
final class MetricsOptions {
    static final int DEFAULT_PORT = 9095;

    @Option(names = "--metrics", negatable = true, defaultValue = "${env:REPLAY_METRICS}", fallbackValue = "true",
            description = "Serve metrics for Prometheus (default: on; REPLAY_METRICS).")
    Boolean enabled;

    @Option(names = "--metrics-host", paramLabel = "H", defaultValue = "${env:REPLAY_METRICS_HOST}",
            description = "Address the metrics endpoint binds (default 0.0.0.0; REPLAY_METRICS_HOST).")
    String host;

    @Option(names = "--metrics-port", paramLabel = "P", defaultValue = "${env:REPLAY_METRICS_PORT}",
            description = "Port of http://HOST:P/metrics (default " + DEFAULT_PORT + "; 0 picks a free one; REPLAY_METRICS_PORT).")
    Integer port;

    /** {@code config} with these options laid over it; {@code onPortTaken}: fail or warn. */
    Config overlay(Config config, String onPortTaken, CommandSpec spec) {
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
            c = c.withValue("replay.metrics.port", ConfigValueFactory.fromAnyRef(DEFAULT_PORT));
        }
        return c.withValue("replay.metrics.on-port-taken", ConfigValueFactory.fromAnyRef(onPortTaken))
                .withFallback(ConfigFactory.empty());
    }
}
