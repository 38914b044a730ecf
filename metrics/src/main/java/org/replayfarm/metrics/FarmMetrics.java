package org.replayfarm.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import kamon.Kamon;
import kamon.metric.Counter;
import kamon.metric.Gauge;
import kamon.metric.Histogram;
import kamon.metric.MeasurementUnit;
import kamon.tag.TagSet;

/**
 * Every metric the farm exports, in one place: its Kamon name, kind, unit, the role that records it and
 * the tags it carries, and how Prometheus spells it ({@link Metric#prometheusName()}, the name the
 * dashboard in {@code deploy/grafana/} queries). Recording goes through the series objects below, one
 * per node (tag {@code node}: the node's HOST:PORT, one value per node) and role (tag {@code role}).
 *
 * <p>Tag values stay bounded: {@code node} and {@code role} have one value per node; {@code serialized}
 * has three. {@code job} is the exception: a job id is new for every job, so it is bounded only while
 * jobs are few. The job series therefore live on the coordinator only, and {@link JobSeries#remove()}
 * drops them (Kamon {@code remove}) a retention time after the job ended, once Prometheus has scraped
 * the final figures; the per-node series carry no job tag and add up over every job the node worked on
 * (an evaluator does not learn when a job ends, so it could not drop a job's series).
 *
 * <p>The job series are derived from the coordinator's {@code JobProgress}, the same values its progress
 * events carry, so {@code replay watch} and the metrics never disagree.
 */
public final class FarmMetrics {
    /** Tag names. */
    public static final String NODE = "node";
    public static final String ROLE = "role";
    public static final String JOB = "job_id";
    public static final String SERIALIZED = "serialized";
    /** A hot guest instruction's tags: its PC (0x and 12 hex digits), its listing text, its commonest stall reason. */
    public static final String GUEST_PC = "guest_pc";
    public static final String INSTRUCTION = "instruction";
    public static final String STALL = "stall";

    /** The values of the {@code serialized} tag of a device execution (seed 000: unknown is never omitted). */
    public static final Set<String> SERIALIZED_VALUES = Set.of("true", "false", "unknown");

    public enum Kind { COUNTER, GAUGE, HISTOGRAM }

    public enum Unit { NONE, BYTES, NANOSECONDS }

