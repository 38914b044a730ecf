package org.replayfarm.coordinator.node;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.typed.Cluster;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.server.Route;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.replayfarm.coordinator.job.JobService;
import org.replayfarm.coordinator.sampling.SamplingStore;
import org.replayfarm.gpunode.node.GpuNode;
import org.replayfarm.gpunode.sampling.PcSampler;
import org.replayfarm.evalnode.cluster.EvaluatorNode;
import org.replayfarm.evalnode.cluster.EvaluatorSharding;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.metrics.MetricsEndpoint;
import org.replayfarm.coordinator.failover.Coordinators;
import org.replayfarm.coordinator.job.ClusterJobService;
import org.replayfarm.coordinator.job.Journal;

/**
 * One node of the farm: an ActorSystem named {@value #SYSTEM} with the given roles (coordinator, eval,
 * gpu), Artery on a canonical host and port, seed nodes (none: the node joins itself), the split-brain
 * resolver, the node's metrics endpoint, evaluator sharding (a region on eval nodes, a proxy elsewhere), and
 * one role module per role it was given: {@link EvalRole}, {@link CoordinatorRole} and {@link GpuRole}, each
 * with its own start and close.
 */
public final class FarmNode implements AutoCloseable {
    public static final String SYSTEM = "farm";
    public static final String COORDINATOR = "coordinator";
    /** How long a job waits for the sampling store's answer (a local ask) before reporting sampling as none. */
    private static final java.time.Duration SNAPSHOT_TIMEOUT = java.time.Duration.ofSeconds(10);

    /**
     * How to start a node. {@code seeds} are HOST:PORT of nodes to join (empty: join itself);
     * {@code evalThreads} 0 means all cores; {@code config} is laid over everything else (a file, tests).
     */
    public record Settings(Set<String> roles, String host, int port, List<String> seeds, String httpHost, int httpPort,
                           int evalThreads, Path workDir, boolean serializeMessages, Config config,
                           Function<JobService, List<Route>> routes, PcSampler sampler) {
        public static Settings of(Set<String> roles, Path workDir) {
            return new Settings(roles, "127.0.0.1", 0, List.of(), "127.0.0.1", 0, 0, workDir, false,
                    ConfigFactory.empty(), service -> List.of(), null);
        }

        public Settings(Set<String> roles, String host, int port, List<String> seeds, String httpHost, int httpPort,
                        int evalThreads, Path workDir, boolean serializeMessages, Config config,
                        Function<JobService, List<Route>> routes) {
            this(roles, host, port, seeds, httpHost, httpPort, evalThreads, workDir, serializeMessages, config, routes, null);
        }

        /**
         * The PC sampler of a node with role {@value GpuNode#ROLE} (tests: a SimulatedDevice). Without one
         * the node has no device to sample: the device runner that brings the CUDA context CUPTI needs
         * comes later, so sampling that is on says so when it would configure.
         */
        public Settings withSampler(PcSampler p) {
            return new Settings(roles, host, port, seeds, httpHost, httpPort, evalThreads, workDir, serializeMessages, config,
                    routes, p);
        }

        public Settings withSeeds(List<String> s) {
            return new Settings(roles, host, port, s, httpHost, httpPort, evalThreads, workDir, serializeMessages, config, routes, sampler);
        }

        public Settings withEvalThreads(int n) {
            return new Settings(roles, host, port, seeds, httpHost, httpPort, n, workDir, serializeMessages, config, routes, sampler);
        }

        public Settings withSerializeMessages(boolean on) {
            return new Settings(roles, host, port, seeds, httpHost, httpPort, evalThreads, workDir, on, config, routes, sampler);
        }

        public Settings withConfig(Config c) {
            return new Settings(roles, host, port, seeds, httpHost, httpPort, evalThreads, workDir, serializeMessages, c, routes, sampler);
        }

        public Settings withAddress(String h, int p) {
            return new Settings(roles, h, p, seeds, httpHost, httpPort, evalThreads, workDir, serializeMessages, config, routes, sampler);
        }

        public Settings withHttp(String h, int p) {
            return new Settings(roles, host, port, seeds, h, p, evalThreads, workDir, serializeMessages, config, routes, sampler);
        }

        public Settings withRoutes(Function<JobService, List<Route>> r) {
            return new Settings(roles, host, port, seeds, httpHost, httpPort, evalThreads, workDir, serializeMessages, config, r, sampler);
        }
    }

