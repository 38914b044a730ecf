package org.replayfarm.coordinator.cluster;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import akka.cluster.sharding.typed.ShardingEnvelope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.replayfarm.coordinator.diff.CompareWith;
import org.replayfarm.coordinator.diff.Comparison;
import org.replayfarm.coordinator.diff.RunReport;
import org.replayfarm.coordinator.jobs.CaptureStore;
import org.replayfarm.coordinator.jobs.JobProgress;
import org.replayfarm.coordinator.jobs.JobService;
import org.replayfarm.coordinator.jobs.ProgressBoard;
import org.replayfarm.coordinator.jobs.ProgressMetrics;
import org.replayfarm.coordinator.sampling.SamplingSnapshot;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormatException;

/**
 * Jobs evaluated on the cluster: each job is a {@link Job} actor on this (coordinator) node that shards
 * its slices over the evaluator nodes; evaluators fetch captures from {@code captureBaseUrl}
 * ({@code /captures/<sha256>}, served by CoordinatorHttp from the same store).
 */
public final class ClusterJobService implements JobService {
    private final ActorSystem<?> system;
    private final ActorRef<ShardingEnvelope<Object>> shards;
    private final CaptureStore captures;
    private final Path jobsDir;
    private final String captureBaseUrl;
    private final int reportThreads;
    private final ProgressMetrics metrics;
    private final ProgressBoard board;
    private final Map<String, Job.JobStats> stats = new ConcurrentHashMap<>();
    private final Map<String, Path> outputs = new ConcurrentHashMap<>();
    private final Supplier<CompletionStage<SamplingSnapshot>> sampling;
    private final Supplier<JobProgress.Sampling> liveSampling;
    /** Where a job's cuda (or auto) device run goes: the cluster's GPU nodes (null: this node's own GPU). */
    private volatile org.replayfarm.gpunode.device.GpuSource gpu;

    /**
     * {@code reportThreads}: the thread count reports name (replay run: the embedded evaluator's threads;
     * 0: the sum announced by the evaluator nodes is not known, so the report says 0).
     */
    public ClusterJobService(ActorSystem<?> system, ActorRef<ShardingEnvelope<Object>> shards, CaptureStore captures,
                             Path jobsDir, String captureBaseUrl, int reportThreads) throws IOException {
        this(system, shards, captures, jobsDir, captureBaseUrl, reportThreads, ProgressMetrics.off());
    }

    /** As above; every job's progress also becomes its metrics through {@code metrics}. */
    public ClusterJobService(ActorSystem<?> system, ActorRef<ShardingEnvelope<Object>> shards, CaptureStore captures,
                             Path jobsDir, String captureBaseUrl, int reportThreads, ProgressMetrics metrics)
            throws IOException {
        this(system, shards, captures, jobsDir, captureBaseUrl, reportThreads, metrics,
                () -> CompletableFuture.completedFuture(SamplingSnapshot.EMPTY), () -> JobProgress.Sampling.NONE);
    }

    /**
     * As above; {@code sampling} answers what GPU nodes reported, for each job's report (the store's
     * snapshot), and {@code liveSampling} their figures now, which every progress of every job carries.
     */
    public ClusterJobService(ActorSystem<?> system, ActorRef<ShardingEnvelope<Object>> shards, CaptureStore captures,
                             Path jobsDir, String captureBaseUrl, int reportThreads, ProgressMetrics metrics,
                             Supplier<CompletionStage<SamplingSnapshot>> sampling,
                             Supplier<JobProgress.Sampling> liveSampling) throws IOException {
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
    public boolean hasCapture(String sha256) {
        return captures.has(sha256);
    }

    @Override
    public String start(String sha, GroupSelection selection, CompareWith compare, String captureName) {
        String id = UUID.randomUUID().toString();
        return start(id, sha, selection, HostModel.DEFAULT_BUDGET, jobsDir.resolve(id), compare, captureName, r -> { });
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
        if (!captures.has(sha)) {
            throw new IllegalArgumentException("no capture " + sha + " is stored");
        }
        Kernel kernel;
        CaptureFile file;
        try {
            file = CaptureFile.open(captures.path(sha));
            kernel = new Kernel(file);
        } catch (IOException | CaptureFormatException e) {
            throw new IllegalStateException("stored capture " + sha + " no longer opens: " + e.getMessage(), e);
        }
        org.replayfarm.gpunode.device.DeviceChoice device = gpu == null ? compare.device() : compare.device().withGpu(gpu);
        device.resolve(file); // a recorded run the capture lacks (or cuda without a GPU node) is refused now
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
        JobSpec spec = new JobSpec(id, sha, captureBaseUrl + "/captures/" + sha, kernel, explicit, total, budget, out,
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
        };
        update(new JobProgress(id, sha, "running", total, 0, 0, -1, 0, 0, ""));
        system.systemActorOf(Job.create(spec, shards, system.settings().config(), listener), "job-" + id,
                DispatcherSelector.fromConfig("replay.coordinator.job-dispatcher"));
        return id;
    }

    private void update(JobProgress p) {
        board.update(p.withFigures(p.figures().withSampling(liveSampling.get())));
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

    @Override
    public void close() {
        // the job actors live and die with the node's actor system, which FarmNode owns
        metrics.close();
    }
}
