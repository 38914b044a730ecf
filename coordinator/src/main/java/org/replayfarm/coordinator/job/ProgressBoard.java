package org.replayfarm.coordinator.job;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Every job's latest progress and the listeners waiting for its changes, shared by the job services.
 * Progress can be reported from several threads: once a job has ended, nothing replaces its end (a late
 * "running" report does not bring it back; a cancelled job is not finished afterwards). The board also
 * keeps what each job was asked to do ({@link JobInfo}, for the job list) and its progress over time
 * ({@link #series}: what the web page's chart draws).
 */
public final class ProgressBoard {
    /** The most points a job's series keeps: past it, every other point is dropped (the chart's resolution). */
    static final int MAX_POINTS = 512;

    /**
     * One point of a job's progress over time: seconds since the board first saw the job, groups done,
     * the rate then, faults, slices in flight and slices sent again so far.
     */
    public record Point(double seconds, long groupsDone, double groupsPerSecond, long faults, long slicesInFlight,
                        long slicesResent) {
    }

    private final Map<String, JobProgress> progress = new ConcurrentHashMap<>();
    private final Map<String, JobInfo> infos = new ConcurrentHashMap<>();
    private final Map<String, Long> order = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong registered = new java.util.concurrent.atomic.AtomicLong();
    private final Map<String, Series> series = new ConcurrentHashMap<>();
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
        JobProgress was = progress.get(p.jobId());
        if (was != null && was.ended()) {
            return;
        }
        progress.put(p.jobId(), p);
        series.computeIfAbsent(p.jobId(), k -> new Series(System.nanoTime())).add(p);
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

    /** Keeps what a job was asked to do (before its first progress, so the list shows it at once). */
    public void register(JobInfo info) {
        infos.put(info.jobId(), info);
        order.putIfAbsent(info.jobId(), registered.incrementAndGet());
    }

    /**
     * Every registered job with its latest progress, newest first (by acceptance time, then by the order
     * they were registered).
     */
    public List<Map.Entry<JobInfo, JobProgress>> jobs() {
        List<Map.Entry<JobInfo, JobProgress>> out = new java.util.ArrayList<>();
        for (JobInfo i : infos.values()) {
            JobProgress p = progress.get(i.jobId());
            if (p != null) {
                out.add(Map.entry(i, p));
            }
        }
        out.sort(java.util.Comparator.<Map.Entry<JobInfo, JobProgress>>comparingLong(e -> e.getKey().acceptedAtMillis())
                .thenComparingLong(e -> order.getOrDefault(e.getKey().jobId(), 0L)).reversed());
        return out;
    }

    /** Forgets a job (its retention ran out, or it was purged): the list, its series and its listeners. */
    public void remove(String jobId) {
        progress.remove(jobId);
        infos.remove(jobId);
        order.remove(jobId);
        series.remove(jobId);
        listeners.remove(jobId);
    }

    public Optional<JobInfo> info(String jobId) {
        return Optional.ofNullable(infos.get(jobId));
    }

    /** The job's progress over time, oldest first (empty for an unknown job). */
    public List<Point> series(String jobId) {
        Series s = series.get(jobId);
        return s == null ? List.of() : s.points();
    }

    /** Whether the job has finished (its outputs are complete). */
    public boolean finished(String jobId) {
        JobProgress p = progress.get(jobId);
        return p != null && p.state().equals("finished");
    }

    /**
     * A job's points: every {@code stride}-th progress kept (the stride doubles, dropping every other kept
     * point, whenever more than MAX_POINTS are kept), and always the newest.
     */
    private static final class Series {
        private final long origin;
        private final List<Point> kept = new java.util.ArrayList<>();
        private Point newest;
        private int stride = 1;
        private long seen;

        Series(long origin) {
            this.origin = origin;
        }

        synchronized void add(JobProgress p) {
            newest = new Point((System.nanoTime() - origin) / 1e9, p.groupsDone(), p.groupsPerSecond(), p.faults(),
                    p.figures().slicesInFlight(), p.figures().slicesResent());
            if (seen++ % stride != 0) {
                return;
            }
            kept.add(newest);
            if (kept.size() > MAX_POINTS) {
                List<Point> thinned = new java.util.ArrayList<>();
                for (int i = 0; i < kept.size(); i += 2) {
                    thinned.add(kept.get(i));
                }
                kept.clear();
                kept.addAll(thinned);
                stride *= 2;
            }
        }

        synchronized List<Point> points() {
            List<Point> out = new java.util.ArrayList<>(kept);
            if (newest != null && (out.isEmpty() || out.get(out.size() - 1) != newest)) {
                out.add(newest);
            }
            return List.copyOf(out);
        }
    }
}
