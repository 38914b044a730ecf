package org.replayfarm.coordinator.node;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.cluster.typed.Cluster;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.server.Route;
import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.replayfarm.coordinator.device.GpuNodes;
import org.replayfarm.coordinator.device.HotGuestMetrics;
import org.replayfarm.coordinator.http.CoordinatorHttp;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.job.JobService;
import org.replayfarm.coordinator.job.ProgressMetrics;
import org.replayfarm.coordinator.sampling.SamplingMetrics;
import org.replayfarm.coordinator.sampling.SamplingStore;
import org.replayfarm.evalnode.cluster.ApiToken;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.metrics.MetricsEndpoint;
import org.replayfarm.coordinator.failover.ActiveCoordinator;
import org.replayfarm.coordinator.failover.Coordinators;
import org.replayfarm.coordinator.failover.Quorum;
import org.replayfarm.coordinator.job.ClusterJobService;
import org.replayfarm.coordinator.job.Journal;

/**
 * The coordinator role of a node ({@value FarmNode#COORDINATOR}): the capture store, the HTTP server (the API,
 * the web UI, {@code /status}, a standby's forwarding), the cluster's directory of coordinators, the GPU nodes'
 * sampling store, the GPU nodes it offers device runs to with their hot-guest metrics, and the job service, which
 * runs while this coordinator holds the {@link ActiveCoordinator} singleton. Closing the role closes the job
 * service and the hot-guest metrics (its actors and server stop with the actor system, before this).
 */
public final class CoordinatorRole implements AutoCloseable {
    /** How long a job waits for the sampling store's answer (a local ask) before reporting sampling as none. */
    private static final java.time.Duration SNAPSHOT_TIMEOUT = java.time.Duration.ofSeconds(10);

    private final ActorSystem<Void> system;
    /** The job service while this node is the active coordinator (its delegate is null otherwise). */
    private final JobServiceHolder jobs;
    private final ServerBinding binding;
    private final String url;
    private final Coordinators coordinators;
    private final ActorRef<SamplingStore.Command> samplingStore;
    private final GpuNodes gpuNodes;
    /** The device runs' hottest guest instructions on /metrics: closed with the role. */
    private final HotGuestMetrics hotGuest;
    private final List<String> startupWarnings;

    private CoordinatorRole(ActorSystem<Void> system, JobServiceHolder jobs, ServerBinding binding, String url,
                            Coordinators coordinators, ActorRef<SamplingStore.Command> samplingStore, GpuNodes gpuNodes,
                            HotGuestMetrics hotGuest, List<String> startupWarnings) {
        this.system = system;
        this.jobs = jobs;
        this.binding = binding;
        this.url = url;
        this.coordinators = coordinators;
        this.samplingStore = samplingStore;
        this.gpuNodes = gpuNodes;
        this.hotGuest = hotGuest;
        this.startupWarnings = startupWarnings;
    }

