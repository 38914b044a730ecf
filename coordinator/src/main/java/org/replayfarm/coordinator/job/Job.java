package org.replayfarm.coordinator.job;

import akka.actor.NoSerializationVerificationNeeded;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.TimerScheduler;
import akka.cluster.ClusterEvent;
import akka.cluster.Member;
import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Subscribe;
import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.replayfarm.coordinator.report.Comparison;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.coordinator.sampling.SamplingSnapshot;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.evalnode.cluster.EvaluatorSharding;
import org.replayfarm.evalnode.cluster.SliceCodec;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.proto.GroupId;
import org.replayfarm.proto.GroupOutcome;
import org.replayfarm.proto.GroupRange;
import org.replayfarm.proto.SliceResult;
import org.replayfarm.proto.SliceResultChunk;
import org.replayfarm.proto.SliceTask;

/**
 * One job on the coordinator: sends slices to evaluator entities (a bounded window per node), follows
 * cluster membership to re-send the slices of nodes that left, reassembles chunked results, and merges
 * them in group order; when every group is merged it compares them with the device and writes the run
 * report as {@code replay run} does, then stops. The decisions are {@link JobState}'s; this actor routes.
 */
public final class Job {
    public sealed interface Command extends NoSerializationVerificationNeeded {
    }

    record ChunkArrived(SliceResultChunk chunk) implements Command {
    }

    record Membership(ClusterEvent.ClusterDomainEvent event) implements Command {
    }

    /** An evaluator announced that it is draining (DrainingTopic). */
    record Draining(org.replayfarm.proto.NodeDraining notice) implements Command {
    }

    record Reachability(ClusterEvent.ReachabilityEvent event) implements Command {
    }

    enum Tick implements Command { INSTANCE }

    /**
     * Cancel the job: {@code replyTo} gets its progress as cancelled, and the job stops at once; nothing is
     * sent or merged after (results of slices in flight go to the dead actor and are dropped). The owner
     * journals the end (ClusterJobService.cancel).
     */
    public record Cancel(ActorRef<JobProgress> replyTo) implements Command {
    }

    /** The job's log read back what an earlier run of this job recorded. */
    record Replayed(Journal.Recovered recovered) implements Command {
    }

    record Regions(akka.cluster.sharding.ShardRegion.CurrentRegions current) implements Command {
    }

    /** The comparison at the end is done (or failed: {@code error}). */
    /** The merge's outcome, made on the blocking dispatcher (the in-order pass of order-dependent groups runs there). */
    record Merged(Evaluation.Outcome outcome, Duration wall, Throwable error) implements Command {
    }

    record Compared(Evaluation.Outcome outcome, double seconds, Comparison.Result result, Throwable error) implements Command {
    }

    /** What the job tells its owner: progress, and its statistics at the end. */
    public interface Listener {
        void progress(JobProgress p);

        default void stats(JobStats s) {
        }

        /** The job's totals and merged memory, once merged (before the comparison and the final progress). */
        default void outcome(Evaluation.Outcome o) {
        }

        /** The comparison's verdict and summary, once the run report is written (before the final progress). */
        default void compared(Comparison.Result r) {
        }

        /** Groups each evaluator node has finished for this job so far, with its rate over the job's time. */
        default void nodes(List<org.replayfarm.coordinator.job.JobService.NodeShare> shares) {
        }
    }

    /** Figures of a job beyond its progress (for reports and tests). */
    public record JobStats(long slices, long duplicates, long resent, long nondeterministic, long chunks,
                           Map<String, Long> slicesByNode, Map<String, String> retired, long resumedGroups) {
    }

