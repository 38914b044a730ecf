package org.replayfarm.coordinator.node;

import akka.actor.typed.ActorSystem;
import akka.management.cluster.bootstrap.ClusterBootstrap;
import akka.management.javadsl.AkkaManagement;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a node finds the cluster, read from {@code replay.cluster} (see reference.conf). With
 * {@link Discovery#SEEDS} the node joins its seed nodes, or itself. With {@link Discovery#CONFIG} or
 * {@link Discovery#KUBERNETES_API}, Akka Management Cluster Bootstrap finds the other nodes' management
 * endpoints through that Akka Discovery method and forms or joins the cluster: the same code path on
 * Kubernetes (pods found by label through the API) and on a fixed list of hosts. Akka Management's HTTP
 * server also answers the health checks ({@code /ready} once the member is Up, {@code /alive}).
 */
public final class Bootstrap {
    /** The discovery methods a node takes; {@link #name} is the configuration's and the flag's spelling. */
    public enum Discovery {
        SEEDS("seeds"), CONFIG("config"), KUBERNETES_API("kubernetes-api");

        public final String name;

        Discovery(String name) {
            this.name = name;
        }

        public static Discovery parse(String s) {
            for (Discovery d : values()) {
                if (d.name.equals(s)) {
                    return d;
                }
            }
            throw new IllegalArgumentException("replay.cluster.discovery must be seeds, config or kubernetes-api, not '" + s + "'");
        }
    }

    private static final String CONTACT = "akka.management.cluster.bootstrap.contact-point-discovery.";

    private final Discovery discovery;
    private final boolean management;

    private Bootstrap(Discovery discovery, boolean management) {
        this.discovery = discovery;
        this.management = management;
    }

    /** The bootstrap a node's resolved configuration asks for. */
    public static Bootstrap of(Config config) {
        Discovery d = Discovery.parse(config.getString("replay.cluster.discovery"));
        return new Bootstrap(d, d != Discovery.SEEDS || config.getBoolean("replay.cluster.management.enabled"));
    }

    public Discovery discovery() {
        return discovery;
    }

    /** Whether the node joins its seed nodes (or itself) rather than waiting for Cluster Bootstrap. */
    public boolean usesSeeds() {
        return discovery == Discovery.SEEDS;
    }

    public boolean managementEnabled() {
        return management;
    }

    /**
     * The akka.* settings {@code replay.cluster} stands for, to lay under the node's own configuration
     * ({@code config}: the node's configuration over the defaults, unresolved is fine); {@code host} is
     * the node's canonical host, where the management endpoint binds unless told otherwise.
     */
    public static Config akkaSettings(Config config, String host) {
        Config c = config.resolve();
        Discovery d = Discovery.parse(c.getString("replay.cluster.discovery"));
        String service = c.getString("replay.cluster.service-name");
        String mgmtHost = c.getString("replay.cluster.management.hostname");
        if (mgmtHost.isEmpty()) {
            mgmtHost = host;
        }
        int port = c.getInt("replay.cluster.management.port");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("replay.cluster.management.port must be in [0, 65535]: " + port);
        }
        int required = c.getInt("replay.cluster.required-contact-points");
        if (required < 1) {
            throw new IllegalArgumentException("replay.cluster.required-contact-points must be at least 1: " + required);
        }
        Config s = ConfigFactory.empty()
                .withValue("akka.management.http.port", ConfigValueFactory.fromAnyRef(port))
                .withValue(CONTACT + "service-name", ConfigValueFactory.fromAnyRef(service))
                .withValue(CONTACT + "required-contact-point-nr", ConfigValueFactory.fromAnyRef(required))
                .withValue("akka.discovery.kubernetes-api.pod-label-selector",
                        ConfigValueFactory.fromAnyRef(c.getString("replay.cluster.pod-label-selector")))
                .withValue("akka.coordinated-shutdown.phases.cluster-sharding-shutdown-region.timeout",
                        ConfigValueFactory.fromAnyRef(c.getString("replay.cluster.drain-timeout")));
        if (!mgmtHost.equals("0.0.0.0")) {
            s = s.withValue("akka.management.http.hostname", ConfigValueFactory.fromAnyRef(mgmtHost));
            // reached at the canonical host, bound where the node's listeners bind (--bind) when that differs
            String bind = c.hasPath("akka.remote.artery.bind.hostname") ? c.getString("akka.remote.artery.bind.hostname") : "";
            if (c.getString("replay.cluster.management.hostname").isEmpty() && !bind.isEmpty() && !bind.equals(mgmtHost)) {
                s = s.withValue("akka.management.http.bind-hostname", ConfigValueFactory.fromAnyRef(bind));
            }
        } else {
            s = s.withValue("akka.management.http.bind-hostname", ConfigValueFactory.fromAnyRef("0.0.0.0"));
        }
        if (d != Discovery.SEEDS) {
            s = s.withValue(CONTACT + "discovery-method", ConfigValueFactory.fromAnyRef(d.name));
        }
        if (d == Discovery.KUBERNETES_API) {
            // each pod's contact point is its container port named "management" (deploy/k8s), not a fixed port
            s = s.withValue(CONTACT + "port-name", ConfigValueFactory.fromAnyRef("management"));
        }
        List<String> points = c.getStringList("replay.cluster.contact-points");
        if (!points.isEmpty()) {
            List<Map<String, Object>> endpoints = new ArrayList<>();
            for (String p : points) {
                endpoints.add(endpoint(p));
            }
            s = s.withValue(ConfigUtil.joinPath("akka", "discovery", "config", "services", service, "endpoints"),
                    ConfigValueFactory.fromIterable(endpoints));
        } else if (d == Discovery.CONFIG && !c.hasPath(ConfigUtil.joinPath("akka", "discovery", "config", "services", service))) {
            throw new IllegalArgumentException("discovery config needs the management endpoints of service '" + service
                    + "': give replay.cluster.contact-points (--contact-point HOST:PORT) or akka.discovery.config.services");
        }
        return s;
    }

    private static Map<String, Object> endpoint(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String bad = "replay.cluster.contact-points: '" + hostPort + "' is not HOST:PORT";
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException(bad);
        }
        try {
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(bad + " (the port must be in [1, 65535])");
            }
            return Map.of("host", hostPort.substring(0, colon), "port", port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(bad);
        }
    }

    /**
     * Starts Akka Management's HTTP server (when enabled) and waits for it to bind, then Cluster
     * Bootstrap (when discovery is not seeds), which joins the node to the cluster in the background.
     */
    public void start(ActorSystem<?> system) throws IOException, InterruptedException {
        if (!management) {
            return;
        }
        try {
            AkkaManagement.get(system).start().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            var http = system.settings().config().getConfig("akka.management.http");
            throw new IOException("Akka Management's HTTP server did not start on " + http.getString("hostname") + ":"
                    + http.getInt("port") + ": " + cause.getMessage(), cause);
        }
        if (discovery != Discovery.SEEDS) {
            ClusterBootstrap.get(system).start();
        }
    }
}