    /**
     * Akka HTTP's bind of a plain (no TLS) server initialises the JVM's default SSL context all the same
     * ({@code TLSPlacebo}'s dummy session: the JSSE providers and the trust store, 0.1-0.3 s of CPU). A thread of
     * its own does that beside the actor system's start, so that the coordinator's bind finds it made.
     */
    static void warmTls() {
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

    /**
     * Starts the role on a node whose actor system has started: binds the HTTP server (port 0 picks one), starts
     * the coordinator's actors, then, once {@code sharding} (the evaluator region or proxy) is there, the active
     * coordinator singleton, whose activation starts the job service and resumes the journal's unfinished jobs.
     * Joining seeds (or itself) it waits until it is active or another coordinator is; through Cluster
     * Bootstrap it does not wait. {@code reportThreads}: the threads a job's report may use (0: one).
     */
    static CoordinatorRole start(ActorSystem<Void> system, Config config, FarmNode.Settings s,
                                 FarmMetrics metrics, MetricsEndpoint.Settings metricsSettings, String advertised,
                                 Bootstrap bootstrap, Supplier<ActorRef<org.replayfarm.proto.SliceTask>> sharding,
                                 int reportThreads)
            throws IOException, InterruptedException, ExecutionException, TimeoutException {
        Cluster cluster = Cluster.get(system);
        List<String> startupWarnings = new ArrayList<>();
        boolean embedded = FarmNode.embedded(config);
        if (!embedded) {
            Journal.createSchema(system);
        }
        // the embedded run's coordinator keeps its captures and outputs in its own work dir (never a farm's
        // REPLAY_STORAGE_DIR, which its retention sweep would then clean) and removes nothing
        Path storage = embedded ? s.workDir() : storageDir(config, s.workDir());
        ClusterJobService.Retention retention = embedded ? ClusterJobService.Retention.KEEP
                : ClusterJobService.Retention.from(config);
        CaptureStore store = new CaptureStore(storage.resolve("captures"));
        // bind first (port 0 picks one), then tell evaluators the URL the binding got
        List<Route> routes = new ArrayList<>();
        JobServiceHolder h = new JobServiceHolder();
        // a coordinator the split-brain resolver is about to stop (cut off from the majority) accepts nothing
        routes.add(CoordinatorHttp.refusingWritesWhenCutOff(() -> Quorum.cutOff(system)));
        routes.addAll(s.routes().apply(h));
        // a standby forwards to the active coordinator the cluster names (Coordinators, known once bound)
        CompletableFuture<Coordinators> directory = new CompletableFuture<>();
        // an embedded run keeps its journal in memory (no JDBC database is configured): say so
        String journalUrl = embedded ? "inmem"
                : Coordinators.publishable(config.getString("akka-persistence-jdbc.shared-databases.journal.db.url"));
        String nodeAddress = cluster.selfMember().address().toString();
        CoordinatorHttp.Standby standby = new CoordinatorHttp.Standby(
                () -> directory.isDone() ? directory.join().activeUrl() : java.util.Optional.empty(),
                () -> directory.isDone() ? directory.join().self().getHttpUrl() : "");
        Route status = CoordinatorHttp.statusRoute(() -> status(nodeAddress, h.delegate != null, journalUrl,
                directory.getNow(null), startupWarnings));
        ServerBinding binding = CoordinatorHttp.start(system, s.httpHost(), s.httpPort(), store, routes,
                ApiToken.from(config), () -> h.delegate != null, standby, List.of(status))
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        String url = "http://" + advertised + ":" + binding.localAddress().getPort();
        Coordinators coordinators = Coordinators.start(system, nodeAddress, url, journalUrl);
        directory.complete(coordinators);
        SamplingMetrics gpuMetrics = new SamplingMetrics(metrics);
        ActorRef<SamplingStore.Command> sampling = SamplingStore.start(system, gpuMetrics,
                config.getDuration("replay.coordinator.tick"));
        HotGuestMetrics hotGuest = new HotGuestMetrics(metrics, metricsSettings.jobRetention());
        GpuNodes gpus = GpuNodes.start(system, url, config.getDuration("replay.coordinator.device-run-timeout"), hotGuest);
        // the job service runs where the ActiveCoordinator singleton runs: on one coordinator at a time
        ActorRef<org.replayfarm.proto.SliceTask> shards = sharding.get();
        CompletableFuture<Integer> active = h.started;
        ActiveCoordinator.init(system, new ActiveCoordinator.Lifecycle() {
            @Override
            public void activated(ActorRef<ActiveCoordinator.Command> self) {
                try {
                    ClusterJobService j = new ClusterJobService(system, shards, store, storage.resolve("jobs"),
                            url, reportThreads, new ProgressMetrics(metrics, metricsSettings.jobRetention()),
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
                            + "the API serves at {}", known, url);
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
        return new CoordinatorRole(system, h, binding, url, coordinators, sampling, gpus, hotGuest, startupWarnings);
    }

    static com.fasterxml.jackson.databind.node.ObjectNode status(String node, boolean active, String journal,
                                                                 Coordinators coordinators, List<String> startup) {
        com.fasterxml.jackson.databind.node.ObjectNode n = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
        n.put("node", node).put("role", FarmNode.COORDINATOR).put("active", active);
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
                    if (m.hasRole(FarmNode.COORDINATOR) && !m.equals(self) && m.status() == akka.cluster.MemberStatus.up()
                            && m.isOlderThan(self)) {
                        return null;
                    }
                }
            }
            TimeUnit.MILLISECONDS.sleep(10); // polling a condition
        }
        return null;
    }

    /** What the role found at start that its operator should know. */
    public List<String> startupWarnings() {
        return List.copyOf(startupWarnings);
    }

    /** Its warnings now: those of the start, then those of the cluster's coordinators. */
    public List<String> warnings() {
        List<String> all = new ArrayList<>(startupWarnings);
        all.addAll(coordinators.warnings());
        return all;
    }

    /** The job service, waiting a moment for a coordinator that is about to become the active one. */
    public ClusterJobService jobs() {
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
        return jobs.delegate != null;
    }

    public Coordinators coordinators() {
        return coordinators;
    }

    public ActorRef<SamplingStore.Command> samplingStore() {
        return samplingStore;
    }

    public GpuNodes gpuNodes() {
        return gpuNodes;
    }

    public HotGuestMetrics hotGuestMetrics() {
        return hotGuest;
    }

    public String httpUrl() {
        return url;
    }

    public ServerBinding binding() {
        return binding;
    }

    /** Closes the job service, then the hot-guest metrics (their reaper thread and series). */
    @Override
    public void close() {
        jobs.close();
        hotGuest.close();
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
                            org.replayfarm.coordinator.report.CompareWith compare, String captureName, Limits limits) {
            return d().start(captureSha256, groups, compare, captureName, limits);
        }

        @Override
        public java.util.Optional<org.replayfarm.coordinator.job.JobProgress> progress(String jobId) {
            return d().progress(jobId);
        }

        @Override
        public java.util.List<java.util.Map.Entry<org.replayfarm.coordinator.job.JobInfo,
                org.replayfarm.coordinator.job.JobProgress>> jobs() {
            return d().jobs();
        }

        @Override
        public java.util.List<org.replayfarm.coordinator.job.ProgressBoard.Point> series(String jobId) {
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
        public AutoCloseable subscribe(String jobId, java.util.function.Consumer<org.replayfarm.coordinator.job.JobProgress> l) {
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
