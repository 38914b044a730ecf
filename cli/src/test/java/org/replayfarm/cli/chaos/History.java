package org.replayfarm.cli.chaos;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What a fault driver saw, one JSON object a line, in the order it saw it: every job submitted, accepted or
 * refused, its progress, how it ended, with the node that answered and a monotonic time; and the faults made and
 * healed. {@link HistoryChecker} reads it back; nothing here decides whether the farm behaved.
 */
public final class History implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper().setSerializationInclusion(JsonInclude.Include.NON_NULL)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** What happened. */
    public enum Kind {
        /** a client sent {@code POST /jobs} to {@code node} on {@code capture} */
        SUBMIT,
        /** {@code node} accepted it as {@code job} (201) */
        ACCEPTED,
        /** {@code node} refused it: {@code status}, {@code detail} the answer's reason */
        REFUSED,
        /** {@code node} said {@code job} is {@code state} with {@code groupsDone} of {@code groupsTotal} */
        PROGRESS,
        /** a client asked {@code node} to cancel {@code job} */
        CANCEL,
        /** {@code node} said {@code job} was cancelled */
        CANCELLED,
        /** {@code node} said {@code job} finished; {@code detail} the digest of its outputs ({@link Outputs}) */
        FINISHED,
        /** {@code node} said {@code job} failed; {@code detail} its reason */
        FAILED,
        /** a fault began; {@code detail} says what, {@code nodes} are the nodes it cut off from the majority */
        FAULT,
        /** {@code node} showed it knows it is cut off from the majority (it sees them unreachable) */
        CUT_OFF,
        /** every fault was lifted */
        HEAL,
        /** anything else worth reading beside the events (a node exiting, a node restarted) */
        NOTE
    }

    /** One line. Fields a kind does not use are null. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Event(long nanos, Kind kind, String node, String job, String capture, String state, Long groupsDone,
                        Long groupsTotal, Integer status, String detail, List<String> nodes) {
        public static Event of(long nanos, Kind kind) {
            return new Event(nanos, kind, null, null, null, null, null, null, null, null, null);
        }

        public Event node(String n) {
            return new Event(nanos, kind, n, job, capture, state, groupsDone, groupsTotal, status, detail, nodes);
        }

        public Event job(String j) {
            return new Event(nanos, kind, node, j, capture, state, groupsDone, groupsTotal, status, detail, nodes);
        }

        public Event capture(String c) {
            return new Event(nanos, kind, node, job, c, state, groupsDone, groupsTotal, status, detail, nodes);
        }

        public Event progress(String s, long done, long total) {
            return new Event(nanos, kind, node, job, capture, s, done, total, status, detail, nodes);
        }

        public Event status(int s) {
            return new Event(nanos, kind, node, job, capture, state, groupsDone, groupsTotal, s, detail, nodes);
        }

        public Event detail(String d) {
            return new Event(nanos, kind, node, job, capture, state, groupsDone, groupsTotal, status, d, nodes);
        }

        public Event nodes(List<String> n) {
            return new Event(nanos, kind, node, job, capture, state, groupsDone, groupsTotal, status, detail, List.copyOf(n));
        }
    }

    private final BufferedWriter out;
    private final LongSupplier clock;
    private final long start;

    private History(BufferedWriter out, LongSupplier clock) {
        this.out = out;
        this.clock = clock;
        this.start = clock.getAsLong();
    }

    /** A history written to {@code file} (created or emptied), its times from {@code clock} (nanoseconds). */
    public static History create(Path file, LongSupplier clock) throws IOException {
        return new History(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), clock);
    }

    /** A new event of {@code kind} stamped now, to be filled in and {@link #record}ed. */
    public Event now(Kind kind) {
        return Event.of(clock.getAsLong() - start, kind);
    }

    /** Writes {@code e} and flushes it (a driver killed mid-run leaves what it saw). */
    public synchronized Event record(Event e) {
        try {
            out.write(JSON.writeValueAsString(e));
            out.write('\n');
            out.flush();
        } catch (IOException x) {
            throw new UncheckedIOException(x);
        }
        return e;
    }

    /** Every event of the history file {@code file}, in order. */
    public static List<Event> read(Path file) throws IOException {
        List<Event> events = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                events.add(JSON.readValue(line, Event.class));
            }
        }
        return events;
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