    /** Each metric the farm records. {@code role}: which node role records it; {@code tags}: beyond node and role. */
    public enum Metric {
        // a job's progress, on the coordinator: the figures of JobProgress (and of the progress events)
        JOB_RUNNING("replay.job.running", Kind.GAUGE, Unit.NONE, "coordinator", "1 while the job runs, 0 once it ended", JOB),
        JOB_GROUPS_SELECTED("replay.job.groups.selected", Kind.GAUGE, Unit.NONE, "coordinator", "groups the job evaluates", JOB),
        JOB_GROUPS_DONE("replay.job.groups.done", Kind.COUNTER, Unit.NONE, "coordinator", "groups evaluated and counted", JOB),
        JOB_GROUPS_RATE("replay.job.groups.rate", Kind.GAUGE, Unit.NONE, "coordinator", "groups per second so far", JOB),
        JOB_SLICES_IN_FLIGHT("replay.job.slices.in-flight", Kind.GAUGE, Unit.NONE, "coordinator", "slices sent and not yet back", JOB),
        JOB_SLICES_RESENT("replay.job.slices.resent", Kind.COUNTER, Unit.NONE, "coordinator",
                "slices sent again (node left, deadline passed, attempt failed)", JOB),
        JOB_WAVE_INSTRUCTIONS("replay.job.instructions.wave", Kind.COUNTER, Unit.NONE, "coordinator", "wave instructions of merged groups", JOB),
        JOB_LANE_INSTRUCTIONS("replay.job.instructions.lane", Kind.COUNTER, Unit.NONE, "coordinator", "lane instructions of merged groups", JOB),
        JOB_WAVE_INSTRUCTION_RATE("replay.job.instructions.wave.rate", Kind.GAUGE, Unit.NONE, "coordinator",
                "wave instructions per second so far", JOB),
        JOB_LANE_INSTRUCTION_RATE("replay.job.instructions.lane.rate", Kind.GAUGE, Unit.NONE, "coordinator",
                "lane instructions per second so far", JOB),
        JOB_FAULTS("replay.job.faults", Kind.COUNTER, Unit.NONE, "coordinator", "groups that faulted", JOB),
        JOB_STORE_CONFLICTS("replay.job.store-conflicts", Kind.COUNTER, Unit.NONE, "coordinator",
                "bytes and texels two groups stored differently", JOB),
        JOB_NONDETERMINISTIC_SLICES("replay.job.nondeterministic-slices", Kind.COUNTER, Unit.NONE, "coordinator",
                "slices evaluated twice that hashed differently", JOB),
        JOB_TEXELS_COMPARED("replay.job.texels.compared", Kind.COUNTER, Unit.NONE, "coordinator", "texels diffed host against device", JOB),
        JOB_TEXELS_DIFFERING("replay.job.texels.differing", Kind.COUNTER, Unit.NONE, "coordinator", "texels that differ", JOB),
        JOB_BYTES_COMPARED("replay.job.guest-bytes.compared", Kind.COUNTER, Unit.NONE, "coordinator",
                "guest memory bytes diffed host against device", JOB),
        JOB_BYTES_DIFFERING("replay.job.guest-bytes.differing", Kind.COUNTER, Unit.NONE, "coordinator", "guest memory bytes that differ", JOB),
        JOB_HOT_GUEST_SAMPLES("replay.job.device.hot-guest.samples", Kind.GAUGE, Unit.NONE, "coordinator",
                "PC samples of each of the job's hottest guest instructions (its device run's first few only)", JOB,
                GUEST_PC, INSTRUCTION, STALL),
        JOB_SLICES_QUEUED("replay.job.slices.queued", Kind.GAUGE, Unit.NONE, "coordinator",
                "slices waiting for an evaluator slot (to send again, and the groups not sent yet in target-sized slices)", JOB),
        JOB_GROUPS_REMAINING("replay.job.groups.remaining", Kind.GAUGE, Unit.NONE, "coordinator",
                "groups not evaluated yet (0 once the job ended)", JOB),

        // the queue over every running job, on the coordinator: what a scaler reads (deploy/k8s KEDA ScaledObject)
        QUEUE_SLICES_QUEUED("replay.queue.slices.queued", Kind.GAUGE, Unit.NONE, "coordinator",
                "slices waiting for an evaluator slot, over every running job"),
        QUEUE_SLICES_IN_FLIGHT("replay.queue.slices.in-flight", Kind.GAUGE, Unit.NONE, "coordinator",
                "slices sent and not yet back, over every running job"),
        QUEUE_GROUPS_REMAINING("replay.queue.groups.remaining", Kind.GAUGE, Unit.NONE, "coordinator",
                "groups not evaluated yet, over every running job"),
        QUEUE_JOBS_RUNNING("replay.queue.jobs.running", Kind.GAUGE, Unit.NONE, "coordinator", "jobs running"),

        // an evaluator node's work, over every job
        EVAL_SLICES("replay.eval.slices", Kind.COUNTER, Unit.NONE, "eval", "slices evaluated (failed ones included)"),
        EVAL_GROUPS("replay.eval.groups", Kind.COUNTER, Unit.NONE, "eval", "groups evaluated"),
        EVAL_WAVE_INSTRUCTIONS("replay.eval.instructions.wave", Kind.COUNTER, Unit.NONE, "eval", "wave instructions executed"),
        EVAL_LANE_INSTRUCTIONS("replay.eval.instructions.lane", Kind.COUNTER, Unit.NONE, "eval", "lane instructions executed"),
        EVAL_FAULTS("replay.eval.faults", Kind.COUNTER, Unit.NONE, "eval", "groups that faulted"),
        EVAL_QUEUE_DEPTH("replay.eval.queue-depth", Kind.GAUGE, Unit.NONE, "eval", "slices accepted and not finished"),
        EVAL_SLICE_LATENCY("replay.eval.slice.latency", Kind.HISTOGRAM, Unit.NANOSECONDS, "eval",
                "time from a slice's arrival to its result (capture fetch included)"),
        CAPTURE_CACHE_HITS("replay.capture.cache.hits", Kind.COUNTER, Unit.NONE, "eval", "slices whose capture this node had"),
        CAPTURE_CACHE_MISSES("replay.capture.cache.misses", Kind.COUNTER, Unit.NONE, "eval", "captures downloaded"),
        CAPTURE_FETCHED("replay.capture.fetched", Kind.COUNTER, Unit.BYTES, "eval", "capture bytes downloaded"),

