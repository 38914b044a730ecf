package org.replayfarm.gpunode.node;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Props;
import akka.cluster.typed.Cluster;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.replayfarm.gpunode.sampling.PcSampler;
import org.replayfarm.gpunode.sampling.SamplingSession;
import org.replayfarm.gpunode.sampling.SamplingSettings;

/**
 * The sampling side of a GPU node (role {@value #ROLE}): its configuration, read from the node's own
 * {@code replay.gpu.sampling}, a {@link SamplingSession} over the node's {@link PcSampler} (the CUPTI shim
 * on a GPU), and the {@link SamplingLink} actor that sends the session's records to the coordinator as
 * they happen. The device runner calls the session's launch hooks on its launching thread.
 */
public final class GpuNode {
    public static final String ROLE = "gpu";

    private final SamplingSettings settings;
    private final SamplingSession session;
    private final ActorRef<SamplingLink.Command> link;
    private final AtomicInteger storesKnown;
    private final AtomicLong undelivered;

    private GpuNode(SamplingSettings settings, SamplingSession session, ActorRef<SamplingLink.Command> link, AtomicInteger storesKnown,
                    AtomicLong undelivered) {
        this.settings = settings;
        this.session = session;
        this.link = link;
        this.storesKnown = storesKnown;
        this.undelivered = undelivered;
    }

    /**
     * Starts sampling on a cluster node with role {@value #ROLE}. {@code incarnation} names this run of the
     * node (its window sequence starts again from 1 in each).
     */
    public static GpuNode start(ActorSystem<?> system, PcSampler sampler, long incarnation) {
        Cluster cluster = Cluster.get(system);
        if (!cluster.selfMember().hasRole(ROLE)) {
            throw new IllegalStateException("GPU-node sampling runs on a node with role \"" + ROLE + "\"; this one has "
                    + cluster.selfMember().getRoles());
        }
        SamplingSettings settings = SamplingSettings.from(system.settings().config());
        AtomicInteger known = new AtomicInteger();
        AtomicLong undelivered = new AtomicLong();
        ActorRef<SamplingLink.Command> link = system.systemActorOf(SamplingLink.create(known, undelivered),
                "gpu-sampling-link-" + incarnation, Props.empty());
        java.util.List<java.util.function.Consumer<com.google.protobuf.Message>> taps =
                new java.util.concurrent.CopyOnWriteArrayList<>();
        SamplingSession session = new SamplingSession(settings, sampler, m -> {
            link.tell(new SamplingLink.Send(m));
            for (var t : taps) {
                t.accept(m);
            }
        }, cluster.selfMember().address().toString(), incarnation);
        GpuNode node = new GpuNode(settings, session, link, known, undelivered);
        node.taps = taps;
        return node;
    }

    private java.util.List<java.util.function.Consumer<com.google.protobuf.Message>> taps = java.util.List.of();

    /**
     * Hears every record the session sends (besides the coordinator's store) until the returned handle
     * is closed: a device run forwards its windows and keeps its PC samples with it.
     */
    public AutoCloseable tap(java.util.function.Consumer<com.google.protobuf.Message> listener) {
        taps.add(listener);
        return () -> taps.remove(listener);
    }

    /** The session's launch hooks for the device runner's launching thread. */
    public org.replayfarm.gpunode.cuda.LaunchHooks launchHooks() {
        return new org.replayfarm.gpunode.cuda.LaunchHooks() {
            @Override
            public void contextReady() {
                session.onContextReady();
            }

            @Override
            public void enter() {
                session.onLaunchEnter(false);
            }

            @Override
            public void exit() {
                session.onLaunchExit();
            }

            @Override
            public void afterRun() {
                session.report();
            }

            @Override
            public org.replayfarm.gpunode.device.ExecutionRecord.Serialized disclosure() {
                // off (or refused): nothing was serialized; otherwise the coordinator's window store decides
                return settings.mode() == org.replayfarm.gpunode.sampling.SamplingMode.OFF
                        ? org.replayfarm.gpunode.device.ExecutionRecord.Serialized.FALSE
                        : org.replayfarm.gpunode.device.ExecutionRecord.Serialized.UNKNOWN;
            }
        };
    }

    public SamplingSettings settings() {
        return settings;
    }

    /** The session the launching thread drives. */
    public SamplingSession session() {
        return session;
    }

    /** Coordinator stores this node currently sends to. */
    public int storesKnown() {
        return storesKnown.get();
    }

    /** Records produced while no store was known. */
    public long undelivered() {
        return undelivered.get();
    }

    ActorRef<SamplingLink.Command> link() {
        return link;
    }
}
