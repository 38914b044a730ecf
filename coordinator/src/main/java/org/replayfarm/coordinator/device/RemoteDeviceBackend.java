package org.replayfarm.coordinator.device;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.ClusterEvent;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Subscribe;
import com.google.protobuf.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.gpunode.device.DeviceEvent;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.node.DeviceRunCodec;
import org.replayfarm.proto.DeviceRunChunk;
import org.replayfarm.proto.DeviceRunEvent;
import org.replayfarm.proto.DeviceRunOutput;
import org.replayfarm.proto.DeviceRunTask;
import org.replayfarm.proto.GpuDeviceInfo;

/**
 * A device run on a GPU node of the cluster: the task goes to the first node that can take it; its
 * launches and sampling windows come back while it runs and its outputs in chunks. When that node leaves
 * (or becomes unreachable) before the outputs are complete the run goes to the next GPU node; with none
 * left the device side fails, naming the node that left — the comparison then never reads "equal".
 */
public final class RemoteDeviceBackend implements DeviceBackend {
    private final ActorSystem<?> system;
    private final GpuNodes directory;
    private final List<GpuDeviceInfo> candidates;
    private final String captureBaseUrl;
    private final Duration timeout;
    private final HotGuestMetrics hotGuest;

    RemoteDeviceBackend(ActorSystem<?> system, GpuNodes directory, List<GpuDeviceInfo> candidates, String captureBaseUrl,
                        Duration timeout, HotGuestMetrics hotGuest) {
        this.system = system;
        this.directory = directory;
        this.candidates = List.copyOf(candidates);
        this.captureBaseUrl = captureBaseUrl;
        this.timeout = timeout;
        this.hotGuest = hotGuest;
    }

    @Override
    public String kind() {
        return candidates.get(0).getBackend();
    }

    @Override
    public String label() {
        return candidates.get(0).getLabel();
    }

    @Override
    public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
        CompletableFuture<DeviceRun> done = new CompletableFuture<>();
        // the task names the job (the GPU node logs and records the run under it); the client actor's name is
        // unique, as one job may ask for more than one device run
        String job = request.jobId();
        system.systemActorOf(client(job, request.captureSha256(), events, done), "device-run-" + UUID.randomUUID(),
                Props.empty());
        try {
            DeviceRun run = done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            hotGuest.record(request.jobId(), run.hotspots()); // the job's hottest guest instructions on /metrics
            return run;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof DeviceException d) {
                throw d;
            }
            throw new DeviceException("the device side failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            done.completeExceptionally(e);
            throw new DeviceException("the device side failed: no GPU node finished the device run within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeviceException("interrupted waiting for the device run");
        }
    }

    /**
     * What a run's client takes: the runner's events and output chunks (the wire's {@link DeviceRunEvent} and
     * {@link DeviceRunChunk}, wrapped by the adapter the task names as its {@code reply_to}, so the wire form
     * is unchanged), any other message sent there ({@link Stray}), and cluster news (local).
     */
    sealed interface Command extends akka.actor.NoSerializationVerificationNeeded
            permits Event, Chunk, Stray, Membership, Reachability {
    }

    record Event(DeviceRunEvent event) implements Command {
    }

    record Chunk(DeviceRunChunk chunk) implements Command {
    }

    record Stray(Message message) implements Command {
    }

    record Membership(ClusterEvent.MemberEvent event) implements Command {
    }

    record Reachability(ClusterEvent.ReachabilityEvent event) implements Command {
    }

    /** The wire message as the client's protocol. */
    static Command wrap(Message m) {
        if (m instanceof DeviceRunEvent e) {
            return new Event(e);
        } else if (m instanceof DeviceRunChunk c) {
            return new Chunk(c);
        }
        return new Stray(m);
    }

