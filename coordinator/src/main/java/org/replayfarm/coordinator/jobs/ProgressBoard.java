package org.replayfarm.coordinator.jobs;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Every job's latest progress and the listeners waiting for its changes, shared by the job services.
 * Progress can be reported from several threads: once a job has ended, a late "running" report does not
 * bring it back.
 */
public final class ProgressBoard {
    private final Map<String, JobProgress> progress = new ConcurrentHashMap<>();
    private final Map<String, List<Consumer<JobProgress>>> listeners = new ConcurrentHashMap<>();
    private final ProgressMetrics metrics;

    public ProgressBoard() {
        this(ProgressMetrics.off());
    }

    /** A board whose every accepted progress also becomes the job's metrics (one source for both). */
    public ProgressBoard(ProgressMetrics metrics) {
        this.metrics = metrics;
    }

    /** Records a job's progress, its metrics, and tells its listeners. */
    public void update(JobProgress p) {
        if (p.state().equals("running") && progress.getOrDefault(p.jobId(), p).ended()) {
            return;
        }
        progress.put(p.jobId(), p);
        metrics.record(p);
        for (Consumer<JobProgress> l : listeners.getOrDefault(p.jobId(), List.of())) {
            l.accept(p);
        }
    }

    public Optional<JobProgress> get(String jobId) {
        return Optional.ofNullable(progress.get(jobId));
    }

    /** See {@link JobService#subscribe}. */
    public AutoCloseable subscribe(String jobId, Consumer<JobProgress> listener) {
        List<Consumer<JobProgress>> list = listeners.computeIfAbsent(jobId, k -> new CopyOnWriteArrayList<>());
        list.add(listener);
        JobProgress now = progress.get(jobId);
        if (now != null) {
            listener.accept(now);
        }
        return () -> list.remove(listener);
    }

    /** Whether the job has finished (its outputs are complete). */
    public boolean finished(String jobId) {
        JobProgress p = progress.get(jobId);
        return p != null && p.state().equals("finished");
    }
}
