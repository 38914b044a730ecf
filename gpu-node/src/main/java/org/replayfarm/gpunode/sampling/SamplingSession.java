package org.replayfarm.gpunode.sampling;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.GpuExecutionReport;
import org.replayfarm.proto.GpuPcSampleBatch;
import org.replayfarm.proto.GpuSamplingWindowV1;
import org.replayfarm.proto.PcSample;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PC sampling on one GPU node for one incarnation: the device runner calls {@link #onLaunchEnter} and
 * {@link #onLaunchExit} around every kernel launch, on the launching thread (never a timer thread: perf-agent
 * issue #101 deadlocked stopping from one), and {@link #report} when it wants its executions reported.
 *
 * <p>Tier A (seed 000): bursts open on a launch enter when the {@link BurstScheduler} says so and close on
 * a launch exit; the window goes out twice — open (end_ns = 0) the instant start succeeded, closed (same
 * start) after the stop and the drain that must follow every stop. CUDA graph launches make Tier A refuse
 * to start, loudly and counted: the interval between the first graph launch and the refusal is kept.
 * Tier B starts once and stays on. With sampling off (or refused) the session never configures, starts or
 * stops sampling; it only drains kernel activity for its execution reports.
 */
public final class SamplingSession {
    private static final Logger LOG = LoggerFactory.getLogger(SamplingSession.class);

    private final SamplingSettings settings;
    private final PcSampler sampler;
    private final SamplingSink sink;
    private final String node;
    private final long incarnation;
    private final long startedNs;
    private final BurstScheduler scheduler;
    private final List<GpuExecution> pending = new ArrayList<>();
    private final Map<String, PcSample.Builder> burstPairs = new LinkedHashMap<>();
    private final AtomicReference<Thread> launchingThread = new AtomicReference<>();
    private boolean configured;
    private boolean broken;
    private boolean continuousOpen;
    private long sequence;
    private long openStartNs;
    private long configRefusals;
    private long graphRefusals;
    private long startFailures;
    private long firstGraphLaunchNs;
    private long graphRefusalNs;
    private long executions;

    public SamplingSession(SamplingSettings settings, PcSampler sampler, SamplingSink sink, String node, long incarnation) {
        this.settings = settings;
        this.sampler = sampler;
        this.sink = sink;
        this.node = node;
        this.incarnation = incarnation;
        this.startedNs = sampler.timestampNs();
        this.scheduler = new BurstScheduler(settings.burst(), startedNs);
        this.configRefusals = settings.refused().isPresent() ? 1 : 0;
    }

    /** Before a launch. {@code graphLaunch}: the launcher knows it launches a CUDA graph. */
    public void onLaunchEnter(boolean graphLaunch) {
        onLaunchingThread();
        if (settings.mode() == SamplingMode.OFF || broken) {
            return;
        }
        long now = sampler.timestampNs();
        if (settings.mode() == SamplingMode.CONTINUOUS) {
            if (!continuousOpen && configure()) {
                continuousOpen = startBurst(now);
            }
            return;
        }
        if (graphLaunch) {
            graphSeen(now, now);
            if (scheduler.open()) {
                stopBurst(now); // the graph's kernels must not run inside a window that claims exact attribution
            }
        }
        if (!scheduler.dueToStart(now)) {
            return;
        }
        if (firstGraphLaunchNs != 0) {
            graphRefusals++;
            scheduler.skipped(now);
            return;
        }
        if (configure() && !startBurst(now)) {
            scheduler.skipped(now);
        }
    }

    /**
     * The launching thread's context exists and no module is loaded on it yet: sampling is configured now
     * (CUPTI gives PC records only for modules loaded after its Enable), and again after a context reset.
     */
    public void onContextReady() {
        onLaunchingThread();
        if (settings.mode() == SamplingMode.OFF || broken) {
            return;
        }
        if (!configured) {
            configure();
            return;
        }
        try {
            sampler.contextReady();
        } catch (PcSampler.SamplingException e) {
            broken = true;
            startFailures++;
            LOG.error("PC sampling ({}) could not be configured on the new context, this node samples nothing more: {}",
                    settings.mode().configName(), e.getMessage());
        }
    }

    /**
     * After a launch returned. In a Tier A burst the kernel activity is drained after every kernel (a graph
     * launch shows there); the sampler hands PC data over only after the stop (CUPTI's flush with start/stop
     * control is after every range end; each record's correlationId names its kernel).
     */
    public void onLaunchExit() {
        onLaunchingThread();
        if (settings.mode() != SamplingMode.SERIALIZED || broken || !scheduler.open()) {
            return;
        }
        drainInto(burstPairs);
        if (scheduler.dueToStop(sampler.timestampNs())) {
            stopBurst(sampler.timestampNs());
        }
    }

    /**
     * Drains kernel activity (and, in Tier B, PC data) and sends the executions completed since the last
     * report with the horizon that decides their disclosure: bursts started so far, as of now.
     */
    public GpuExecutionReport report() {
        onLaunchingThread();
        if (settings.mode() == SamplingMode.CONTINUOUS && continuousOpen) {
            Map<String, PcSample.Builder> pairs = new LinkedHashMap<>();
            drainInto(pairs);
            sendSamples(pairs);
        } else {
            drainInto(scheduler.open() ? burstPairs : null); // kernel activity in every mode; PCs of an open burst
        }
        long now = sampler.timestampNs();
        GpuExecutionReport.Builder r = GpuExecutionReport.newBuilder()
                .setNode(node).setIncarnation(incarnation).setConfiguredMode(settings.mode().wire())
                .setBurstsStarted(sequence).setAsOfNs(now).addAllExecutions(pending)
                .setGraphRefusals(graphRefusals).setFirstGraphLaunchNs(firstGraphLaunchNs)
                .setGraphRefusalNs(graphRefusalNs).setSamplingStartedNs(startedNs);
        settings.refused().ifPresent(r::setConfigRefused);
        pending.clear();
        GpuExecutionReport report = r.build();
        sink.send(report);
        return report;
    }

    /** At exit: an open burst is stopped and drained, then the sampler stops, drains and disables. */
    public void close() {
        if (settings.mode() == SamplingMode.SERIALIZED && !broken && scheduler.open()) {
            stopBurst(sampler.timestampNs());
        }
        sampler.close();
    }

    /** The device side this session drives (its module CRCs key the PC samples to modules). */
    public PcSampler sampler() {
        return sampler;
    }

    public Stats stats() {
        return new Stats(settings.mode(), sequence, scheduler.bursts(), scheduler.pairs(),
                scheduler.dutyAchieved(sampler.timestampNs()), configRefusals, graphRefusals, startFailures,
                firstGraphLaunchNs, graphRefusalNs, executions, broken);
    }

    /** What a session did: for metrics and the benchmark. dutyAchieved counts closed bursts only. */
    public record Stats(SamplingMode mode, long burstsStarted, long burstsClosed, long pairs, double dutyAchieved,
                        long configRefusals, long graphRefusals, long startFailures, long firstGraphLaunchNs,
                        long graphRefusalNs, long executions, boolean broken) {
        /** ns from the first graph launch to Tier A's refusal; -1 when it never refused for a graph. */
        public long graphRefusalDelayNs() {
            return graphRefusalNs == 0 ? -1 : graphRefusalNs - firstGraphLaunchNs;
        }
    }

    private boolean configure() {
        if (configured) {
            return true;
        }
        try {
            sampler.configure(settings.mode());
            configured = true;
            return true;
        } catch (PcSampler.SamplingException e) {
            broken = true;
            startFailures++;
            LOG.error("PC sampling ({}) could not be configured, this node samples nothing: {}",
                    settings.mode().configName(), e.getMessage());
            return false;
        }
    }

    private boolean startBurst(long now) {
        try {
            sampler.start();
        } catch (PcSampler.SamplingException e) {
            startFailures++;
            LOG.warn("a PC-sampling burst did not start: {}", e.getMessage());
            return false;
        }
        long start = sampler.timestampNs();
        sequence++;
        burstPairs.clear();
        openStartNs = start;
        if (settings.mode() == SamplingMode.SERIALIZED) {
            scheduler.started(start);
        }
        sink.send(window(start, 0, 0)); // the open record, before anything else can go wrong
        return true;
    }

    private void stopBurst(long now) {
        try {
            sampler.stop();
        } catch (PcSampler.SamplingException e) {
            // the window stays open on the wire: everything from its start reads "unknown", which is the truth
            broken = true;
            LOG.error("a PC-sampling burst did not stop; sampling ends on this node, its window stays open: {}",
                    e.getMessage());
            return;
        }
        long end = sampler.timestampNs();
        scheduler.stopped(end);
        drainInto(burstPairs); // the flush after every stop: without it two PCs can share one identity
        long pairs = burstPairs.values().stream().filter(b -> b.getSamples() > 0).count();
        scheduler.observed(pairs); // the pair count is read after the flush that follows the stop
        sink.send(window(openStartNs, end, pairs));
        sendSamples(burstPairs);
        burstPairs.clear();
    }

    private void sendSamples(Map<String, PcSample.Builder> pairs) {
        GpuPcSampleBatch.Builder batch = GpuPcSampleBatch.newBuilder().setNode(node).setIncarnation(incarnation)
                .setSequence(sequence);
        for (PcSample.Builder b : pairs.values()) {
            if (b.getSamples() > 0) {
                batch.addSamples(b.build());
            }
        }
        if (batch.getSamplesCount() > 0) {
            sink.send(batch.build());
        }
    }

    /** Drains the sampler: PC records into {@code pairs} (dropped when null), kernel records into the pending executions. */
    private void drainInto(Map<String, PcSample.Builder> pairs) {
        PcSampler.Drained d;
        try {
            d = sampler.drain();
        } catch (PcSampler.SamplingException e) {
            LOG.error("draining the sampler failed: {}", e.getMessage());
            return;
        }
        if (pairs != null && !d.pcs().isEmpty()) {
            List<String> reasons = sampler.stallReasons();
            for (PcSampler.PcRecord pc : d.pcs()) {
                String reason = pc.stallReasonIndex() >= 0 && pc.stallReasonIndex() < reasons.size()
                        ? reasons.get(pc.stallReasonIndex()) : "stall-reason-" + pc.stallReasonIndex();
                String key = pc.function() + '\0' + pc.cubinCrc() + '\0' + pc.pcOffset() + '\0' + reason + '\0'
                        + pc.correlationId();
                PcSample.Builder b = pairs.computeIfAbsent(key, k -> PcSample.newBuilder().setFunction(pc.function())
                        .setCubinCrc(pc.cubinCrc()).setPcOffset(pc.pcOffset()).setStallReason(reason)
                        .setCorrelationId(pc.correlationId()));
                b.setSamples(b.getSamples() + pc.samples());
            }
        }
        long now = sampler.timestampNs();
        for (PcSampler.KernelRecord k : d.kernels()) {
            executions++;
            pending.add(GpuExecution.newBuilder().setCorrelationId(k.correlationId()).setKernel(k.name())
                    .setStartNs(k.startNs()).setEndNs(k.endNs()).setGraphId(k.graphId()).build());
            if (k.graphId() != 0) {
                graphSeen(k.startNs(), now);
            }
        }
    }

    /** A graph launch seen (at {@code launchNs}, learnt at {@code now}): Tier A refuses from now on. */
    private void graphSeen(long launchNs, long now) {
        if (firstGraphLaunchNs == 0 || launchNs < firstGraphLaunchNs) {
            firstGraphLaunchNs = launchNs;
        }
        if (settings.mode() == SamplingMode.SERIALIZED && graphRefusalNs == 0) {
            graphRefusalNs = now;
            graphRefusals++;
            LOG.error("Tier A PC sampling refuses to start from now on: CUDA graph launches were seen (one correlation "
                    + "covers many kernels, so attribution would look exact and be false); first graph launch {} ns "
                    + "before this refusal", now - firstGraphLaunchNs);
        }
    }

    private GpuSamplingWindowV1 window(long start, long end, long pairs) {
        return GpuSamplingWindowV1.newBuilder().setNode(node).setIncarnation(incarnation).setSequence(sequence)
                .setStartNs(start).setEndNs(end).setMode(settings.mode().wire()).setPairs(pairs).build();
    }

    private void onLaunchingThread() {
        Thread t = Thread.currentThread();
        Thread owner = launchingThread.updateAndGet(o -> o == null ? t : o);
        if (owner != t) {
            throw new IllegalStateException("PC sampling is driven from the launching thread " + owner.getName()
                    + " only, not from " + t.getName() + " (start/stop off the launch path deadlocks CUPTI)");
        }
    }
}
