package org.replayfarm.gpunode.sampling;

import java.util.ArrayList;
import java.util.List;

/**
 * A device and producer driven by a {@link ManualClock}, for running the whole sampling path where no GPU
 * is: it launches kernels the way the device runner will (enter, run, exit, on the caller's thread), keeps
 * kernel activity records, and while a burst is open produces PC records, {@code pairsPerMs} (PC, stall)
 * pairs per millisecond of kernel time spread over {@code pcsPerKernel} PCs. In Tier A a kernel inside a
 * burst runs {@code serializedSlowdown} times longer: serialization perturbs the durations it measures.
 * Stall reasons come in a device order of the caller's choosing, so the index-to-name mapping is exercised.
 */
public final class SimulatedDevice implements PcSampler {
    private final ManualClock clock;
    private final List<String> stallReasons;
    private final List<PcRecord> pcs = new ArrayList<>();
    private final List<KernelRecord> kernels = new ArrayList<>();
    private final java.util.Set<Integer> ranSerialized = new java.util.HashSet<>();
    private double pairsPerMs = 4;
    private int pcsPerKernel = 8;
    private double serializedSlowdown = 1.25;
    private SamplingMode mode;
    private boolean active;
    private int correlation;
    private int failStarts;
    private boolean failStop;
    private long starts;
    private long stops;
    private long drains;

    public SimulatedDevice(ManualClock clock, List<String> stallReasons) {
        this.clock = clock;
        this.stallReasons = List.copyOf(stallReasons);
    }

    /** A GA102-like subset of the names CUPTI reports at run time, in a device order. */
    public static List<String> typicalStallReasons() {
        return List.of("smsp__pcsamp_warps_issue_stalled_long_scoreboard", "smsp__pcsamp_warps_issue_stalled_barrier",
                "smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", "smsp__pcsamp_warps_issue_stalled_wait",
                "smsp__pcsamp_warps_issue_stalled_selected", "smsp__pcsamp_warps_issue_stalled_short_scoreboard");
    }

    public SimulatedDevice pairsPerMs(double v) {
        pairsPerMs = v;
        return this;
    }

    public SimulatedDevice pcsPerKernel(int v) {
        pcsPerKernel = v;
        return this;
    }

    /** The next {@code n} starts fail (as cuptiPCSamplingStart can). */
    public SimulatedDevice failStarts(int n) {
        failStarts = n;
        return this;
    }

    /** The next stop fails. */
    public SimulatedDevice failStop() {
        failStop = true;
        return this;
    }

    /** One kernel launch of {@code durationNs} (unperturbed), then {@code hostGapNs} on the host. */
    public void launch(SamplingSession session, String kernel, long durationNs, long hostGapNs) {
        run(session, kernel, durationNs, hostGapNs, 0, false);
    }

    /** A kernel launched from CUDA graph {@code graphId}; {@code announced}: the launcher tells the session it is one. */
    public void launchGraph(SamplingSession session, String kernel, long durationNs, long hostGapNs, int graphId,
                            boolean announced) {
        run(session, kernel, durationNs, hostGapNs, graphId, announced);
    }

    private void run(SamplingSession session, String kernel, long durationNs, long hostGapNs, int graphId, boolean announced) {
        session.onLaunchEnter(announced);
        int corr = ++correlation;
        long start = clock.nanos();
        boolean serialized = active && mode == SamplingMode.SERIALIZED;
        long ran = serialized ? Math.round(durationNs * serializedSlowdown) : durationNs;
        if (serialized) {
            ranSerialized.add(corr);
        }
        clock.advance(ran);
        kernels.add(new KernelRecord(kernel, start, clock.nanos(), corr, graphId));
        if (active) {
            long pairs = Math.max(1, Math.round(ran / 1e6 * pairsPerMs));
            for (long i = 0; i < pairs; i++) {
                int pc = (int) (i % pcsPerKernel);
                int reason = (int) ((pc * 7 + i / pcsPerKernel) % stallReasons.size());
                // KERNEL_SERIALIZED gives correlation ids; CONTINUOUS gives 0 (gpu.md)
                pcs.add(new PcRecord(kernel, 0x10L * pc, reason, 1 + pc % 3, serialized ? corr : 0));
            }
        }
        session.onLaunchExit();
        clock.advance(hostGapNs);
    }

    @Override
    public void configure(SamplingMode m) throws SamplingException {
        if (m == SamplingMode.OFF) {
            throw new SamplingException("configure(OFF): a session that is off never configures the sampler");
        }
        mode = m;
    }

    @Override
    public void start() throws SamplingException {
        if (mode == null) {
            throw new SamplingException("start before configure");
        }
        if (active) {
            throw new SamplingException("start while started");
        }
        if (failStarts > 0) {
            failStarts--;
            throw new SamplingException("simulated cuptiPCSamplingStart failure");
        }
        active = true;
        starts++;
    }

    @Override
    public void stop() throws SamplingException {
        if (!active) {
            throw new SamplingException("stop while stopped");
        }
        if (failStop) {
            failStop = false;
            throw new SamplingException("simulated cuptiPCSamplingStop failure");
        }
        active = false;
        stops++;
    }

    @Override
    public Drained drain() {
        drains++;
        return Drained.takeFrom(pcs, kernels);
    }

    @Override
    public List<String> stallReasons() {
        return stallReasons;
    }

    @Override
    public long timestampNs() {
        return clock.nanos();
    }

    public boolean active() {
        return active;
    }

    /** The ground truth the disclosure is checked against: correlation ids of launches that ran serialized. */
    public java.util.Set<Integer> ranSerialized() {
        return java.util.Set.copyOf(ranSerialized);
    }

    public long starts() {
        return starts;
    }

    public long stops() {
        return stops;
    }

    public long drains() {
        return drains;
    }
}