        // a GPU node's device runs (seed 000)
        GPU_EXECUTIONS("replay.gpu.executions", Kind.COUNTER, Unit.NONE, "gpu",
                "device executions by serialized as first counted (an unknown decided later stays counted unknown)", SERIALIZED),
        GPU_EXECUTIONS_NOW("replay.gpu.executions.now", Kind.GAUGE, Unit.NONE, "gpu",
                "device executions by serialized as they read now (an unknown decided later moves to true or false)", SERIALIZED),
        GPU_SAMPLING_BURSTS("replay.gpu.sampling.bursts", Kind.COUNTER, Unit.NONE, "gpu", "PC-sampling bursts closed"),
        GPU_SAMPLING_DUTY("replay.gpu.sampling.duty", Kind.GAUGE, Unit.NONE, "gpu", "fraction of time sampling was on (0 to 1)"),
        GPU_SAMPLING_REFUSED("replay.gpu.sampling.refused", Kind.COUNTER, Unit.NONE, "gpu", "launches Tier A refused (graph launches)");

        private final String name;
        private final Kind kind;
        private final Unit unit;
        private final String role;
        private final String description;
        private final List<String> tags;

        Metric(String name, Kind kind, Unit unit, String role, String description, String... tags) {
            this.name = name;
            this.kind = kind;
            this.unit = unit;
            this.role = role;
            this.description = description;
            List<String> all = new ArrayList<>(List.of(NODE, ROLE));
            all.addAll(Arrays.asList(tags));
            this.tags = List.copyOf(all);
        }

        public String kamonName() {
            return name;
        }

        public Kind kind() {
            return kind;
        }

        public Unit unit() {
            return unit;
        }

        public String role() {
            return role;
        }

        public String description() {
            return description;
        }

        public List<String> tags() {
            return tags;
        }

        /**
         * The name on {@code /metrics}, as Kamon's Prometheus exporter writes it: dots and dashes become
         * underscores, a unit adds {@code _bytes} or {@code _seconds}, a counter ends in {@code _total}, a
         * histogram's series add {@code _bucket}, {@code _count} and {@code _sum} to this name.
         */
        public String prometheusName() {
            String base = name.replace('.', '_').replace('-', '_');
            String suffix = switch (unit) {
                case NONE -> "";
                case BYTES -> "_bytes";
                case NANOSECONDS -> "_seconds";
            };
            return base + suffix + (kind == Kind.COUNTER ? "_total" : "");
        }

        /** Every name this metric's series use on {@code /metrics}. */
        public List<String> prometheusSeriesNames() {
            String n = prometheusName();
            return kind == Kind.HISTOGRAM ? List.of(n + "_bucket", n + "_count", n + "_sum") : List.of(n);
        }

        private MeasurementUnit kamonUnit() {
            return switch (unit) {
                case NONE -> MeasurementUnit.none();
                case BYTES -> MeasurementUnit.information().bytes();
                case NANOSECONDS -> MeasurementUnit.time().nanoseconds();
            };
        }

        Counter counter(TagSet tags) {
            check(Kind.COUNTER);
            return Kamon.counter(name, description, kamonUnit()).withTags(tags);
        }

