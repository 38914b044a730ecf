package org.replayfarm.coordinator.cluster;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
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
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.replayfarm.coordinator.http.CoordinatorHttp;
import org.replayfarm.coordinator.jobs.CaptureStore;
import org.replayfarm.coordinator.jobs.JobService;
import org.replayfarm.coordinator.jobs.ProgressMetrics;
import org.replayfarm.coordinator.sampling.SamplingMetrics;
import org.replayfarm.coordinator.sampling.SamplingStore;
import org.replayfarm.gpunode.node.GpuNode;
import org.replayfarm.gpunode.sampling.NoDeviceSampler;
import org.replayfarm.gpunode.sampling.PcSampler;
import org.replayfarm.evalnode.cluster.CaptureCache;
import org.replayfarm.evalnode.cluster.EvaluatorNode;
import org.replayfarm.evalnode.cluster.EvaluatorSharding;
import org.replayfarm.evalnode.metrics.FarmMetrics;
import org.replayfarm.evalnode.metrics.MetricsEndpoint;

/**
 * One node of the farm: an ActorSystem named {@value #SYSTEM} with the given roles (coordinator, eval,
 * gpu), Artery on a canonical host and port, seed nodes (none: the node joins itself), the split-brain
 * resolver, evaluator sharding (a region on eval nodes, a proxy elsewhere), on the coordinator the
 * capture store, the cluster job service, the HTTP server and the GPU nodes' sampling store, and on GPU
 * nodes their {@link GpuNode} sampling with the node's {@code replay.gpu.sampling} settings.
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
    private final EvaluatorNode evaluator;
    /** The job service while this node is the active coordinator (null on other nodes). */
    private final JobServiceHolder jobs;
    private final ServerBinding binding;
    private final int evalThreads;
    private final String url;
    private ActorRef<SamplingStore.Command> samplingStore;
    private GpuNode gpu;
    private org.replayfarm.gpunode.node.DeviceSetup device;
    private org.replayfarm.coordinator.device.GpuNodes gpuNodes;
    /** The device runs' hottest guest instructions on /metrics (coordinator nodes only): closed with the node. */
    private org.replayfarm.coordinator.device.HotGuestMetrics hotGuest;

    /** The hottest guest instructions of device runs, as series on {@code /metrics} (coordinator nodes only). */
    public org.replayfarm.coordinator.device.HotGuestMetrics hotGuestMetrics() {
        if (hotGuest == null) {
            throw new IllegalStateException("this node has no coordinator role");
        }
        return hotGuest;
    }

    /** The GPU nodes this coordinator knows and what each advertised (coordinator nodes only). */
    public org.replayfarm.coordinator.device.GpuNodes gpuNodes() {
        if (gpuNodes == null) {
            throw new IllegalStateException("this node has no coordinator role");
        }
        return gpuNodes;
    }
    private final MetricsEndpoint metricsEndpoint;
    private final FarmMetrics metrics;

    private final List<String> startupWarnings = new ArrayList<>();
    private Coordinators coordinators;

    /**
     * What this coordinator knows of the cluster's coordinators: the active one's API URL, the others, and
     * warnings about journals they do not share (coordinator nodes only).
     */
    public Coordinators coordinators() {
        if (coordinators == null) {
            throw new IllegalStateException("this node has no coordinator role");
        }
        return coordinators;
    }

    /** What this node says it is ({@code GET /status}, {@code replay status}); warnings: at start and now. */
    public List<String> warnings() {
        List<String> all = new ArrayList<>(startupWarnings);
        if (coordinators != null) {
            all.addAll(coordinators.warnings());
        }
        return all;
    }

    static com.fasterxml.jackson.databind.node.ObjectNode status(String node, boolean active, String journal,
                                                                 Coordinators coordinators, List<String> startup) {
        com.fasterxml.jackson.databind.node.ObjectNode n = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
        n.put("node", node).put("role", COORDINATOR).put("active", active);
        n.put("journal", journal.startsWith("jdbc:h2:") ? "h2" : journal.startsWith("jdbc:postgresql:") ? "postgresql" : "other");
        n.put("journal_url", journal.replaceAll(";.*$", ""));
        if (coordinators != null) {
            n.put("http", coordinators.self().getHttpUrl());
            coordinators.activeUrl().ifPresentOrElse(u -> n.put("active_http", u), () -> n.putNull("active_http"));
            coordinators.activeNode().ifPresentOrElse(u -> n.put("active_node", u), () -> n.putNull("active_node"));
            var peers = n.putArray("coordinators");
            for (org.replayfarm.proto.CoordinatorInfo i : coordinators.peers()) {
                peers.addObject().put("node", i.getNodeAddress()).put("http", i.getHttpUrl())
                        .put("journal", i.getJournal().replaceAll(";.*$", ""));
            }
        }
        var w = n.putArray("warnings");
        startup.forEach(w::add);
        if (coordinators != null) {
            coordinators.warnings().forEach(w::add);
        }
        return n;
    }

    private FarmNode(ActorSystem<Void> system, EvaluatorNode evaluator, JobServiceHolder jobs, ServerBinding binding,
                     int evalThreads, String url, MetricsEndpoint metricsEndpoint, FarmMetrics metrics) {
        this.url = url;
        this.metricsEndpoint = metricsEndpoint;
        this.metrics = metrics;
        this.system = system;
        this.evaluator = evaluator;
        this.jobs = jobs;
        this.binding = binding;
        this.evalThreads = evalThreads;
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
            warmTls();
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
        List<String> startupWarnings = new ArrayList<>();
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
            EvaluatorNode evaluator = null;
            if (s.roles().contains(EvaluatorSharding.ROLE)) {
                String dir = config.getString("replay.eval.cache-dir");
                Path cacheDir = dir.isEmpty() ? s.workDir().resolve("cache") : Path.of(dir);
                Executor executor = system.dispatchers().lookup(DispatcherSelector.fromConfig("replay.eval.dispatcher"));
                FarmMetrics.EvalSeries evalMetrics = metrics.eval();
                evaluator = new EvaluatorNode(new CaptureCache(cacheDir, evalMetrics,
                        org.replayfarm.evalnode.cluster.ApiToken.from(config)), executor,
                        cluster.selfMember().address().toString(), evalMetrics);
            }
            // sharding (the evaluator region or proxy, and the coordinator singleton's manager) starts on a thread of
            // its own while this one binds the HTTP server and starts the coordinator's actors: the job service,
            // the only user of the region, waits for it
            CompletableFuture<ActorRef<org.replayfarm.proto.SliceTask>> sharding = new CompletableFuture<>();
            EvaluatorNode region = evaluator;
            Thread shardingStart = new Thread(() -> {
                try {
                    sharding.complete(EvaluatorSharding.init(system, region));
                } catch (Throwable e) {
                    sharding.completeExceptionally(e);
                }
            }, "farm-sharding-start");
            shardingStart.setDaemon(true);
            shardingStart.start();
            JobServiceHolder holder = null;
            org.replayfarm.coordinator.device.GpuNodes gpuNodes = null;
            ActorRef<SamplingStore.Command> samplingStore = null;
            ServerBinding binding = null;
            org.replayfarm.coordinator.device.HotGuestMetrics hotGuest = null;
            String url = null;
            Coordinators coordinatorsHere = null;
            if (s.roles().contains(COORDINATOR)) {
                if (!embedded(config)) {
                    Journal.createSchema(system);
                }
                // the embedded run's coordinator keeps its captures and outputs in its own work dir (never a farm's
                // REPLAY_STORAGE_DIR, which its retention sweep would then clean) and removes nothing
                Path storage = embedded(config) ? s.workDir() : storageDir(config, s.workDir());
                ClusterJobService.Retention retention = embedded(config) ? ClusterJobService.Retention.KEEP
                        : ClusterJobService.Retention.from(config);
                CaptureStore store = new CaptureStore(storage.resolve("captures"));
                // bind first (port 0 picks one), then tell evaluators the URL the binding got
                List<Route> routes = new ArrayList<>();
                JobServiceHolder h = new JobServiceHolder();
                holder = h;
                // a coordinator the split-brain resolver is about to stop (cut off from the majority) accepts nothing
                routes.add(CoordinatorHttp.refusingWritesWhenCutOff(() -> Quorum.cutOff(system)));
                routes.addAll(s.routes().apply(h));
                // a standby forwards to the active coordinator the cluster names (Coordinators, known once bound)
                CompletableFuture<Coordinators> directory = new CompletableFuture<>();
                List<String> warningsHere = startupWarnings;
                // an embedded run keeps its journal in memory (no JDBC database is configured): say so
                String journalUrl = embedded(config) ? "inmem"
                        : Coordinators.publishable(config.getString("akka-persistence-jdbc.shared-databases.journal.db.url"));
                String nodeAddress = cluster.selfMember().address().toString();
                CoordinatorHttp.Standby standby = new CoordinatorHttp.Standby(
                        () -> directory.isDone() ? directory.join().activeUrl() : java.util.Optional.empty(),
                        () -> directory.isDone() ? directory.join().self().getHttpUrl() : "");
                Route status = CoordinatorHttp.statusRoute(() -> status(nodeAddress, h.delegate != null, journalUrl,
                        directory.getNow(null), warningsHere));
                binding = CoordinatorHttp.start(system, s.httpHost(), s.httpPort(), store, routes,
                        org.replayfarm.evalnode.cluster.ApiToken.from(config), () -> h.delegate != null, standby,
                        List.of(status))
                        .toCompletableFuture().get(30, TimeUnit.SECONDS);
                url = "http://" + advertised + ":" + binding.localAddress().getPort();
                Coordinators coordinators = Coordinators.start(system, nodeAddress, url, journalUrl);
                directory.complete(coordinators);
                coordinatorsHere = coordinators;
                SamplingMetrics gpuMetrics = new SamplingMetrics(metrics);
                samplingStore = SamplingStore.start(system, gpuMetrics, config.getDuration("replay.coordinator.tick"));
                ActorRef<SamplingStore.Command> sampling = samplingStore;
                hotGuest = new org.replayfarm.coordinator.device.HotGuestMetrics(metrics, metricsSettings.jobRetention());
                gpuNodes = org.replayfarm.coordinator.device.GpuNodes.start(system, url,
                        config.getDuration("replay.coordinator.device-run-timeout"), hotGuest);
                org.replayfarm.coordinator.device.GpuNodes gpus = gpuNodes;
                String captureUrl = url;
                int reportThreads = s.roles().contains(EvaluatorSharding.ROLE) ? threads : 0;
                // the job service runs where the ActiveCoordinator singleton runs: on one coordinator at a time
                ActorRef<org.replayfarm.proto.SliceTask> shards = awaitSharding(sharding);
                CompletableFuture<Integer> active = h.started;
                ActiveCoordinator.init(system, new ActiveCoordinator.Lifecycle() {
                    @Override
                    public void activated(ActorRef<ActiveCoordinator.Command> self) {
                        try {
                            ClusterJobService j = new ClusterJobService(system, shards, store, storage.resolve("jobs"),
                                    captureUrl, reportThreads, new ProgressMetrics(metrics, metricsSettings.jobRetention()),
                                    () -> SamplingStore.snapshot(system, sampling, SNAPSHOT_TIMEOUT), gpuMetrics::latest,
                                    self);
                            j.gpuSource(gpus);
                            // ended jobs expire (journal, list, outputs, unused captures); the sweep runs here only
                            j.retention(retention, List.of(s.workDir().resolve("uploads")));
                            int known = j.resume(); // the jobs the journal holds that had not ended start again
                            // the cluster learns where the active coordinator's API is (standbys forward there)
                            ActiveCoordinator.spawn(system, self, ctx -> ctx.spawn(coordinators.announcer(), "active-http"));
                            h.delegate = j;
                            system.log().info("this coordinator is the active one: {} unfinished job(s) started again, "
                                    + "the API serves at {}", known, captureUrl);
                            active.complete(known);
                        } catch (IOException | RuntimeException e) {
                            active.completeExceptionally(e);
                            throw new IllegalStateException(e);
                        }
                    }

                    @Override
                    public void deactivated() {
                        JobService was = h.delegate;
                        h.delegate = null;
                        if (was != null) {
                            system.log().info("this coordinator is no longer the active one; its API answers 503");
                            was.close();
                        }
                    }
                });
                // joining seeds (or itself) the node is up in moments; through Cluster Bootstrap it may wait for
                // contact points that start after it, so it does not wait here (jobs() waits for the service)
                Integer known = bootstrap.usesSeeds()
                        ? awaitActive(system, active, config.getDuration("replay.coordinator.active-wait")) : null;
                if (known == null) {
                    system.log().info("this coordinator stands by: another coordinator is active");
                }
                if (known != null && known > 0 && s.seeds().isEmpty() && bootstrap.usesSeeds()) {
                    startupWarnings.add("this coordinator ran before (its journal holds " + known + " unfinished job(s)) "
                            + "and was started without --seed: it formed a new cluster of its own, which the evaluators "
                            + "of the earlier one do not join, so those jobs wait for evaluators. Start it with --seed "
                            + "naming itself and a surviving evaluator to rejoin the cluster.");
                }
            }
            awaitSharding(sharding); // every node: a sharding that did not start fails the node's start
            FarmNode node = new FarmNode(system, evaluator, holder, binding, threads, url, metricsEndpoint, metrics);
            node.coordinators = coordinatorsHere;
            node.samplingStore = samplingStore;
            node.gpuNodes = gpuNodes;
            node.hotGuest = hotGuest;
            node.startupWarnings.addAll(startupWarnings);
            startupWarnings.forEach(w -> system.log().warn(w));
            if (s.roles().contains(GpuNode.ROLE)) {
                // sampling as this node's replay.gpu.sampling says; its records go to the coordinators' stores
                org.replayfarm.gpunode.node.DeviceSetup device = deviceOverride != null ? deviceOverride
                        : org.replayfarm.gpunode.node.DeviceSetup.from(config);
                PcSampler sampler = s.sampler() != null ? s.sampler()
                        : org.replayfarm.gpunode.node.GpuSampler.forDevice(config, device.backend());
                node.gpu = GpuNode.start(system, sampler, System.currentTimeMillis());
                node.device = device;
                org.replayfarm.gpunode.node.DeviceRunner.start(system, device.backend(), device.info(),
                        s.workDir().resolve("gpu-captures"), node.gpu);
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

    /**
     * Akka HTTP's bind of a plain (no TLS) server initialises the JVM's default SSL context all the same
     * ({@code TLSPlacebo}'s dummy session: the JSSE providers and the trust store, 0.1-0.3 s of CPU). A thread of
     * its own does that beside the actor system's start, so that the coordinator's bind finds it made.
     */
    private static void warmTls() {
        Thread t = new Thread(() -> {
            try {
                javax.net.ssl.SSLContext.getDefault();
            } catch (java.security.NoSuchAlgorithmException | RuntimeException e) {
                // the bind meets the same failure and reports it
            }
        }, "farm-tls-warm-up");
        t.setDaemon(true);
        t.start();
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

    /** The job service (coordinator nodes only). */
    /** What the node found at start that its operator should know (printed by replay node). */
    public List<String> startupWarnings() {
        return List.copyOf(startupWarnings);
    }

    public ClusterJobService jobs() {
        if (jobs == null) {
            throw new IllegalStateException("this node has no coordinator role");
        }
        JobService d = jobs.delegate;
        if (d == null) {
            // a node that is to become the active one (no older coordinator is up) gets there in moments
            try {
                if (awaitActive(system, jobs.started, java.time.Duration.ofSeconds(30)) != null) {
                    d = jobs.delegate;
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("the job service did not start: " + e.getMessage(), e);
            }
        }
        if (d == null) {
            throw new JobService.StandingBy("this coordinator stands by: another coordinator is the active one");
        }
        return (ClusterJobService) d;
    }

    /** Whether this coordinator runs the jobs now (the {@link ActiveCoordinator} singleton is here). */
    public boolean active() {
        return jobs != null && jobs.delegate != null;
    }

    /**
     * Where a coordinator keeps captures and job outputs: {@code replay.coordinator.storage-dir}, else its
     * work directory. Coordinators that take over from each other must share it (and the journal).
     */
    static Path storageDir(Config config, Path workDir) {
        String dir = config.getString("replay.coordinator.storage-dir");
        return dir.isEmpty() ? workDir : Path.of(dir);
    }

    /**
     * Waits until the singleton has started here and resumed the journal's jobs (their count), or until an
     * older coordinator is up, which holds it (null: this one stands by), at most {@code timeout}.
     */
    private static Integer awaitActive(ActorSystem<?> system, CompletableFuture<Integer> active,
                                       java.time.Duration timeout) throws IOException, InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        Cluster cluster = Cluster.get(system);
        while (System.nanoTime() < end) {
            if (active.isDone()) {
                try {
                    return active.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    Throwable cause = e.getCause() instanceof IllegalStateException && e.getCause().getCause() != null
                            ? e.getCause().getCause() : e.getCause();
                    throw new IOException("the job service did not start: " + cause.getMessage(), cause);
                }
            }
            akka.cluster.Member self = cluster.selfMember();
            if (self.status() == akka.cluster.MemberStatus.up()) {
                for (akka.cluster.Member m : cluster.state().getMembers()) {
                    if (m.hasRole(COORDINATOR) && !m.equals(self) && m.status() == akka.cluster.MemberStatus.up()
                            && m.isOlderThan(self)) {
                        return null;
                    }
                }
            }
            TimeUnit.MILLISECONDS.sleep(10); // polling a condition
        }
        return null;
    }

    /** The store of GPU nodes' sampling windows and executions (coordinator nodes only). */
    public ActorRef<SamplingStore.Command> samplingStore() {
        if (samplingStore == null) {
            throw new IllegalStateException("this node has no coordinator role");
        }
        return samplingStore;
    }

    /** The GPU node's sampling (nodes with role {@value GpuNode#ROLE} only). */
    public GpuNode gpu() {
        if (gpu == null) {
            throw new IllegalStateException("this node has no " + GpuNode.ROLE + " role");
        }
        return gpu;
    }

    /** The GPU node's device (nodes with role {@value GpuNode#ROLE} only): its backend and what it advertises. */
    public org.replayfarm.gpunode.node.DeviceSetup device() {
        if (device == null) {
            throw new IllegalStateException("this node has no " + GpuNode.ROLE + " role");
        }
        return device;
    }

    /** The evaluator (eval nodes only; null otherwise). */
    public EvaluatorNode evaluator() {
        return evaluator;
    }

    /** The coordinator's HTTP base URL as other nodes reach it (coordinator nodes only). */
    public String httpUrl() {
        return url;
    }

    /** The HTTP server's binding (coordinator nodes only). */
    public ServerBinding binding() {
        return binding;
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

    /** Leaves the cluster and stops the node (coordinated shutdown), then its metrics. */
    @Override
    public void close() {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            // it is going down anyway
        }
        if (jobs != null) {
            jobs.close();
        }
        if (hotGuest != null) {
            hotGuest.close(); // its reaper thread and series go with the node
        }
        if (evaluator != null) {
            metrics.eval().remove();
        }
        closeQuietly(metricsEndpoint);
    }

    private static void closeQuietly(MetricsEndpoint m) {
        if (m != null) {
            m.close();
        }
    }

    /** Lets routes be built before the service exists (the HTTP server binds first). */
    private static final class JobServiceHolder implements JobService {
        volatile JobService delegate;
        /** Completes (with the journal's job count) when the service first started on this node. */
        final CompletableFuture<Integer> started = new CompletableFuture<>();

        private JobService d() {
            if (delegate == null) {
                throw new JobService.StandingBy("this coordinator stands by: another coordinator is the active one");
            }
            return delegate;
        }

        @Override
        public String storeCapture(Path file) throws IOException, org.replayfarm.model.capture.CaptureFormatException {
            return d().storeCapture(file);
        }

        @Override
        public String storeCapture(org.replayfarm.model.capture.CaptureFile validated)
                throws IOException, org.replayfarm.model.capture.CaptureFormatException {
            return d().storeCapture(validated);
        }

        @Override
        public boolean hasCapture(String sha256) {
            return d().hasCapture(sha256);
        }

        @Override
        public String start(String captureSha256, org.replayfarm.evalnode.eval.GroupSelection groups,
                            org.replayfarm.coordinator.diff.CompareWith compare, String captureName, Limits limits) {
            return d().start(captureSha256, groups, compare, captureName, limits);
        }

        @Override
        public java.util.Optional<org.replayfarm.coordinator.jobs.JobProgress> progress(String jobId) {
            return d().progress(jobId);
        }

        @Override
        public java.util.List<java.util.Map.Entry<org.replayfarm.coordinator.jobs.JobInfo,
                org.replayfarm.coordinator.jobs.JobProgress>> jobs() {
            return d().jobs();
        }

        @Override
        public java.util.List<org.replayfarm.coordinator.jobs.ProgressBoard.Point> series(String jobId) {
            return d().series(jobId);
        }

        @Override
        public Cancel cancel(String jobId) {
            return d().cancel(jobId);
        }

        @Override
        public Removal remove(String jobId) {
            return d().remove(jobId);
        }

        @Override
        public java.util.List<NodeShare> nodes(String jobId) {
            return d().nodes(jobId);
        }

        @Override
        public AutoCloseable subscribe(String jobId, java.util.function.Consumer<org.replayfarm.coordinator.jobs.JobProgress> l) {
            return d().subscribe(jobId, l);
        }

        @Override
        public java.util.Optional<Path> results(String jobId) {
            return d().results(jobId);
        }

        @Override
        public void close() {
            if (delegate != null) {
                delegate.close();
            }
        }
    }
}