    private final ActorSystem<Void> system;
    private final int evalThreads;
    private final MetricsEndpoint metricsEndpoint;
    private final FarmMetrics metrics;
    /** The node's roles: null where it was not given one. */
    private final EvalRole eval;
    private final CoordinatorRole coordinator;
    private GpuRole gpu;

    private FarmNode(ActorSystem<Void> system, int evalThreads, MetricsEndpoint metricsEndpoint, FarmMetrics metrics,
                     EvalRole eval, CoordinatorRole coordinator) {
        this.system = system;
        this.evalThreads = evalThreads;
        this.metricsEndpoint = metricsEndpoint;
        this.metrics = metrics;
        this.eval = eval;
        this.coordinator = coordinator;
    }

    private CoordinatorRole coordinator() {
        if (coordinator == null) {
            throw new IllegalStateException("this node has no coordinator role");
        }
        return coordinator;
    }

    private GpuRole gpuRole() {
        if (gpu == null) {
            throw new IllegalStateException("this node has no " + GpuNode.ROLE + " role");
        }
        return gpu;
    }

    /** The hottest guest instructions of device runs, as series on {@code /metrics} (coordinator nodes only). */
    public org.replayfarm.coordinator.device.HotGuestMetrics hotGuestMetrics() {
        return coordinator().hotGuestMetrics();
    }

    /** The GPU nodes this coordinator knows and what each advertised (coordinator nodes only). */
    public org.replayfarm.coordinator.device.GpuNodes gpuNodes() {
        return coordinator().gpuNodes();
    }

    /**
     * What this coordinator knows of the cluster's coordinators: the active one's API URL, the others, and
     * warnings about journals they do not share (coordinator nodes only).
     */
    public Coordinators coordinators() {
        return coordinator().coordinators();
    }

    /** What this node says it is ({@code GET /status}, {@code replay status}); warnings: at start and now. */
    public List<String> warnings() {
        return coordinator == null ? List.of() : coordinator.warnings();
    }

    /** The node's configuration: {@code settings.config()} over the settings over the defaults. */
    public static Config config(Settings s, int threads) {
        Set<String> roles = new LinkedHashSet<>(s.roles());
        Config base = ConfigFactory.load();
        if (roles.contains(EvaluatorSharding.ROLE)) {
            int perThread = s.config().withFallback(base).getInt("replay.eval.slices-per-thread");
            roles.add("slots-" + Math.max(1, perThread * threads));
        }
        List<String> seeds = new ArrayList<>();
        for (String seed : s.seeds()) {
            seeds.add(seed.startsWith("akka://") ? seed : "akka://" + SYSTEM + "@" + seed);
        }
        Config settings = ConfigFactory.empty();
        if (seeds.size() > 1 && seeds.get(0).equals("akka://" + SYSTEM + "@" + s.host() + ":" + s.port())) {
            // a node naming itself first among several seeds (a coordinator restarted into its cluster) is Akka's
            // first seed: it forms a cluster of its own when no other seed answers within seed-node-timeout. The
            // default 5 s is too short for a loaded machine (the restarted node then sits alone with its jobs,
            // no evaluator in sight): wait longer, unless the node's own config says otherwise
            settings = settings.withValue("akka.cluster.seed-node-timeout", ConfigValueFactory.fromAnyRef("30s"));
        }
        settings = settings
                .withValue("akka.actor.provider", ConfigValueFactory.fromAnyRef("cluster"))
                .withValue("akka.remote.artery.canonical.hostname", ConfigValueFactory.fromAnyRef(s.host()))
                .withValue("akka.remote.artery.canonical.port", ConfigValueFactory.fromAnyRef(s.port()))
                .withValue("akka.cluster.roles", ConfigValueFactory.fromIterable(roles))
                .withValue("akka.cluster.seed-nodes", ConfigValueFactory.fromIterable(seeds))
                .withValue("akka.cluster.downing-provider-class",
                        ConfigValueFactory.fromAnyRef("akka.cluster.sbr.SplitBrainResolverProvider"))
                .withValue("akka.cluster.jmx.multi-mbeans-in-same-jvm", ConfigValueFactory.fromAnyRef("on"))
                .withValue("akka.actor.serialize-messages", ConfigValueFactory.fromAnyRef(s.serializeMessages() ? "on" : "off"))
                // the farm is throughput-bound: Artery's threads must not spin waiting for messages, which
                // takes cores from the evaluators (on 2 cores the default level cost the embedded run ~20%)
                .withValue("akka.remote.artery.advanced.idle-cpu-level", ConfigValueFactory.fromAnyRef(1))
                .withValue("replay.eval.dispatcher.thread-pool-executor.fixed-pool-size", ConfigValueFactory.fromAnyRef(threads));
        // replay.cluster (discovery, management, drain) stands for akka.* settings the node's own config may override
        Config bootstrap = Bootstrap.akkaSettings(s.config().withFallback(base), s.host());
        Config journal = embedded(s.config()) ? EMBEDDED : Journal.settings(s.config().withFallback(base).resolve(), s.workDir());
        Config tls = ClusterTls.akkaSettings(s.config().withFallback(base).resolve()); // empty without a key store
        Config resolved = s.config().withFallback(settings).withFallback(journal).withFallback(tls).withFallback(bootstrap)
                .withFallback(base).resolve();
        if (resolved.getString("replay.metrics.host").isEmpty()) {
            // the endpoint listens where the node does: its bind address, else its canonical host
            resolved = resolved.withValue("replay.metrics.host", ConfigValueFactory.fromAnyRef(bindAddress(resolved)));
        }
        return resolved;
    }