    private final ActorContext<Command> ctx;
    private final JobSpec spec;
    private final ActorRef<org.replayfarm.proto.SliceTask> shards;
    private final Listener listener;
    private JobState state;
    /** The state whose released slices were merged last. */
    private JobState mergedFrom;
    /** The job's clock (nanoseconds, monotonic): deadlines, rates and progress read it, never the system's directly. */
    private final java.util.function.LongSupplier clock;
    private final Evaluation.Totals totals;
    private final String replyTo;
    private final ActorRef<org.replayfarm.proto.NodeDraining> drainingRef;
    private final String drainTo;
    private final int defaultSlots;
    private final Map<String, List<SliceResultChunk>> partial = new HashMap<>();
    /** Accepted results not merged yet, as parsed when they arrived (by slice id). */
    private final Map<Long, SliceResult> parsed = new HashMap<>();
    /** Evaluator members up whose shard region the sharding coordinator has not confirmed yet: slots. */
    private final Map<String, Integer> unconfirmed = new HashMap<>();
    private final akka.actor.ActorRef regionsRef;
    private final long started;
    private long lastProgress;
    private ActorRef<Journal.LogCommand> log;
    /** Groups that had finished before this run of the job (read back from its journal). */
    private long resumed;
    private long chunks;
    private final Map<String, Long> slicesByNode = new java.util.TreeMap<>();
    private final Map<String, Long> groupsByNode = new java.util.TreeMap<>();

    private Job(ActorContext<Command> ctx, JobSpec spec, ActorRef<org.replayfarm.proto.SliceTask> shards, Config config,
                Listener listener, java.util.function.LongSupplier clock) {
        this.ctx = ctx;
        this.clock = clock;
        this.started = clock.getAsLong();
        this.spec = spec;
        this.shards = shards;
        this.listener = listener;
        Config c = config.getConfig("replay.coordinator");
        this.state = new JobState(spec.totalGroups(), settings(c, spec));
        this.defaultSlots = c.getInt("slices-per-node");
        this.totals = new Evaluation.Totals(spec.kernel(), spec.budget() > 0 ? spec.budget()
                : org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET, org.replayfarm.evalnode.hostmodel.HostModel.Tier.byDefault());
        ActorRef<SliceResultChunk> chunkRef = ctx.messageAdapter(SliceResultChunk.class, ChunkArrived::new);
        this.replyTo = ActorRefResolver.get(ctx.getSystem()).toSerializationFormat(chunkRef);
        this.drainingRef = ctx.messageAdapter(org.replayfarm.proto.NodeDraining.class, Draining::new);
        this.drainTo = ActorRefResolver.get(ctx.getSystem()).toSerializationFormat(drainingRef);
        this.regionsRef = akka.actor.typed.javadsl.Adapter.toClassic(
                ctx.messageAdapter(akka.cluster.sharding.ShardRegion.CurrentRegions.class, Regions::new));
    }

    public static Behavior<Command> create(JobSpec spec, ActorRef<org.replayfarm.proto.SliceTask> shards, Config config,
                                           Listener listener) {
        return create(spec, shards, config, listener, System::nanoTime);
    }

