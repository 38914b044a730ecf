package org.replayfarm.coordinator.sampling;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.receptionist.Receptionist;
import com.google.protobuf.Message;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.replayfarm.gpunode.node.SamplingLink;

/**
 * The coordinator's sampling store actor: registers under {@link SamplingLink#STORE}, takes every record GPU
 * nodes send into its {@link SamplingLedger} as it arrives, and answers snapshots (local asks). Every
 * snapshot it answers, and on each tick one when records arrived since the last, is summarized into
 * {@link SamplingMetrics} (the GPU metrics and the progress events' sampling part).
 */
public final class SamplingStore {
    /** A local question: what is known now. */
    public record GetSnapshot(ActorRef<SamplingSnapshot> replyTo) implements akka.actor.NoSerializationVerificationNeeded {
    }

    private SamplingStore() {
    }

    private enum Tick implements akka.actor.NoSerializationVerificationNeeded { INSTANCE }

    public static Behavior<Object> create() {
        return create(SamplingMetrics.off(), Duration.ofSeconds(1));
    }

    /** A store whose snapshots become {@code metrics}, refreshed every {@code tick} while records arrive. */
    public static Behavior<Object> create(SamplingMetrics metrics, Duration tick) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            ctx.getSystem().receptionist().tell(Receptionist.register(SamplingLink.STORE, ctx.getSelf()));
            SamplingLedger ledger = new SamplingLedger();
            timers.startTimerWithFixedDelay(Tick.INSTANCE, tick);
            boolean[] dirty = {false};
            return Behaviors.receive(Object.class)
                    .onMessage(Message.class, m -> {
                        ledger.accept(m);
                        dirty[0] = true;
                        return Behaviors.same();
                    })
                    .onMessage(GetSnapshot.class, q -> {
                        SamplingSnapshot s = ledger.snapshot();
                        metrics.record(SamplingReport.Summary.of(s));
                        dirty[0] = false;
                        q.replyTo().tell(s);
                        return Behaviors.same();
                    })
                    .onMessageEquals(Tick.INSTANCE, () -> {
                        if (dirty[0]) {
                            metrics.record(SamplingReport.Summary.of(ledger.snapshot()));
                            dirty[0] = false;
                        }
                        return Behaviors.same();
                    })
                    .build();
        }));
    }

    /** Starts the store on a coordinator node. */
    public static ActorRef<Object> start(ActorSystem<?> system) {
        return start(system, SamplingMetrics.off(), Duration.ofSeconds(1));
    }

    /** Starts the store on a coordinator node, its figures going to {@code metrics} every {@code tick}. */
    public static ActorRef<Object> start(ActorSystem<?> system, SamplingMetrics metrics, Duration tick) {
        return system.systemActorOf(create(metrics, tick), "gpu-sampling-store", Props.empty());
    }

    public static CompletionStage<SamplingSnapshot> snapshot(ActorSystem<?> system, ActorRef<Object> store, Duration timeout) {
        return AskPattern.ask(store, GetSnapshot::new, timeout, system.scheduler());
    }
}
