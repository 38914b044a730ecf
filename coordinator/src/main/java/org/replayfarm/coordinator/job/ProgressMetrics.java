package org.replayfarm.coordinator.job;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.metrics.FarmMetrics.Metric;

/**
 * A job's metrics, derived from the same {@link JobProgress} values its progress events carry (the
 * {@link ProgressBoard} hands every accepted progress to both), so {@code replay watch} and
 * {@code /metrics} never disagree. Progress holds totals; each counter advances by what is new, and never
 * back (progress can be reported from several threads, out of order). A job's series are removed the
 * retention time after it ended: long enough for Prometheus to scrape the final figures, and the job tag's
 * values stay as few as the jobs of the last few minutes.
 */
public final class ProgressMetrics implements AutoCloseable {
    private final FarmMetrics metrics;
    private final Duration retention;
    private final ScheduledExecutorService reaper;
    private final Map<String, EnumMap<Metric, Long>> counted = new HashMap<>();
    private final FarmMetrics.QueueSeries queue;
    /** Each running job's queue: slices queued, slices in flight, groups remaining. */
    private final Map<String, long[]> running = new HashMap<>();

    public ProgressMetrics(FarmMetrics metrics, Duration retention) {
        this.metrics = metrics;
        this.retention = retention;
        this.reaper = metrics.on() ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "job-metrics-reaper");
            t.setDaemon(true);
            return t;
        }) : null;
        this.queue = metrics.queue();
    }

    /** Records nothing. */
    public static ProgressMetrics off() {
        return new ProgressMetrics(FarmMetrics.off(), Duration.ZERO);
    }

    /** The job's figures now (totals so far) become its series. */
    public synchronized void record(JobProgress p) {
        if (!metrics.on()) {
            return;
        }
        FarmMetrics.JobSeries s = metrics.job(p.jobId());
        boolean first = !counted.containsKey(p.jobId());
        EnumMap<Metric, Long> done = counted.computeIfAbsent(p.jobId(), k -> new EnumMap<>(Metric.class));
        JobProgress.Figures f = p.figures();
        s.running(!p.ended());
        s.set(Metric.JOB_GROUPS_SELECTED, p.groupsTotal());
        s.set(Metric.JOB_GROUPS_RATE, Math.max(0, p.groupsPerSecond()));
        s.set(Metric.JOB_SLICES_IN_FLIGHT, f.slicesInFlight());
        s.set(Metric.JOB_WAVE_INSTRUCTION_RATE, Math.max(0, f.waveInstructionsPerSecond()));
        s.set(Metric.JOB_LANE_INSTRUCTION_RATE, Math.max(0, f.laneInstructionsPerSecond()));
        advance(s, done, Metric.JOB_GROUPS_DONE, p.groupsDone(), first);
        advance(s, done, Metric.JOB_SLICES_RESENT, f.slicesResent(), first);
        advance(s, done, Metric.JOB_WAVE_INSTRUCTIONS, p.waveInstructions(), first);
        advance(s, done, Metric.JOB_LANE_INSTRUCTIONS, f.laneInstructions(), first);
        advance(s, done, Metric.JOB_FAULTS, p.faults(), first);
        advance(s, done, Metric.JOB_STORE_CONFLICTS, f.storeConflicts(), first);
        advance(s, done, Metric.JOB_NONDETERMINISTIC_SLICES, f.nondeterministicSlices(), first);
        advance(s, done, Metric.JOB_TEXELS_COMPARED, f.texelsCompared(), first);
        advance(s, done, Metric.JOB_TEXELS_DIFFERING, f.texelsDiffering(), first);
        advance(s, done, Metric.JOB_BYTES_COMPARED, f.bytesCompared(), first);
        advance(s, done, Metric.JOB_BYTES_DIFFERING, f.bytesDiffering(), first);
        long queued = p.ended() ? 0 : Math.max(0, f.slicesQueued());
        long remaining = p.ended() ? 0 : Math.max(0, p.groupsTotal() - p.groupsDone());
        s.set(Metric.JOB_SLICES_QUEUED, queued);
        s.set(Metric.JOB_GROUPS_REMAINING, remaining);
        if (p.ended()) {
            running.remove(p.jobId());
        } else {
            running.put(p.jobId(), new long[] {queued, Math.max(0, f.slicesInFlight()), remaining});
        }
        publishQueue();
        if (p.ended()) {
            reaper.schedule(() -> forget(p.jobId()), retention.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The queue totals over the running jobs, as a scaler reads them. */
    private void publishQueue() {
        long[] total = new long[3];
        for (long[] q : running.values()) {
            for (int i = 0; i < 3; i++) {
                total[i] += q[i];
            }
        }
        queue.set(total[0], total[1], total[2], running.size());
    }

    private static void advance(FarmMetrics.JobSeries s, EnumMap<Metric, Long> done, Metric m, long total, boolean first) {
        long before = done.getOrDefault(m, 0L);
        if (first) {
            s.touch(m); // the series exists at 0 from the first progress
        }
        if (total > before) {
            s.add(m, total - before);
            done.put(m, total);
        }
    }

    private synchronized void forget(String jobId) {
        if (running.remove(jobId) != null) {
            publishQueue();
        }
        if (counted.remove(jobId) != null) {
            metrics.job(jobId).remove();
        }
    }

    /** Removes every job's series now (the node is closing). */
    @Override
    public synchronized void close() {
        if (reaper != null) {
            reaper.shutdownNow();
        }
        for (String job : counted.keySet()) {
            metrics.job(job).remove();
        }
        counted.clear();
    }
}