    /**
     * {@value #EMBEDDED_KEY} = on in a node's config: the node is {@code replay run}'s embedded cluster of one,
     * whose work directory (journal included) is deleted when the run ends. Its journal is Akka's in-memory
     * one (no H2 database, JDBC pool or schema to create: a restart never resumes it anyway), and its
     * coordinated shutdown skips the phases that hand shards and membership over to other nodes (there are
     * none, and every result has been written before it closes), and the evaluators' drain announcement
     * ({@code before-cluster-shutdown}: it tells other nodes' jobs, then waits 300 ms for slices already on their
     * way; the only jobs are this node's, and they have ended): the same actors, sharding, singleton, HTTP
     * server and job path as any coordinator, without the costs that only a lasting node repays.
     */
    public static final String EMBEDDED_KEY = "replay.embedded";
    private static final Config EMBEDDED = ConfigFactory.parseMap(java.util.Map.ofEntries(
            java.util.Map.entry("akka.persistence.journal.plugin", "akka.persistence.journal.inmem"),
            java.util.Map.entry("akka.persistence.journal.inmem.test-serialization", "off"),
            java.util.Map.entry("akka.persistence.snapshot-store.plugin", "akka.persistence.no-snapshot-store"),
            java.util.Map.entry("akka.coordinated-shutdown.phases.before-cluster-shutdown.enabled", "off"),
            java.util.Map.entry("akka.coordinated-shutdown.phases.cluster-sharding-shutdown-region.enabled", "off"),
            java.util.Map.entry("akka.coordinated-shutdown.phases.cluster-leave.enabled", "off"),
            java.util.Map.entry("akka.coordinated-shutdown.phases.cluster-exiting.enabled", "off"),
            java.util.Map.entry("akka.coordinated-shutdown.phases.cluster-exiting-done.enabled", "off"),
            java.util.Map.entry("akka.coordinated-shutdown.phases.cluster-shutdown.enabled", "off"),
            // a process that lives for one run: no cluster MBean (the platform MBean server's start), and no Akka
            // events for Java Flight Recorder (registering them generates JFR's event handler classes at start;
            // these embedded settings lie over system properties, below the node's own Settings.config)
            java.util.Map.entry("akka.cluster.jmx.enabled", "off"),
            java.util.Map.entry("akka.java-flight-recorder.enabled", "off")));

    static boolean embedded(Config c) {
        return c.hasPath(EMBEDDED_KEY) && c.getBoolean(EMBEDDED_KEY);
    }

    /** Where a node's listeners bind unless told otherwise: Artery's bind address, else its canonical host. */
    public static String bindAddress(Config resolved) {
        String bind = resolved.getString("akka.remote.artery.bind.hostname");
        return bind.isEmpty() ? resolved.getString("akka.remote.artery.canonical.hostname") : bind;
    }

    public static FarmNode start(Settings s) throws IOException, InterruptedException {
        return start(s, null);
    }