        Gauge gauge(TagSet tags) {
            check(Kind.GAUGE);
            return Kamon.gauge(name, description, kamonUnit()).withTags(tags);
        }

        Histogram histogram(TagSet tags) {
            check(Kind.HISTOGRAM);
            return Kamon.histogram(name, description, kamonUnit()).withTags(tags);
        }

        /** Creates the series with these tags (so a scrape shows it at zero before anything is recorded). */
        void register(TagSet tags) {
            switch (kind) {
                case COUNTER -> counter(tags);
                case GAUGE -> gauge(tags);
                case HISTOGRAM -> histogram(tags);
            }
        }

        void remove(TagSet tags) {
            switch (kind) {
                case COUNTER -> Kamon.counter(name, description, kamonUnit()).remove(tags);
                case GAUGE -> Kamon.gauge(name, description, kamonUnit()).remove(tags);
                case HISTOGRAM -> Kamon.histogram(name, description, kamonUnit()).remove(tags);
            }
        }

        private void check(Kind k) {
            if (kind != k) {
                throw new IllegalStateException(name + " is a " + kind + ", not a " + k);
            }
        }
    }

    private final String node;
    private final boolean on;

    private FarmMetrics(String node, boolean on) {
        this.node = node;
        this.on = on;
    }

    /** The metrics of the node at {@code node} (HOST:PORT); {@code on} false records nothing at all. */
    public static FarmMetrics forNode(String node, boolean on) {
        return new FarmMetrics(node, on);
    }

    /** Records nothing (metrics switched off, or a component used outside a farm node). */
    public static FarmMetrics off() {
        return new FarmMetrics("", false);
    }

    public boolean on() {
        return on;
    }

    public String node() {
        return node;
    }

    TagSet tags(String role) {
        return TagSet.builder().add(NODE, node).add(ROLE, role).build();
    }

    /** The series of one job (recorded by the coordinator). */
    public JobSeries job(String jobId) {
        return new JobSeries(on ? TagSet.builder().add(NODE, node).add(ROLE, "coordinator").add(JOB, jobId).build() : null);
    }

    /** The coordinator's queue over every running job (no job tag: one series each, 0 when nothing runs). */
    public QueueSeries queue() {
        return new QueueSeries(on ? tags("coordinator") : null);
    }

    /** This node's evaluator series (registered at once, so a dashboard shows zeros rather than no data). */
    public EvalSeries eval() {
        return new EvalSeries(on ? tags("eval") : null);
    }

    /** This node's GPU series. */
    public GpuSeries gpu() {
        return new GpuSeries(on ? tags("gpu") : null);
    }

    /**
     * The GPU series of the GPU node at {@code gpuNode} (HOST:PORT), recorded by the coordinator, which
     * alone can disclose {@code serialized} (it holds the window history the GPU node sent).
     */
    public GpuSeries gpuOf(String gpuNode) {
        return new GpuSeries(on ? TagSet.builder().add(NODE, gpuNode).add(ROLE, "gpu").build() : null);
    }

    /** A job's figures; the values are totals so far, the counters advance by what is new. */
    public static final class JobSeries {
        private final TagSet tags;

        JobSeries(TagSet tags) {
            this.tags = tags;
        }

        public void running(boolean running) {
            set(Metric.JOB_RUNNING, running ? 1 : 0);
        }

        /** Sets a gauge of this job. */
        public void set(Metric m, double value) {
            if (tags != null) {
                m.gauge(tags).update(value);
            }
        }

        /** Advances a counter of this job by {@code delta} (nothing when it is not positive). */
        public void add(Metric m, long delta) {
            if (tags != null && delta > 0) {
                m.counter(tags).increment(delta);
            }
        }

        /** Makes a counter of this job exist (at 0 until it advances), so a dashboard sees it from the start. */
        public void touch(Metric m) {
            if (tags != null) {
                m.counter(tags);
            }
        }

