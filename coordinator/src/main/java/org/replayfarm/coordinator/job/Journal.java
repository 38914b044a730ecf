package org.replayfarm.coordinator.job;

import akka.actor.NoSerializationVerificationNeeded;
import akka.actor.typed.ActorRef;
import akka.actor.typed.Behavior;
import akka.actor.typed.javadsl.Behaviors;
import akka.persistence.typed.PersistenceId;
import akka.persistence.typed.RecoveryCompleted;
import akka.persistence.typed.javadsl.CommandHandler;
import akka.persistence.typed.javadsl.EventHandler;
import akka.persistence.typed.javadsl.EventSourcedBehavior;
import akka.persistence.typed.javadsl.SignalHandler;
import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.replayfarm.proto.AttemptFailedEvent;
import org.replayfarm.proto.JobAccepted;
import org.replayfarm.proto.JobEnded;
import org.replayfarm.proto.ResultRepeatedEvent;
import org.replayfarm.proto.SliceFinishedEvent;

/**
 * The coordinator's journal: Akka Persistence typed (event sourcing) over akka-persistence-jdbc, on an H2
 * database in the coordinator's work directory by default, or on PostgreSQL
 * ({@code replay.coordinator.journal.url = "jdbc:postgresql://..."}) for coordinators that must share it.
 * Events are protobuf messages (journal.proto), written by Akka's ProtobufSerializer.
 *
 * <ul>
 * <li>{@link Registry} (persistence id {@code replay-jobs}): every job accepted ({@link JobAccepted}) and how
 * it ended ({@link JobEnded}), so a restarted coordinator starts every unfinished job again and still
 * answers for finished ones.</li>
 * <li>{@link Log} (persistence id {@code job-ID}): a job's {@link JobState.Durable} events, so the
 * restarted job merges the slices that had finished without evaluating them again.</li>
 * </ul>
 *
 * <p>Why event sourcing: a job's progress is a sequence of facts (slice results) that arrive one at a time
 * and are never changed, which is exactly an append-only journal; replaying it through
 * {@link JobState#updated} rebuilds the same state the job had, with no second model of it to keep in step.
 */
public final class Journal {
    private Journal() {
    }