    /** A job whose deadlines and figures read {@code clock} (nanoseconds, monotonic). */
    public static Behavior<Command> create(JobSpec spec, ActorRef<org.replayfarm.proto.SliceTask> shards, Config config,
                                           Listener listener, java.util.function.LongSupplier clock) {
        // first the job's log (Journal.Log) reads back what an earlier run of this job recorded
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> Behaviors.withStash(1000, stash -> {
            Job job = new Job(ctx, spec, shards, config, listener, clock);
            job.log = ctx.spawn(Journal.Log.create(spec.jobId(),
                    ctx.messageAdapter(Journal.Recovered.class, Replayed::new)), "log");
            return Behaviors.receive(Command.class)
                    .onMessage(Replayed.class, r -> stash.unstashAll(job.resume(r.recovered(), timers,
                            config.getDuration("replay.coordinator.tick"))))
                    .onAnyMessage(m -> {
                        stash.stash(m);
                        return Behaviors.same();
                    })
                    .build();
        })));
    }

    /**
     * The events an earlier run of this job recorded, applied: the slices that had finished merge again
     * (in group order, without being evaluated), and only the groups no finished slice covers are sent.
     */
    private Behavior<Command> resume(Journal.Recovered r, TimerScheduler<Command> timers, Duration tick) {
        for (com.google.protobuf.Message m : r.events()) {
            state = state.updated(Journal.decode(m));
            merge(); // the attempts the event stopped were of a run before the restart: nothing of them runs now
        }
        state = state.updated(new JobState.Restarted());
        if (!r.events().isEmpty()) {
            resumed = state.groupsFinished();
            ctx.getLog().info("job {}: resumed from its journal: {} of {} groups had finished ({} merged); the rest is "
                    + "sent again", spec.jobId(), state.groupsFinished(), spec.totalGroups(), state.groupsMerged());
        }
        return start(timers, tick);
    }

    private Behavior<Command> start(TimerScheduler<Command> timers, Duration tick) {
        Cluster cluster = Cluster.get(ctx.getSystem());
        for (Member m : cluster.state().getMembers()) {
            if (m.status() == MemberStatus.up() && !cluster.state().getUnreachable().contains(m)) {
                up(m);
            }
        }
        cluster.subscriptions().tell(Subscribe.create(ctx.messageAdapter(ClusterEvent.MemberEvent.class, Membership::new),
                ClusterEvent.MemberEvent.class));
        // drain notices come on the topic, and straight from every node this job sent a slice to (drain_to)
        org.replayfarm.evalnode.cluster.DrainingTopic.get(ctx.getSystem()).subscribe(drainingRef);
        cluster.subscriptions().tell(Subscribe.create(ctx.messageAdapter(ClusterEvent.ReachabilityEvent.class,
                Reachability::new), ClusterEvent.ReachabilityEvent.class));
        timers.startTimerWithFixedDelay(Tick.INSTANCE, tick);
        report(true);
        if (spec.totalGroups() == 0) {
            return finish();
        }
        pump();
        return Behaviors.receive(Command.class)
                .onMessage(ChunkArrived.class, this::onChunk)
                .onMessage(Membership.class, this::onMembership)
                .onMessage(Reachability.class, this::onReachability)
                .onMessage(Draining.class, this::onDraining)
                .onMessageEquals(Tick.INSTANCE, this::onTick)
                .onMessage(Regions.class, this::onRegions)
                .onMessage(Cancel.class, this::onCancel)
                .build();
    }

    private Behavior<Command> onCancel(Cancel c) {
        stopLiveAttempts();
        state = state.updated(new JobState.Cancelled());
        double seconds = (clock.getAsLong() - started) / 1e9;
        ctx.getLog().info("job {}: cancelled with {} of {} groups finished ({} merged); {} slice(s) in flight are dropped",
                spec.jobId(), state.groupsFinished(), spec.totalGroups(), state.groupsMerged(), state.inFlight());
        listener.stats(stats());
        c.replyTo().tell(new JobProgress(spec.jobId(), spec.captureSha256(), "cancelled", spec.totalGroups(),
                state.groupsFinished(), 0, -1, totals.faults(), totals.waveInstructions(), "cancelled",
                figures(seconds)));
        return Behaviors.stopped();
    }

    private void up(Member m) {
        if (!m.hasRole(EvaluatorSharding.ROLE)) {
            return;
        }
        int slots = defaultSlots;
        for (String role : m.getRoles()) {
            if (role.startsWith("slots-")) {
                try {
                    slots = Integer.parseInt(role.substring(6));
                } catch (NumberFormatException ignored) {
                    // not ours
                }
            }
        }
        // a slice goes to the node's own shard region: wait until the sharding coordinator knows that
        // region, or the shard would be allocated elsewhere
        unconfirmed.put(m.address().toString(), slots);
        askRegions();
    }

    private void askRegions() {
        if (!unconfirmed.isEmpty()) {
            // the classic query: the sharding coordinator answers with the addresses of the regions it knows
            akka.actor.typed.javadsl.Adapter.toClassic(shards).tell(
                    akka.cluster.sharding.ShardRegion.getCurrentRegionsInstance(), regionsRef);
        }
    }

    private Behavior<Command> onRegions(Regions r) {
        akka.actor.Address self = Cluster.get(ctx.getSystem()).selfMember().address();
        for (akka.actor.Address region : r.current().getRegions()) {
            akka.actor.Address a = region.hasLocalScope() ? self : region;
            Integer slots = unconfirmed.remove(a.toString());
            if (slots != null) {
                state = state.updated(new JobState.NodeUp(a.toString(), slots));
            }
        }
        return pumpOrFinish();
    }

    private Behavior<Command> onMembership(Membership m) {
        ClusterEvent.ClusterDomainEvent e = m.event();
        if (e instanceof ClusterEvent.MemberUp up) {
            up(up.member());
        } else if (e instanceof ClusterEvent.MemberLeft left && left.member().hasRole(EvaluatorSharding.ROLE)) {
            // leaving gracefully: it finished its slices while handing its shards off (Evaluator.HAND_OFF);
            // whatever it still holds goes elsewhere when it exits or at the slice's deadline
            ctx.getLog().info("job {}: evaluator {} is leaving; it gets no new slices", spec.jobId(),
                    left.member().address());
            state = state.updated(new JobState.NodeLeaving(left.member().address().toString()));
        } else if (e instanceof ClusterEvent.MemberExited
                || e instanceof ClusterEvent.MemberRemoved || e instanceof ClusterEvent.MemberDowned) {
            Member gone = ((ClusterEvent.MemberEvent) e).member();
            if (gone.hasRole(EvaluatorSharding.ROLE)) {
                ctx.getLog().info("job {}: evaluator {} left ({}); its slices go elsewhere", spec.jobId(), gone.address(),
                        e.getClass().getSimpleName());
                state = state.updated(new JobState.NodeGone(gone.address().toString()));
                unconfirmed.remove(gone.address().toString());
            }
        }
        return pumpOrFinish();
    }

    private Behavior<Command> onDraining(Draining d) {
        String node = d.notice().getNodeAddress();
        ctx.getLog().info("job {}: evaluator {} is draining; it gets no new slices and finishes the ones it holds",
                spec.jobId(), node);
        state = state.updated(new JobState.NodeLeaving(node));
        unconfirmed.remove(node);
        return pumpOrFinish();
    }

    private Behavior<Command> onReachability(Reachability r) {
        if (r.event() instanceof ClusterEvent.UnreachableMember u && u.member().hasRole(EvaluatorSharding.ROLE)) {
            ctx.getLog().warn("job {}: evaluator {} is unreachable; its slices go elsewhere", spec.jobId(),
                    u.member().address());
            state = state.updated(new JobState.NodeGone(u.member().address().toString()));
            unconfirmed.remove(u.member().address().toString());
        } else if (r.event() instanceof ClusterEvent.ReachableMember back && back.member().status() == MemberStatus.up()) {
            up(back.member());
        }
        return pumpOrFinish();
    }

    private Behavior<Command> onTick() {
        for (JobState.AttemptExpired e : state.expire(clock.getAsLong())) {
            state = state.updated(e);
            ctx.getLog().warn("job {}: attempt {} of slice {} passed its deadline; {}", spec.jobId(), e.attempt(),
                    e.sliceId(), e.resend() ? "sending the slice once more (it keeps running where it is)"
                            : "it is not sent again");
        }
        report(false);
        askRegions();
        return pumpOrFinish();
    }

    private Behavior<Command> onChunk(ChunkArrived arrived) {
        SliceResultChunk c = arrived.chunk();
        chunks++;
        String key = c.getSliceId() + "/" + c.getAttempt() + "/" + c.getNodeAddress();
        List<SliceResultChunk> list = partial.computeIfAbsent(key, k -> new ArrayList<>());
        list.add(c);
        if (!c.getLast()) {
            return Behaviors.same();
        }
        partial.remove(key);
        SliceResult r;
        com.google.protobuf.ByteString bytes;
        try {
            bytes = SliceCodec.joinBytes(list);
            r = SliceCodec.parse(bytes);
        } catch (IllegalArgumentException e) {
            ctx.getLog().error("job {}: dropping a result of slice {}: {}", spec.jobId(), c.getSliceId(), e.getMessage());
            return Behaviors.same();
        }
        JobState.Verdict verdict = state.result(r.getSliceId(), r.getAttempt(), r.getNodeAddress(),
                r.getResultHash().toByteArray(), r.getOutcomesCount(), r.getEvalNanos(), r.getError(),
                r.getError().isEmpty() ? bytes.toByteArray() : new byte[0]); // as they came: not serialized again
        JobState.Accepted a = verdict.accepted();
        if (verdict.event() != null) {
            Map<String, String> retiredBefore = state.retired();
            state = state.updated(verdict.event());
            log.tell(new Journal.Append(Journal.encode(verdict.event())));
            state.retired().forEach((node, why) -> {
                if (!retiredBefore.containsKey(node)) {
                    ctx.getLog().warn("job {}: evaluator {} {}", spec.jobId(), node, why);
                }
            });
        }
        switch (a) {
            case NONDETERMINISTIC -> ctx.getLog().error("job {}: NONDETERMINISM: slice {} evaluated again on {} "
                    + "(attempt {}) hashes differently from its first result", spec.jobId(), r.getSliceId(),
                    r.getNodeAddress(), r.getAttempt());
            case DUPLICATE -> ctx.getLog().debug("job {}: slice {} came back again (attempt {}); same hash, counted once",
                    spec.jobId(), r.getSliceId(), r.getAttempt());
            case FAILED_ATTEMPT -> ctx.getLog().warn("job {}: slice {} (attempt {}) failed on {}: {}; it goes to "
                    + "another node", spec.jobId(), r.getSliceId(), r.getAttempt(), r.getNodeAddress(), r.getError());
            case STALE_FAILURE -> ctx.getLog().info("job {}: superseded attempt {} of slice {} failed on {}: {}",
                    spec.jobId(), r.getAttempt(), r.getSliceId(), r.getNodeAddress(), r.getError());
            default -> {
            }
        }
        // the losing attempt of a slice another attempt finished is stopped as a cancelled job's slices are
        for (JobState.LiveAttempt lost : state.stopped()) {
            shards.tell(SliceTask.newBuilder().setJobId(spec.jobId()).setCaptureSha256(spec.captureSha256())
                    .setSliceId(lost.sliceId()).setAttempt(lost.attempt()).setTargetNode(lost.node()).setCancel(true)
                    .build());
        }
        if (a == JobState.Accepted.NEW) {
            parsed.put(r.getSliceId(), r); // merged from this object, not parsed again from the payload
            slicesByNode.merge(r.getNodeAddress(), 1L, Long::sum);
            groupsByNode.merge(r.getNodeAddress(), (long) r.getOutcomesCount(), Long::sum);
            merge();
            report(false);
        }
        return pumpOrFinish();
    }

    /** The job's JobState settings: the coordinator's, with the job's own slice deadline where it set one. */
    static JobState.Settings settings(Config c, JobSpec spec) {
        long first = c.getDuration("slice-timeout").toNanos();
        long min = c.getDuration("slice-timeout-min").toNanos();
        double factor = c.getDouble("slice-timeout-factor");
        if (spec.sliceDeadlineNanos() > 0) { // the job's own: every slice has that long, whatever the rate
            first = spec.sliceDeadlineNanos();
            min = spec.sliceDeadlineNanos();
            factor = 0;
        }
        return new JobState.Settings(c.getDuration("slice-target").toNanos(), first, factor, min,
                c.getInt("max-slice-failures"), c.getInt("node-failure-limit"));
    }

    /** Merges the slices the last event released, in group order (once: a state's releases are merged once). */
    private void merge() {
        if (state == mergedFrom) {
            return;
        }
        mergedFrom = state;
        for (JobState.Ready ready : state.released()) {
            try {
                SliceResult result = parsed.remove(ready.sliceId());
                if (result == null) { // read back from the journal (a resumed job): only its bytes are kept
                    result = SliceResult.parseFrom(ready.payload());
                }
                for (GroupOutcome o : result.getOutcomesList()) {
                    totals.add(SliceCodec.decode(o));
                }
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new IllegalStateException("job " + spec.jobId() + ": slice " + ready.sliceId()
                        + " cannot be read back: " + e.getMessage(), e);
            }
        }
    }

    private Behavior<Command> pumpOrFinish() {
        if (state.failure() != null) {
            return fail(state.failure());
        }
        if (state.done()) {
            return finish();
        }
        pump();
        return Behaviors.same();
    }

    /**
     * Tells the nodes evaluating this job's attempts to stop them (a cancelled or failed job drops their results):
     * without it a runaway group under a large budget kept its evaluator thread, and the node ran no other job's
     * slices, long after the job had ended.
     */
    private void stopLiveAttempts() {
        for (JobState.LiveAttempt a : state.liveAttempts()) {
            shards.tell(SliceTask.newBuilder().setJobId(spec.jobId()).setCaptureSha256(spec.captureSha256())
                    .setSliceId(a.sliceId()).setAttempt(a.attempt()).setTargetNode(a.node()).setCancel(true).build());
        }
    }

    private void pump() {
        for (JobState.SliceSent s : state.dispatch(clock.getAsLong())) {
            state = state.updated(s);
            SliceTask.Builder task = SliceTask.newBuilder().setJobId(spec.jobId()).setCaptureSha256(spec.captureSha256())
                    .setCaptureUrl(spec.captureUrl()).setSliceId(s.sliceId()).setAttempt(s.attempt()).setReplyTo(replyTo).setDrainTo(drainTo)
                    .setBudget(spec.budget()).setTargetNode(s.node());
            if (spec.explicit() == null) {
                task.addRanges(GroupRange.newBuilder().setStart(s.start()).setCount(s.count()));
            } else {
                for (long i = s.start(); i < s.start() + s.count(); i++) {
                    int[] g = spec.explicit().get((int) i);
                    task.addGroups(GroupId.newBuilder().setX(g[0]).setY(g[1]).setZ(g[2]));
                }
            }
            // the task names its entity (node, job, slice, attempt) and so its shard: the chosen node's region
            shards.tell(task.build());
        }
    }

    /**
     * Every group is merged: the comparison with the device and the run report (Comparison.finish, the
     * same as replay run's) run on the blocking dispatcher, the sampling section from the coordinator's
     * store; this actor waits for them and then reports the job finished with the diff's figures.
     */
    private Behavior<Command> finish() {
        Duration wall = Duration.ofNanos(clock.getAsLong() - started);
        java.util.concurrent.Executor blocking = ctx.getSystem().dispatchers().lookup(akka.actor.typed.DispatcherSelector.blocking());
        // the merge's last step may run groups again in order (order-dependent atomics): off this actor's thread
        ctx.pipeToSelf(java.util.concurrent.CompletableFuture.supplyAsync(() -> totals.outcome(wall, spec.reportThreads()),
                blocking), (o, e) -> new Merged(o, wall, e));
        return Behaviors.receive(Command.class)
                .onMessage(Merged.class, this::onMerged)
                .onMessage(Cancel.class, this::onCancel)
                .onAnyMessage(m -> Behaviors.same()) // late chunks, ticks and membership no longer matter
                .build();
    }

    private Behavior<Command> onMerged(Merged merged) {
        if (merged.error() != null) {
            Throwable e = merged.error() instanceof java.util.concurrent.CompletionException
                    && merged.error().getCause() != null ? merged.error().getCause() : merged.error();
            return fail("merging the groups' results: " + e);
        }
        Duration wall = merged.wall();
        Evaluation.Outcome outcome = merged.outcome();
        // every group is evaluated and merged: said now (a progress still running, every group done), before the
        // comparison and the report begin, so a watcher (replay run --timings) tells the two phases apart
        report(true);
        listener.nodes(shares(wall.toNanos() / 1e9));
        listener.stats(stats());
        listener.outcome(outcome);
        double seconds = wall.toNanos() / 1e9;
        java.util.concurrent.Executor blocking = ctx.getSystem().dispatchers().lookup(akka.actor.typed.DispatcherSelector.blocking());
        long nondeterministic = state.nondeterministic();
        JobStats stats = stats();
        org.replayfarm.coordinator.report.ReportSections.Farm farm = org.replayfarm.coordinator.report.ReportSections.Farm.of(
                stats.slices(), stats.resent(), stats.duplicates(), stats.retired());
        java.util.concurrent.CompletionStage<Comparison.Result> compared = spec.sampling().get()
                .exceptionally(e -> {
                    ctx.getLog().warn("job {}: the sampling store did not answer ({}); the report's sampling section "
                            + "says none", spec.jobId(), e.toString());
                    return SamplingSnapshot.EMPTY;
                })
                .thenApplyAsync(sampling -> {
                    try {
                        return Comparison.finish(spec.outDir(), outcome, spec.kernel(), spec.capture(), spec.identity(),
                                spec.device(), spec.options(), nondeterministic, DeviceEvents.ignore(), sampling, farm);
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                }, blocking);
        ctx.pipeToSelf(compared, (r, e) -> new Compared(outcome, seconds, r, e));
        return Behaviors.receive(Command.class)
                .onMessage(Compared.class, this::onCompared)
                .onMessage(Cancel.class, this::onCancel) // while comparing: no report is announced
                .onAnyMessage(m -> Behaviors.same()) // late chunks, ticks and membership no longer matter
                .build();
    }

    private Behavior<Command> onCompared(Compared c) {
        if (c.error() != null) {
            Throwable e = c.error() instanceof java.util.concurrent.CompletionException && c.error().getCause() != null
                    ? c.error().getCause() : c.error();
            return fail("comparing with the device and writing the report to " + spec.outDir() + ": " + e);
        }
        Evaluation.Outcome outcome = c.outcome();
        double seconds = c.seconds();
        listener.compared(c.result());
        JobProgress.Figures figures = c.result().withComparison(new JobProgress.Figures(outcome.laneInstructions(),
                outcome.waveInstructions() / Math.max(seconds, 1e-9), outcome.laneInstructions() / Math.max(seconds, 1e-9),
                0, state.resent(), outcome.memory().conflictCount() + outcome.images().conflictCount(),
                state.nondeterministic(), 0, 0, 0, 0));
        listener.progress(new JobProgress(spec.jobId(), spec.captureSha256(), "finished", spec.totalGroups(),
                spec.totalGroups(), spec.totalGroups() / Math.max(seconds, 1e-9), 0, outcome.faults().size(),
                outcome.waveInstructions(), "", figures));
        ctx.getLog().info("job {}: {} groups in {} slices, {} duplicate(s), {} re-sent, {} nondeterministic, {} s; {}",
                spec.jobId(), spec.totalGroups(), state.slicesPlanned(), state.duplicates(), state.resent(),
                state.nondeterministic(), seconds, c.result().verdict().status());
        return Behaviors.stopped();
    }

    private Behavior<Command> fail(String why) {
        stopLiveAttempts();
        ctx.getLog().error("job {} failed: {}", spec.jobId(), why);
        listener.stats(stats());
        listener.progress(new JobProgress(spec.jobId(), spec.captureSha256(), "failed", spec.totalGroups(),
                state.groupsFinished(), 0, -1, totals.faults(), totals.waveInstructions(), why,
                figures((clock.getAsLong() - started) / 1e9)));
        return Behaviors.stopped();
    }

    private JobStats stats() {
        return new JobStats(state.slicesPlanned(), state.duplicates(), state.resent(), state.nondeterministic(), chunks,
                Map.copyOf(slicesByNode), state.retired(), resumed);
    }

    private void report(boolean force) {
        long now = clock.getAsLong();
        if (!force && now - lastProgress < 100_000_000L) {
            return;
        }
        lastProgress = now;
        double seconds = (now - started) / 1e9;
        long done = state.groupsFinished();
        double rate = done / Math.max(seconds, 1e-9);
        double eta = done == 0 ? -1 : (spec.totalGroups() - done) / Math.max(rate, 1e-9);
        listener.nodes(shares(seconds));
        listener.progress(new JobProgress(spec.jobId(), spec.captureSha256(), "running", spec.totalGroups(), done, rate,
                eta, totals.faults(), totals.waveInstructions(), "", figures(seconds)));
    }

    /** Each node's groups finished and their rate over {@code seconds}. */
    private List<org.replayfarm.coordinator.job.JobService.NodeShare> shares(double seconds) {
        List<org.replayfarm.coordinator.job.JobService.NodeShare> shares = new ArrayList<>();
        groupsByNode.forEach((node, groups) -> shares.add(new org.replayfarm.coordinator.job.JobService.NodeShare(node,
                groups, groups / Math.max(seconds, 1e-9))));
        return shares;
    }

    /** The figures of the groups merged so far (instructions and conflicts count merged groups only). */
    private JobProgress.Figures figures(double seconds) {
        double s = Math.max(seconds, 1e-9);
        return new JobProgress.Figures(totals.laneInstructions(), totals.waveInstructions() / s,
                totals.laneInstructions() / s, state.inFlight(), state.resent(), totals.storeConflicts(),
                state.nondeterministic(), 0, 0, 0, 0).withSlicesQueued(state.slicesQueued());
    }
}
