package org.replayfarm.gpunode.node;

import akka.actor.NoSerializationVerificationNeeded;
import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.receptionist.Receptionist;
import akka.actor.typed.receptionist.ServiceKey;
import com.google.protobuf.Message;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPU node's end of the sampling wire: forwards each record (window, PC batch, execution report) to
 * the coordinator's sampling store the moment the session produces it. The store is found through the
 * receptionist; a record produced while no store is known is not delivered and is counted (the
 * coordinator then sees a sequence gap or a late attach, and discloses "unknown" for what it decided).
 *
 * <p>Its protocol is {@link Command}: both messages are local. What crosses the wire is the record itself,
 * the protobuf message as it was before (the protobuf serializer, unchanged), sent to the store's
 * {@link #STORE} ref.
 */
public final class SamplingLink extends AbstractBehavior<SamplingLink.Command> {
    /** Where coordinators register their sampling store: it takes the records, as protobuf messages. */
    public static final ServiceKey<Message> STORE = ServiceKey.create(Message.class, "gpu-sampling-store");
    private static final Logger LOG = LoggerFactory.getLogger(SamplingLink.class);

    /** What the link takes; none crosses nodes. */
    public sealed interface Command extends NoSerializationVerificationNeeded permits Send, Stores {
    }

    /** Send this record to every known store, in the order the session produced it. */
    public record Send(Message record) implements Command {
        public Send {
            Objects.requireNonNull(record, "record");
        }
    }

    /** Receptionist news, wrapped. */
    record Stores(Receptionist.Listing listing) implements Command {
    }

    private final AtomicInteger storesKnown;
    private final AtomicLong undelivered;
    private Set<ActorRef<Message>> stores = Set.of();

    private SamplingLink(ActorContext<Command> ctx, AtomicInteger storesKnown, AtomicLong undelivered) {
        super(ctx);
        this.storesKnown = storesKnown;
        this.undelivered = undelivered;
        ActorRef<Receptionist.Listing> adapter = ctx.messageAdapter(Receptionist.Listing.class, Stores::new);
        ctx.getSystem().receptionist().tell(Receptionist.subscribe(STORE, adapter));
    }

    /**
     * A link that counts the stores it knows in {@code storesKnown} and the records it could not deliver
     * (no store known) in {@code undelivered}.
     */
    static Behavior<Command> create(AtomicInteger storesKnown, AtomicLong undelivered) {
        return Behaviors.setup(ctx -> new SamplingLink(ctx, storesKnown, undelivered));
    }

    @Override
    public Receive<Command> createReceive() {
        return newReceiveBuilder()
                .onMessage(Stores.class, this::onStores)
                .onMessage(Send.class, this::onRecord)
                .build();
    }

    private Behavior<Command> onStores(Stores s) {
        stores = s.listing().getServiceInstances(STORE);
        storesKnown.set(stores.size());
        return this;
    }

    private Behavior<Command> onRecord(Send send) {
        if (stores.isEmpty()) {
            if (undelivered.getAndIncrement() == 0) {
                LOG.warn("no coordinator sampling store is known yet: sampling records are not delivered (the "
                        + "coordinator will read the executions they decide as serialized=unknown)");
            }
            return this;
        }
        for (ActorRef<Message> store : stores) {
            store.tell(send.record());
        }
        return this;
    }
}
