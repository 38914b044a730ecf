package org.replayfarm.coordinator.device;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.proto.GuestHotspot;
import org.replayfarm.proto.GuestStall;

/**
 * A job's hottest guest instructions on {@code /metrics}, as its device run reported them (the same list
 * report.json's {@code device.hot_guest_instructions} shows): one gauge series per instruction,
 * {@code replay_job_device_hot_guest_samples{job_id, guest_pc, instruction, stall}}. The cardinality stays
 * bounded: at most {@link #TOP} series per job (a later run of the same job replaces them), and a job's series
 * go the retention time after they were recorded, as the job's other series do.
 */
public final class HotGuestMetrics implements AutoCloseable {
    /** Series per job. */
    public static final int TOP = 10;

    private record Series(long guestPc, String instruction, String stall) {
    }

    private final FarmMetrics metrics;
    private final Duration retention;
    private final ScheduledExecutorService reaper;
    private final Map<String, List<Series>> recorded = new HashMap<>();
    private final Map<String, Long> generation = new HashMap<>();

    public HotGuestMetrics(FarmMetrics metrics, Duration retention) {
        this.metrics = metrics;
        this.retention = retention;
        this.reaper = metrics.on() ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "hot-guest-metrics-reaper");
            t.setDaemon(true);
            return t;
        }) : null;
    }

    /** Records nothing. */
    public static HotGuestMetrics off() {
        return new HotGuestMetrics(FarmMetrics.off(), Duration.ZERO);
    }

    /** The job's hottest guest instructions (hottest first, as the device run sends them); the first {@link #TOP} become series. */
    public synchronized void record(String jobId, List<GuestHotspot> hottest) {
        if (!metrics.on() || jobId.isEmpty()) {
            return;
        }
        forget(jobId);
        FarmMetrics.JobSeries job = metrics.job(jobId);
        List<Series> kept = new ArrayList<>();
        for (GuestHotspot h : hottest.stream().limit(TOP).toList()) {
            String stall = h.getStallsList().stream().findFirst().map(GuestStall::getReason).orElse("");
            Series s = new Series(h.getGuestPc(), h.getText(), stall);
            job.hotGuest(s.guestPc(), s.instruction(), s.stall(), h.getSamples());
            kept.add(s);
        }
        recorded.put(jobId, kept);
        long g = generation.merge(jobId, 1L, Long::sum);
        reaper.schedule(() -> expire(jobId, g), retention.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Series this job has on {@code /metrics} now. */
    public synchronized int series(String jobId) {
        return recorded.getOrDefault(jobId, List.of()).size();
    }

    private synchronized void expire(String jobId, long g) {
        if (generation.getOrDefault(jobId, 0L) == g) {
            forget(jobId);
            generation.remove(jobId);
        }
    }

    private void forget(String jobId) {
        List<Series> old = recorded.remove(jobId);
        if (old != null) {
            FarmMetrics.JobSeries job = metrics.job(jobId);
            old.forEach(s -> job.removeHotGuest(s.guestPc(), s.instruction(), s.stall()));
        }
    }

    /** Removes every job's series now (the node is closing). */
    @Override
    public void close() {
        // the reaper is stopped outside the lock: an expiry that has just fired waits for the lock in expire(),
        // and holding it here would keep that thread (and this close) waiting out the whole timeout
        if (reaper != null) {
            reaper.shutdownNow();
            try {
                reaper.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            for (String job : List.copyOf(recorded.keySet())) {
                forget(job);
            }
            generation.clear();
        }
    }
}
