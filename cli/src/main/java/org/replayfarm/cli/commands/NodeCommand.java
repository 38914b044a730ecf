package org.replayfarm.cli.commands;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.evalnode.hostmodel.HostModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;

@Command(name = "node", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run one node of a farm cluster until it is stopped (SIGTERM leaves the cluster gracefully).",
                "Roles: coordinator (jobs, the capture store, the HTTP server and the GPU nodes' sampling store), eval "
                        + "(evaluator entities on a dedicated dispatcher of --threads threads), gpu (PC sampling as "
                        + "replay.gpu.sampling.mode says, off by default, reported to the coordinator). A node may take "
                        + "several roles (--role coordinator --role eval, or REPLAY_ROLE=coordinator,eval).",
                "Prints one line when it is up: 'node ADDRESS roles [...]' (and 'http URL' on a coordinator, then "
                        + "'metrics URL' when metrics are on, then 'sampling MODE' on a GPU node).",
                "Metrics (Kamon, Prometheus text) are served at http://METRICS_HOST:METRICS_PORT/metrics; "
                        + "a taken port is an error.",
                "Every listener binds --bind (default --host), never 0.0.0.0 unless asked.",
                "",
                "Every option can also come from the environment (a flag wins over its variable):",
                "  REPLAY_ROLE          --role (comma-separated)",
                "  REPLAY_HOST          --host",
                "  REPLAY_PORT          --port",
                "  REPLAY_SEEDS         --seed (comma-separated HOST:PORT)",
                "  REPLAY_BIND          --bind",
                "  REPLAY_HTTP_HOST     --http-bind",
                "  REPLAY_HTTP_PORT     --http-port",
                "  REPLAY_EVAL_THREADS  --threads",
                "  REPLAY_TIER          --tier",
                "  REPLAY_CONFIG        --config",
                "  REPLAY_WORK_DIR      --work-dir",
                "  REPLAY_STORAGE_DIR   --storage-dir",
                "  REPLAY_CACHE_DIR     where an eval node caches captures (default WORK_DIR/cache)",
                "  REPLAY_METRICS_HOST  --metrics-bind",
                "  REPLAY_TLS_KEY_STORE, REPLAY_TLS_TRUST_STORE, REPLAY_TLS_PASSWORD_FILE (or REPLAY_TLS_PASSWORD)",
                "                       --tls-key-store, --tls-trust-store, --tls-password-file",
                "  REPLAY_API_TOKEN_FILE  --api-token-file (or REPLAY_API_TOKEN, the token itself)",
                "  REPLAY_JOB_RETENTION   --job-retention",
                "  REPLAY_ALLOW_EXEC_DEVICE  --allow-exec-device (comma-separated)",
                "  REPLAY_MAX_FINISHED_JOBS  --max-finished-jobs",
                "  REPLAY_METRICS_PORT  --metrics-port",
                "  REPLAY_METRICS       on/off (--metrics, --no-metrics)",
                "  REPLAY_LOG_LEVEL     logback's root level (default WARN)",
                "  REPLAY_DISCOVERY, REPLAY_MANAGEMENT, REPLAY_MANAGEMENT_HOST, REPLAY_MANAGEMENT_PORT,",
                "  REPLAY_SERVICE_NAME, REPLAY_POD_LABEL_SELECTOR, REPLAY_REQUIRED_CONTACT_POINTS,",
                "  REPLAY_CONTACT_POINTS  the cluster discovery options below (replay.cluster.* in --config)",
                "With --discovery config or kubernetes-api, Akka Management Cluster Bootstrap forms or joins the "
                        + "cluster (no --seed); /ready and /alive on the management port are the health checks.",
                "The --config file (HOCON) is laid over everything else: any akka.* or replay.* setting "
                        + "(e.g. replay.coordinator.slices-per-node, akka.cluster.split-brain-resolver.stable-after, "
                        + "replay.metrics.port, replay.metrics.tick, replay.gpu.sampling.mode; REPLAY_GPU_PC_SAMPLING sets the "
                + "latter too)."})
public final class NodeCommand implements Callable<Integer> {
    @Spec
    public CommandSpec spec;

