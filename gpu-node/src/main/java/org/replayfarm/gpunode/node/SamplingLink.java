package org.replayfarm.gpunode.node;

import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.AbstractBehavior;
import akka.actor.typed.javadsl.ActorContext;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.javadsl.Receive;
import akka.actor.typed.receptionist.Receptionist;
import akka.actor.typed.receptionist.ServiceKey;
import com.google.protobuf.Message;
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
 */
public final class SamplingLink extends AbstractBehavior<Object> {
    /** Where coordinators register their sampling store. */
    public static final ServiceKey<Object> STORE = ServiceKey.create(Object.class, "gpu-sampling-store");
    private static final Logger LOG = LoggerFactory.getLogger(SamplingLink.class);

    /** Receptionist news, wrapped (local only). */
    private record Stores(Receptionist.Listing listing) implements akka.actor.NoSerializationVerificationNeeded {
    }

    private final AtomicInteger storesKnown;
    private final AtomicLong undelivered;
    private Set<ActorRef<Object>> stores = Set.of();

    private SamplingLink(ActorContext<Object> ctx, AtomicInteger storesKnown, AtomicLong undelivered) {
        super(ctx);
        this.storesKnown = storesKnown;
        this.undelivered = undelivered;
        ActorRef<Receptionist.Listing> adapter = ctx.messageAdapter(Receptionist.Listing.class, Stores::new);
        ctx.getSystem().receptionist().tell(Receptionist.subscribe(STORE, adapter));
    }

    static Behavior<Object> create(AtomicInteger storesKnown, AtomicLong undelivered) {
        return Behaviors.setup(ctx -> new SamplingLink(ctx, storesKnown, undelivered));
    }

    @Override
    public Receive<Object> createReceive() {
        return newReceiveBuilder()
                .onMessage(Stores.class, this::onStores)
                .onMessage(Message.class, this::onRecord)
                .build();
    }

    private Behavior<Object> onStores(Stores s) {
        stores = s.listing().getServiceInstances(STORE);
        storesKnown.set(stores.size());
        return this;
    }

    private Behavior<Object> onRecord(Message record) {
        if (stores.isEmpty()) {
            if (undelivered.getAndIncrement() == 0) {
                LOG.warn("no coordinator sampling store is known yet: sampling records are not delivered (the "
                        + "coordinator will read the executions they decide as serialized=unknown)");
            }
            return this;
        }
        for (ActorRef<Object> store : stores) {
            store.tell(record);
        }
        return this;
    }
}
