package org.replayfarm.cli.commands;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.daemon.DaemonClient;
import org.replayfarm.cli.daemon.DaemonWire;
import org.replayfarm.cli.daemon.RunDaemon;

@Command(name = "daemon", mixinStandardHelpOptions = true,
        description = {"The run daemon: a JVM of yours that keeps an embedded farm node started between runs, so that "
                + "'replay run --daemon' (or REPLAY_DAEMON=on) pays neither the JVM's nor the cluster's start again, and "
                + "runs on code the JIT has already compiled. The first such run starts it; it exits after "
                + "REPLAY_DAEMON_IDLE (default 15m) without a run.",
                "A run through the daemon is the same run (the same node, job and reports as 'replay run' starts in "
                        + "its own process), one at a time; relative paths are the caller's; Ctrl-C cancels its job. A "
                        + "daemon serves one distribution with one set of settings (JVM options; REPLAY_*, PATH, "
                        + "TMPDIR, LD_LIBRARY_PATH, CUDA_* of the run that started it); a run with others starts its own.",
                "Its socket, lock and log are in $TMPDIR/replay-daemon-$USER (yours alone, mode 0700).",
                "  replay daemon start    start this distribution's daemon now (the next run then finds it; --idle)",
                "  replay daemon status   every daemon of yours: pid, runs, node, idle time, log",
                "  replay daemon stop     stop this distribution's daemons (a run in progress ends first); --all: every "
                        + "daemon of yours"})
public final class DaemonCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Parameters(index = "0", paramLabel = "start|status|stop", description = "What to do.")
    String action;

    @Option(names = "--socket", paramLabel = "PATH", hidden = true,
            description = "serve: the socket to listen on (a client starts its daemon with it).")
    Path socket;

    @Option(names = "--all", description = "stop: every daemon of yours, not only this distribution's.")
    boolean all;

    @Option(names = "--idle", paramLabel = "DURATION", defaultValue = "${env:REPLAY_DAEMON_IDLE}",
            description = "serve and start: exit after this long without a run (90s, 15m, 1h; default 15m; "
                    + "REPLAY_DAEMON_IDLE).")
    public String idle;

    @Override
    public Integer call() throws Exception {
        Duration idleFor = idle(spec, idle);
        return switch (action) {
            case "serve" -> serve(idleFor);
            case "start" -> start();
            case "status" -> ask(DaemonWire.Kind.STATUS);
            case "stop" -> ask(DaemonWire.Kind.STOP);
            default -> throw new ParameterException(spec.commandLine(), "unknown action '" + action
                    + "': start, status or stop");
        };
    }

    /** {@code --idle}: a number with s, m or h; the default when unset. */
    public static Duration idle(CommandSpec spec, String v) {
        try {
            return DaemonWire.parseIdle(v);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--idle (or REPLAY_DAEMON_IDLE) " + e.getMessage());
        }
    }

    /** {@code serve}'s exit status when another daemon holds the socket's lock (one stopping, or one that won a race). */
    public static final int EXIT_HELD = 3;

    private int serve(Duration idleFor) throws Exception {
        if (socket == null) {
            throw new ParameterException(spec.commandLine(), "serve needs --socket PATH (replay run --daemon starts it)");
        }
        try (RunDaemon d = new RunDaemon(socket, idleFor)) {
            if (!d.serve()) {
                spec.commandLine().getErr().println("replay daemon: another daemon holds " + socket + "; leaving it be");
                return EXIT_HELD;
            }
        }
        return Replay.EXIT_OK;
    }

    private int start() throws IOException {
        Path s = DaemonWire.socket(DaemonWire.folder(), DaemonClient.jvmOptions(), DaemonClient.cwd());
        String refused = DaemonClient.refusal(s);
        if (refused != null) {
            spec.commandLine().getErr().println("replay daemon: cannot start one: " + refused);
            return Replay.EXIT_ERROR;
        }
        SocketChannel ch = DaemonClient.connectOrStart(s, idle);
        if (ch == null) {
            return Replay.EXIT_ERROR;
        }
        return DaemonClient.relay(ch, new DaemonWire.Request(DaemonWire.Kind.STATUS, "", List.of(), false,
                System.currentTimeMillis()), s);
    }

    /**
     * Sends {@code kind} to every daemon of this user's (status, stop --all), or for stop to this distribution's (its
     * socket names start with the distribution's INSTALL hash: any build, any settings of it); "no run daemon" when
     * there is none, and for stop how many of other distributions were left running.
     */
    private int ask(DaemonWire.Kind kind) throws IOException {
        Path folder = DaemonWire.folder();
        List<Path> every;
        try (Stream<Path> s = Files.list(folder)) {
            every = s.filter(p -> p.getFileName().toString().endsWith(".sock")).sorted().toList();
        }
        String mine = DaemonWire.install() + "-";
        boolean onlyMine = kind == DaemonWire.Kind.STOP && !all;
        List<Path> sockets = onlyMine ? every.stream().filter(p -> p.getFileName().toString().startsWith(mine)).toList()
                : every;
        long others = every.size() - sockets.size();
        int found = 0;
        for (Path s : sockets) {
            SocketChannel ch = DaemonClient.connect(s);
            if (ch == null) {
                Files.deleteIfExists(s); // a daemon that died without removing its socket
                continue;
            }
            found++;
            DaemonClient.relay(ch, new DaemonWire.Request(kind, "", List.of(), false, System.currentTimeMillis()), s);
        }
        if (found == 0) {
            spec.commandLine().getOut().println(onlyMine ? "no run daemon of this distribution (" + folder + ")"
                    : "no run daemon (" + folder + ")");
        }
        if (onlyMine && others > 0) {
            spec.commandLine().getOut().println(others + " daemon socket(s) of other replay distributions left as they "
                    + "are (replay daemon stop --all stops them too)");
        }
        spec.commandLine().getOut().flush();
        return Replay.EXIT_OK;
    }
}
