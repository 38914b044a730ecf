package org.replayfarm.coordinator.sampling;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.AskPattern;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.receptionist.Receptionist;
import akka.actor.NoSerializationVerificationNeeded;
import com.google.protobuf.Message;
import java.util.Objects;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.replayfarm.gpunode.node.SamplingLink;

/**
 * The coordinator's sampling store actor: registers under {@link SamplingLink#STORE}, takes every record GPU
 * nodes send into its {@link SamplingLedger} as it arrives, and answers snapshots (local asks). Every
 * snapshot it answers, and on each tick one when records arrived since the last, is summarized into
 * {@link SamplingMetrics} (the GPU metrics and the progress events' sampling part).
 *
 * <p>Its protocol is {@link Command}. The records GPU nodes send cross the wire as the protobuf messages
 * they are (the protobuf serializer, unchanged): the store registers a message adapter under
 * {@link SamplingLink#STORE} that wraps each into a {@link Record} in the store's own mailbox, so records
 * from one node are taken in the order they were sent, and a snapshot asked after them sees them.
 */
public final class SamplingStore {
    /** What the store takes. Only {@link Record}s come from other nodes, and they travel unwrapped. */
    public sealed interface Command extends NoSerializationVerificationNeeded permits Record, GetSnapshot, Tick {
    }

    /** A sampling record (window, PC batch, execution report) from a GPU node, as the adapter wraps it. */
    public record Record(Message record) implements Command {
        public Record {
            Objects.requireNonNull(record, "record");
        }
    }

    /** A local question: what is known now. */
    public record GetSnapshot(ActorRef<SamplingSnapshot> replyTo) implements Command {
    }

    /** The store's own timer: refresh the metrics when records arrived since the last refresh. */
    enum Tick implements Command { INSTANCE }

    private SamplingStore() {
    }

    public static Behavior<Command> create() {
        return create(SamplingMetrics.off(), Duration.ofSeconds(1));
    }

    /** A store whose snapshots become {@code metrics}, refreshed every {@code tick} while records arrive. */
    public static Behavior<Command> create(SamplingMetrics metrics, Duration tick) {
        return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
            ActorRef<Message> wire = ctx.messageAdapter(Message.class, Record::new);
            ctx.getSystem().receptionist().tell(Receptionist.register(SamplingLink.STORE, wire));
            SamplingLedger ledger = new SamplingLedger();
            timers.startTimerWithFixedDelay(Tick.INSTANCE, tick);
            boolean[] dirty = {false};
            return Behaviors.receive(Command.class)
                    .onMessage(Record.class, r -> {
                        ledger.accept(r.record());
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
    public static ActorRef<Command> start(ActorSystem<?> system) {
        return start(system, SamplingMetrics.off(), Duration.ofSeconds(1));
    }

    /** Starts the store on a coordinator node, its figures going to {@code metrics} every {@code tick}. */
    public static ActorRef<Command> start(ActorSystem<?> system, SamplingMetrics metrics, Duration tick) {
        return system.systemActorOf(create(metrics, tick), "gpu-sampling-store", Props.empty());
    }

    public static CompletionStage<SamplingSnapshot> snapshot(ActorSystem<?> system, ActorRef<Command> store, Duration timeout) {
        return AskPattern.ask(store, GetSnapshot::new, timeout, system.scheduler());
    }
}
