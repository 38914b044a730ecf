package org.replayfarm.gpunode.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code exec:COMMAND} backend: any program that can run a capture (someone's emulator, a replay tool) is the
 * device. Each run copies the capture, byte for byte, to {@code capture.capture} in a fresh folder and makes an empty
 * {@code out} folder beside it; splits COMMAND into words as a shell would ({@link ShellWords}) and puts those two
 * paths in for {@code {capture}} and {@code {out}} inside each word; runs the first word as the program, directly
 * (no shell unless the command is one, {@code sh -c '...'}), with its stdin closed, in this process's folder and
 * environment, for at most the time limit; then reads {@code {out}} as {@code dir:} reads a folder
 * ({@link DirectoryBackend}), except that every range and image of the capture must have its file there.
 * <p>
 * A program that cannot start (the OS's error), exits with a status other than 0, outlasts the limit (it and every
 * process it started are killed), or leaves a file missing or of the wrong size is a {@link DeviceException} saying
 * which, with the end of what it wrote to stderr. A run that succeeds carries the same ({@link DeviceRun.Exec}).
 */
public final class ExecBackend implements DeviceBackend {
    /** How much of the end of the program's stderr a run keeps: at most this many characters ... */
    public static final int STDERR_TAIL_CHARS = 2000;
    /** ... and at most this many lines. */
    public static final int STDERR_TAIL_LINES = 20;
    /** How long killed processes are given to be gone before a timeout is reported anyway. */
    private static final long REAP_SECONDS = 10;
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{capture\\}|\\{out\\}");

    private final String command;
    private final List<String> words;
    private final long timeoutSeconds;

    /**
     * @throws IllegalArgumentException when the command does not split into words ({@link ShellWords#split}) or the
     *         time limit is not positive
     */
    public ExecBackend(String command, long timeoutSeconds) {
        if (timeoutSeconds <= 0) {
            throw new IllegalArgumentException("--device-timeout must be a positive number of seconds, not " + timeoutSeconds);
        }
        this.command = command;
        this.words = ShellWords.split(command);
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public String kind() {
        return "exec";
    }

    @Override
    public String label() {
        return command;
    }

    /** The program's arguments: each word with {@code {capture}} and {@code {out}} replaced wherever they stand. */
    static List<String> argv(List<String> words, Path capture, Path out) {
        List<String> argv = new ArrayList<>(words.size());
        for (String w : words) {
            Matcher m = PLACEHOLDER.matcher(w);
            StringBuilder b = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(b, Matcher.quoteReplacement(m.group().equals("{out}") ? out.toString() : capture.toString()));
            }
            m.appendTail(b);
            argv.add(b.toString());
        }
        return argv;
    }

    @Override
    public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
        events.on(new DeviceEvent.Started(kind(), label()));
        Path work = null;
        try {
            work = Files.createTempDirectory("replay-exec");
            Path capture = work.resolve("capture.capture");
            Files.copy(request.capture().path(), capture);
            Path out = Files.createDirectory(work.resolve("out"));
            Path stderr = work.resolve("stderr.txt");
            List<String> argv = argv(words, capture, out);
            // stderr to a file, stdout discarded: no pipe to drain, and none a left-behind child could hold open
            ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(stderr.toFile());
            long start = System.nanoTime();
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                // "Cannot run program ...": its cause holds the OS's error alone (error=2, No such file or directory)
                String os = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage() : e.getMessage();
                throw new DeviceException(prefix() + "cannot start the program " + argv.get(0) + ": " + os, e);
            }
            p.getOutputStream().close(); // stdin closed: a program that reads it sees its end at once
            boolean ended;
            try {
                ended = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                killTree(p);
                Thread.currentThread().interrupt();
                throw new DeviceException(prefix() + "interrupted while the program ran; it was stopped", e);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (!ended) {
                String killed = killTree(p);
                throw new DeviceException(prefix() + "timed out: the program did not finish within " + timeoutSeconds
                        + " s (--device-timeout); " + killed + said(tail(stderr)));
            }
            int status = p.exitValue();
            String tail = tail(stderr);
            if (status != 0) {
                throw new DeviceException(prefix() + argv.get(0) + " exited with status " + status + said(tail));
            }
            ExecutionRecord exec = new ExecutionRecord(UUID.randomUUID().toString(), (long) (seconds * 1e9),
                    ExecutionRecord.Serialized.UNKNOWN);
            events.on(new DeviceEvent.Executed(exec));
            DirectoryBackend.Outputs read;
            try {
                read = DirectoryBackend.read(out, request.capture(), true);
            } catch (DeviceException e) {
                String hint = words.stream().anyMatch(w -> w.contains("{out}")) ? ""
                        : " (the command never names {out}, the folder the program is to write)";
                throw new DeviceException(prefix() + e.getMessage().replace(out.toString(), "{out}") + hint + said(tail), e);
            }
            DeviceRun run = new DeviceRun(kind(), label(), read.ranges(), read.images(), List.of(exec), null, List.of(),
                    0, 0, new DeviceRun.Exec(command, status, tail, seconds));
            events.on(new DeviceEvent.Finished(read.ranges().size(), read.images().size()));
            return run;
        } catch (IOException e) {
            throw new DeviceException(prefix() + e.getMessage(), e);
        } finally {
            delete(work);
        }
    }

    private String prefix() {
        return "--device exec:" + command + ": ";
    }

    /** The stderr tail as an error message ends with it: indented, after a colon, or nothing when there was none. */
    private static String said(String tail) {
        return tail.isEmpty() ? "; it wrote nothing to stderr"
                : "; the end of its stderr:\n  " + tail.replace("\n", "\n  ");
    }

    /**
     * Kills the program and every process it started, each one's children listed before it is killed (after, they
     * would belong to init), and waits for them to be gone; says how many there were.
     */
    private static String killTree(Process p) {
        Deque<ProcessHandle> todo = new ArrayDeque<>(List.of(p.toHandle()));
        List<ProcessHandle> killed = new ArrayList<>();
        while (!todo.isEmpty()) {
            ProcessHandle h = todo.poll();
            List<ProcessHandle> children = h.children().toList();
            h.destroyForcibly();
            killed.add(h);
            todo.addAll(children);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REAP_SECONDS);
        long alive = 0;
        for (ProcessHandle h : killed) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                alive++;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                alive++;
            }
        }
        String what = "stopped it" + (killed.size() > 1 ? " and the " + (killed.size() - 1) + " process(es) it started" : "");
        return alive == 0 ? what : what + " (" + alive + " still there after " + REAP_SECONDS + " s)";
    }

    /** The end of the program's stderr: at most {@link #STDERR_TAIL_CHARS} characters in {@link #STDERR_TAIL_LINES} lines. */
    static String tail(Path file) throws IOException {
        if (!Files.exists(file)) {
            return "";
        }
        byte[] bytes;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            int want = (int) Math.min(size, 4L * STDERR_TAIL_CHARS); // UTF-8: at most 4 bytes a character
            ByteBuffer b = ByteBuffer.allocate(want);
            ch.position(size - want);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // read on
            }
            bytes = Arrays.copyOf(b.array(), b.position());
        }
        String text = new String(bytes, StandardCharsets.UTF_8).stripTrailing();
        if (text.length() > STDERR_TAIL_CHARS) {
            text = text.substring(text.length() - STDERR_TAIL_CHARS);
        }
        String[] lines = text.split("\r?\n", -1);
        if (lines.length > STDERR_TAIL_LINES) {
            text = String.join("\n", Arrays.copyOfRange(lines, lines.length - STDERR_TAIL_LINES, lines.length));
        }
        return text;
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(q);
            }
        } catch (IOException ignored) {
            // a leftover temp directory is harmless
        }
    }
}
