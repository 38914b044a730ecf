package org.replayfarm.cli.daemon;

import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.commands.DaemonCommand;
import org.replayfarm.cli.commands.RunCommand;

/**
 * {@code replay run --daemon} (or {@code REPLAY_DAEMON=on}): hands the run to this user's run daemon
 * ({@link RunDaemon}), starting one when there is none, and relays its output and exit status. The daemon keeps a
 * started embedded farm node and a warm JIT between runs, so a run pays neither the JVM's nor the cluster's start
 * again. This side loads no picocli, Akka or host model: a JVM start, a socket and a loop.
 */
public final class DaemonClient {
    /** How long a daemon just started may take to listen before the run goes on without it. */
    static final long START_WAIT_MILLIS = 60_000;
    /** {@link #relay}'s answer when the daemon did not take the run: the caller runs it in its own process. */
    static final int RUN_HERE = Integer.MIN_VALUE;

    private DaemonClient() {
    }

    /** Whether {@code replay run ARGS} goes to the daemon: {@code --daemon}/{@code --no-daemon}, else REPLAY_DAEMON. */
    public static boolean wanted(String[] args) {
        Boolean flag = null;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--")) {
                break;
            }
            if (args[i].equals("--daemon")) {
                flag = true;
            } else if (args[i].equals("--no-daemon")) {
                flag = false;
            }
        }
        return flag != null ? flag : on(System.getenv("REPLAY_DAEMON"));
    }

    static boolean on(String v) {
        return v != null && switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes", "1" -> true;
            default -> false;
        };
    }

    /**
     * Runs {@code replay run ARGS} in the daemon and returns its exit status; empty when no daemon could be had
     * (said on stderr): the caller then runs the command in this process.
     */
    public static OptionalInt run(String[] args) {
        List<String> rest = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (!args[i].equals("--daemon") && !args[i].equals("--no-daemon")) {
                rest.add(args[i]);
            }
        }
        long started = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        SocketChannel ch;
        Path socket;
        try {
            socket = DaemonWire.socket(DaemonWire.folder(), jvmOptions(), cwd());
            String refused = refusal(socket);
            if (refused != null) {
                System.err.println("replay run: no run daemon (" + refused + "); running in this process");
                return OptionalInt.empty();
            }
            ch = connectOrStart(socket, null);
        } catch (IOException | RuntimeException e) {
            System.err.println("replay run: no run daemon (" + Replay.describe(e)
                    + "); running in this process");
            return OptionalInt.empty();
        }
        if (ch == null) {
            return OptionalInt.empty();
        }
        int status = relay(ch, new DaemonWire.Request(DaemonWire.Kind.RUN, cwd().toString(),
                rest, System.console() != null, started), socket);
        return status == RUN_HERE ? OptionalInt.empty() : OptionalInt.of(status);
    }

    /** Why no daemon can be had at {@code socket} before one is started (null: none). */
    public static String refusal(Path socket) {
        if (socket.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length > DaemonWire.MAX_SOCKET_PATH) {
            return "its socket path " + socket + " is longer than a Unix socket's " + DaemonWire.MAX_SOCKET_PATH
                    + " bytes; set TMPDIR to a shorter folder";
        }
        if (setsid() == null) {
            return "no setsid on PATH to start it in a session of its own, where a Ctrl-C meant for a run cannot stop it";
        }
        try {
            DaemonWire.parseIdle(System.getenv("REPLAY_DAEMON_IDLE"));
        } catch (IllegalArgumentException e) {
            return "REPLAY_DAEMON_IDLE: " + e.getMessage();
        }
        return null;
    }

    /** The setsid command on PATH, or null. */
    static Path setsid() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "setsid"))) {
                return Path.of(dir, "setsid");
            }
        }
        return null;
    }

    /**
     * Sends {@code request} and copies the daemon's frames to this process's stdout and stderr; the exit status, or
     * {@link #RUN_HERE} when the daemon declined the run or closed the connection before a word of it.
     */
    public static int relay(SocketChannel ch, DaemonWire.Request request, Path socket) {
        AtomicBoolean ended = new AtomicBoolean();
        // Ctrl-C or SIGTERM here: the connection closes with this JVM, and the daemon cancels the job
        Thread hook = new Thread(() -> {
            if (!ended.get() && request.kind() == DaemonWire.Kind.RUN) {
                System.err.println("replay run: interrupted; the run daemon stops the job");
                System.err.flush();
            }
        }, "replay-run-daemon-interrupted");
        Runtime.getRuntime().addShutdownHook(hook);
        // a status or stop is answered at once, or the daemon is stuck
        Thread timer = request.kind() != DaemonWire.Kind.RUN ? closeAfter(ch, ASK_MILLIS) : null;
        PrintStream out = System.out;
        PrintStream err = System.err;
        boolean heard = false;
        try (ch) {
            request.write(ch);
            while (true) {
                DaemonWire.Frame f = DaemonWire.Frame.read(ch);
                heard = true;
                switch (f.type()) {
                    case DaemonWire.OUT -> {
                        out.write(f.bytes());
                        out.flush();
                    }
                    case DaemonWire.ERR -> {
                        err.write(f.bytes());
                        err.flush();
                    }
                    case DaemonWire.EXIT -> {
                        ended.set(true);
                        return f.status();
                    }
                    case DaemonWire.DECLINE -> {
                        ended.set(true);
                        err.println("replay run: " + new String(f.bytes(), java.nio.charset.StandardCharsets.UTF_8)
                                + "; running in this process");
                        return RUN_HERE;
                    }
                    default -> throw new IOException("a frame of unknown type " + f.type());
                }
            }
        } catch (IOException e) {
            ended.set(true);
            if (!heard && request.kind() == DaemonWire.Kind.RUN) {
                // accepted as it stopped (or not accepted at all): nothing of the run happened there
                err.println("replay run: the run daemon closed the connection before the run began; running in this process");
                return RUN_HERE;
            }
            err.println(request.kind() == DaemonWire.Kind.RUN
                    ? "replay run: the run daemon stopped before the run ended (" + Replay.describe(e) + "); its log: "
                    + log(socket)
                    : "replay daemon: " + socket + " did not answer (" + Replay.describe(e) + "); its log: " + log(socket));
            return Replay.EXIT_ERROR;
        } finally {
            if (timer != null) {
                timer.interrupt();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the JVM is exiting: the hook says so
            }
        }
    }

    /** The daemon's log: beside its socket. */
    static Path log(Path socket) {
        return DaemonWire.beside(socket, ".log");
    }

    /** This process's folder. */
    public static Path cwd() {
        return Path.of("").toAbsolutePath();
    }

    /** Options that name a file or folder after a prefix (the daemon runs in /: a relative one is resolved first). */
    private static final List<String> PATH_OPTIONS = List.of("-javaagent:", "-agentpath:", "-Xbootclasspath/a:",
            "-XX:SharedArchiveFile=", "-XX:ArchiveClassesAtExit=", "-XX:HeapDumpPath=", "-XX:ErrorFile=",
            "-XX:Flags=", "-XX:VMOptionsFile=", "-Djava.io.tmpdir=", "-Dlogback.configurationFile=",
            "-Dconfig.file=", "-Djava.library.path=");

    /**
     * This JVM's options, those that name files resolved against this process's folder: the daemon is started with
     * them (heap, class-data archive, JIT flags), and they are part of its settings.
     */
    public static List<String> jvmOptions() {
        List<String> out = new ArrayList<>();
        for (String o : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            out.add(absoluteOption(o, cwd()));
        }
        return out;
    }

    /** {@code option} with the path after a {@link #PATH_OPTIONS} prefix resolved against {@code cwd}. */
    static String absoluteOption(String option, Path cwd) {
        for (String prefix : PATH_OPTIONS) {
            if (option.startsWith(prefix) && option.length() > prefix.length()) {
                String rest = option.substring(prefix.length());
                String tail = "";
                if (prefix.equals("-javaagent:") && rest.indexOf('=') > 0) { // -javaagent:JAR=OPTIONS
                    tail = rest.substring(rest.indexOf('='));
                    rest = rest.substring(0, rest.indexOf('='));
                }
                String path = prefix.equals("-Xbootclasspath/a:") || prefix.equals("-Djava.library.path=")
                        ? DaemonWire.resolvedList(rest, cwd) : cwd.resolve(rest).normalize().toString();
                return prefix + path + tail;
            }
        }
        return option;
    }

    /** This JVM's class path with each entry in full (the daemon runs in /). */
    static String classPath() {
        return DaemonWire.resolvedList(System.getProperty("java.class.path"), cwd());
    }

    /**
     * A connection to the daemon at {@code socket}, started first when none listens (with {@code idle}, or its
     * default when null); null when it did not start.
     */
    public static SocketChannel connectOrStart(Path socket, String idle) throws IOException {
        SocketChannel ch = connect(socket);
        if (ch != null) {
            return ch;
        }
        stopOlderBuilds(socket);
        Process daemon = start(socket, idle);
        long deadline = System.currentTimeMillis() + START_WAIT_MILLIS;
        long heldSince = 0;
        while (System.currentTimeMillis() < deadline) {
            ch = connect(socket);
            if (ch != null) {
                return ch;
            }
            if (!daemon.isAlive() && connect(socket) == null) {
                // it exited: another daemon may have won the socket (then connect finds it), else it failed
                if (daemon.exitValue() == DaemonCommand.EXIT_HELD && heldSince == 0) {
                    heldSince = System.currentTimeMillis(); // the winner of a race binds within moments
                }
                if (heldSince != 0 && System.currentTimeMillis() - heldSince < 2_000) {
                    sleep(25);
                    continue;
                }
                System.err.println("replay run: " + (daemon.exitValue() == DaemonCommand.EXIT_HELD
                        ? "the run daemon of these settings is stopping (it ends the run under way first)"
                        : "the run daemon did not start (exit status " + daemon.exitValue() + "; its log: "
                        + log(socket) + ")") + "; running in this process");
                return null;
            }
            if (!sleep(25)) {
                return null;
            }
        }
        System.err.println("replay run: the run daemon did not listen within " + START_WAIT_MILLIS / 1000
                + " s (its log: " + log(socket) + "); running in this process");
        return null;
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** How long a daemon has to answer a status or stop request. */
    static final long ASK_MILLIS = 10_000;

    /**
     * Stops the daemons of older builds of this distribution (a rebuild made them stale), and removes the socket,
     * lock, log and work folder of those already gone; quietly.
     */
    static void stopOlderBuilds(Path socket) {
        try (java.util.stream.Stream<Path> s = Files.list(socket.getParent())) {
            for (Path other : s.filter(p -> DaemonWire.olderBuild(p, socket)).toList()) {
                try (SocketChannel ch = connect(other)) {
                    if (ch == null) {
                        Files.deleteIfExists(other);
                        continue;
                    }
                    withDeadline(ch, ASK_MILLIS, () -> {
                        new DaemonWire.Request(DaemonWire.Kind.STOP, "", List.of(), false, 0).write(ch);
                        while (DaemonWire.Frame.read(ch).type() != DaemonWire.EXIT) {
                            // its goodbye
                        }
                    });
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
            removeGone(socket);
        } catch (IOException e) {
            // nothing to stop
        }
    }

    /**
     * Removes what daemons of older builds of this distribution left (lock, log, work folder) once no daemon holds
     * their lock: one still ending its run keeps them until the next start after it.
     */
    static void removeGone(Path socket) throws IOException {
        List<Path> locks;
        try (java.util.stream.Stream<Path> s = Files.list(socket.getParent())) {
            locks = s.filter(p -> p.getFileName().toString().endsWith(".sock.lock")).toList();
        }
        for (Path lock : locks) {
            String name = lock.getFileName().toString();
            Path other = lock.resolveSibling(name.substring(0, name.length() - ".lock".length()));
            if (!DaemonWire.olderBuild(other, socket)) {
                continue;
            }
            try (java.nio.channels.FileChannel f = java.nio.channels.FileChannel.open(lock,
                    java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.channels.FileLock held = f.tryLock();
                if (held == null) {
                    continue; // its daemon lives (stopping): next time
                }
                Files.deleteIfExists(other);
                Files.deleteIfExists(log(other));
                RunCommand.deleteTree(RunDaemon.workFolder(other));
                Files.deleteIfExists(lock);
                held.release();
            } catch (IOException | java.nio.channels.OverlappingFileLockException e) {
                // taken or gone meanwhile
            }
        }
    }

    /** An action on {@code ch} that may wait on the other side: the channel is closed after {@code millis}. */
    interface ChannelAction {
        void run() throws IOException;
    }

    static void withDeadline(SocketChannel ch, long millis, ChannelAction action) throws IOException {
        Thread timer = closeAfter(ch, millis);
        try {
            action.run();
        } finally {
            timer.interrupt();
        }
    }

    /** A thread that closes {@code ch} after {@code millis} (a read under way then ends with an exception); interrupt it when answered. */
    static Thread closeAfter(SocketChannel ch, long millis) {
        Thread timer = new Thread(() -> {
            try {
                Thread.sleep(millis);
                ch.close();
            } catch (InterruptedException | IOException done) {
                // answered in time
            }
        }, "replay-daemon-deadline");
        timer.setDaemon(true);
        timer.start();
        return timer;
    }

    /** Connected, or null when nothing listens there. */
    public static SocketChannel connect(Path socket) throws IOException {
        if (!Files.exists(socket)) {
            return null;
        }
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.connect(UnixDomainSocketAddress.of(socket));
            return ch;
        } catch (java.net.SocketException refused) {
            ch.close();
            return null;
        }
    }

    /**
     * Starts a daemon for {@code socket}: this JVM's Java, options and class path, in a session of its own
     * ({@code setsid}, where there is one: a Ctrl-C meant for this run must not stop it), its output to its log.
     */
    static Process start(Path socket, String idle) throws IOException {
        List<String> cmd = new ArrayList<>();
        Path setsid = setsid();
        if (setsid == null) {
            throw new IOException("no setsid on PATH to start the run daemon in a session of its own");
        }
        cmd.add(setsid.toString());
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions());
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add(Replay.class.getName());
        cmd.add("daemon");
        cmd.add("serve");
        cmd.add("--socket");
        cmd.add(socket.toString());
        if (idle != null) {
            cmd.add("--idle");
            cmd.add(idle);
        }
        Path log = log(socket);
        // in / (it must not hold the caller's folder busy), its output appended to its log (a daemon that loses the
        // race for the socket must not empty the winner's)
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(DaemonWire.environment(cwd())); // its paths in full: it runs in /
        return pb.directory(new java.io.File("/"))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }
}
