package org.replayfarm.cli.commands;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.util.ArrayList;
import java.util.List;
import org.replayfarm.coordinator.node.Bootstrap;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * How {@code replay node} finds the cluster and serves Akka Management (health checks, bootstrap): a
 * flag wins over its environment variable, which wins over {@code replay.cluster.*} in the
 * {@code --config} file (defaults in the coordinator's reference.conf).
 */
public final class DiscoveryOptions {
    @Option(names = "--discovery", paramLabel = "METHOD", defaultValue = "${env:REPLAY_DISCOVERY}",
            description = "seeds (default: join --seed nodes, or start a cluster), config (Cluster Bootstrap over "
                    + "--contact-point endpoints) or kubernetes-api (Cluster Bootstrap over pods matching "
                    + "--pod-label-selector); REPLAY_DISCOVERY.")
    String discovery;

    @Option(names = "--management", negatable = true, defaultValue = "${env:REPLAY_MANAGEMENT}", fallbackValue = "true",
            description = "Serve Akka Management (/ready, /alive; always on with config or kubernetes-api discovery; "
                    + "REPLAY_MANAGEMENT).")
    Boolean management;

    @Option(names = "--management-host", paramLabel = "H", defaultValue = "${env:REPLAY_MANAGEMENT_HOST}",
            description = "Address the management endpoint binds and other nodes probe (default: --host; "
                    + "REPLAY_MANAGEMENT_HOST).")
    String managementHost;

    @Option(names = "--management-port", paramLabel = "P", defaultValue = "${env:REPLAY_MANAGEMENT_PORT}",
            description = "Akka Management's HTTP port (default 8558; 0 picks a free one; REPLAY_MANAGEMENT_PORT).")
    Integer managementPort;

    @Option(names = "--service-name", paramLabel = "NAME", defaultValue = "${env:REPLAY_SERVICE_NAME}",
            description = "The service bootstrap looks up (default replay-farm; REPLAY_SERVICE_NAME).")
    String serviceName;

    @Option(names = "--pod-label-selector", paramLabel = "SELECTOR", defaultValue = "${env:REPLAY_POD_LABEL_SELECTOR}",
            description = "Kubernetes label selector of the farm's pods, %%s standing for the service name "
                    + "(default app=%%s; REPLAY_POD_LABEL_SELECTOR).")
    String podLabelSelector;

    @Option(names = "--required-contact-points", paramLabel = "N", defaultValue = "${env:REPLAY_REQUIRED_CONTACT_POINTS}",
            description = "Contact points bootstrap must find before it forms a new cluster (default 2; "
                    + "REPLAY_REQUIRED_CONTACT_POINTS).")
    Integer requiredContactPoints;

    @Option(names = "--contact-point", paramLabel = "HOST:PORT", split = ",", defaultValue = "${env:REPLAY_CONTACT_POINTS}",
            description = "A node's management endpoint, for --discovery config (repeatable or comma-separated; "
                    + "REPLAY_CONTACT_POINTS).")
    List<String> contactPoints = new ArrayList<>();

    /** {@code config} with these options laid over it as {@code replay.cluster.*}. */
    public Config overlay(Config config, CommandSpec spec) {
        Config c = config;
        if (discovery != null) {
            try {
                Bootstrap.Discovery.parse(discovery.trim());
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(),
                        "--discovery takes seeds, config or kubernetes-api, not '" + discovery + "'");
            }
            c = c.withValue("replay.cluster.discovery", ConfigValueFactory.fromAnyRef(discovery.trim()));
        }
        if (management != null) {
            c = c.withValue("replay.cluster.management.enabled", ConfigValueFactory.fromAnyRef(management));
        }
        if (managementHost != null) {
            c = c.withValue("replay.cluster.management.hostname", ConfigValueFactory.fromAnyRef(managementHost));
        }
        if (managementPort != null) {
            if (managementPort < 0 || managementPort > 65535) {
                throw new ParameterException(spec.commandLine(), "--management-port must be in [0, 65535]: " + managementPort);
            }
            c = c.withValue("replay.cluster.management.port", ConfigValueFactory.fromAnyRef(managementPort));
        }
        if (serviceName != null) {
            c = c.withValue("replay.cluster.service-name", ConfigValueFactory.fromAnyRef(serviceName));
        }
        if (podLabelSelector != null) {
            c = c.withValue("replay.cluster.pod-label-selector", ConfigValueFactory.fromAnyRef(podLabelSelector));
        }
        if (requiredContactPoints != null) {
            if (requiredContactPoints < 1) {
                throw new ParameterException(spec.commandLine(),
                        "--required-contact-points must be at least 1: " + requiredContactPoints);
            }
            c = c.withValue("replay.cluster.required-contact-points", ConfigValueFactory.fromAnyRef(requiredContactPoints));
        }
        List<String> points = contactPoints == null ? List.of()
                : contactPoints.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (!points.isEmpty()) {
            for (String p : points) {
                int colon = p.lastIndexOf(':');
                if (colon <= 0 || !p.substring(colon + 1).matches("[0-9]{1,5}")) {
                    throw new ParameterException(spec.commandLine(), "--contact-point takes HOST:PORT, not '" + p + "'");
                }
            }
            c = c.withValue("replay.cluster.contact-points", ConfigValueFactory.fromIterable(points));
        }
        return c;
    }
}