    /**
     * As above; on a node with role {@value GpuNode#ROLE}, {@code device} (when not null) is its device
     * instead of the one {@code replay.gpu.backend} names (tests: a device that never finishes).
     */
    public static FarmNode start(Settings s, org.replayfarm.gpunode.node.DeviceSetup deviceOverride)
            throws IOException, InterruptedException {
        Config base = s.config().withFallback(ConfigFactory.load());
        int threads = s.evalThreads() > 0 ? s.evalThreads()
                : base.getInt("replay.eval.threads") > 0 ? base.getInt("replay.eval.threads")
                : Runtime.getRuntime().availableProcessors();
        Config config = config(s, threads);
        String advertised = s.host().equals("0.0.0.0") ? "127.0.0.1" : s.host();
        // Kamon starts beside the actor system (it takes a few hundred milliseconds of its own)
        MetricsEndpoint.Settings metricsSettings = MetricsEndpoint.Settings.from(config);
        CompletableFuture<MetricsEndpoint> metricsStart = MetricsEndpoint.startAsync(metricsSettings, advertised);
        if (s.roles().contains(COORDINATOR)) {
            CoordinatorRole.warmTls();
        }
        ActorSystem<Void> system;
        try {
            system = ActorSystem.create(Behaviors.empty(), SYSTEM, config);
        } catch (RuntimeException e) {
            metricsStart.thenAccept(m -> {
                if (m != null) {
                    m.close();
                }
            });
            throw e;
        }
        MetricsEndpoint metricsEndpoint = null;
        try {
            Cluster cluster = Cluster.get(system);
            Bootstrap bootstrap = Bootstrap.of(config);
            if (!bootstrap.usesSeeds() && !s.seeds().isEmpty()) {
                throw new IllegalArgumentException("seed nodes are for discovery seeds; discovery "
                        + bootstrap.discovery().name + " finds the cluster through Cluster Bootstrap");
            }
            bootstrap.start(system); // Akka Management (health checks) and Cluster Bootstrap, when configured
            if (s.seeds().isEmpty() && bootstrap.usesSeeds()) {
                cluster.manager().tell(akka.cluster.typed.Join.create(cluster.selfMember().address()));
            }
            metricsEndpoint = MetricsEndpoint.await(metricsStart);
            var self = cluster.selfMember().address();
            FarmMetrics metrics = FarmMetrics.forNode(self.getHost().get() + ":" + self.getPort().get(),
                    metricsEndpoint != null);
            EvalRole eval = s.roles().contains(EvaluatorSharding.ROLE)
                    ? EvalRole.start(system, config, s.workDir(), self.toString(), metrics) : null;
            // sharding (the evaluator region or proxy, and the coordinator singleton's manager) starts on a thread of
            // its own while this one binds the HTTP server and starts the coordinator's actors: the job service,
            // the only user of the region, waits for it
            CompletableFuture<ActorRef<org.replayfarm.proto.SliceTask>> sharding = new CompletableFuture<>();
            EvaluatorNode region = eval == null ? null : eval.evaluator();
            Thread shardingStart = new Thread(() -> {
                try {
                    sharding.complete(EvaluatorSharding.init(system, region));
                } catch (Throwable e) {
                    sharding.completeExceptionally(e);
                }
            }, "farm-sharding-start");
            shardingStart.setDaemon(true);
            shardingStart.start();
            CoordinatorRole coordinator = null;
            if (s.roles().contains(COORDINATOR)) {
                int reportThreads = eval != null ? threads : 0;
                coordinator = CoordinatorRole.start(system, config, s, metrics, metricsSettings, advertised, bootstrap,
                        () -> awaitSharding(sharding), reportThreads);
            }
            awaitSharding(sharding); // every node: a sharding that did not start fails the node's start
            FarmNode node = new FarmNode(system, threads, metricsEndpoint, metrics, eval, coordinator);
            node.startupWarnings().forEach(w -> system.log().warn(w));
            if (s.roles().contains(GpuNode.ROLE)) {
                node.gpu = GpuRole.start(system, config, s.workDir(), deviceOverride, s.sampler());
            }
            return node;
        } catch (IOException | RuntimeException | InterruptedException e) {
            system.terminate();
            closeQuietly(metricsEndpoint);
            throw e;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            system.terminate();
            closeQuietly(metricsEndpoint);
            throw new IOException("the coordinator's HTTP server did not start: " + e.getMessage(), e);
        }
    }