    /**
     * The persistence settings for a node whose work directory is {@code workDir}: the journal the
     * coordinator's {@code replay.coordinator.journal} names (H2 under {@code workDir/journal} when its url
     * is empty).
     */
    public static Config settings(Config c, Path workDir) {
        Config j = c.getConfig("replay.coordinator.journal");
        String url = j.getString("url");
        String profile;
        String driver;
        if (url.isEmpty()) {
            // WRITE_DELAY=0: a commit reaches the file before the write returns, so a coordinator killed with
            // SIGKILL right after answering 201 still has the job (H2's default holds commits up to 500 ms)
            url = "jdbc:h2:file:" + workDir.toAbsolutePath().resolve("journal").resolve("jobs") + ";WRITE_DELAY=0";
            profile = "slick.jdbc.H2Profile$";
            driver = "org.h2.Driver";
        } else if (url.startsWith("jdbc:postgresql:")) {
            profile = "slick.jdbc.PostgresProfile$";
            driver = "org.postgresql.Driver";
        } else if (url.startsWith("jdbc:h2:")) {
            profile = "slick.jdbc.H2Profile$";
            driver = "org.h2.Driver";
        } else {
            throw new IllegalArgumentException("replay.coordinator.journal.url: only jdbc:postgresql: and jdbc:h2: "
                    + "databases are supported, not " + url);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("akka.persistence.journal.plugin", "jdbc-journal");
        m.put("akka.persistence.snapshot-store.plugin", "jdbc-snapshot-store");
        m.put("jdbc-journal.use-shared-db", "journal");
        m.put("jdbc-snapshot-store.use-shared-db", "journal");
        m.put("jdbc-read-journal.use-shared-db", "journal");
        String db = "akka-persistence-jdbc.shared-databases.journal";
        m.put(db + ".profile", profile);
        m.put(db + ".db.url", url);
        m.put(db + ".db.driver", driver);
        m.put(db + ".db.user", j.getString("user"));
        m.put(db + ".db.password", j.getString("password"));
        m.put(db + ".db.connectionPool", "HikariCP");
        m.put(db + ".db.numThreads", 2);
        m.put(db + ".db.maxConnections", 2);
        m.put(db + ".db.minConnections", 1);
        return ConfigFactory.parseMap(m);
    }

    /** Creates the journal's tables where they do not exist yet (H2 or PostgreSQL). */
    public static void createSchema(akka.actor.typed.ActorSystem<?> system) throws java.io.IOException,
            InterruptedException {
        try {
            akka.persistence.jdbc.testkit.javadsl.SchemaUtils.createIfNotExists(system).toCompletableFuture()
                    .get(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new java.io.IOException("the coordinator's journal (" + system.settings().config()
                    .getString("akka-persistence-jdbc.shared-databases.journal.db.url") + ") cannot be opened: " + cause, e);
        }
    }

    // ---- a job's durable events as protobuf ----

    static Message encode(JobState.Durable e) {
        if (e instanceof JobState.SliceFinished f) {
            return SliceFinishedEvent.newBuilder().setSliceId(f.sliceId()).setStart(f.start()).setCount(f.count())
                    .setAttempt(f.attempt()).setNode(f.node()).setHash(ByteString.copyFrom(f.hash())).setGroups(f.groups())
                    .setEvalNanos(f.evalNanos()).setPayload(ByteString.copyFrom(f.payload())).build();
        }
        if (e instanceof JobState.AttemptFailed f) {
            return AttemptFailedEvent.newBuilder().setSliceId(f.sliceId()).setStart(f.start()).setCount(f.count())
                    .setAttempt(f.attempt()).setNode(f.node()).setError(f.error()).build();
        }
        JobState.ResultRepeated r = (JobState.ResultRepeated) e;
        return ResultRepeatedEvent.newBuilder().setSliceId(r.sliceId()).setAttempt(r.attempt()).setNode(r.node())
                .setSame(r.same()).build();
    }

    static JobState.Durable decode(Message m) {
        if (m instanceof SliceFinishedEvent f) {
            return new JobState.SliceFinished(f.getSliceId(), f.getStart(), f.getCount(), f.getAttempt(), f.getNode(),
                    f.getHash().toByteArray(), f.getGroups(), f.getEvalNanos(), f.getPayload().toByteArray());
        }
        if (m instanceof AttemptFailedEvent f) {
            return new JobState.AttemptFailed(f.getSliceId(), f.getStart(), f.getCount(), f.getAttempt(), f.getNode(),
                    f.getError());
        }
        if (m instanceof ResultRepeatedEvent r) {
            return new JobState.ResultRepeated(r.getSliceId(), r.getAttempt(), r.getNode(), r.getSame());
        }
        throw new IllegalArgumentException("not a job event: " + m.getClass().getName());
    }

    // ---- a job's log ----

    /** What a job's log takes. */
    public sealed interface LogCommand extends NoSerializationVerificationNeeded {
    }

    /** Keep this event (its order is the order of the appends). */
    public record Append(Message event) implements LogCommand {
    }

    /** The job's events read back, in order, once its log recovered. */
    public record Recovered(List<Message> events) {
    }

    /** What a job's log holds in memory: the events read back, until they are handed to the job. */
    public static final class Kept {
        final List<Message> events = new ArrayList<>();
        boolean live;
    }

    /** A job's durable events ({@code job-ID}); on recovery it hands them to {@code job}, then appends. */
    public static final class Log extends EventSourcedBehavior<LogCommand, Message, Kept> {
        private final ActorRef<Recovered> job;

        private Log(String jobId, ActorRef<Recovered> job) {
            super(PersistenceId.ofUniqueId("job-" + jobId));
            this.job = job;
        }

        public static Behavior<LogCommand> create(String jobId, ActorRef<Recovered> job) {
            return new Log(jobId, job);
        }

        @Override
        public Kept emptyState() {
            return new Kept();
        }

        @Override
        public CommandHandler<LogCommand, Message, Kept> commandHandler() {
            return newCommandHandlerBuilder().forAnyState()
                    .onCommand(Append.class, (state, a) -> Effect().persist(a.event()))
                    .build();
        }

        @Override
        public EventHandler<Kept, Message> eventHandler() {
            // events are kept only while recovering (then handed to the job); appended ones are the job's already
            return newEventHandlerBuilder().forAnyState().onAnyEvent((state, e) -> {
                if (!state.live) {
                    state.events.add(e);
                }
                return state;
            });
        }

        @Override
        public SignalHandler<Kept> signalHandler() {
            return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), state -> {
                job.tell(new Recovered(List.copyOf(state.events)));
                state.events.clear();
                state.live = true;
            }).build();
        }
    }

