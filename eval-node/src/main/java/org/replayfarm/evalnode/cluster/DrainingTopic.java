package org.replayfarm.evalnode.cluster;

import akka.Done;
import akka.actor.CoordinatedShutdown;
import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Extension;
import akka.actor.typed.ExtensionId;
import akka.actor.typed.Props;
import akka.actor.typed.pubsub.Topic;
import akka.cluster.typed.Cluster;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.replayfarm.proto.NodeDraining;

/**
 * The node's instance of the "evaluators-draining" topic (one per actor system, an Akka extension):
 * evaluator nodes publish {@link NodeDraining} on it as their coordinated shutdown begins, and jobs
 * subscribe to it. Without it a node being shut down stays Up for the seconds its shard hand-off takes,
 * and jobs would keep sending it slices it can no longer take. The topic reaches a job only once the
 * receptionist has spread its instance (seconds after a node joins), so the notice also goes straight
 * to every job that sent this node a slice (the task's {@code drain_to}).
 */
public final class DrainingTopic implements Extension {
    public static final String TOPIC = "evaluators-draining";

    /**
     * How long the drain announcement waits before the shard hand-off starts, so that slices already on
     * their way to the node arrive while it still evaluates them.
     */
    static final Duration SETTLE = Duration.ofMillis(300);

    private final ActorRef<Topic.Command<NodeDraining>> topic;
    /** The jobs that sent this node slices, most recent last (a job is a drain_to ref string). */
    private final java.util.Map<String, Boolean> jobs = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(java.util.Map.Entry<String, Boolean> eldest) {
                    return size() > 256;
                }
            });

    private DrainingTopic(ActorSystem<?> system) {
        this.topic = system.systemActorOf(Topic.create(NodeDraining.class, TOPIC), "evaluators-draining", Props.empty());
    }

    public static final class Id extends ExtensionId<DrainingTopic> {
        @Override
        public DrainingTopic createExtension(ActorSystem<?> system) {
            return new DrainingTopic(system);
        }
    }

    private static final Id ID = new Id();

    public static DrainingTopic get(ActorSystem<?> system) {
        return ID.apply(system);
    }

    public ActorRef<Topic.Command<NodeDraining>> ref() {
        return topic;
    }

    /** Remembers a job that sent this node a slice ({@code drainTo}: its ref string; empty is ignored). */
    public void remember(String drainTo) {
        if (!drainTo.isEmpty()) {
            jobs.put(drainTo, Boolean.TRUE);
        }
    }

    /** Subscribes {@code subscriber} (a job's adapter) to drain announcements. */
    public void subscribe(ActorRef<NodeDraining> subscriber) {
        topic.tell(Topic.subscribe(subscriber));
    }

    /**
     * On an evaluator node: publish this node's drain announcement in the phase before the cluster
     * shutdown (before the shard regions hand off), then let it settle.
     */
    public static void announceOnShutdown(ActorSystem<?> system) {
        DrainingTopic self = get(system);
        String address = Cluster.get(system).selfMember().address().toString();
        CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeClusterShutdown(), "announce-draining",
                () -> {
                    system.log().info("draining: no new slices for {}; finishing the ones it holds", address);
                    NodeDraining notice = NodeDraining.newBuilder().setNodeAddress(address).build();
                    self.topic.tell(Topic.publish(notice));
                    java.util.List<String> known;
                    synchronized (self.jobs) {
                        known = java.util.List.copyOf(self.jobs.keySet());
                    }
                    akka.actor.typed.ActorRefResolver resolver = akka.actor.typed.ActorRefResolver.get(system);
                    for (String job : known) {
                        try {
                            resolver.<NodeDraining>resolveActorRef(job).tell(notice);
                        } catch (RuntimeException e) {
                            system.log().warn("draining: cannot reach job {}: {}", job, e.toString());
                        }
                    }
                    return CompletableFuture.supplyAsync(() -> Done.getInstance(),
                            CompletableFuture.delayedExecutor(SETTLE.toMillis(), TimeUnit.MILLISECONDS));
                });
    }
}
