package org.replayfarm.coordinator.sampling;

import java.util.HashMap;
import java.util.Map;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.metrics.FarmMetrics;

/**
 * The GPU nodes' sampling as metrics and as the progress events' sampling part, both from one
 * {@link SamplingReport.Summary} of the store's snapshot, so {@code /metrics}, {@code replay watch} and
 * report.json's sampling section never disagree. Per GPU node (tag {@code node}: its HOST:PORT, role
 * {@code gpu}, every incarnation added up): executions by {@code serialized}, bursts closed, duty achieved.
 * Counters advance by what is new and never back: an execution that read {@code unknown} and is later
 * decided stays counted as unknown in {@code replay_gpu_executions_total}; the gauge
 * {@code replay_gpu_executions_now} shows the decision, as the report and the progress do.
 */
public final class SamplingMetrics {
    private final FarmMetrics metrics;
    private final Map<String, long[]> counted = new HashMap<>();
    private volatile JobProgress.Sampling latest = JobProgress.Sampling.NONE;

    public SamplingMetrics(FarmMetrics metrics) {
        this.metrics = metrics;
    }

    /** Records nothing on /metrics; still keeps the latest figures. */
    public static SamplingMetrics off() {
        return new SamplingMetrics(FarmMetrics.off());
    }

    /** The figures of the last summary recorded ({@link JobProgress.Sampling#NONE} before any). */
    public JobProgress.Sampling latest() {
        return latest;
    }

    /** Records a summary: the progress part at once, the per-node series by what is new. */
    public synchronized void record(SamplingReport.Summary s) {
        ExecutionViews v = s.views();
        latest = new JobProgress.Sampling(s.mode(), s.bursts(), s.duty(), s.pairs(), v.views().size(), v.serialized(),
                v.notSerialized(), v.unknown());
        if (!metrics.on()) {
            return;
        }
        Map<String, long[]> totals = new HashMap<>(); // true, false, unknown, bursts closed, busy ns, span ns
        for (SamplingReport.NodeFigures n : s.nodes()) {
            long[] t = totals.computeIfAbsent(hostPort(n.node()), k -> new long[6]);
            t[0] += n.serialized();
            t[1] += n.notSerialized();
            t[2] += n.unknown();
            t[3] += n.burstsClosed();
            t[4] += n.busyNs();
            t[5] += n.spanNs();
        }
        for (Map.Entry<String, long[]> e : totals.entrySet()) {
            FarmMetrics.GpuSeries gpu = metrics.gpuOf(e.getKey());
            long[] t = e.getValue();
            long[] done = counted.computeIfAbsent(e.getKey(), k -> new long[4]);
            String[] names = {"true", "false", "unknown"};
            for (int i = 0; i < 3; i++) {
                gpu.executions(names[i], t[i] - done[i]);
                done[i] = Math.max(done[i], t[i]);
            }
            gpu.executionsNow(t[0], t[1], t[2]);
            gpu.bursts(t[3] - done[3]);
            done[3] = Math.max(done[3], t[3]);
            gpu.duty(t[5] == 0 ? 0.0 : Math.min(1.0, (double) t[4] / t[5]));
        }
    }

    /** {@code akka://farm@HOST:PORT} as the node tag spells nodes (HOST:PORT); anything else as it is. */
    static String hostPort(String address) {
        try {
            akka.actor.Address a = akka.actor.AddressFromURIString.parse(address);
            if (a.getHost().isPresent() && a.getPort().isPresent()) {
                return a.getHost().get() + ":" + a.getPort().get();
            }
        } catch (RuntimeException notAnAddress) {
            // a node named otherwise (tests): keep its name
        }
        return address;
    }
}
