package org.replayfarm.coordinator.failover;

import akka.actor.NoSerializationVerificationNeeded;
import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.PostStop;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.cluster.typed.ClusterSingleton;
import akka.cluster.typed.ClusterSingletonSettings;
import akka.cluster.typed.SingletonActor;
import java.util.function.Function;
import org.replayfarm.coordinator.node.FarmNode;

/**
 * The job service's place in the cluster: a Cluster Singleton on the coordinator role, so that of every
 * node with that role exactly one (the oldest) runs the jobs at a time. The singleton is this actor: while
 * it lives on a node, that node's job registry and job actors are its children (so a coordinator that
 * hands over, leaving gracefully, stops every one of them before the next starts, and no two nodes write
 * one job's journal at once), and the node's HTTP API serves; on the other coordinators the API answers
 * 503 (standby). When the active coordinator dies (SIGKILL, a lost machine) the split-brain resolver downs
 * it and the singleton starts on the next oldest coordinator, which reads every job back from the shared
 * journal (PostgreSQL) and resumes the running ones: merged slices are not evaluated again.
 *
 * <p>The actor's protocol is local only ({@link Spawn}): the job service spawns its actors through it.
 */
public final class ActiveCoordinator {
    private ActiveCoordinator() {
    }

    /** The singleton's name in the cluster. */
    public static final String NAME = "replay-jobs-singleton";

    /** What the singleton takes (on its own node only). */
    public sealed interface Command extends NoSerializationVerificationNeeded {
    }

    /** Spawn a child (the job registry, a job) and answer its reference. */
    public record Spawn(Function<ActorContext<?>, ActorRef<?>> spawn, ActorRef<ActorRef<?>> replyTo) implements Command {
    }

    /** What a node does when the singleton starts on it and when it stops there. */
    public interface Lifecycle {
        /** The singleton started on this node: {@code self} spawns the job service's actors. Called off the actor. */
        void activated(ActorRef<Command> self);

        /** The singleton stopped on this node (handed over, or the node is going down); its children are stopped. */
        void deactivated();
    }

    /** Starts the singleton's manager on this node (a coordinator); returns the proxy. */
    public static ActorRef<Command> init(akka.actor.typed.ActorSystem<?> system, Lifecycle lifecycle) {
        return ClusterSingleton.get(system).init(SingletonActor.of(create(lifecycle), NAME)
                .withSettings(ClusterSingletonSettings.create(system).withRole(FarmNode.COORDINATOR)));
    }

    static Behavior<Command> create(Lifecycle lifecycle) {
        return Behaviors.setup(ctx -> {
            ActorRef<Command> self = ctx.getSelf();
            // the job service resumes its jobs with asks to the actors it spawns here: not on this actor's thread
            java.util.concurrent.CompletableFuture.runAsync(() -> lifecycle.activated(self),
                    ctx.getSystem().dispatchers().lookup(akka.actor.typed.DispatcherSelector.blocking()))
                    .whenComplete((r, e) -> {
                        if (e != null) {
                            ctx.getSystem().log().error("the job service did not start on this coordinator: {}",
                                    e.toString());
                        }
                    });
            return Behaviors.receive(Command.class)
                    .onMessage(Spawn.class, s -> {
                        ActorRef<?> child;
                        try {
                            child = s.spawn().apply(ctx);
                        } catch (RuntimeException e) {
                            ctx.getLog().error("cannot start an actor of the job service: {}", e.toString());
                            return Behaviors.same();
                        }
                        s.replyTo().tell(child);
                        return Behaviors.same();
                    })
                    .onSignal(PostStop.class, stop -> {
                        lifecycle.deactivated();
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    /** Spawns through the singleton {@code self} (a local ask) and waits for the reference. */
    @SuppressWarnings("unchecked")
    public static <T> ActorRef<T> spawn(akka.actor.typed.ActorSystem<?> system, ActorRef<Command> self,
                                 Function<ActorContext<?>, ActorRef<T>> spawn) {
        try {
            ActorRef<?> ref = akka.actor.typed.javadsl.AskPattern.<Command, ActorRef<?>>ask(self,
                    replyTo -> new Spawn(ctx -> spawn.apply(ctx), replyTo), java.time.Duration.ofSeconds(30),
                    system.scheduler()).toCompletableFuture().get(35, java.util.concurrent.TimeUnit.SECONDS);
            return (ActorRef<T>) ref;
        } catch (Exception e) {
            throw new IllegalStateException("this coordinator is no longer the active one (its job service stopped): "
                    + e, e);
        }
    }
}