    // ---- the registry of jobs ----

    /** What the registry takes. */
    public sealed interface RegistryCommand extends NoSerializationVerificationNeeded {
    }

    /** Keep a job accepted; {@code done} answers once it is in the journal. */
    public record Accept(JobAccepted job, ActorRef<akka.Done> done) implements RegistryCommand {
    }

    /**
     * Keep how a job ended; {@code done} (may be null) answers once it is in the journal. The first end of
     * a job is the one kept: a later one is ignored (a cancelled job stays cancelled).
     */
    public record End(JobEnded ended, ActorRef<akka.Done> done) implements RegistryCommand {
        public End(JobEnded ended) {
            this(ended, null);
        }
    }

    /**
     * Forget a job that has ended (its retention ran out, or it was purged); {@code removed} answers true once the
     * journal holds the removal. A job that runs (as the journal knows it: its end not yet journaled), or that the
     * registry does not know, is left alone: the answer is false, and the caller must leave its data alone too.
     */
    public record Remove(String jobId, String reason, ActorRef<Boolean> removed) implements RegistryCommand {
    }

    /** Every job the registry knows, in the order they were accepted. */
    public record GetAll(ActorRef<Jobs> replyTo) implements RegistryCommand {
    }

    /** One job in the registry: how it was accepted, and how it ended (null while it runs). */
    public record Entry(JobAccepted accepted, JobEnded ended) {
    }

    public record Jobs(List<Entry> jobs) {
    }

    /** Every job accepted and how it ended ({@code replay-jobs}). */
    public static final class Registry extends EventSourcedBehavior<RegistryCommand, Message, Map<String, Entry>> {
        private Registry() {
            super(PersistenceId.ofUniqueId("replay-jobs"));
        }

        public static Behavior<RegistryCommand> create() {
            return Behaviors.setup(ctx -> new Registry());
        }

        @Override
        public Map<String, Entry> emptyState() {
            return new LinkedHashMap<>();
        }

        @Override
        public CommandHandler<RegistryCommand, Message, Map<String, Entry>> commandHandler() {
            return newCommandHandlerBuilder().forAnyState()
                    .onCommand(Accept.class, (state, a) -> Effect().persist(a.job()).thenRun(s -> a.done().tell(akka.Done.getInstance())))
                    .onCommand(End.class, (state, e) -> {
                        Entry was = state.get(e.ended().getJobId());
                        if (was != null && was.ended() != null) {
                            return Effect().none().thenRun(s -> ack(e.done()));
                        }
                        return Effect().persist(e.ended()).thenRun(s -> ack(e.done()));
                    })
                    .onCommand(Remove.class, (state, r) -> {
                        Entry was = state.get(r.jobId());
                        if (was == null || was.ended() == null) {
                            return Effect().none().thenRun(s -> r.removed().tell(false));
                        }
                        return Effect().persist(org.replayfarm.proto.JobRemoved.newBuilder().setJobId(r.jobId())
                                .setReason(r.reason()).build()).thenRun(s -> r.removed().tell(true));
                    })
                    .onCommand(GetAll.class, (state, g) -> Effect().none().thenRun(s ->
                            g.replyTo().tell(new Jobs(List.copyOf(s.values())))))
                    .build();
        }

        private static void ack(ActorRef<akka.Done> done) {
            if (done != null) {
                done.tell(akka.Done.getInstance());
            }
        }

        @Override
        public EventHandler<Map<String, Entry>, Message> eventHandler() {
            return newEventHandlerBuilder().forAnyState()
                    .onEvent(JobAccepted.class, (state, a) -> {
                        state.put(a.getJobId(), new Entry(a, null));
                        return state;
                    })
                    .onEvent(JobEnded.class, (state, e) -> {
                        Entry was = state.get(e.getJobId());
                        if (was != null && was.ended() == null) {
                            state.put(e.getJobId(), new Entry(was.accepted(), e));
                        }
                        return state;
                    })
                    .onEvent(org.replayfarm.proto.JobRemoved.class, (state, r) -> {
                        state.remove(r.getJobId());
                        return state;
                    })
                    .build();
        }

