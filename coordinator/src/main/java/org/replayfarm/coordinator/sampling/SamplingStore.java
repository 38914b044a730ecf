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
 * nodes send into its {@link SamplingLedger} as it arrives, and answers snapshots (local asks).
 */
public final class SamplingStore {
    /** A local question: what is known now. */
    public record GetSnapshot(ActorRef<SamplingSnapshot> replyTo) implements akka.actor.NoSerializationVerificationNeeded {
    }

    private SamplingStore() {
    }

    public static Behavior<Object> create() {
        return Behaviors.setup(ctx -> {
            ctx.getSystem().receptionist().tell(Receptionist.register(SamplingLink.STORE, ctx.getSelf()));
            SamplingLedger ledger = new SamplingLedger();
            return Behaviors.receive(Object.class)
                    .onMessage(Message.class, m -> {
                        ledger.accept(m);
                        return Behaviors.same();
                    })
                    .onMessage(GetSnapshot.class, q -> {
                        q.replyTo().tell(ledger.snapshot());
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    /** Starts the store on a coordinator node. */
    public static ActorRef<Object> start(ActorSystem<?> system) {
        return system.systemActorOf(create(), "gpu-sampling-store", Props.empty());
    }

    public static CompletionStage<SamplingSnapshot> snapshot(ActorSystem<?> system, ActorRef<Object> store, Duration timeout) {
        return AskPattern.ask(store, GetSnapshot::new, timeout, system.scheduler());
    }
}