        /**
         * One of the job's hottest guest instructions: {@code samples} PC samples at {@code guestPc}. The caller
         * keeps these few (a top N per job) and removes them with {@link #removeHotGuest}.
         */
        public void hotGuest(long guestPc, String instruction, String stall, long samples) {
            if (tags != null) {
                Metric.JOB_HOT_GUEST_SAMPLES.gauge(hotTags(guestPc, instruction, stall)).update(samples);
            }
        }

        /** Drops one hot-guest series of this job. */
        public void removeHotGuest(long guestPc, String instruction, String stall) {
            if (tags != null) {
                Metric.JOB_HOT_GUEST_SAMPLES.remove(hotTags(guestPc, instruction, stall));
            }
        }

        private TagSet hotTags(long guestPc, String instruction, String stall) {
            return tags.withTag(GUEST_PC, String.format("0x%012x", guestPc)).withTag(INSTRUCTION, instruction)
                    .withTag(STALL, stall);
        }

        /** Drops every series of this job (the job tag's value leaves the registry). */
        public void remove() {
            if (tags != null) {
                for (Metric m : Metric.values()) {
                    if (m.tags().contains(JOB)) {
                        m.remove(tags);
                    }
                }
            }
        }
    }

    /** The coordinator's queue totals, registered at 0 at once (a scaler's query has a value before any job). */
    public static final class QueueSeries {
        private final TagSet tags;

        QueueSeries(TagSet tags) {
            this.tags = tags;
            set(0, 0, 0, 0);
        }

        /** The totals over every running job now. */
        public void set(long slicesQueued, long slicesInFlight, long groupsRemaining, long jobsRunning) {
            if (tags != null) {
                Metric.QUEUE_SLICES_QUEUED.gauge(tags).update(slicesQueued);
                Metric.QUEUE_SLICES_IN_FLIGHT.gauge(tags).update(slicesInFlight);
                Metric.QUEUE_GROUPS_REMAINING.gauge(tags).update(groupsRemaining);
                Metric.QUEUE_JOBS_RUNNING.gauge(tags).update(jobsRunning);
            }
        }
    }

    /** An evaluator node's figures over every job. */
    public static final class EvalSeries {
        private final Counter slices;
        private final Counter groups;
        private final Counter wave;
        private final Counter lane;
        private final Counter faults;
        private final Gauge queue;
        private final Histogram latency;
        private final Counter hits;
        private final Counter misses;
        private final Counter fetched;

        EvalSeries(TagSet t) {
            boolean on = t != null;
            slices = on ? Metric.EVAL_SLICES.counter(t) : null;
            groups = on ? Metric.EVAL_GROUPS.counter(t) : null;
            wave = on ? Metric.EVAL_WAVE_INSTRUCTIONS.counter(t) : null;
            lane = on ? Metric.EVAL_LANE_INSTRUCTIONS.counter(t) : null;
            faults = on ? Metric.EVAL_FAULTS.counter(t) : null;
            queue = on ? Metric.EVAL_QUEUE_DEPTH.gauge(t) : null;
            latency = on ? Metric.EVAL_SLICE_LATENCY.histogram(t) : null;
            hits = on ? Metric.CAPTURE_CACHE_HITS.counter(t) : null;
            misses = on ? Metric.CAPTURE_CACHE_MISSES.counter(t) : null;
            fetched = on ? Metric.CAPTURE_FETCHED.counter(t) : null;
        }

        /** Slices accepted and not finished on this node. */
        public void queueDepth(int slicesWaitingOrRunning) {
            if (queue != null) {
                queue.update(slicesWaitingOrRunning);
            }
        }

        /** A slice finished (or failed) after {@code nanos}. */
        public void slice(long nanos, long groupCount, long waveInstructions, long laneInstructions, long faultCount) {
            if (slices != null) {
                slices.increment();
                latency.record(Math.max(0, nanos));
                groups.increment(groupCount);
                wave.increment(waveInstructions);
                lane.increment(laneInstructions);
                faults.increment(faultCount);
            }
        }