        /**
         * A snapshot every {@value #SNAPSHOT_EVERY} events, and the events before the older of the two kept
         * snapshots deleted: recovery reads the jobs that are still known, not every job ever accepted.
         */
        @Override
        public akka.persistence.typed.javadsl.RetentionCriteria retentionCriteria() {
            return akka.persistence.typed.javadsl.RetentionCriteria.snapshotEvery(SNAPSHOT_EVERY, 2)
                    .withDeleteEventsOnSnapshot();
        }

        static final int SNAPSHOT_EVERY = 200;

        @Override
        public akka.persistence.typed.SnapshotAdapter<Map<String, Entry>> snapshotAdapter() {
            return new akka.persistence.typed.SnapshotAdapter<>() {
                @Override
                public Object toJournal(Map<String, Entry> state) {
                    org.replayfarm.proto.RegistrySnapshot.Builder b = org.replayfarm.proto.RegistrySnapshot.newBuilder();
                    for (Entry e : state.values()) {
                        org.replayfarm.proto.RegistryEntry.Builder r = org.replayfarm.proto.RegistryEntry.newBuilder()
                                .setAccepted(e.accepted());
                        if (e.ended() != null) {
                            r.setEnded(e.ended());
                        }
                        b.addEntries(r);
                    }
                    return b.build();
                }

                @Override
                public Map<String, Entry> fromJournal(Object from) {
                    Map<String, Entry> state = new LinkedHashMap<>();
                    for (org.replayfarm.proto.RegistryEntry r : ((org.replayfarm.proto.RegistrySnapshot) from).getEntriesList()) {
                        state.put(r.getAccepted().getJobId(), new Entry(r.getAccepted(), r.hasEnded() ? r.getEnded() : null));
                    }
                    return state;
                }
            };
        }
    }

    // ---- removing a job's log ----

    /**
     * Deletes the events of job {@code jobId}'s log ({@code job-ID}, its slices' results): it appends a small
     * {@link org.replayfarm.proto.JobLogPurged} marker, then deletes every event up to it (the JDBC journal
     * keeps the highest row, marked deleted, to know the sequence number: the marker, not a slice's bytes).
     * {@code done} completes when the journal has deleted them. Only for a job that no longer runs (its Log is
     * stopped). The props of a classic actor, to spawn as a child (a typed system takes no top-level ones).
     */
    public static akka.actor.Props purgeLog(String jobId, java.util.concurrent.CompletableFuture<akka.Done> done) {
        return akka.actor.Props.create(LogPurge.class, () -> new LogPurge(jobId, done));
    }

    /** A classic persistent actor (typed persistence has no delete-events effect): see {@link #purgeLog}. */
    static final class LogPurge extends akka.persistence.AbstractPersistentActor {
        private final String jobId;
        private final java.util.concurrent.CompletableFuture<akka.Done> done;

        LogPurge(String jobId, java.util.concurrent.CompletableFuture<akka.Done> done) {
            this.jobId = jobId;
            this.done = done;
        }

        @Override
        public String persistenceId() {
            return "job-" + jobId;
        }

        @Override
        public akka.persistence.Recovery recovery() {
            return akka.persistence.Recovery.none(); // the highest sequence number only, no events read
        }

        @Override
        public Receive createReceiveRecover() {
            return receiveBuilder().match(akka.persistence.RecoveryCompleted.class, r -> {
                if (lastSequenceNr() == 0) {
                    finish(null); // the job never logged an event
                    return;
                }
                persist(org.replayfarm.proto.JobLogPurged.newBuilder().setJobId(jobId).build(),
                        marker -> deleteMessages(lastSequenceNr()));
            }).build();
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(akka.persistence.DeleteMessagesSuccess.class, s -> finish(null))
                    .match(akka.persistence.DeleteMessagesFailure.class, f -> finish(f.cause()))
                    .build();
        }

        @Override
        public void onRecoveryFailure(Throwable cause, scala.Option<Object> event) {
            done.completeExceptionally(cause);
        }

        @Override
        public void onPersistFailure(Throwable cause, Object event, long seqNr) {
            done.completeExceptionally(cause);
        }

        private void finish(Throwable failure) {
            if (failure == null) {
                done.complete(akka.Done.getInstance());
            } else {
                done.completeExceptionally(failure);
            }
            getContext().stop(getSelf());
        }
    }
}
