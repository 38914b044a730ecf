package org.replayfarm.coordinator.failover;

import akka.actor.typed.ActorRef;
import akka.actor.typed.ActorRefResolver;
import akka.actor.typed.ActorSystem;
import akka.actor.typed.Behavior;
import akka.actor.typed.Props;
import akka.actor.typed.javadsl.Behaviors;
import akka.actor.typed.receptionist.Receptionist;
import akka.actor.typed.receptionist.ServiceKey;
import com.google.protobuf.Message;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.replayfarm.proto.CoordinatorInfo;
import org.replayfarm.proto.CoordinatorQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each coordinator-role node knows of the others, through the receptionist: every coordinator answers
 * {@link CoordinatorQuery} under {@link #ALL} with its address, API URL and journal; the active one (a child
 * of the {@link ActiveCoordinator} singleton, so it leaves with it) also under {@link #ACTIVE}. A standby
 * forwards its HTTP requests to {@link #activeUrl()}; and a coordinator whose journal is an embedded H2 file
 * (its own, which no other node reads) says so as soon as another coordinator-role node is in the cluster:
 * a failover between them would lose every job ({@link #warnings()}).
 */
public final class Coordinators {
    private static final Logger LOG = LoggerFactory.getLogger(Coordinators.class);
    public static final ServiceKey<Message> ALL = ServiceKey.create(Message.class, "replay-coordinator");
    public static final ServiceKey<Message> ACTIVE = ServiceKey.create(Message.class, "replay-active-coordinator");

    sealed interface Command extends akka.actor.NoSerializationVerificationNeeded permits Listed, Heard {
    }

    record Listed(Receptionist.Listing listing) implements Command {
    }

    record Heard(CoordinatorInfo info) implements Command {
    }

    private final ActorSystem<?> system;
    private final CoordinatorInfo self;
    private volatile CoordinatorInfo active;
    /** The other coordinators, by the reference they answer from. */
    private final Map<String, CoordinatorInfo> peers = new ConcurrentHashMap<>();
    /** A warning per other coordinator whose journal is not this one's shared one, by its node address. */
    private final Map<String, String> warnings = new ConcurrentHashMap<>();

    private Coordinators(ActorSystem<?> system, CoordinatorInfo self) {
        this.system = system;
        this.self = self;
    }

    /** Starts this coordinator's part: {@code node} (its cluster address), its API {@code url} and {@code journal} URL. */
    public static Coordinators start(ActorSystem<?> system, String node, String url, String journal) {
        Coordinators c = new Coordinators(system, CoordinatorInfo.newBuilder().setNodeAddress(node).setHttpUrl(url)
                .setJournal(journal).build());
        system.systemActorOf(c.directory(), "coordinators", Props.empty());
        return c;
    }

    /** The active coordinator's API URL as last heard (this node's own while it is the active one); empty: none known. */
    public Optional<String> activeUrl() {
        CoordinatorInfo a = active;
        return a == null ? Optional.empty() : Optional.of(a.getHttpUrl());
    }

    /** The active coordinator's cluster address as last heard; empty: none known. */
    public Optional<String> activeNode() {
        CoordinatorInfo a = active;
        return a == null ? Optional.empty() : Optional.of(a.getNodeAddress());
    }

    /** The other coordinator-role nodes heard of: address, URL, journal. */
    public List<CoordinatorInfo> peers() {
        return peers.values().stream().sorted(java.util.Comparator.comparing(CoordinatorInfo::getNodeAddress)).toList();
    }

    /** What the operator should know now (a journal no other coordinator shares), one line each. */
    public List<String> warnings() {
        return warnings.values().stream().sorted().toList();
    }

    /** This node's own description. */
    public CoordinatorInfo self() {
        return self;
    }

    /** The active coordinator's announcer: spawned as the singleton's child, so it leaves when the singleton does. */
    public Behavior<Message> announcer() {
        return Behaviors.setup(ctx -> {
            ctx.getSystem().receptionist().tell(Receptionist.register(ACTIVE, ctx.getSelf()));
            active = self.toBuilder().setActive(true).build();
            return Behaviors.receive(Message.class)
                    .onMessage(CoordinatorQuery.class, q -> {
                        answer(q, true);
                        return Behaviors.same();
                    })
                    .onSignal(akka.actor.typed.PostStop.class, s -> {
                        CoordinatorInfo a = active;
                        if (a != null && a.getNodeAddress().equals(self.getNodeAddress())) {
                            active = null; // until the next active one is heard of
                        }
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    private void answer(CoordinatorQuery q, boolean isActive) {
        ActorRef<Message> to = ActorRefResolver.get(system).resolveActorRef(q.getReplyTo());
        to.tell(self.toBuilder().setActive(isActive).build());
    }

    private Behavior<Command> directory() {
        return Behaviors.setup(ctx -> {
            ActorRef<Command> parent = ctx.getSelf();
            // answers queries (as this coordinator) and takes the answers to its own, for the directory
            ActorRef<Message> responder = ctx.spawn(Behaviors.receive(Message.class)
                    .onMessage(CoordinatorQuery.class, q -> {
                        answer(q, false);
                        return Behaviors.same();
                    })
                    .onMessage(CoordinatorInfo.class, i -> {
                        parent.tell(new Heard(i));
                        return Behaviors.same();
                    })
                    .build(), "responder");
            String replyTo = ActorRefResolver.get(system).toSerializationFormat(responder);
            ActorRef<Receptionist.Listing> listings = ctx.messageAdapter(Receptionist.Listing.class, Listed::new);
            ctx.getSystem().receptionist().tell(Receptionist.register(ALL, responder));
            ctx.getSystem().receptionist().tell(Receptionist.subscribe(ALL, listings));
            ctx.getSystem().receptionist().tell(Receptionist.subscribe(ACTIVE, listings));
            CoordinatorQuery query = CoordinatorQuery.newBuilder().setReplyTo(replyTo).build();
            return Behaviors.receive(Command.class)
                    .onMessage(Listed.class, l -> {
                        if (l.listing().isForKey(ALL)) {
                            Set<ActorRef<Message>> all = l.listing().getServiceInstances(ALL);
                            Set<String> nodes = all.stream().map(r -> r.path().address().toString()).collect(Collectors.toSet());
                            peers.keySet().removeIf(n -> !nodes.contains(n));
                            warnings.keySet().removeIf(n -> !peers.containsKey(n));
                            all.stream().filter(r -> !r.equals(responder)).forEach(r -> r.tell(query));
                        } else {
                            Set<ActorRef<Message>> on = l.listing().getServiceInstances(ACTIVE);
                            if (on.isEmpty()) {
                                CoordinatorInfo a = active;
                                if (a != null && !a.getNodeAddress().equals(self.getNodeAddress())) {
                                    active = null;
                                }
                            }
                            on.forEach(r -> r.tell(query));
                        }
                        return Behaviors.same();
                    })
                    .onMessage(Heard.class, h -> {
                        CoordinatorInfo i = h.info();
                        if (i.getNodeAddress().equals(self.getNodeAddress())) {
                            return Behaviors.same();
                        }
                        if (i.getActive()) {
                            active = i;
                            return Behaviors.same();
                        }
                        peers.put(i.getNodeAddress(), i);
                        String w = journalWarning(self, i);
                        if (w != null && warnings.put(i.getNodeAddress(), w) == null) {
                            LOG.warn(w);
                        }
                        return Behaviors.same();
                    })
                    .build();
        });
    }

    /**
     * A journal's JDBC URL as it may be shown ({@code GET /status}, the other coordinators, the log): without its
     * options and query ({@code ;...}, {@code ?user=...&password=...}) and without user information
     * ({@code //user:password@host}), which may hold credentials.
     */
    public static String publishable(String jdbcUrl) {
        String u = jdbcUrl;
        int cut = u.length();
        for (char c : new char[] {';', '?'}) {
            int i = u.indexOf(c);
            if (i >= 0 && i < cut) {
                cut = i;
            }
        }
        u = u.substring(0, cut);
        int authority = u.indexOf("//");
        if (authority >= 0) {
            int at = u.indexOf('@', authority + 2);
            int slash = u.indexOf('/', authority + 2);
            if (at >= 0 && (slash < 0 || at < slash)) {
                u = u.substring(0, authority + 2) + u.substring(at + 1);
            }
        }
        return u;
    }

    /**
     * The warning for two coordinator-role nodes that do not share one journal (null when they do: the
     * same PostgreSQL database). An H2 journal is a file of one node; a job the other accepted is not in it.
     */
    static String journalWarning(CoordinatorInfo self, CoordinatorInfo peer) {
        boolean selfH2 = self.getJournal().startsWith("jdbc:h2:");
        boolean peerH2 = peer.getJournal().startsWith("jdbc:h2:");
        if (!selfH2 && !peerH2 && self.getJournal().equals(peer.getJournal())) {
            return null;
        }
        String why = selfH2 && peerH2 ? "both keep their journal in an embedded H2 file of their own"
                : selfH2 ? "this one keeps its journal in an embedded H2 file of its own (" + self.getJournal() + ")"
                : peerH2 ? "the other keeps its journal in an embedded H2 file of its own (" + peer.getJournal() + ")"
                : "their journals differ (" + self.getJournal() + " here, " + peer.getJournal() + " there)";
        return "coordinators " + self.getNodeAddress() + " (this node) and " + peer.getNodeAddress() + " both have the "
                + "coordinator role, but " + why + ": when one takes over from the other (a failover, a restart) "
                + "it does not know any job the other accepted, and those jobs are lost. Give every coordinator one "
                + "shared PostgreSQL journal (replay.coordinator.journal.url, REPLAY_JOURNAL_URL=jdbc:postgresql://...) "
                + "and one storage directory (--storage-dir), or run a single coordinator.";
    }
}
