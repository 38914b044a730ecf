package org.replayfarm.cli.chaos;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.replayfarm.cli.chaos.History.Event;
import org.replayfarm.cli.chaos.History.Kind;

/**
 * Follows one job through the API as a client would ({@code GET /jobs/<id>}), recording each change it sees (state,
 * groups done, the node that answered) into the history, through every fault and restart; a node that does not
 * answer is simply not heard from. Runs on a thread of its own until {@link #close}.
 */
public final class JobWatcher implements AutoCloseable {
    private final FarmClient client;
    private final History history;
    private final Supplier<String> url;
    private final String job;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile Event last;

    private JobWatcher(FarmClient client, History history, Supplier<String> url, String job) {
        this.client = client;
        this.history = history;
        this.url = url;
        this.job = job;
        this.thread = new Thread(this::follow, "watch-" + job);
        this.thread.setDaemon(true);
    }

    /** Starts following {@code job} at the API {@code url} names at each look. */
    public static JobWatcher start(FarmClient client, History history, Supplier<String> url, String job) {
        JobWatcher w = new JobWatcher(client, history, url, job);
        w.thread.start();
        return w;
    }

    private void follow() {
        try {
            while (!stopped) {
                Optional<Event> seen = client.observe(url.get(), job);
                if (seen.isPresent() && changed(last, seen.get())) {
                    last = history.record(seen.get());
                }
                // another process's HTTP state: no event announces it, so it is looked at again shortly
                TimeUnit.MILLISECONDS.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean changed(Event before, Event now) {
        return before == null || before.kind() != now.kind() || !Objects.equals(before.state(), now.state())
                || !Objects.equals(before.groupsDone(), now.groupsDone()) || !Objects.equals(before.node(), now.node())
                || !Objects.equals(before.detail(), now.detail());
    }

    /** The job followed. */
    public String job() {
        return job;
    }

    /** The groups done last seen (0 before the first look). */
    public long groupsDone() {
        Event e = last;
        return e == null || e.groupsDone() == null ? 0 : e.groupsDone();
    }

    /** The last event recorded, once the job was seen to end. */
    public Optional<Event> end() {
        Event e = last;
        return e != null && e.kind() != Kind.PROGRESS ? Optional.of(e) : Optional.empty();
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(30));
    }
}
