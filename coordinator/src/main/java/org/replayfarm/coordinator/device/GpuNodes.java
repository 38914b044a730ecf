package org.replayfarm.coordinator.device;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.receptionist.Receptionist;
import com.google.protobuf.Message;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.replayfarm.gpunode.device.GpuSource;
import org.replayfarm.gpunode.node.DeviceRunner;
import org.replayfarm.proto.DeviceQuery;
import org.replayfarm.proto.GpuDeviceInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's view of the cluster's GPU nodes: their device runners (found through the
 * receptionist), each asked once what device it has ({@link DeviceQuery} → {@link GpuDeviceInfo}: backend,
 * name, compute capability, memory, driver). As a {@link GpuSource} it offers a job's {@code cuda} (or
 * {@code auto}) device run to those that can take one, or says why none can.
 */
public final class GpuNodes implements GpuSource {
    private static final Logger LOG = LoggerFactory.getLogger(GpuNodes.class);

    /** Receptionist news, wrapped (local only). */
    /**
     * What the directory takes: receptionist news ({@link Listing}, local) and the runners' answers
     * ({@link Advertised}: the wire's {@link GpuDeviceInfo}, wrapped by the adapter the queries name as
     * their {@code reply_to}, so the wire form is unchanged).
     */
    sealed interface Command extends akka.actor.NoSerializationVerificationNeeded permits Listing, Advertised {
    }

    record Listing(Receptionist.Listing listing) implements Command {
    }

    record Advertised(GpuDeviceInfo info) implements Command {
    }

    private final ActorSystem<?> system;
    private final String captureBaseUrl;
    private final Duration timeout;
    private final Map<String, GpuDeviceInfo> known = new ConcurrentHashMap<>();
    private final HotGuestMetrics hotGuest;

    private GpuNodes(ActorSystem<?> system, String captureBaseUrl, Duration timeout, HotGuestMetrics hotGuest) {
        this.system = system;
        this.captureBaseUrl = captureBaseUrl;
        this.timeout = timeout;
        this.hotGuest = hotGuest;
    }

    /** Starts following the GPU nodes of {@code system}'s cluster; captures are fetched from {@code captureBaseUrl}. */
    public static GpuNodes start(ActorSystem<?> system, String captureBaseUrl, Duration timeout) {
        return start(system, captureBaseUrl, timeout, HotGuestMetrics.off());
    }

    /** As above; each device run's hottest guest instructions go to {@code hotGuest} under the run's job. */
    public static GpuNodes start(ActorSystem<?> system, String captureBaseUrl, Duration timeout, HotGuestMetrics hotGuest) {
        GpuNodes g = new GpuNodes(system, captureBaseUrl, timeout, hotGuest);
        system.systemActorOf(g.directory(), "gpu-nodes", Props.empty());
        return g;
    }

    Behavior<Command> directory() {
        return Behaviors.setup(ctx -> {
            ActorRef<Receptionist.Listing> adapter = ctx.messageAdapter(Receptionist.Listing.class, Listing::new);
            ctx.getSystem().receptionist().tell(Receptionist.subscribe(DeviceRunner.KEY, adapter));
            ActorRef<GpuDeviceInfo> answers = ctx.messageAdapter(GpuDeviceInfo.class, Advertised::new);
            String self = ActorRefResolver.get(system).toSerializationFormat(answers);
            return Behaviors.receive(Command.class)
                    .onMessage(Listing.class, l -> {
                        Set<ActorRef<Message>> runners = l.listing().getServiceInstances(DeviceRunner.KEY);
                        Set<String> refs = runners.stream().map(r -> ActorRefResolver.get(system).toSerializationFormat(r))
                                .collect(Collectors.toSet());
                        known.values().removeIf(i -> !refs.contains(i.getRunner()));
                        for (ActorRef<Message> r : runners) {
                            r.tell(DeviceQuery.newBuilder().setReplyTo(self).build());
                        }
                        return Behaviors.same();
                    })
                    .onMessage(Advertised.class, a -> {
                        GpuDeviceInfo i = a.info();
                        GpuDeviceInfo before = known.put(i.getNodeAddress(), i);
                        if (before == null) {
                            LOG.info("GPU node {}: {} {}", i.getNodeAddress(), i.getBackend(),
                                    i.getAvailable() ? i.getWhy() : "takes no device runs: " + i.getWhy());
                        }
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    /** What every GPU node advertised, by node address. */
    public List<GpuDeviceInfo> nodes() {
        return known.values().stream().sorted(Comparator.comparing(GpuDeviceInfo::getNodeAddress)).toList();
    }

    /** Forgets a node (it left the cluster); the receptionist would tell the same a little later. */
    void forget(String node) {
        known.remove(node);
    }

    /**
     * GPU members that are up but have not advertised their device yet (just joined): an offer waits for
     * them a little ({@link #ADVERTISE_WAIT}) rather than answer "no GPU node" to a job started at once.
     */
    private boolean gpuMembersUnheard() {
        akka.cluster.ClusterEvent.CurrentClusterState state = akka.cluster.typed.Cluster.get(system).state();
        for (akka.cluster.Member m : state.getMembers()) {
            if (m.hasRole(org.replayfarm.gpunode.node.GpuNode.ROLE) && m.status() == akka.cluster.MemberStatus.up()
                    && !known.containsKey(m.address().toString())) {
                return true;
            }
        }
        return false;
    }

    /** How long an offer waits for GPU members that are up but have not advertised yet. */
    static final Duration ADVERTISE_WAIT = Duration.ofSeconds(15);

    @Override
    public Offer offer() {
        long end = System.nanoTime() + ADVERTISE_WAIT.toNanos();
        while (nodes().stream().noneMatch(GpuDeviceInfo::getAvailable) && gpuMembersUnheard() && System.nanoTime() < end) {
            try {
                Thread.sleep(50); // the runner's answer to DeviceQuery is on its way
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<GpuDeviceInfo> all = nodes();
        List<GpuDeviceInfo> usable = all.stream().filter(GpuDeviceInfo::getAvailable).toList();
        if (usable.isEmpty()) {
            String others = all.isEmpty() ? "" : "; " + all.stream().map(i -> i.getNodeAddress() + ": " + i.getWhy())
                    .collect(Collectors.joining("; "));
            return Offer.none("no GPU on this node and no GPU node in the cluster can take a device run" + others);
        }
        GpuDeviceInfo first = usable.get(0);
        return Offer.of(new RemoteDeviceBackend(system, this, usable, captureBaseUrl, timeout, hotGuest), "GPU node "
                + first.getNodeAddress() + " (" + first.getBackend() + ": " + first.getWhy() + ")"
                + (usable.size() > 1 ? ", " + (usable.size() - 1) + " more to fall back on" : ""));
    }
}