    private static ActorRef<org.replayfarm.proto.SliceTask> awaitSharding(
            CompletableFuture<ActorRef<org.replayfarm.proto.SliceTask>> sharding) {
        try {
            return sharding.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("evaluator sharding did not start: " + e.getCause(), e.getCause());
        }
    }

    public ActorSystem<Void> system() {
        return system;
    }

    /** The node's cluster address, e.g. {@code akka://farm@127.0.0.1:25520}. */
    public String address() {
        return Cluster.get(system).selfMember().address().toString();
    }

    /**
     * How many evaluator shard regions the sharding coordinator knows now (a job sends slices only to
     * nodes whose region it knows; a node that has just joined may not be known for a moment). -1 when
     * the coordinator did not answer within {@code timeout}.
     */
    public int evaluatorRegions(java.time.Duration timeout) {
        akka.actor.ActorRef region = akka.cluster.sharding.ClusterSharding.get(
                akka.actor.typed.javadsl.Adapter.toClassic(system)).shardRegion(EvaluatorSharding.TYPE_KEY.name());
        try {
            Object answer = akka.pattern.Patterns.ask(region, akka.cluster.sharding.ShardRegion.getCurrentRegionsInstance(),
                    timeout).toCompletableFuture().get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            return ((akka.cluster.sharding.ShardRegion.CurrentRegions) answer).getRegions().size();
        } catch (Exception e) {
            return -1;
        }
    }

    /** HOST:PORT to give other nodes as their seed. */
    public String seed() {
        var a = Cluster.get(system).selfMember().address();
        return a.getHost().get() + ":" + a.getPort().get();
    }

    /** What the node found at start that its operator should know (printed by replay node). */
    public List<String> startupWarnings() {
        return coordinator == null ? List.of() : coordinator.startupWarnings();
    }

    /** The job service (coordinator nodes only). */
    public ClusterJobService jobs() {
        return coordinator().jobs();
    }

    /** Whether this coordinator runs the jobs now (the {@link ActiveCoordinator} singleton is here). */
    public boolean active() {
        return coordinator != null && coordinator.active();
    }

    /** The store of GPU nodes' sampling windows and executions (coordinator nodes only). */
    public ActorRef<SamplingStore.Command> samplingStore() {
        return coordinator().samplingStore();
    }

    /** The GPU node's sampling (nodes with role {@value GpuNode#ROLE} only). */
    public GpuNode gpu() {
        return gpuRole().gpu();
    }

    /** The GPU node's device (nodes with role {@value GpuNode#ROLE} only): its backend and what it advertises. */
    public org.replayfarm.gpunode.node.DeviceSetup device() {
        return gpuRole().device();
    }

    /** The evaluator (eval nodes only; null otherwise). */
    public EvaluatorNode evaluator() {
        return eval == null ? null : eval.evaluator();
    }

    /** The coordinator's HTTP base URL as other nodes reach it (coordinator nodes only). */
    public String httpUrl() {
        return coordinator == null ? null : coordinator.httpUrl();
    }

    /** The HTTP server's binding (coordinator nodes only). */
    public ServerBinding binding() {
        return coordinator == null ? null : coordinator.binding();
    }

    public int evalThreads() {
        return evalThreads;
    }

    /** This node's metrics (recording nothing when they are off): the GPU role records through {@link FarmMetrics#gpu()}. */
    public FarmMetrics metrics() {
        return metrics;
    }

    /** Where Prometheus scrapes this node ({@code http://HOST:PORT/metrics}); empty when metrics are off. */
    public java.util.Optional<String> metricsUrl() {
        return java.util.Optional.ofNullable(metricsEndpoint).map(MetricsEndpoint::url);
    }


    /**
     * Leaves the cluster and stops the node (coordinated shutdown), then closes its roles (the coordinator's, then
     * the evaluator's; the GPU role's actors went with the actor system) and its metrics.
     */
    @Override
    public void close() {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            // it is going down anyway
        }
        if (coordinator != null) {
            coordinator.close();
        }
        if (eval != null) {
            eval.close();
        }
        if (gpu != null) {
            gpu.close();
        }
        closeQuietly(metricsEndpoint);
    }

    private static void closeQuietly(MetricsEndpoint m) {
        if (m != null) {
            m.close();
        }
    }
}
