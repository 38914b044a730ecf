package org.replayfarm.coordinator.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.report.Comparison;
import org.replayfarm.coordinator.report.RunReport;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormatException;

/**
 * Jobs evaluated in this process with {@link Evaluation} (no cluster), compared with the device and
 * reported as the clustered service does ({@link Comparison}): the reference the clustered service must
 * agree with, and what a coordinator without evaluator nodes offers.
 */
public final class LocalJobService implements JobService {
    private final CaptureStore captures;
    private final Path jobsDir;
    private final int threads;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "local-jobs");
        t.setDaemon(true);
        return t;
    });
    private final ProgressBoard board = new ProgressBoard();
    /** While set, jobs started wait on it before they evaluate ({@link #hold}). */
    private final java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CountDownLatch> gate =
            new java.util.concurrent.atomic.AtomicReference<>();

    /**
     * Jobs started from now on wait before they evaluate until the returned handle is closed: a job that is still
     * running because the test holds it there, however fast the machine.
     */
    public AutoCloseable hold() {
        java.util.concurrent.CountDownLatch latch = new java.util.concurrent.CountDownLatch(1);
        gate.set(latch);
        return () -> {
            gate.compareAndSet(latch, null);
            latch.countDown();
        };
    }

    public LocalJobService(Path workDir, int threads) throws IOException {
        this.captures = new CaptureStore(workDir.resolve("captures"));
        this.jobsDir = Files.createDirectories(workDir.resolve("jobs"));
        this.threads = threads;
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
    public String start(String sha, GroupSelection selection, CompareWith compare, String captureName, Limits limits) {
        if (!captures.has(sha)) {
            throw new IllegalArgumentException("no capture " + sha + " is stored");
        }
        Kernel kernel;
        CaptureFile file;
        List<int[]> groups;
        try {
            file = CaptureFile.open(captures.path(sha));
            kernel = new Kernel(file);
            groups = selection.resolve(kernel.dispatch());
        } catch (IOException | CaptureFormatException e) {
            throw new IllegalStateException("stored capture " + sha + " no longer opens: " + e.getMessage(), e);
        }
        compare.device().resolve(file); // a recorded run the capture lacks is refused now
        String id = UUID.randomUUID().toString();
        long start = System.nanoTime();
        board.register(new JobInfo(id, sha, captureName, JobInfo.selection(selection), compare.device().spelling(),
                System.currentTimeMillis()));
        update(new JobProgress(id, sha, "running", groups.size(), 0, 0, -1, 0, 0, ""));
        java.util.concurrent.CountDownLatch held = gate.get();
        runner.submit(() -> {
            try {
                if (held != null) {
                    held.await();
                }
                if (board.get(id).map(JobProgress::ended).orElse(false)) {
                    return; // cancelled while held
                }
                Evaluation.Outcome o = Evaluation.run(kernel, groups, threads, limits.budget(), done -> {
                    double seconds = (System.nanoTime() - start) / 1e9;
                    double rate = done / Math.max(seconds, 1e-9);
                    update(new JobProgress(id, sha, "running", groups.size(), done, rate,
                            (groups.size() - done) / Math.max(rate, 1e-9), 0, 0, ""));
                });
                if (board.get(id).map(JobProgress::ended).orElse(false)) {
                    return; // cancelled: nothing is compared or written
                }
                Comparison.Result r = Comparison.finish(jobsDir.resolve(id), o, kernel, file,
                        new RunReport.Identity(sha, captureName, id, CompareWith.describe(selection)), compare.device(),
                        compare.options(selection), 0, DeviceEvents.ignore());
                double seconds = o.wallTime().toNanos() / 1e9;
                update(new JobProgress(id, sha, "finished", groups.size(), groups.size(), groups.size() / seconds, 0,
                        o.faults().size(), o.waveInstructions(), "", r.withComparison(JobProgress.Figures.NONE)));
            } catch (Exception | Error e) {
                update(new JobProgress(id, sha, "failed", groups.size(), 0, 0, -1, 0, 0, String.valueOf(e)));
            }
        });
        return id;
    }

    private void update(JobProgress p) {
        board.update(p);
    }

    @Override
    public Optional<JobProgress> progress(String jobId) {
        return board.get(jobId);
    }

    @Override
    public List<java.util.Map.Entry<JobInfo, JobProgress>> jobs() {
        return board.jobs();
    }

    @Override
    public List<ProgressBoard.Point> series(String jobId) {
        return board.series(jobId);
    }

    /** The evaluation runs on to its end in the background, but nothing of it is reported, compared or written. */
    @Override
    public synchronized Cancel cancel(String jobId) {
        Optional<JobProgress> p = board.get(jobId);
        if (p.isEmpty()) {
            return new Cancel(CancelOutcome.UNKNOWN, p);
        }
        if (p.get().ended()) {
            return new Cancel(CancelOutcome.ALREADY_ENDED, p);
        }
        JobProgress was = p.get();
        update(new JobProgress(jobId, was.captureSha256(), "cancelled", was.groupsTotal(), was.groupsDone(), 0, -1,
                was.faults(), was.waveInstructions(), "cancelled", was.figures()));
        JobProgress now = board.get(jobId).orElseThrow();
        return new Cancel(now.state().equals("cancelled") ? CancelOutcome.CANCELLED : CancelOutcome.ALREADY_ENDED,
                Optional.of(now));
    }

    @Override
    public AutoCloseable subscribe(String jobId, Consumer<JobProgress> listener) {
        return board.subscribe(jobId, listener);
    }

    @Override
    public Optional<Path> results(String jobId) {
        return board.finished(jobId) ? Optional.of(jobsDir.resolve(jobId)) : Optional.empty();
    }

    @Override
    public void close() {
        runner.shutdownNow();
    }
}