    @Option(names = "--role", paramLabel = "ROLE", split = ",", defaultValue = "${env:REPLAY_ROLE}",
            description = "coordinator, eval or gpu (repeatable, or comma-separated).")
    public List<String> roles = new ArrayList<>();

    @Option(names = "--host", paramLabel = "H", defaultValue = "${env:REPLAY_HOST:-127.0.0.1}",
            description = "Canonical host other nodes reach this one at (default ${DEFAULT-VALUE}).")
    public String host;

    @Option(names = "--port", paramLabel = "P", defaultValue = "${env:REPLAY_PORT:-25520}",
            description = "Artery TCP port (default ${DEFAULT-VALUE}; 0 picks a free one).")
    public int port;

    @Option(names = "--seed", paramLabel = "HOST:PORT", split = ",", defaultValue = "${env:REPLAY_SEEDS}",
            description = "A node to join (repeatable). None: this node starts a new cluster by joining itself.")
    public List<String> seeds = new ArrayList<>();

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "${env:REPLAY_BIND}",
            description = "Address this node's listeners bind (Artery, the HTTP API, metrics, Akka Management) unless "
                    + "their own option says otherwise (default: --host; 0.0.0.0 binds every interface, as a container "
                    + "reached through a port-forward needs).")
    public String bind;

    @Option(names = {"--http-bind", "--http-host"}, paramLabel = "ADDR", defaultValue = "${env:REPLAY_HTTP_HOST}",
            description = "Address the coordinator's HTTP server binds (default: --bind, else --host).")
    public String httpHost;

    @Option(names = "--http-port", paramLabel = "P", defaultValue = "${env:REPLAY_HTTP_PORT:-8080}",
            description = "The coordinator's HTTP port (default ${DEFAULT-VALUE}; 0 picks a free one).")
    public int httpPort;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "${env:REPLAY_EVAL_THREADS:-0}",
            description = "Evaluator threads on an eval node (default: all cores).")
    public int threads;

    @Option(names = "--tier", paramLabel = "compiled|fast|reference", defaultValue = "${env:REPLAY_TIER}",
            description = "The host-model tier this node's evaluators run (default: the replay.tier property, else "
                    + "the host model's default tier).")
    public String tier;

    @Option(names = "--config", paramLabel = "FILE", defaultValue = "${env:REPLAY_CONFIG}",
            description = "A HOCON file laid over the defaults.")
    public Path config;

    @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "${env:REPLAY_WORK_DIR}",
            description = "Where the node keeps captures and job outputs (default: a new temporary directory).")
    public Path workDir;

    @Option(names = "--storage-dir", paramLabel = "DIR", defaultValue = "${env:REPLAY_STORAGE_DIR}",
            description = "Where a coordinator keeps captures and job outputs (default: --work-dir). Coordinators that "
                    + "take over from each other (several with --role coordinator: one active, the others standing by) "
                    + "share it and a PostgreSQL journal (REPLAY_JOURNAL_URL).")
    public Path storageDir;

    @Option(names = "--job-retention", paramLabel = "DURATION", defaultValue = "${env:REPLAY_JOB_RETENTION}",
            description = "A coordinator removes ended jobs (finished, failed, cancelled; never running ones) this long "
                    + "after they ended: from the job list and the journal, their outputs, the captures no other job "
                    + "uses (e.g. 24h, 90m, 7d; default replay.coordinator.job-retention, 24h).")
    public String jobRetention;

    @Option(names = "--max-finished-jobs", paramLabel = "N", defaultValue = "${env:REPLAY_MAX_FINISHED_JOBS}",
            description = "A coordinator keeps at most N ended jobs, removing the oldest beyond (default "
                    + "replay.coordinator.max-finished-jobs, 10000).")
    public Integer maxFinishedJobs;

    @Option(names = "--api-token-file", paramLabel = "FILE", defaultValue = "${env:REPLAY_API_TOKEN_FILE}",
            description = "A file holding the API token: a coordinator then wants 'Authorization: Bearer TOKEN' on "
                    + "every HTTP route (capture downloads included), evaluators send it (or REPLAY_API_TOKEN).")
    public Path apiTokenFile;

    @Option(names = "--tls-key-store", paramLabel = "FILE", defaultValue = "${env:REPLAY_TLS_KEY_STORE}",
            description = "Artery over TLS with mutual authentication: this node's key and certificate, signed by the "
                    + "cluster's key (PKCS12). Needs --tls-trust-store and --tls-password-file (docs/operations.md says how to make them).")
    public Path tlsKeyStore;

    @Option(names = "--tls-trust-store", paramLabel = "FILE", defaultValue = "${env:REPLAY_TLS_TRUST_STORE}",
            description = "The cluster's certificate (PKCS12): a peer whose certificate it did not sign is refused.")
    public Path tlsTrustStore;

    @Option(names = "--tls-password-file", paramLabel = "FILE", defaultValue = "${env:REPLAY_TLS_PASSWORD_FILE}",
            description = "A file holding the stores' password (or REPLAY_TLS_PASSWORD).")
    public Path tlsPasswordFile;

    @Option(names = "--allow-exec-device", paramLabel = "PROGRAM", split = ",",
            defaultValue = "${env:REPLAY_ALLOW_EXEC_DEVICE}",
            description = "A program jobs sent to this coordinator's API may run as their device (--device exec:COMMAND "
                    + "whose first word resolves to the same file; a name without '/' is looked up on PATH). Repeatable "
                    + "or comma-separated; none by default, and exec: jobs are refused. The program runs here with the "
                    + "job's arguments: allowing a shell allows any command.")
    public List<String> allowExecDevice = new ArrayList<>();

    @picocli.CommandLine.Mixin
    public MetricsOptions metrics = new MetricsOptions();

    @picocli.CommandLine.Mixin
    public DiscoveryOptions discovery = new DiscoveryOptions();

    @Override
    public Integer call() throws Exception {
        if (tier != null && !tier.isBlank()) {
            try {
                System.setProperty(HostModel.Tier.PROPERTY, HostModel.Tier.parse(tier).name().toLowerCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--tier: " + e.getMessage());
            }
        }
        Set<String> chosen = new LinkedHashSet<>();
        for (String r : roles) {
            String role = r.trim();
            if (role.isEmpty()) {
                continue;
            }
            if (!Set.of("coordinator", "eval", "gpu").contains(role)) {
                throw new ParameterException(spec.commandLine(), "--role takes coordinator, eval or gpu, not '" + role + "'");
            }
            chosen.add(role);
        }
        if (chosen.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "give at least one --role (or REPLAY_ROLE)");
        }
        if (threads < 0) {
            throw new ParameterException(spec.commandLine(), "--threads must not be negative");
        }
        Replay.checkThreads(spec, "--threads", threads);
        org.replayfarm.gpunode.device.ExecAllowList execAllowed;
        try {
            execAllowed = org.replayfarm.gpunode.device.ExecAllowList.of(allowExecDevice);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        checkPort("--port", port);
        checkPort("--http-port", httpPort);
        for (String seed : seeds) {
            checkSeed(seed.trim());
        }
        Config extra = ConfigFactory.empty();
        if (config != null) {
            if (!Files.isRegularFile(config)) {
                throw new java.nio.file.NoSuchFileException(config.toString());
            }
            extra = ConfigFactory.parseFile(config.toFile());
        }
        String bindAddress = bindAddress();
        extra = bindOverlay(extra);
        extra = metrics.overlay(extra, "fail", MetricsOptions.DEFAULT_PORT, spec);
        extra = discovery.overlay(extra, spec);
        if (apiTokenFile != null) {
            if (!Files.isRegularFile(apiTokenFile)) {
                throw new java.nio.file.NoSuchFileException(apiTokenFile.toString());
            }
            extra = extra.withValue("replay.api.token-file",
                    com.typesafe.config.ConfigValueFactory.fromAnyRef(apiTokenFile.toAbsolutePath().toString()));
        }
        if (jobRetention != null && !jobRetention.isBlank()) {
            java.time.Duration d;
            if (jobRetention.trim().matches("[0-9]+")) {
                // HOCON would read a bare number as milliseconds
                throw new ParameterException(spec.commandLine(), "--job-retention " + jobRetention.trim()
                        + ": give a unit, e.g. " + jobRetention.trim() + "d, " + jobRetention.trim() + "h or "
                        + jobRetention.trim() + "m");
            }
            try {
                d = ConfigFactory.parseMap(java.util.Map.of("d", jobRetention.trim())).getDuration("d");
            } catch (com.typesafe.config.ConfigException e) {
                throw new ParameterException(spec.commandLine(), "--job-retention takes a duration such as 24h, 90m or 7d, not '"
                        + jobRetention + "'");
            }
            if (d.isZero() || d.isNegative()) {
                throw new ParameterException(spec.commandLine(), "--job-retention must be positive, not '" + jobRetention + "'");
            }
            extra = extra.withValue("replay.coordinator.job-retention", ConfigValueFactory.fromAnyRef(jobRetention.trim()));
        }
        if (maxFinishedJobs != null) {
            if (maxFinishedJobs < 0) {
                throw new ParameterException(spec.commandLine(), "--max-finished-jobs must be 0 or more, not " + maxFinishedJobs);
            }
            extra = extra.withValue("replay.coordinator.max-finished-jobs", ConfigValueFactory.fromAnyRef(maxFinishedJobs));
        }
        if (storageDir != null) {
            extra = extra.withValue("replay.coordinator.storage-dir",
                    ConfigValueFactory.fromAnyRef(Files.createDirectories(storageDir).toAbsolutePath().toString()));
        }
        extra = tls(extra, "key-store", tlsKeyStore);
        extra = tls(extra, "trust-store", tlsTrustStore);
        extra = tls(extra, "password-file", tlsPasswordFile);
        int artery = arteryBindPort(extra, port);
        if (artery > 0) {
            // before the actor system starts: Artery's own bind failure logs a long stack trace first
            requireFree(bindAddress, artery, artery == port ? "--port (the cluster's Artery TCP port)"
                    : "akka.remote.artery.bind.port (where Artery binds behind its canonical --port " + port + ")");
        }
        // without --work-dir a temporary one, removed when the node exits (no later node could find it again)
        Path work = workDir != null ? Files.createDirectories(workDir) : Files.createTempDirectory("replay-node");
        Runnable removeWork = () -> {
            if (workDir == null) {
                RunCommand.deleteTree(work);
            }
        };
        List<String> seedList = seeds.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
        FarmNode node = FarmNode.start(FarmNode.Settings.of(chosen, work).withAddress(host, port).withSeeds(seedList)
                .withHttp(httpBindAddress(), httpPort).withEvalThreads(threads).withConfig(extra)
                // uploads spool in the work directory (not java.io.tmpdir, often a small tmpfs)
                .withRoutes(jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), uploads(work),
                        execAllowed))));
        var out = spec.commandLine().getOut();
        out.printf("node %s roles %s%s%s%s%n", node.address(), chosen,
                chosen.contains(FarmNode.COORDINATOR) ? " http " + node.httpUrl() : "",
                node.metricsUrl().map(u -> " metrics " + u).orElse(""),
                chosen.contains("gpu") ? " sampling " + node.gpu().settings().mode().configName()
                        + node.gpu().settings().refused().map(r -> " (refused: " + r + ")").orElse("")
                        + " device " + node.device().line() : "");
        out.flush();
        var err = spec.commandLine().getErr();
        node.startupWarnings().forEach(w -> err.println("replay node: warning: " + w));
        if (chosen.contains(FarmNode.COORDINATOR) && !node.active()) {
            err.println("replay node: this coordinator stands by (another is active, or the cluster is still forming); it runs the jobs when "
                    + "that one leaves or fails, and its API answers 503 until then");
        }
        if (chosen.contains(FarmNode.COORDINATOR) && !execAllowed.programs().isEmpty()) {
            err.println("replay node: jobs sent over the API may run " + execAllowed.programs()
                    + " on this machine, with arguments of their own (--allow-exec-device)");
        }
        if (chosen.contains(FarmNode.COORDINATOR) && org.replayfarm.evalnode.cluster.ApiToken.from(
                node.system().settings().config()).isEmpty()) {
            err.println("replay node: warning: no API token (--api-token-file or REPLAY_API_TOKEN): anyone who reaches "
                    + node.httpUrl() + " can submit jobs and download captures");
        }
        err.flush();
        DrainClock drain = DrainClock.install(node.system());
        // SIGTERM (kubelet scale-in, Ctrl-C): the JVM is already exiting, System.exit would block and the status
        // would be the signal's 143. This hook (the JVM waits for every hook) decides it once the node stopped:
        // a completed drain is a clean exit, one cut off at the drain timeout is not.
        var system = node.system();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                system.getWhenTerminated().toCompletableFuture().get(drain.timeout().toSeconds() + 60, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception notInTime) {
                // decide with what is known
            }
            var why = akka.actor.CoordinatedShutdown.get(system).getShutdownReason();
            if (why.isEmpty() || why.get() != akka.actor.CoordinatedShutdown.jvmExitReason()) {
                return; // another reason: the main thread returns its status
            }
            int code = drain.completed() ? Replay.EXIT_OK : Replay.EXIT_ERROR;
            if (code != Replay.EXIT_OK) {
                err.println("replay node: the drain did not finish within " + drain.timeout().toSeconds()
                        + " s (replay.cluster.drain-timeout): slices it held are sent again elsewhere; exiting with status "
                        + code);
            }
            removeWork.run();
            out.flush();
            err.flush();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }, "replay-node-exit-status"));
        node.system().getWhenTerminated().toCompletableFuture().join();
        var reason = akka.actor.CoordinatedShutdown.get(node.system()).getShutdownReason();
        if (reason.isPresent() && reason.get() == akka.actor.CoordinatedShutdown.jvmExitReason()) {
            java.util.concurrent.TimeUnit.DAYS.sleep(1); // the shutdown hook above ends the JVM with the status
        }
        if (reason.isPresent() && reason.get() == akka.actor.CoordinatedShutdown.clusterDowningReason()) {
            // downed (unreachable too long, or the split-brain resolver kept the other side): an orchestrator
            // must see a failure and start the node again, not a clean exit
            err.println("replay node: this node lost its cluster (it was downed: unreachable, or on the side the "
                    + "split-brain resolver stopped); exiting with status " + Replay.EXIT_ERROR);
            err.flush();
            removeWork.run();
            return Replay.EXIT_ERROR;
        }
        removeWork.run();
        return Replay.EXIT_OK;
    }

    private void checkPort(String option, int p) {
        if (p < 0 || p > 65535) {
            throw new ParameterException(spec.commandLine(), option + " " + p + ": a port is 0 through 65535");
        }
    }

    /** A seed is HOST:PORT with a port 1 through 65535 (Akka would retry a bad one forever, logging stack traces). */
    private void checkSeed(String seed) {
        if (seed.isEmpty()) {
            return;
        }
        int colon = seed.lastIndexOf(':');
        if (colon <= 0 || colon == seed.length() - 1) {
            throw new ParameterException(spec.commandLine(), "--seed '" + seed + "': expected HOST:PORT");
        }
        int p;
        try {
            p = Integer.parseInt(seed.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "--seed '" + seed + "': the port is not a number");
        }
        if (p < 1 || p > 65535) {
            throw new ParameterException(spec.commandLine(), "--seed '" + seed + "': port " + p
                    + " is not 1 through 65535");
        }
    }

    /** Fails with one line naming {@code host:port} when another socket holds it. */
    public static void requireFree(String host, int port, String what) throws java.io.IOException {
        java.net.InetAddress address;
        try {
            address = java.net.InetAddress.getByName(host);
        } catch (java.net.UnknownHostException e) {
            throw new java.io.IOException("cannot resolve the bind address '" + host + "' for " + what);
        }
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new java.net.InetSocketAddress(address, port));
        } catch (java.net.BindException e) {
            if (e.getMessage() != null && e.getMessage().contains("in use")) {
                throw new java.io.IOException(host + ":" + port + " is already in use (" + what + "): another process, "
                        + "or another replay node, listens there; pick another port (0 picks a free one)");
            }
            throw new java.io.IOException("cannot bind " + host + ":" + port + " (" + what + "): " + e.getMessage());
        }
    }

    private static Path uploads(Path work) {
        try {
            return Files.createDirectories(work.resolve("uploads"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot make the upload spool " + work.resolve("uploads"), e);
        }
    }

    private static Config tls(Config extra, String key, Path file) throws java.nio.file.NoSuchFileException {
        if (file == null) {
            return extra;
        }
        if (!Files.isRegularFile(file)) {
            throw new java.nio.file.NoSuchFileException(file + " (--tls-" + key + ")");
        }
        return extra.withValue("replay.cluster.tls." + key, ConfigValueFactory.fromAnyRef(file.toAbsolutePath().toString()));
    }

    /**
     * The port Artery binds: {@code akka.remote.artery.bind.port} from the node's --config when set (a node behind
     * a NAT or a proxy, whose canonical --port is the one its peers dial), else --port.
     */
    public static int arteryBindPort(Config extra, int port) {
        if (extra.hasPath("akka.remote.artery.bind.port")) {
            String p = extra.getString("akka.remote.artery.bind.port").trim();
            if (!p.isEmpty()) {
                try {
                    return Integer.parseInt(p);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("akka.remote.artery.bind.port '" + p + "' in --config is not a port");
                }
            }
        }
        return port;
    }

    /** Where this node's listeners bind unless their own option says otherwise: --bind, else --host. */
    public String bindAddress() {
        return bind == null || bind.isBlank() ? host : bind.trim();
    }

    /** Where the coordinator's HTTP server binds: --http-bind, else {@link #bindAddress()}. */
    public String httpBindAddress() {
        return httpHost == null || httpHost.isBlank() ? bindAddress() : httpHost.trim();
    }

    /** {@code extra} with Artery bound to {@link #bindAddress()} when that is not the canonical host. */
    public Config bindOverlay(Config extra) {
        String b = bindAddress();
        if (!b.equals(host) && !extra.hasPath("akka.remote.artery.bind.hostname")) {
            return extra.withValue("akka.remote.artery.bind.hostname", ConfigValueFactory.fromAnyRef(b));
        }
        return extra;
    }

    /**
     * Times coordinated shutdown's cluster-sharding-shutdown-region phase (where an evaluator finishes the
     * slices it holds): a task at its start notes the time, one in the next phase (cluster-leave) looks at
     * it. The region is cut off at {@link #cutoff()}, so a phase that lasted that long did not drain.
     */
    public static final class DrainClock {
        private static final String PHASE = "cluster-sharding-shutdown-region";
        private final java.time.Duration timeout;
        private volatile long started;
        private volatile boolean completed = true;

        private DrainClock(java.time.Duration timeout) {
            this.timeout = timeout;
        }

        static DrainClock install(akka.actor.typed.ActorSystem<?> system) {
            DrainClock c = new DrainClock(system.settings().config().getDuration("akka.coordinated-shutdown.phases." + PHASE + ".timeout"));
            var shutdown = akka.actor.CoordinatedShutdown.get(system);
            shutdown.addTask(akka.actor.CoordinatedShutdown.PhaseClusterShardingShutdownRegion(), "replay-drain-start", () -> {
                c.started = System.nanoTime();
                return java.util.concurrent.CompletableFuture.completedFuture(akka.Done.getInstance());
            });
            shutdown.addTask(akka.actor.CoordinatedShutdown.PhaseClusterLeave(), "replay-drain-end", () -> {
                long took = System.nanoTime() - c.started;
                c.completed = c.started == 0 || took < c.cutoff().toNanos();
                return java.util.concurrent.CompletableFuture.completedFuture(akka.Done.getInstance());
            });
            return c;
        }

        /**
         * When the shard region gives up its graceful shutdown: a second before the phase's timeout (Akka's
         * ShardRegion, to log which shards remained), or at the timeout when that is a second or less.
         */
        java.time.Duration cutoff() {
            return timeout.compareTo(java.time.Duration.ofSeconds(1)) > 0 ? timeout.minusSeconds(1) : timeout;
        }

        boolean completed() {
            return completed;
        }

        java.time.Duration timeout() {
            return timeout;
        }
    }
}
