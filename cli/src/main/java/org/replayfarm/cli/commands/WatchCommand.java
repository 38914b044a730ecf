package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarStyle;
import org.replayfarm.coordinator.job.JobProgress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.client.CoordinatorClient;

@Command(name = "watch", mixinStandardHelpOptions = true,
        description = {"Follow a job's progress (the coordinator's server-sent events) with a live progress bar on "
                + "standard error: groups done, rate, ETA, and the GPU nodes' PC-sampling bursts and duty when one "
                + "reported. Ends with a one-line summary on standard output.",
                "Exit status 0 when the job finished equal, 1 when it finished with differences from the device, "
                        + "faulted groups, store conflicts or nondeterministic slices (as replay run), 2 when it failed."})
public final class WatchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "JOB", description = "The job id 'replay submit' printed.")
    String job;

    @Mixin
    CoordinatorOption coordinator;

    @picocli.CommandLine.Option(names = "--reconnect-for", paramLabel = "SECONDS", defaultValue = "300",
            description = "When the progress stream drops (the coordinator restarts, a proxy cuts it), connect again, "
                    + "backing off from 0.25 s to 5 s, for up to this long without a stream (default ${DEFAULT-VALUE}; "
                    + "0: never, ask once where the job stands).")
    long reconnectFor;

    @Override
    public Integer call() throws Exception {
        CoordinatorClient client;
        try {
            CoordinatorClient.checkJobId(job);
            client = coordinator.client();
            if (reconnectFor < 0) {
                throw new IllegalArgumentException("--reconnect-for must not be negative: " + reconnectFor);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        Eta eta = new Eta();
        ProgressBar[] bar = new ProgressBar[1];
        // a terminal gets the bar redrawn in place; a pipe or a file gets plain lines (a log has no \r)
        boolean terminal = System.console() != null;
        PlainLines plain = terminal ? null : new PlainLines(err);
        JobProgress last;
        try {
            last = client.watch(job, p -> {
                eta.observe(System.nanoTime(), p.groupsDone(), p.groupsTotal());
                if (plain != null) {
                    plain.offer(p, eta.remaining(), System.nanoTime());
                    return;
                }
                if (bar[0] == null) {
                    bar[0] = bar(p, eta, err);
                }
                bar[0].maxHint(p.groupsTotal());
                // Events may overtake each other on the coordinator: the bar only moves forward.
                bar[0].stepTo(Math.max(bar[0].getCurrent(), p.groupsDone()));
                bar[0].setExtraMessage(rate(p) + sampling(p));
            }, CoordinatorClient.Reconnect.after(Duration.ofSeconds(reconnectFor)), notice -> {
                if (plain == null) {
                    err.println();
                }
                err.println("replay watch: " + notice);
                err.flush();
            });
        } finally {
            if (bar[0] != null) {
                bar[0].close();
            }
            if (plain != null) {
                plain.close();
            }
        }
        if (last == null || !last.ended()) {
            // The stream ended early and reconnecting is off (--reconnect-for 0): ask once where the job stands.
            last = client.progress(job);
            if (!last.ended()) {
                throw new IllegalStateException("the progress stream of job " + job + " ended while the job is still "
                        + last.state() + " (" + last.groupsDone() + " of " + last.groupsTotal() + " groups done)");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(summary(last));
        out.flush();
        if (last.state().equals("finished")) {
            return clean(last) ? Replay.EXIT_OK : Replay.EXIT_DIFFERENCES;
        }
        return Replay.EXIT_ERROR;
    }

    /** Nothing a run report's verdict would call different or incomplete. */
    static boolean clean(JobProgress p) {
        JobProgress.Figures f = p.figures();
        return p.faults() == 0 && f.texelsDiffering() == 0 && f.bytesDiffering() == 0 && f.storeConflicts() == 0
                && f.nondeterministicSlices() == 0;
    }

    static String summary(JobProgress p) {
        if (p.state().equals("finished")) {
            JobProgress.Figures f = p.figures();
            // a typed range counts elements, an untyped one bytes (a coordinator of an earlier build sends bytes only)
            boolean elements = f.elementsCompared() > 0 || f.elementsDiffering() > 0;
            String compared = f.texelsCompared() + f.bytesCompared() == 0 ? ", nothing compared with a device"
                    : String.format(", %d of %d texels and %d of %d %s differ from the device%s", f.texelsDiffering(),
                    f.texelsCompared(), elements ? f.elementsDiffering() : f.bytesDiffering(),
                    elements ? f.elementsCompared() : f.bytesCompared(), elements ? "memory elements" : "bytes",
                    f.orderDependent() == 0 ? "" : " (" + f.orderDependent() + " order-dependent location(s) compared "
                            + "against the host's group order)");
            return String.format("job %s finished: %d group%s, %d fault%s, %d wave instructions, %s%s%s", p.jobId(),
                    p.groupsDone(), p.groupsDone() == 1 ? "" : "s", p.faults(), p.faults() == 1 ? "" : "s",
                    p.waveInstructions(), rate(p), compared, sampling(p));
        }
        return String.format("job %s %s after %d of %d groups: %s", p.jobId(), p.state(), p.groupsDone(), p.groupsTotal(),
                p.error().isEmpty() ? "(no reason given)" : p.error());
    }

    /** The GPU nodes' PC sampling, when one reported: mode, bursts, duty achieved, executions serialized. */
    static String sampling(JobProgress p) {
        JobProgress.Sampling s = p.figures().sampling();
        if (!s.reported()) {
            return "";
        }
        return String.format("; sampling %s: %d burst%s, duty %.2f%%, executions serialized %d/%d (%d unknown)", s.mode(),
                s.bursts(), s.bursts() == 1 ? "" : "s", 100 * s.duty(), s.serialized(), s.executions(), s.unknown());
    }

    private static String rate(JobProgress p) {
        return p.groupsPerSecond() >= 0 ? String.format("%.1f groups/s", p.groupsPerSecond()) : "rate unknown";
    }

    /**
     * The time left, from the rate this watch itself measured: none until it has seen the groups done grow
     * for at least {@link #MIN_SPAN} and by at least {@link #MIN_GROUPS} (the first slices' rate, with the
     * capture still being fetched and compiled, says little about the rest).
     */
    static final class Eta {
        static final Duration MIN_SPAN = Duration.ofSeconds(2);
        static final long MIN_GROUPS = 2;
        private long firstNanos = -1;
        private long firstDone;
        private long lastNanos;
        private long lastDone;
        private long total;

        synchronized void observe(long nanos, long done, long groupsTotal) {
            total = groupsTotal;
            if (firstNanos < 0 || done < firstDone) {
                firstNanos = nanos;
                firstDone = done;
            }
            if (done >= lastDone) {
                lastNanos = nanos;
                lastDone = done;
            }
        }

        synchronized Optional<Duration> remaining() {
            long span = lastNanos - firstNanos;
            long grew = lastDone - firstDone;
            if (firstNanos < 0 || span < MIN_SPAN.toNanos() || grew < MIN_GROUPS) {
                return Optional.empty();
            }
            double perGroupNanos = (double) span / grew;
            return Optional.of(Duration.ofNanos((long) (perGroupNanos * Math.max(0, total - lastDone))));
        }
    }

    /** Progress as plain lines: at most one a second, and only when the groups done changed; the last always. */
    static final class PlainLines {
        static final long INTERVAL_NANOS = Duration.ofSeconds(1).toNanos();
        private final PrintWriter err;
        private long printedNanos = Long.MIN_VALUE;
        private long printedDone = -1;
        private String pending;
        private long pendingDone = -1;

        PlainLines(PrintWriter err) {
            this.err = err;
        }

        synchronized void offer(JobProgress p, Optional<Duration> eta, long nanos) {
            String line = line(p, eta);
            if (p.groupsDone() <= printedDone && !p.ended()) { // no change (or an event overtaken by a later one)
                return;
            }
            if (printedNanos != Long.MIN_VALUE && nanos - printedNanos < INTERVAL_NANOS && !p.ended()) {
                pending = line;
                pendingDone = p.groupsDone();
                return;
            }
            print(line, p.groupsDone(), nanos);
        }

        private void print(String line, long done, long nanos) {
            err.println(line);
            err.flush();
            printedNanos = nanos;
            printedDone = done;
            pending = null;
        }

        synchronized void close() {
            if (pending != null && pendingDone != printedDone) {
                print(pending, pendingDone, System.nanoTime());
            }
        }

        static String line(JobProgress p, Optional<Duration> eta) {
            String job = p.jobId().length() > 8 ? p.jobId().substring(0, 8) : p.jobId();
            long pct = p.groupsTotal() > 0 ? 100 * p.groupsDone() / p.groupsTotal() : 0;
            return String.format("job %s %s: %d/%d groups (%d%%), %s%s%s", job, p.state(), p.groupsDone(), p.groupsTotal(),
                    pct, rate(p), eta.map(d -> String.format(", ETA %d:%02d:%02d", d.toHours(), d.toMinutesPart(),
                            d.toSecondsPart())).orElse(""), sampling(p));
        }
    }

    private static ProgressBar bar(JobProgress first, Eta eta, PrintWriter err) {
        String name = "job " + (first.jobId().length() > 8 ? first.jobId().substring(0, 8) : first.jobId());
        return new ProgressBarBuilder()
                .setTaskName(name)
                .setInitialMax(first.groupsTotal())
                .setUnit(" groups", 1)
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(250)
                .setEtaFunction(state -> eta.remaining())
                .setConsumer(new LineConsumer(err))
                .build();
    }

    /** Redraws the bar in place on standard error ({@code \r}), and ends its line when closed. */
    private static final class LineConsumer implements ProgressBarConsumer {
        private final PrintWriter err;

        LineConsumer(PrintWriter err) {
            this.err = err;
        }

        @Override
        public int getMaxRenderedLength() {
            return 100;
        }

        @Override
        public synchronized void accept(String rendered) {
            err.print('\r');
            err.print(rendered);
            err.flush();
        }

        @Override
        public synchronized void close() {
            err.println();
            err.flush();
        }
    }
}
