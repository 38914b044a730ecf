package org.replayfarm.cli.daemon;

import com.typesafe.config.Config;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.replayfarm.coordinator.node.FarmNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.commands.RunCommand;

/**
 * The run daemon: one JVM of this user's that keeps an embedded farm node (the one {@code replay run} starts and
 * closes for every run) started between runs, with the JIT's work on it, and runs the {@code replay run} commands
 * {@link DaemonClient}s send it, one at a time, as the same {@link RunCommand} would in their own process: their
 * arguments, their folder for relative paths, their stdout, stderr and exit status. The node is started again when
 * a run asks for other node settings (evaluator threads, metrics). A client that hangs up cancels its job. After
 * {@code idle} without a run it closes the node, removes its socket and exits.
 */
public final class RunDaemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RunDaemon.class);
    public static final Duration DEFAULT_IDLE = DaemonWire.DEFAULT_IDLE;

    private final Path socket;
    private final Duration idle;
    private final ReentrantLock runs = new ReentrantLock(true);
    private final AtomicLong lastUsed = new AtomicLong(System.nanoTime());
    private final AtomicInteger served = new AtomicInteger();
    private final AtomicInteger nodeStarts = new AtomicInteger();
    private final AtomicInteger jobCounter = new AtomicInteger();
    private final long startedMillis = System.currentTimeMillis();
    /** The held node's API token (replay.api.token): random, known to this process only. */
    private final String apiToken = java.util.HexFormat.of().formatHex(randomBytes());
    private final Path work;
    private final long requestMillis;
    private FarmNode node;
    private String nodeSettings;
    private ServerSocketChannel server;
    private FileChannel lockFile;
    private volatile boolean stopping;

    public RunDaemon(Path socket, Duration idle) {
        this(socket, idle, REQUEST_MILLIS);
    }

    /** As above, a client given {@code requestMillis} to send its request. */
    public RunDaemon(Path socket, Duration idle, long requestMillis) {
        this.socket = socket;
        this.idle = idle;
        this.requestMillis = requestMillis;
        this.work = workFolder(socket);
    }

    /**
     * The work folder of the daemon of {@code socket} (its node's folders), beside its socket: one killed without
     * removing it has it removed by the next daemon of the socket, or by the next start after a rebuild.
     */
    public static Path workFolder(Path socket) {
        return DaemonWire.beside(socket, ".work");
    }

    /** How long a client has to send its request once connected (a request is a command line). */
    public static final long REQUEST_MILLIS = 10_000;

    /**
     * Binds the socket (false when another daemon holds it: this one has nothing to do), then serves until it is
     * stopped or idle for its {@code idle} time.
     */
    public boolean serve() throws IOException {
        if (!bind()) {
            return false;
        }
        log.info("run daemon {} listening (idle exit after {})", socket, idle);
        Thread idler = new Thread(this::watchIdle, "replay-daemon-idle");
        idler.setDaemon(true);
        idler.start();
        while (!stopping) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (stopping) {
                    break;
                }
                throw e;
            }
            Thread t = new Thread(() -> handle(ch), "replay-daemon-client");
            t.setDaemon(true);
            t.start();
        }
        return true;
    }

    /**
     * The lock file beside the socket says which daemon owns it: held for this JVM's life, so a second daemon
     * started for the same socket (two runs at once found none) sees it taken and leaves.
     */
    private boolean bind() throws IOException {
        Path lock = socket.resolveSibling(socket.getFileName() + ".lock");
        lockFile = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held;
        try {
            held = lockFile.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException sameJvm) {
            held = null; // a daemon of this JVM holds it
        }
        if (held == null) {
            lockFile.close();
            return false;
        }
        Files.deleteIfExists(socket); // a daemon before this one that died without removing it
        RunCommand.deleteTree(work); // and its node's folders
        Files.createDirectories(work);
        // bound (and listening) under another name first, then renamed: a client that sees the socket's path can
        // connect at once (bind makes the file before listen, and a connect between them is refused)
        // (a name no longer than the socket's own: a Unix socket's path is at most 107 bytes)
        Path binding = socket.resolveSibling("." + ProcessHandle.current().pid() + "."
                + Integer.toHexString(socket.getFileName().toString().hashCode()));
        Files.deleteIfExists(binding);
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            s.bind(UnixDomainSocketAddress.of(binding));
            Files.move(binding, socket, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            s.close();
            Files.deleteIfExists(binding);
            throw e;
        }
        server = s;
        return true;
    }

    private void watchIdle() {
        while (!stopping) {
            try {
                Thread.sleep(Math.min(1000, Math.max(10, idle.toMillis() / 4)));
            } catch (InterruptedException e) {
                return;
            }
            boolean gone = !Files.exists(socket);
            if (gone || (!runs.isLocked() && System.nanoTime() - lastUsed.get() > idle.toNanos())) {
                log.info("run daemon {}: {}; exiting", socket, gone ? "its socket was removed" : "idle for " + idle);
                stop();
                return;
            }
        }
    }

    /** Stops accepting; the run in progress (if any) ends first, then the node closes. */
    public void stop() {
        stopping = true;
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException e) {
            // closing
        }
    }

    private void handle(SocketChannel ch) {
        try (ch) {
            DaemonWire.Request req;
            try {
                DaemonWire.Request[] read = new DaemonWire.Request[1];
                DaemonClient.withDeadline(ch, requestMillis, () -> read[0] = DaemonWire.Request.read(ch));
                req = read[0];
            } catch (IOException e) {
                log.warn("run daemon: a request that could not be read: {}", e.toString());
                return;
            }
            switch (req.kind()) {
                case STATUS -> {
                    byte[] text = status().getBytes(StandardCharsets.UTF_8);
                    DaemonWire.writeFrame(ch, DaemonWire.OUT, text, 0, text.length);
                    DaemonWire.writeExit(ch, 0);
                }
                case STOP -> {
                    stop();
                    byte[] text = ("stopping the run daemon " + socket + " (pid " + ProcessHandle.current().pid() + ")\n")
                            .getBytes(StandardCharsets.UTF_8);
                    DaemonWire.writeFrame(ch, DaemonWire.OUT, text, 0, text.length);
                    DaemonWire.writeExit(ch, 0);
                }
                case RUN -> {
                    Session done = run(ch, req);
                    if (done.declined() != null) {
                        byte[] why = done.declined().getBytes(StandardCharsets.UTF_8);
                        DaemonWire.writeFrame(ch, DaemonWire.DECLINE, why, 0, why.length);
                    } else {
                        DaemonWire.writeExit(ch, done.status());
                    }
                }
            }
        } catch (IOException e) {
            log.debug("run daemon: client gone: {}", e.toString());
        } catch (RuntimeException | Error e) {
            log.error("run daemon: a request failed", e);
        }
    }

    public synchronized String status() {
        long idleFor = (System.nanoTime() - lastUsed.get()) / 1_000_000_000L;
        return String.format("daemon          pid %d, %s%n"
                        + "runs            %d (%s)%n"
                        + "node            %s%n"
                        + "idle            %d s of %d s%n"
                        + "up since        %s%n"
                        + "log             %s%n",
                ProcessHandle.current().pid(), socket, served.get(), runs.isLocked() ? "one running" : "none running",
                node == null ? "not started" : "started " + nodeStarts.get() + " time(s), " + node.evalThreads()
                        + " evaluator thread(s)", idleFor, idle.toSeconds(), java.time.Instant.ofEpochMilli(startedMillis),
                DaemonClient.log(socket));
    }

    /**
     * One {@code replay run}, in turn: the session it ran in, with its exit status, or declined (the client then
     * runs it in its own process: the daemon is stopping, or the run is a batch).
     */
    private Session run(SocketChannel ch, DaemonWire.Request req) {
        PrintStream out = new PrintStream(DaemonWire.frames(ch, DaemonWire.OUT), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(DaemonWire.frames(ch, DaemonWire.ERR), true, StandardCharsets.UTF_8);
        Path cwd = Path.of(req.cwd());
        Session session = new Session(this, req.terminal(), err, req.clientStartMillis(), cwd);
        Thread handler = Thread.currentThread();
        java.util.concurrent.atomic.AtomicBoolean holding = new java.util.concurrent.atomic.AtomicBoolean();
        // the client sends nothing more: a read that ends means it hung up (Ctrl-C): a run waiting for its turn
        // is dropped, a run under way has its job cancelled (at once, or as soon as it has one)
        Thread watch = new Thread(() -> {
            try {
                if (ch.read(java.nio.ByteBuffer.allocate(1)) < 0) {
                    if (session.hangUp() && !holding.get()) {
                        handler.interrupt();
                    }
                }
            } catch (IOException closed) {
                // the run ended and closed the connection
            }
        }, "replay-daemon-hangup");
        watch.setDaemon(true);
        watch.start();
        List<String> args = new ArrayList<>();
        args.add("run");
        args.addAll(session.clientArgs(req.args()));
        // what needs no node is answered at once, not after the run under way: help, a wrong option, a batch
        CommandLine probe = commandLine(session, out, err);
        boolean answerNow;
        try {
            CommandLine.ParseResult parsed = probe.parseArgs(args.toArray(String[]::new));
            CommandLine.ParseResult sub = parsed.subcommand();
            answerNow = parsed.isUsageHelpRequested() || parsed.isVersionHelpRequested()
                    || (sub != null && (sub.isUsageHelpRequested() || sub.isVersionHelpRequested()));
            if (!answerNow && sub != null && runCommand(probe).batch()) {
                return session.decline(RunCommand.BATCH_DECLINED);
            }
            if (!answerNow && sub != null && runCommand(probe).execDevice()) {
                return session.decline(RunCommand.EXEC_DECLINED);
            }
        } catch (CommandLine.ParameterException wrong) {
            answerNow = true; // its one-line error, from the command line that prints it
        }
        if (answerNow) {
            int status = commandLine(session, out, err).execute(args.toArray(String[]::new));
            leaveIfCold();
            return session.ended(status);
        }
        try {
            if (!runs.tryLock(0, java.util.concurrent.TimeUnit.SECONDS)) { // fair: no jumping the queue
                err.println("replay run: the run daemon is busy with another run; waiting for it to end");
                runs.lockInterruptibly();
            }
        } catch (InterruptedException gone) {
            Thread.interrupted();
            return session.ended(Replay.EXIT_ERROR); // hung up while waiting: nobody to run it for
        }
        holding.set(true);
        try {
            if (stopping) {
                return session.decline("the run daemon is stopping");
            }
            if (session.hungUp()) {
                return session.ended(Replay.EXIT_ERROR);
            }
            served.incrementAndGet();
            CommandLine line = commandLine(session, out, err);
            int status;
            try {
                status = line.execute(args.toArray(String[]::new));
            } catch (Throwable t) { // an Error (picocli passes those on): what its own process would print, then
                // this JVM is in doubt (out of memory, a stack overflow, a class that did not load): it stops
                err.print("Exception in thread \"main\" ");
                t.printStackTrace(err);
                err.println("replay run: the run daemon stops after this error; the next run starts a new one");
                log.error("run daemon: a run failed with {}; stopping", t.toString(), t);
                stop();
                status = 1;
            }
            line.getOut().flush();
            line.getErr().flush();
            return session.ended(status);
        } finally {
            Thread.interrupted(); // a hang-up that raced with taking the lock: the job was cancelled instead
            lastUsed.set(System.nanoTime());
            runs.unlock();
            leaveIfCold();
        }
    }

    /**
     * A daemon whose runs never needed its node (each was answered or failed before that: a wrong option, a
     * capture that is not there) has nothing warm to keep: it leaves now instead of idling for its idle time, unless
     * a run is under way or waiting.
     */
    private synchronized void leaveIfCold() {
        if (node == null && !stopping && !runs.isLocked() && !runs.hasQueuedThreads()) {
            log.info("run daemon {}: no run needed its node; exiting", socket);
            stop();
        }
    }

    /**
     * A {@code replay run} command line for {@code session}: paths resolved against its client's folder, its
     * output to the client, and errors that name paths as the client gave them.
     */
    private static CommandLine commandLine(Session session, PrintStream out, PrintStream err) {
        CommandLine line = Replay.commandLine("run", session::asGiven);
        line.registerConverter(Path.class, session::path);
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        runCommand(line).session = session;
        return line;
    }

    private static RunCommand runCommand(CommandLine line) {
        return line.getSubcommands().get("run").getCommand();
    }

    /**
     * The client's arguments as the daemon (in /) must give them: {@code --device dir:PATH}, {@code --device cuda-cpu:DIR}, {@code cuda:DIR} and {@code @FILE}
     * (picocli's argument files, read relative to the JVM's folder) with PATH and FILE relative to the client's
     * folder; {@code given} is told each path so resolved and how it was given. ({@code --device exec:} is not
     * rewritten: such a run is declined, {@link RunCommand#EXEC_DECLINED}, and runs in the client's process.)
     */
    public static List<String> clientArgs(List<String> args, Path cwd, java.util.function.BiConsumer<Path, String> given) {
        List<String> out = new ArrayList<>(args);
        for (int i = 0; i < out.size(); i++) {
            String a = out.get(i);
            if (a.equals("--")) {
                break;
            }
            String folder = a.startsWith("--device=") ? folderPrefix(a.substring("--device=".length())) : null;
            String next = a.equals("--device") && i + 1 < out.size() ? folderPrefix(out.get(i + 1)) : null;
            if (folder != null) {
                out.set(i, "--device=" + folder + resolve(cwd, a.substring(("--device=" + folder).length()), given));
            } else if (next != null) {
                out.set(i + 1, next + resolve(cwd, out.get(i + 1).substring(next.length()), given));
            } else if (a.length() > 1 && a.startsWith("@") && !a.startsWith("@@")
                    && Files.isRegularFile(cwd.resolve(a.substring(1)))) {
                // as picocli would read it in the client's folder (an @NAME that names no file stays as it is)
                out.set(i, "@" + resolve(cwd, a.substring(1), given));
            }
        }
        return out;
    }

    /** The device spellings that name a folder (dir:PATH, cuda-cpu:DIR): the prefix {@code spec} starts with, or null. */
    private static String folderPrefix(String spec) {
        for (String p : List.of("dir:", "cuda-cpu:", "cuda:")) {
            if (spec.startsWith(p) && spec.length() > p.length()) {
                return p;
            }
        }
        return null;
    }

    private static Path resolve(Path cwd, String p, java.util.function.BiConsumer<Path, String> given) {
        Path full = cwd.resolve(p);
        given.accept(full, Path.of(p).toString());
        return full;
    }

    /**
     * The node a run asks for: the one held when its settings ({@code threads}, {@code overlay}) are those it was
     * started with, else a new one (the old one closed first). Runs come one at a time, so no other run uses it.
     */
    public synchronized FarmNode node(int threads, Config overlay) throws IOException, InterruptedException {
        String settings = threads + " " + overlay.root().render(com.typesafe.config.ConfigRenderOptions.concise());
        if (node != null && settings.equals(nodeSettings)) {
            return node;
        }
        if (node != null) {
            log.info("run daemon: a run asks for other node settings; starting the node again");
            node.close();
            node = null;
        }
        Set<String> roles = org.replayfarm.gpunode.cuda.GpuProbe.once().available()
                ? Set.of(FarmNode.COORDINATOR, "eval", "gpu") : Set.of(FarmNode.COORDINATOR, "eval");
        RunCommand.deleteTree(work.resolve("node-" + nodeStarts.get())); // the one closed above
        Path dir = Files.createDirectories(work.resolve("node-" + (nodeStarts.get() + 1)));
        // the API wants a token only this process knows: the node's HTTP port is on loopback, but for as long as the
        // daemon lives, not one run (its own evaluators take the run's decoded capture, and the token if they fetch)
        node = FarmNode.start(FarmNode.Settings.of(roles, dir).withEvalThreads(threads).withConfig(overlay
                .withValue("replay.api.token", com.typesafe.config.ConfigValueFactory.fromAnyRef(apiToken))));
        nodeStarts.incrementAndGet();
        nodeSettings = settings;
        return node;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[32];
        new java.security.SecureRandom().nextBytes(b);
        return b;
    }

    /** The node held now (null before the first run). */
    public synchronized FarmNode heldNode() {
        return node;
    }

    public int nodeStarts() {
        return nodeStarts.get();
    }

    /** The job id of a run: "run" as in a run's own process, unless a job of a run before is still there. */
    public String nextJobId(FarmNode n) {
        return n.jobs().progress("run").isEmpty() ? "run" : "run-" + jobCounter.incrementAndGet();
    }

    /**
     * Stops accepting, lets the run under way (and those already waiting, which are declined: their clients run
     * them themselves) end, then closes the node and removes the socket this daemon bound. The lock file stays (a
     * daemon that removed it could leave two daemons holding locks on two files of one name).
     */
    @Override
    public void close() {
        stop();
        runs.lock();
        try {
            synchronized (this) {
                if (node != null) {
                    node.close();
                    node = null;
                }
            }
        } finally {
            runs.unlock();
        }
        try {
            if (server != null) {
                Files.deleteIfExists(socket); // only the socket this daemon bound, never another's
                RunCommand.deleteTree(work); // its own work folder too (one that lost the lock has none)
            }
            if (lockFile != null) {
                lockFile.close();
            }
        } catch (IOException e) {
            log.warn("run daemon: {} not removed: {}", socket, e.toString());
        }
    }

    /**
     * What a {@link RunCommand} run by the daemon needs of it: the held node, the client's terminal and stderr (the
     * progress bar), when the client's JVM started (its timings), the client's folder (relative paths, and how
     * they are shown), whether the client hung up and what that cancels; and how the run ended.
     */
    public static final class Session {
        private final RunDaemon daemon;
        private final boolean terminal;
        private final PrintStream err;
        private final long clientStartMillis;
        private final Path cwd;
        private final java.util.Map<Path, String> given = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.concurrent.atomic.AtomicBoolean hungUp = new java.util.concurrent.atomic.AtomicBoolean();
        private final AtomicReference<Runnable> onHangUp = new AtomicReference<>();
        private volatile String declined;
        private volatile int status;

        public Session(RunDaemon daemon, boolean terminal, PrintStream err, long clientStartMillis, Path cwd) {
            this.daemon = daemon;
            this.terminal = terminal;
            this.err = err;
            this.clientStartMillis = clientStartMillis;
            this.cwd = cwd;
        }

        public RunDaemon daemon() {
            return daemon;
        }

        public boolean terminal() {
            return terminal;
        }

        public PrintStream err() {
            return err;
        }

        public long clientStartMillis() {
            return clientStartMillis;
        }

        /** A path argument: resolved against the client's folder (remembered as given, for {@link #shown}). */
        public Path path(String arg) {
            Path p = cwd.resolve(arg);
            given.put(p, Path.of(arg).toString()); // as picocli's own conversion shows it: "out/" is "out"
            return p;
        }

        /** The client's arguments as the daemon gives them to picocli ({@link RunDaemon#clientArgs}). */
        public List<String> clientArgs(List<String> args) {
            return RunDaemon.clientArgs(args, cwd, given::put);
        }

        /**
         * {@code message} with each path the client gave (resolved against its folder here) as it gave it: an error
         * reads as it would in the client's own process ("no such file: saxpy.capture", "out/host/...").
         */
        public String asGiven(String message) {
            if (message == null) {
                return null;
            }
            String m = message;
            List<java.util.Map.Entry<Path, String>> paths = new ArrayList<>(given.entrySet());
            paths.sort((a, b) -> b.getKey().toString().length() - a.getKey().toString().length()); // longest first
            for (var e : paths) {
                if (!e.getKey().toString().equals(e.getValue())) {
                    m = m.replace(e.getKey().toString(), e.getValue());
                }
            }
            return m;
        }

        /** A path as the client gave it. */
        public String shown(Path p) {
            return given.getOrDefault(p, p.toString());
        }

        /** What the client's hang-up does from now on (null: nothing); run at once when it has hung up already. */
        public void onHangUp(Runnable r) {
            onHangUp.set(r);
            if (r != null && hungUp.get() && onHangUp.compareAndSet(r, null)) {
                r.run();
            }
        }

        /** The client hung up: runs what that does; false when it had already. */
        public boolean hangUp() {
            if (!hungUp.compareAndSet(false, true)) {
                return false;
            }
            Runnable r = onHangUp.getAndSet(null);
            if (r != null) {
                log.info("run daemon: the client hung up; cancelling its job");
                r.run();
            }
            return true;
        }

        public boolean hungUp() {
            return hungUp.get();
        }

        /** The run is not the daemon's to run ({@code why}): its client runs it in its own process. */
        public Session decline(String why) {
            declined = why;
            return this;
        }

        public String declined() {
            return declined;
        }

        public Session ended(int exitStatus) {
            status = exitStatus;
            return this;
        }

        public int status() {
            return status;
        }
    }
}