        /** Drops this node's evaluator series (the node is closing). */
        public void remove() {
            if (slices != null) {
                for (Metric m : Metric.values()) {
                    if (m.role().equals("eval")) {
                        m.remove(slices.tags());
                    }
                }
            }
        }

        /** A slice's capture was already on this node (in memory or on disk). */
        public void cacheHit() {
            if (hits != null) {
                hits.increment();
            }
        }

        /** A capture was downloaded: {@code bytes} fetched. */
        public void cacheMiss(long bytes) {
            if (misses != null) {
                misses.increment();
                fetched.increment(bytes);
            }
        }
    }

    /** A GPU node's figures (seed 000): executions by {@code serialized}, sampling bursts and duty. */
    public static final class GpuSeries {
        private final TagSet tags;

        GpuSeries(TagSet tags) {
            this.tags = tags;
            if (tags != null) {
                for (Metric m : Metric.values()) {
                    if (m.role().equals("gpu")) {
                        series(m).forEach(m::register);
                    }
                }
            }
        }

        /** The tag sets of a GPU metric's series: one per {@code serialized} value where it carries that tag. */
        private List<TagSet> series(Metric m) {
            return m.tags().contains(SERIALIZED)
                    ? SERIALIZED_VALUES.stream().map(s -> tags.withTag(SERIALIZED, s)).toList()
                    : List.of(tags);
        }

        /** One device execution; {@code serialized} is true, false or unknown (the counts add up to the executions). */
        public void execution(String serialized) {
            executions(serialized, 1);
        }

        /** {@code n} more device executions read {@code serialized}. */
        public void executions(String serialized, long n) {
            if (!SERIALIZED_VALUES.contains(serialized)) {
                throw new IllegalArgumentException("serialized is true, false or unknown, not '" + serialized + "'");
            }
            if (tags != null && n > 0) {
                Metric.GPU_EXECUTIONS.counter(tags.withTag(SERIALIZED, serialized)).increment(n);
            }
        }

        /**
         * How the node's executions read now: {@code serialized} true, false and unknown. Unlike the
         * counter, these fall when an execution that read unknown is decided; they add up to the executions.
         */
        public void executionsNow(long serializedTrue, long serializedFalse, long unknown) {
            if (serializedTrue < 0 || serializedFalse < 0 || unknown < 0) {
                throw new IllegalArgumentException("execution counts are never negative: " + serializedTrue + ", "
                        + serializedFalse + ", " + unknown);
            }
            if (tags != null) {
                Metric.GPU_EXECUTIONS_NOW.gauge(tags.withTag(SERIALIZED, "true")).update(serializedTrue);
                Metric.GPU_EXECUTIONS_NOW.gauge(tags.withTag(SERIALIZED, "false")).update(serializedFalse);
                Metric.GPU_EXECUTIONS_NOW.gauge(tags.withTag(SERIALIZED, "unknown")).update(unknown);
            }
        }

        /** A burst closed. */
        public void burst() {
            bursts(1);
        }

        /** {@code n} more bursts closed. */
        public void bursts(long n) {
            if (tags != null && n > 0) {
                Metric.GPU_SAMPLING_BURSTS.counter(tags).increment(n);
            }
        }

        /** The duty fraction of sampling now (0 to 1). */
        public void duty(double fraction) {
            if (fraction < 0 || fraction > 1 || Double.isNaN(fraction)) {
                throw new IllegalArgumentException("a duty fraction is in [0, 1], not " + fraction);
            }
            if (tags != null) {
                Metric.GPU_SAMPLING_DUTY.gauge(tags).update(fraction);
            }
        }

        /** Drops this node's GPU series (the node is closing). */
        public void remove() {
            if (tags != null) {
                for (Metric m : Metric.values()) {
                    if (m.role().equals("gpu")) {
                        series(m).forEach(m::remove);
                    }
                }
            }
        }

        /** A launch that Tier A refused to sample (a graph launch). */
        public void refused() {
            if (tags != null) {
                Metric.GPU_SAMPLING_REFUSED.counter(tags).increment();
            }
        }
    }
}
