package org.replayfarm.coordinator.job;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.replayfarm.proto.JobAccepted;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.coordinator.report.Comparison;
import org.replayfarm.coordinator.report.RunReport;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.job.JobInfo;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.coordinator.job.JobService;
import org.replayfarm.coordinator.job.ProgressBoard;
import org.replayfarm.coordinator.job.ProgressMetrics;
import org.replayfarm.coordinator.sampling.SamplingSnapshot;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormatException;
import org.replayfarm.coordinator.failover.ActiveCoordinator;

/**
 * Jobs evaluated on the cluster: each job is a {@link Job} actor on this (coordinator) node that shards
 * its slices over the evaluator nodes; evaluators fetch captures from {@code captureBaseUrl}
 * ({@code /captures/<sha256>}, served by CoordinatorHttp from the same store).
 */
public final class ClusterJobService implements JobService {
    private final ActorSystem<?> system;
    private final ActorRef<org.replayfarm.proto.SliceTask> shards;
    private final CaptureStore captures;
    private final Path jobsDir;
    private final String captureBaseUrl;
    private final int reportThreads;
    private final ProgressMetrics metrics;
    private final ProgressBoard board;
    private final Map<String, Job.JobStats> stats = new ConcurrentHashMap<>();
    private final Map<String, Path> outputs = new ConcurrentHashMap<>();
    private final Map<String, ActorRef<Job.Command>> actors = new ConcurrentHashMap<>();
    private final Map<String, List<NodeShare>> shares = new ConcurrentHashMap<>();
    private final Supplier<CompletionStage<SamplingSnapshot>> sampling;
    private final Supplier<JobProgress.Sampling> liveSampling;
    private final ActorRef<Journal.RegistryCommand> registry;
    private final ActorRef<ActiveCoordinator.Command> owner;
    private static final java.time.Duration JOURNAL_TIMEOUT = java.time.Duration.ofSeconds(30);
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ClusterJobService.class);
    /** When each ended job ended (epoch ms): retention counts from here. */
    private final Map<String, Long> endedAt = new ConcurrentHashMap<>();
    /**
     * Jobs resumed from the journal whose actor has not yet reported what its log holds: until it does, the board
     * shows nothing for them rather than 0 groups done (a client would see the job's progress go backwards).
     */
    private final Map<String, Replaying> replaying = new ConcurrentHashMap<>();

    /** A resumed job not yet heard from: done when it reports; {@code start} is what it is shown as if it never does. */
    private record Replaying(java.util.concurrent.CompletableFuture<Void> reported, JobProgress start) {
    }
    /** Captures this process already opened and decoded, by SHA-256, for the next job launched on each. */
    private final Map<String, Opened> opened = new ConcurrentHashMap<>();

    private record Opened(CaptureFile file, Kernel kernel) {
    }
    private volatile Retention retention = Retention.KEEP;
    private volatile java.util.List<Path> spools = List.of();
    private volatile akka.actor.Cancellable sweeping;
    /** One removal (or sweep) at a time. */
    private final Object removing = new Object();
    /** Where a job's cuda (or auto) device run goes: the cluster's GPU nodes (null: this node's own GPU). */
    private volatile org.replayfarm.gpunode.device.GpuSource gpu;

    /**
     * {@code reportThreads}: the thread count reports name (replay run: the embedded evaluator's threads;
     * 0: the sum announced by the evaluator nodes is not known, so the report says 0); {@code metrics}: every
     * job's progress also becomes its metrics; {@code sampling} answers what GPU nodes reported, for each
     * job's report (the store's snapshot), and {@code liveSampling} their figures now, which every progress of
     * every job carries. {@code owner}: the {@link ActiveCoordinator} singleton on this node, which spawns the
     * job registry and the job actors as its children (they stop when it does).
     */
    public ClusterJobService(ActorSystem<?> system, ActorRef<org.replayfarm.proto.SliceTask> shards, CaptureStore captures,
                             Path jobsDir, String captureBaseUrl, int reportThreads, ProgressMetrics metrics,
                             Supplier<CompletionStage<SamplingSnapshot>> sampling,
                             Supplier<JobProgress.Sampling> liveSampling, ActorRef<ActiveCoordinator.Command> owner)
            throws IOException {
        this.sampling = sampling;
        this.liveSampling = liveSampling;
        this.metrics = metrics;
        this.board = new ProgressBoard(metrics);
        this.system = system;
        this.shards = shards;
        this.captures = captures;
        this.jobsDir = Files.createDirectories(jobsDir);
        this.captureBaseUrl = captureBaseUrl;
        this.reportThreads = reportThreads;
        this.owner = owner;
        this.registry = ActiveCoordinator.spawn(system, owner, ctx -> ctx.spawn(Journal.Registry.create(), "job-registry"));
    }

    /**
     * Every job the journal holds: a finished (or failed) one answers again with its final progress and
     * outputs; a running one starts again under its id, its finished slices read back from its own log. Returns how
     * many started again (the jobs that had not ended).
     */
    public int resume() {
        Journal.Jobs all;
        try {
            all = akka.actor.typed.javadsl.AskPattern.<Journal.RegistryCommand, Journal.Jobs>ask(registry,
                    Journal.GetAll::new, JOURNAL_TIMEOUT, system.scheduler()).toCompletableFuture()
                    .get(JOURNAL_TIMEOUT.toSeconds() + 5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the coordinator's journal did not answer: " + e, e);
        }
        int unfinished = 0;
        for (Journal.Entry entry : all.jobs()) {
            JobAccepted a = entry.accepted();
            Path out = Path.of(a.getOutDir());
            outputs.put(a.getJobId(), out);
            board.register(info(a));
            if (entry.ended() != null) {
                board.update(org.replayfarm.coordinator.http.ProgressJson.read(entry.ended().getProgressJson().toStringUtf8()));
                long at = entry.ended().getEndedAtMillis();
                endedAt.put(a.getJobId(), at > 0 ? at : a.getAcceptedAtMillis());
                continue;
            }
            unfinished++;
            try {
                launch(a, false, r -> { });
            } catch (RuntimeException e) {
                // a job that can no longer start (its capture is gone) fails, and says why
                JobProgress failed = new JobProgress(a.getJobId(), a.getCaptureSha256(), "failed", 0, 0, 0, -1, 0, 0,
                        "cannot resume after a restart: " + e.getMessage());
                update(failed);
            }
        }
        awaitReplayed();
        if (!all.jobs().isEmpty()) {
            log.info("the journal holds {} job(s): {} had ended, {} start again", all.jobs().size(),
                    all.jobs().size() - unfinished, unfinished);
        }
        // a coordinator down past a job's retention removes it now, beside the API (many removals, each a
        // journal write and a log purge, must not keep the newly active coordinator answering 503)
        if (retention != Retention.KEEP) {
            system.scheduler().scheduleOnce(java.time.Duration.ZERO, () -> {
                try {
                    sweep();
                } catch (RuntimeException e) {
                    log.error("the first retention sweep failed (it runs again in {}): {}", retention.sweepEvery(),
                            e.toString());
                }
            }, system.dispatchers().lookup(DispatcherSelector.blocking()));
        }
        return unfinished;
    }

    /** What the journal keeps of a job accepted now: everything {@link #launch} needs to start it again. */
    static JobAccepted accepted(String id, String sha, GroupSelection selection, Limits limits, Path out,
                                CompareWith compare, String captureName) {
        JobAccepted.Builder a = JobAccepted.newBuilder().setJobId(id).setCaptureSha256(sha).setEveryGroup(selection.every())
                .setDevice(compare.device().spelling()).setDeviceTimeoutSeconds(compare.device().timeoutSeconds())
                .setUlp(compare.ulp()).setAbs(compare.abs()).setRel(compare.rel()).setApproximate(compare.approximate())
                .setCaptureName(captureName).setBudget(limits.budget()).setSliceDeadlineNanos(limits.sliceDeadlineNanos())
                .setOutDir(out.toAbsolutePath().toString())
                .addAllViews(compare.views()).setValues(compare.values()).setOrigin(compare.origin())
                .setAcceptedAtMillis(System.currentTimeMillis());
        for (int[] g : selection.groups()) {
            a.addGroups(org.replayfarm.proto.GroupId.newBuilder().setX(g[0]).setY(g[1]).setZ(g[2]));
        }
        return a.build();
    }

    /**
     * What a journaled job compares with: the device, the tolerances ({@code --ulp}, {@code --abs}, {@code --rel},
     * {@code --approximate}, the views' own), the views and values, as when it was accepted.
     */
    static CompareWith compare(JobAccepted a) {
        return new CompareWith(DeviceChoice.parse(a.getDevice()).withTimeoutSeconds(
                a.getDeviceTimeoutSeconds() > 0 ? a.getDeviceTimeoutSeconds() : DeviceChoice.DEFAULT_TIMEOUT_SECONDS),
                a.getUlp(), a.getAbs(), a.getRel(), a.getApproximate(), a.getViewsList(), a.getValues(), a.getOrigin());
    }

    /** How the job list shows a journaled job. */
    private static JobInfo info(JobAccepted a) {
        String selection = a.getEveryGroup() ? "every group" : a.getGroupsCount() == 1 ? "1 group" : a.getGroupsCount() + " groups";
        return new JobInfo(a.getJobId(), a.getCaptureSha256(), a.getCaptureName(), selection, a.getDevice(),
                a.getAcceptedAtMillis());
    }

    /** Jobs send their cuda (and auto) device runs to {@code source}: the cluster's GPU nodes. */
    public void gpuSource(org.replayfarm.gpunode.device.GpuSource source) {
        gpu = source;
    }

    @Override
    public String storeCapture(Path file) throws IOException, CaptureFormatException {
        return captures.store(file);
    }

    @Override
    public String storeCapture(CaptureFile validated) throws IOException, CaptureFormatException {
        return captures.store(validated);
    }

    /**
     * A capture this process has opened (validated) and decoded, stored here as {@code sha256}: the next job
     * launched on it takes {@code file} and {@code kernel} instead of opening the stored copy, hashing every blob
     * and decoding it again (an embedded {@code replay run}: ~0.3 s of CPU on the 1920x1080 shadow pass). The
     * caller vouches that both come from the bytes stored under {@code sha256}.
     */
    public void holdOpened(String sha256, CaptureFile file, Kernel kernel) {
        opened.put(sha256, new Opened(java.util.Objects.requireNonNull(file), java.util.Objects.requireNonNull(kernel)));
    }

    @Override
    public boolean hasCapture(String sha256) {
        captures.touch(sha256); // asked about: a job naming it may follow (the sweep keeps it meanwhile)
        return captures.has(sha256);
    }

    @Override
    public String start(String sha, GroupSelection selection, CompareWith compare, String captureName, Limits limits) {
        String id = UUID.randomUUID().toString();
        return start(id, sha, selection, limits, jobsDir.resolve(id), compare, captureName, r -> { });
    }

    /** Starts a job with this id whose outputs go to {@code out}, compared with {@code --device auto}. */
    public String start(String id, String sha, GroupSelection selection, long budget, Path out) {
        return start(id, sha, selection, budget, out, CompareWith.auto(), sha + ".capture", r -> { });
    }

    /**
     * Starts a job with this id whose outputs (replay run's) go to {@code out}; {@code onCompared} gets the
     * verdict and summary once the report is written, before the final progress.
     *
     * @throws IllegalArgumentException when the capture is not stored, a group is outside the dispatch or
     *         the device asked for is not in the capture
     */
    public String start(String id, String sha, GroupSelection selection, long budget, Path out, CompareWith compare,
                        String captureName, Consumer<Comparison.Result> onCompared) {
        return start(id, sha, selection, new Limits(budget, 0), out, compare, captureName, onCompared);
    }

    /** As above, with the job's own budget and slice deadline. */
    public String start(String id, String sha, GroupSelection selection, Limits limits, Path out, CompareWith compare,
                        String captureName, Consumer<Comparison.Result> onCompared) {
        return launch(accepted(id, sha, selection, limits, out, compare, captureName), true, onCompared);
    }

    /** Starts (or, {@code record} false, resumes) the job {@code a} describes. */
    private String launch(JobAccepted a, boolean record, Consumer<Comparison.Result> onCompared) {
        String id = a.getJobId();
        String sha = a.getCaptureSha256();
        List<int[]> ids = new java.util.ArrayList<>();
        a.getGroupsList().forEach(g -> ids.add(new int[] {g.getX(), g.getY(), g.getZ()}));
        GroupSelection selection = a.getEveryGroup() ? GroupSelection.everyGroup() : new GroupSelection(false, ids);
        CompareWith compare = compare(a);
        Path out = Path.of(a.getOutDir());
        String captureName = a.getCaptureName();
        long budget = a.getBudget();
        if (!captures.has(sha)) {
            throw new IllegalArgumentException("no capture " + sha + " is stored");
        }
        captures.touch(sha);
        Kernel kernel;
        CaptureFile file;
        Opened held = opened.remove(sha);
        if (held != null) {
            file = held.file();
            kernel = held.kernel();
        } else {
            try {
                file = CaptureFile.open(captures.path(sha));
                kernel = new Kernel(file);
            } catch (IOException | CaptureFormatException e) {
                throw new IllegalStateException("stored capture " + sha + " no longer opens: " + e.getMessage(), e);
            }
        }
        org.replayfarm.gpunode.device.DeviceChoice device = gpu == null ? compare.device() : compare.device().withGpu(gpu);
        device.resolve(file); // a recorded run the capture lacks (or cuda without a GPU node) is refused now
        if (record) {
            // a --view naming no range, or shaping one past its size, is refused now, not after the evaluation
            org.replayfarm.coordinator.report.RangeViews.of(kernel.memory(), file.metadata().getProgram().getKernelName(),
                    compare.views());
            org.replayfarm.coordinator.report.RangeViews.images(kernel.images(), compare.views()); // and image:K views
        }
        List<int[]> explicit = null;
        long total;
        var d = kernel.dispatch();
        if (selection.every()) {
            total = (long) d.getGroupCountX() * d.getGroupCountY() * d.getGroupCountZ();
        } else {
            explicit = selection.resolve(d);
            total = explicit.size();
        }
        outputs.put(id, out);
        board.register(info(a));
        JobSpec spec = new JobSpec(id, sha, captureBaseUrl + "/captures/" + sha, kernel, explicit, total, budget, a.getSliceDeadlineNanos(), out,
                reportThreads, file, new RunReport.Identity(sha, captureName, id, CompareWith.describe(selection)),
                device, compare.options(selection), sampling);
        Job.Listener listener = new Job.Listener() {
            @Override
            public void progress(JobProgress p) {
                update(p);
            }

            @Override
            public void stats(Job.JobStats s) {
                stats.put(id, s);
            }

            @Override
            public void compared(Comparison.Result r) {
                onCompared.accept(r);
            }

            @Override
            public void nodes(List<NodeShare> s) {
                shares.put(id, List.copyOf(s));
            }
        };
        if (record) {
            // accepted only once the journal holds it: a coordinator that dies now still knows the job
            try {
                akka.actor.typed.javadsl.AskPattern.<Journal.RegistryCommand, akka.Done>ask(registry,
                        done -> new Journal.Accept(a, done), JOURNAL_TIMEOUT, system.scheduler()).toCompletableFuture()
                        .get(JOURNAL_TIMEOUT.toSeconds() + 5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the coordinator's journal did not keep job " + id + ": " + e, e);
            }
        }
        if (record) {
            update(new JobProgress(id, sha, "running", total, 0, 0, -1, 0, 0, ""));
        } else {
            // a resumed job shows its progress once its actor has read its log back (awaitReplayed)
            replaying.put(id, new Replaying(new java.util.concurrent.CompletableFuture<>(),
                    new JobProgress(id, sha, "running", total, 0, 0, -1, 0, 0, "")));
        }
        actors.put(id, ActiveCoordinator.spawn(system, owner, ctx -> ctx.spawn(
                Job.create(spec, shards, system.settings().config(), listener), "job-" + id,
                DispatcherSelector.fromConfig("replay.coordinator.job-dispatcher"))));
        return id;
    }

    /**
     * Waits until every resumed job has read its log back and reported what it holds, so that the API, which serves
     * once resume() returns, never shows a resumed job at 0 groups done. A job whose log does not answer within
     * the journal's timeout is shown at 0 (and says so in the log): the API must not wait for ever.
     */
    private void awaitReplayed() {
        try {
            java.util.concurrent.CompletableFuture.allOf(replaying.values().stream().map(Replaying::reported)
                            .toArray(java.util.concurrent.CompletableFuture[]::new))
                    .get(JOURNAL_TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            // shown below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Replaying r : List.copyOf(replaying.values())) {
            String id = r.start().jobId();
            synchronized (replaying) { // not over a report that comes now
                if (replaying.remove(id) != null && board.get(id).isEmpty()) {
                    log.warn("job {}: its log was not read back within {} s; shown at 0 groups done until it is", id,
                            JOURNAL_TIMEOUT.toSeconds());
                    board.update(r.start());
                }
            }
        }
    }

    private void update(JobProgress p) {
        JobProgress shown = p.withFigures(p.figures().withSampling(liveSampling.get()));
        if (shown.ended()) {
            endedAt.putIfAbsent(shown.jobId(), System.currentTimeMillis());
            actors.remove(shown.jobId());
            // told before the board shows the end: a subscriber that removes the job when it sees it end (the run
            // daemon) sends its Remove after this End, which the journal then holds (it persists in order)
            registry.tell(new Journal.End(ended(shown)));
        }
        synchronized (replaying) {
            board.update(shown);
        }
        Replaying replayed = replaying.remove(shown.jobId());
        if (replayed != null) {
            replayed.reported().complete(null);
        }
    }

    private static org.replayfarm.proto.JobEnded ended(JobProgress p) {
        return org.replayfarm.proto.JobEnded.newBuilder().setJobId(p.jobId()).setState(p.state())
                .setEndedAtMillis(System.currentTimeMillis())
                .setProgressJson(com.google.protobuf.ByteString.copyFromUtf8(
                        org.replayfarm.coordinator.http.ProgressJson.write(p))).build();
    }

    @Override
    public List<Map.Entry<JobInfo, JobProgress>> jobs() {
        return board.jobs();
    }

    @Override
    public List<NodeShare> nodes(String jobId) {
        return shares.getOrDefault(jobId, List.of());
    }

    @Override
    public List<ProgressBoard.Point> series(String jobId) {
        return board.series(jobId);
    }

    /**
     * Asks the job's actor to cancel (it stops merging and sending at once and answers with its progress),
     * then journals the end ({@code cancelled}) and waits for the journal to hold it before answering, so a
     * coordinator restarted right after does not resume the job.
     */
    @Override
    public Cancel cancel(String jobId) {
        Optional<JobProgress> now = board.get(jobId);
        if (now.isEmpty()) {
            return new Cancel(CancelOutcome.UNKNOWN, now);
        }
        ActorRef<Job.Command> actor = actors.get(jobId);
        if (now.get().ended() || actor == null) {
            return new Cancel(CancelOutcome.ALREADY_ENDED, board.get(jobId));
        }
        JobProgress cancelled;
        try {
            cancelled = akka.actor.typed.javadsl.AskPattern.<Job.Command, JobProgress>ask(actor, Job.Cancel::new,
                    java.time.Duration.ofSeconds(10), system.scheduler()).toCompletableFuture().get(15,
                    java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            // the job ended (and stopped) before it read the cancel
            JobProgress after = board.get(jobId).orElseThrow();
            if (after.ended()) {
                return new Cancel(CancelOutcome.ALREADY_ENDED, Optional.of(after));
            }
            throw new IllegalStateException("job " + jobId + " did not answer the cancel: " + e, e);
        }
        JobProgress shown = cancelled.withFigures(cancelled.figures().withSampling(liveSampling.get()));
        try {
            akka.actor.typed.javadsl.AskPattern.<Journal.RegistryCommand, akka.Done>ask(registry,
                    done -> new Journal.End(ended(shown), done), JOURNAL_TIMEOUT, system.scheduler())
                    .toCompletableFuture().get(JOURNAL_TIMEOUT.toSeconds() + 5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            board.update(shown);
            throw new IllegalStateException("job " + jobId + " is cancelled, but the journal did not keep it (a "
                    + "restarted coordinator would resume it): " + e, e);
        }
        actors.remove(jobId);
        endedAt.putIfAbsent(jobId, System.currentTimeMillis());
        board.update(shown);
        return new Cancel(CancelOutcome.CANCELLED, board.get(jobId));
    }

    @Override
    public Optional<JobProgress> progress(String jobId) {
        return board.get(jobId);
    }

    /** A finished (or failed) job's figures: slices, duplicates counted once, re-sends, nondeterminism. */
    public Optional<Job.JobStats> stats(String jobId) {
        return Optional.ofNullable(stats.get(jobId));
    }

    @Override
    public AutoCloseable subscribe(String jobId, Consumer<JobProgress> listener) {
        return board.subscribe(jobId, listener);
    }

    @Override
    public Optional<Path> results(String jobId) {
        return board.finished(jobId) ? Optional.ofNullable(outputs.get(jobId)) : Optional.empty();
    }

    // ---- retention: finished jobs do not pile up

    /**
     * How long ended jobs (finished, failed, cancelled) are kept, counted from their end, and how many of
     * them at most (the newest are kept); {@code sweepEvery}: how often the coordinator looks. Running jobs
     * are never removed. As Flink's {@code jobstore.expiration-time} and {@code jobstore.max-capacity}.
     */
    public record Retention(java.time.Duration maxAge, int maxFinished, java.time.Duration sweepEvery) {
        /** Nothing is removed (replay run's embedded coordinator: its one job ends with the process). */
        public static final Retention KEEP = new Retention(java.time.Duration.ofMillis(Long.MAX_VALUE),
                Integer.MAX_VALUE, java.time.Duration.ZERO);

        public Retention {
            if (maxAge.isNegative() || maxAge.isZero()) {
                throw new IllegalArgumentException("replay.coordinator.job-retention must be positive, not " + maxAge);
            }
            if (maxFinished < 0) {
                throw new IllegalArgumentException("replay.coordinator.max-finished-jobs must be 0 or more, not " + maxFinished);
            }
            if (sweepEvery.isNegative()) {
                throw new IllegalArgumentException("replay.coordinator.retention-sweep must not be negative");
            }
        }

        /** {@code replay.coordinator.job-retention}, {@code max-finished-jobs} and {@code retention-sweep}. */
        public static Retention from(com.typesafe.config.Config c) {
            return new Retention(c.getDuration("replay.coordinator.job-retention"),
                    c.getInt("replay.coordinator.max-finished-jobs"), c.getDuration("replay.coordinator.retention-sweep"));
        }
    }

    /**
     * Applies {@code r} from now on: a sweep now, then every {@code r.sweepEvery()} (zero: only when asked).
     * {@code spools}: folders whose leftover upload files (older than an hour: an upload cut off by a crash)
     * the sweep deletes too.
     */
    public void retention(Retention r, List<Path> spools) {
        this.retention = r;
        this.spools = List.copyOf(spools);
        akka.actor.Cancellable was = sweeping;
        if (was != null) {
            was.cancel();
        }
        if (!r.sweepEvery().isZero()) {
            sweeping = system.scheduler().scheduleWithFixedDelay(r.sweepEvery(), r.sweepEvery(), () -> {
                try {
                    sweep();
                } catch (RuntimeException e) {
                    log.error("the retention sweep failed (it runs again in {}): {}", r.sweepEvery(), e.toString());
                }
            }, system.dispatchers().lookup(DispatcherSelector.blocking()));
        }
    }

    /**
     * Removes every ended job past its retention (older than the age, or beyond the newest
     * {@code maxFinished}), then captures no remaining job uses and leftovers: returns the ids removed.
     */
    public List<String> sweep() {
        Retention r = retention;
        if (r == Retention.KEEP) {
            return List.of();
        }
        synchronized (removing) {
            long now = System.currentTimeMillis();
            List<Map.Entry<String, Long>> ended = new java.util.ArrayList<>();
            for (Map.Entry<JobInfo, JobProgress> e : board.jobs()) {
                String id = e.getKey().jobId();
                Long at = endedAt.get(id);
                if (e.getValue().ended() && !actors.containsKey(id) && at != null) {
                    ended.add(Map.entry(id, at));
                }
            }
            ended.sort(Map.Entry.<String, Long>comparingByValue().reversed()); // newest end first
            List<String> removed = new java.util.ArrayList<>();
            long maxAgeMillis = r.maxAge().toMillis();
            for (int i = 0; i < ended.size(); i++) {
                Map.Entry<String, Long> e = ended.get(i);
                boolean old = now - e.getValue() > maxAgeMillis;
                if (old || i >= r.maxFinished()) {
                    String why = old ? "it ended more than " + r.maxAge() + " ago (replay.coordinator.job-retention)"
                            : "more than " + r.maxFinished() + " ended jobs are kept (replay.coordinator.max-finished-jobs)";
                    if (removeEnded(e.getKey(), why)) {
                        removed.add(e.getKey());
                    }
                }
            }
            deleteLeftovers(maxAgeMillis, now);
            return removed;
        }
    }

    @Override
    public Removal remove(String jobId) {
        synchronized (removing) {
            Optional<JobProgress> now = board.get(jobId);
            if (now.isEmpty()) {
                return new Removal(RemoveOutcome.UNKNOWN, now);
            }
            if (!now.get().ended() || actors.containsKey(jobId)) {
                return new Removal(RemoveOutcome.RUNNING, now);
            }
            if (!removeEnded(jobId, "it was purged (DELETE /jobs/" + jobId + "?purge=true)")) {
                throw new IllegalStateException("the coordinator's journal did not keep the removal of job " + jobId);
            }
            return new Removal(RemoveOutcome.REMOVED, now);
        }
    }

    /**
     * Removes an ended job: from the journal first (so a restarted coordinator does not bring it back), then
     * from the list, then its log's events and its outputs. False when the journal did not keep the removal.
     */
    private boolean removeEnded(String id, String why) {
        try {
            boolean removed = akka.actor.typed.javadsl.AskPattern.<Journal.RegistryCommand, Boolean>ask(registry,
                    done -> new Journal.Remove(id, why, done), JOURNAL_TIMEOUT, system.scheduler())
                    .toCompletableFuture().get(JOURNAL_TIMEOUT.toSeconds() + 5, java.util.concurrent.TimeUnit.SECONDS);
            if (!removed) {
                // the journal does not hold this job's end (its End write failed or is on its way): deleting
                // its outputs now would leave a job the next coordinator resumes with nothing to resume from
                log.warn("job {} is not removed: the journal does not hold its end yet (tried again at the next sweep)", id);
                return false;
            }
        } catch (Exception e) {
            log.error("cannot remove job {} from the journal (it stays, and is tried again): {}", id, e.toString());
            return false;
        }
        String sha = board.get(id).map(JobProgress::captureSha256).orElse(null);
        board.remove(id);
        endedAt.remove(id);
        stats.remove(id);
        shares.remove(id);
        Path out = outputs.remove(id);
        try {
            CompletableFuture<akka.Done> purged = new CompletableFuture<>();
            ActiveCoordinator.spawn(system, owner, ctx -> akka.actor.typed.javadsl.Adapter.toTyped(
                    akka.actor.typed.javadsl.Adapter.actorOf(ctx, Journal.purgeLog(id, purged))));
            purged.get(JOURNAL_TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("job {}: its log's events were not deleted from the journal (the job is removed): {}", id, e.toString());
        }
        if (out != null && isUnder(out, jobsDir)) {
            deleteTree(out); // outputs outside the storage directory (replay run's --out) are the user's
        }
        if (sha != null) {
            deleteUnusedCapture(sha);
        }
        log.info("removed job {}: {}", id, why);
        return true;
    }

    /**
     * Deletes the stored capture {@code sha} now when no job still known uses it, however recently it was stored:
     * for a process that knows no job naming it is on its way (the run daemon, whose runs come one at a time, each
     * removed at its end). False when a job still uses it (or it is not stored).
     */
    public boolean deleteCaptureNow(String sha) {
        synchronized (removing) {
            if (sha == null || !captures.has(sha) || capturesInUse().contains(sha)) {
                return false;
            }
            try {
                return Files.deleteIfExists(captures.path(sha));
            } catch (IOException e) {
                log.warn("cannot delete capture {}: {}", sha, e.toString());
                return false;
            }
        }
    }

    /** Deletes the stored capture {@code sha} when no job that is still known uses it. */
    private void deleteUnusedCapture(String sha) {
        if (sha == null || !captures.has(sha) || capturesInUse().contains(sha)) {
            return;
        }
        if (!olderThan(captures.path(sha), RECENT_CAPTURE_MILLIS, System.currentTimeMillis())) {
            // uploaded, stored again or asked about within the hour: a job naming it may be on its way (the
            // sweep's leftover pass removes it once it is older than the retention age and still unused)
            log.info("kept capture {}: no remaining job uses it, but it was used within the hour", sha);
            return;
        }
        try {
            Files.deleteIfExists(captures.path(sha));
            log.info("deleted capture {}: no remaining job uses it", sha);
        } catch (IOException e) {
            log.warn("cannot delete capture {}: {}", sha, e.toString());
        }
    }

    /** A capture touched more recently than this is not deleted with the last job that used it. */
    private static final long RECENT_CAPTURE_MILLIS = java.time.Duration.ofHours(1).toMillis();

    private java.util.Set<String> capturesInUse() {
        java.util.Set<String> used = new java.util.HashSet<>();
        board.jobs().forEach(e -> used.add(e.getKey().captureSha256()));
        return used;
    }

    /**
     * Captures no job uses, older than the retention age (uploaded, never submitted); job folders no job
     * knows (a removal cut off by a crash), as old; upload spool files and half-stored captures older than
     * an hour (an upload cut off by a crash).
     */
    private void deleteLeftovers(long maxAgeMillis, long now) {
        java.util.Set<String> used = capturesInUse();
        long hour = java.time.Duration.ofHours(1).toMillis();
        forEachIn(captures.dir(), f -> {
            String name = f.getFileName().toString();
            if (name.endsWith(".capture") && !used.contains(name.substring(0, name.length() - ".capture".length()))
                    && olderThan(f, maxAgeMillis, now)) {
                delete(f, "a capture no job uses");
            } else if (name.startsWith("upload") && name.endsWith(".tmp") && olderThan(f, hour, now)) {
                delete(f, "a capture never stored whole");
            }
        });
        java.util.Set<String> known = new java.util.HashSet<>();
        board.jobs().forEach(e -> known.add(e.getKey().jobId()));
        forEachIn(jobsDir, f -> {
            if (Files.isDirectory(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !known.contains(f.getFileName().toString())
                    && olderThan(f, maxAgeMillis, now)) {
                deleteTree(f);
                log.info("deleted {}: the folder of a job no longer known", f);
            }
        });
        for (Path spool : spools) {
            forEachIn(spool, f -> {
                if (f.getFileName().toString().startsWith("upload-") && olderThan(f, hour, now)) {
                    delete(f, "an upload spooled before a crash");
                }
            });
        }
    }

    private static boolean olderThan(Path f, long millis, long now) {
        try {
            return now - Files.getLastModifiedTime(f, java.nio.file.LinkOption.NOFOLLOW_LINKS).toMillis() > millis;
        } catch (IOException e) {
            return false;
        }
    }

    private static void forEachIn(Path dir, Consumer<Path> each) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            files.forEach(each);
        } catch (IOException | java.io.UncheckedIOException e) {
            log.warn("cannot list {}: {}", dir, e.toString());
        }
    }

    private static void delete(Path f, String what) {
        try {
            Files.deleteIfExists(f);
            log.info("deleted {}: {}", f, what);
        } catch (IOException e) {
            log.warn("cannot delete {} ({}): {}", f, what, e.toString());
        }
    }

    private static boolean isUnder(Path p, Path dir) {
        Path a = p.toAbsolutePath().normalize();
        Path d = dir.toAbsolutePath().normalize();
        return a.startsWith(d) && !a.equals(d);
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            for (Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            log.warn("cannot delete {} whole: {}", dir, e.toString());
        }
    }

    @Override
    public void close() {
        // the job actors live and die with the node's actor system, which FarmNode owns
        akka.actor.Cancellable was = sweeping;
        if (was != null) {
            was.cancel();
        }
        metrics.close();
    }
}