    private Behavior<Command> client(String jobId, String sha, DeviceEvents events, CompletableFuture<DeviceRun> done) {
        return Behaviors.setup(ctx -> {
            Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(
                    ctx.messageAdapter(ClusterEvent.MemberEvent.class, Membership::new), ClusterEvent.MemberEvent.class));
            Cluster.get(ctx.getSystem()).subscriptions().tell(Subscribe.create(
                    ctx.messageAdapter(ClusterEvent.ReachabilityEvent.class, Reachability::new),
                    ClusterEvent.ReachabilityEvent.class));
            ActorRef<Message> replies = ctx.messageAdapter(Message.class, RemoteDeviceBackend::wrap);
            return new Client(ctx, replies, jobId, sha, events, done).send();
        });
    }

    /** One run's conversation with GPU nodes. */
    private final class Client {
        private final ActorContext<Command> ctx;
        private final String jobId;
        private final String sha;
        private final DeviceEvents events;
        private final CompletableFuture<DeviceRun> done;
        private final String self;
        private final Set<String> gone = new HashSet<>();
        private final List<DeviceRunChunk> chunks = new ArrayList<>();
        private final List<String> history = new ArrayList<>();
        private int attempt;
        private GpuDeviceInfo current;

        Client(ActorContext<Command> ctx, ActorRef<Message> replies, String jobId, String sha, DeviceEvents events,
               CompletableFuture<DeviceRun> done) {
            this.ctx = ctx;
            this.jobId = jobId;
            this.sha = sha;
            this.events = events;
            this.done = done;
            this.self = ActorRefResolver.get(system).toSerializationFormat(replies);
        }

        Behavior<Command> send() {
            current = null;
            for (GpuDeviceInfo c : candidates) {
                if (!gone.contains(c.getNodeAddress())) {
                    current = c;
                    break;
                }
            }
            if (current == null) {
                done.completeExceptionally(new DeviceException("the device side failed: " + String.join("; ", history)
                        + "; no other GPU node can take the device run, so nothing was compared"));
                return Behaviors.stopped();
            }
            attempt++;
            chunks.clear();
            ActorRef<Message> runner = ActorRefResolver.get(system).resolveActorRef(current.getRunner());
            runner.tell(DeviceRunTask.newBuilder().setJobId(jobId).setCaptureSha256(sha)
                    .setCaptureUrl(captureBaseUrl + "/captures/" + sha).setAttempt(attempt).setReplyTo(self).build());
            ctx.getLog().info("device run of job {} (attempt {}) sent to GPU node {}", jobId, attempt, current.getNodeAddress());
            return Behaviors.receive(Command.class)
                    .onMessage(Event.class, e -> onEvent(e.event()))
                    .onMessage(Chunk.class, c -> onChunk(c.chunk()))
                    .onMessage(Membership.class, m -> onGone(m.event().member().address().toString(), m.event()))
                    .onMessage(Reachability.class, r -> r.event() instanceof ClusterEvent.UnreachableMember u
                            ? onGone(u.member().address().toString(), u)
                            : done.isDone() ? Behaviors.stopped() : Behaviors.same())
                    .onMessage(Stray.class, m -> {
                        ctx.getLog().warn("device run of job {}: ignored a message it does not take: {}", jobId,
                                m.message().getDescriptorForType().getFullName());
                        return done.isDone() ? Behaviors.stopped() : Behaviors.same();
                    })
                    .build();
        }

        private Behavior<Command> onEvent(DeviceRunEvent e) {
            if (e.getAttempt() != attempt) {
                return Behaviors.same();
            }
            switch (e.getEventCase()) {
                case STARTED_LABEL -> events.on(new DeviceEvent.Started(current.getBackend(), e.getStartedLabel()));
                case LAUNCH -> events.on(new DeviceEvent.Executed(new org.replayfarm.gpunode.device.ExecutionRecord(
                        e.getLaunch().getExecutionId(), e.getLaunch().getDurationNs(), switch (e.getLaunch().getSerialized()) {
                            case "true" -> org.replayfarm.gpunode.device.ExecutionRecord.Serialized.TRUE;
                            case "false" -> org.replayfarm.gpunode.device.ExecutionRecord.Serialized.FALSE;
                            default -> org.replayfarm.gpunode.device.ExecutionRecord.Serialized.UNKNOWN;
                        })));
                case WINDOW -> ctx.getLog().debug("device run of job {}: sampling window {} [{}, {}]", jobId,
                        e.getWindow().getSequence(), e.getWindow().getStartNs(), e.getWindow().getEndNs());
                default -> {
                }
            }
            return done.isDone() ? Behaviors.stopped() : Behaviors.same();
        }

        private Behavior<Command> onChunk(DeviceRunChunk c) {
            if (c.getAttempt() != attempt) {
                return Behaviors.same(); // a node that was given up on answered late
            }
            chunks.add(c);
            if (!c.getLast()) {
                return Behaviors.same();
            }
            DeviceRunOutput o;
            try {
                o = DeviceRunCodec.join(chunks);
            } catch (IllegalArgumentException e) {
                done.completeExceptionally(new DeviceException("the device side failed: GPU node " + c.getNodeAddress()
                        + " sent outputs that do not join: " + e.getMessage()));
                return Behaviors.stopped();
            }
            if (!o.getError().isEmpty()) {
                done.completeExceptionally(new DeviceException("the device side failed on GPU node " + o.getNodeAddress()
                        + ": " + o.getError()));
            } else {
                done.complete(DeviceRunCodec.run(o, " (GPU node " + o.getNodeAddress()
                        + (attempt > 1 ? ", attempt " + attempt + " after " + String.join("; ", history) : "") + ")"));
            }
            return Behaviors.stopped();
        }

        private Behavior<Command> onGone(String node, ClusterEvent.ClusterDomainEvent event) {
            boolean leaving = event instanceof ClusterEvent.MemberRemoved || event instanceof ClusterEvent.MemberExited
                    || event instanceof ClusterEvent.MemberDowned || event instanceof ClusterEvent.MemberLeft
                    || event instanceof ClusterEvent.UnreachableMember;
            if (!leaving || current == null || !node.equals(current.getNodeAddress()) || done.isDone()) {
                return done.isDone() ? Behaviors.stopped() : Behaviors.same();
            }
            gone.add(node);
            directory.forget(node);
            String what = "GPU node " + node + " left during the device run (attempt " + attempt + ", "
                    + event.getClass().getSimpleName() + ")";
            history.add(what);
            ctx.getLog().warn("device run of job {}: {}; trying another GPU node", jobId, what);
            return send();
        }
    }
}
