package org.replayfarm.cli.daemon;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The run daemon's wire and where it lives (shared by {@link DaemonClient} and {@link RunDaemon}).
 *
 * <p>A daemon listens on a Unix domain socket in a folder of the user's own ({@code java.io.tmpdir}/replay-daemon-USER,
 * mode 0700, refused when another user owns it or others may enter it). Its name says which distribution and
 * settings it serves: {@code INSTALL-BUILD-SETTINGS.sock}, INSTALL a hash of the distribution's class path, BUILD
 * of its files' sizes and times and the Java home, SETTINGS of the JVM's options, the umask and the environment a
 * run reads ({@link #environment}, paths resolved against the client's folder): a run whose settings differ gets a
 * daemon of its own, which is started with them; a daemon of an older build of the same distribution is stopped
 * when a new one starts.
 *
 * <p>Messages are length-prefixed: a request (its kind, the client's folder, its arguments, whether it has a
 * console, when its JVM started), then frames from the daemon: {@link #OUT} and {@link #ERR} bytes for the
 * client's stdout and stderr, and one {@link #EXIT} with the exit status (or one {@link #DECLINE} with the reason
 * the client runs the command itself), after which the daemon closes the connection. Channel reads and writes only (never {@code Channels.newInputStream}: on JDK 17 its reads hold the
 * channel's blocking lock, which would stop the daemon's output while it waits for the client to hang up).
 */
public final class DaemonWire {
    public static final byte OUT = 'O';
    public static final byte ERR = 'E';
    public static final byte EXIT = 'X';
    /** In place of {@link #EXIT}: the daemon does not run this (it is stopping; a batch): the client runs it itself. */
    public static final byte DECLINE = 'D';
    /** A request or frame larger than this is refused (a request is a command line; a frame a buffer). */
    public static final int MAX_MESSAGE = 16 << 20;
    /** The wire's version: a client and daemon of different versions never meet (it is part of BUILD). */
    public static final int VERSION = 1;

    public enum Kind { RUN, STATUS, STOP }

    /** What a client asks: {@code args} are the command's arguments after {@code run} (or none). */
    public record Request(Kind kind, String cwd, List<String> args, boolean terminal, long clientStartMillis) {
        public Request {
            args = List.copyOf(args);
        }

        public void write(SocketChannel ch) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(bytes);
            d.writeInt(VERSION);
            d.writeUTF(kind.name());
            writeString(d, cwd);
            d.writeInt(args.size());
            for (String a : args) {
                writeString(d, a);
            }
            d.writeBoolean(terminal);
            d.writeLong(clientStartMillis);
            d.flush();
            writeMessage(ch, bytes.toByteArray());
        }

        public static Request read(SocketChannel ch) throws IOException {
            DataInputStream d = new DataInputStream(new java.io.ByteArrayInputStream(readMessage(ch)));
            int version = d.readInt();
            Kind kind;
            try {
                kind = Kind.valueOf(d.readUTF());
            } catch (IllegalArgumentException | IOException e) {
                throw new IOException(version != VERSION ? "wire version " + version + ", this daemon speaks " + VERSION
                        : "unknown request: " + e.getMessage());
            }
            if (version != VERSION) {
                // a STOP's version and kind are read alike in every version: a later build can stop this daemon
                if (kind == Kind.STOP) {
                    return new Request(kind, "", List.of(), false, 0);
                }
                throw new IOException("wire version " + version + ", this daemon speaks " + VERSION);
            }
            String cwd = readString(d);
            int n = d.readInt();
            if (n < 0 || n > 100_000) {
                throw new IOException("a request of " + n + " arguments");
            }
            List<String> args = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                args.add(readString(d));
            }
            return new Request(kind, cwd, args, d.readBoolean(), d.readLong());
        }
    }

    private static void writeString(DataOutputStream d, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        d.writeInt(b.length);
        d.write(b);
    }

    private static String readString(DataInputStream d) throws IOException {
        int n = d.readInt();
        if (n < 0 || n > MAX_MESSAGE) {
            throw new IOException("a string of " + n + " bytes");
        }
        return new String(d.readNBytes(n), StandardCharsets.UTF_8);
    }

    /** Writes {@code body} with its length before it. */
    public static void writeMessage(SocketChannel ch, byte[] body) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).flip();
        writeFully(ch, b);
    }

    public static byte[] readMessage(SocketChannel ch) throws IOException {
        int n = readFully(ch, ByteBuffer.allocate(4)).getInt();
        if (n < 0 || n > MAX_MESSAGE) {
            throw new IOException("a message of " + n + " bytes");
        }
        if (n <= 1 << 16) {
            return readFully(ch, ByteBuffer.allocate(n)).array();
        }
        // a large one grows as its bytes come: a length alone holds no large buffer
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        ByteBuffer piece = ByteBuffer.allocate(1 << 16);
        while (whole.size() < n) {
            piece.clear().limit(Math.min(piece.capacity(), n - whole.size()));
            readFully(ch, piece);
            whole.write(piece.array(), 0, piece.limit());
        }
        return whole.toByteArray();
    }

    /** One frame from the daemon: its type and bytes (for {@link #EXIT}, the status in four bytes). */
    public record Frame(byte type, byte[] bytes) {
        public int status() {
            return ByteBuffer.wrap(bytes).getInt();
        }

        public static Frame read(SocketChannel ch) throws IOException {
            byte type = readFully(ch, ByteBuffer.allocate(1)).get();
            return new Frame(type, readMessage(ch));
        }
    }

    public static void writeFrame(SocketChannel ch, byte type, byte[] bytes, int off, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(5 + len).put(type).putInt(len).put(bytes, off, len).flip();
        synchronized (ch) {
            writeFully(ch, b);
        }
    }

    public static void writeExit(SocketChannel ch, int status) throws IOException {
        writeFrame(ch, EXIT, ByteBuffer.allocate(4).putInt(status).array(), 0, 4);
    }

    /** The daemon's side of a client's stdout or stderr: each write one frame; a write to a client gone is dropped. */
    public static OutputStream frames(SocketChannel ch, byte type) {
        return new OutputStream() {
            private volatile boolean gone;

            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                if (gone || len == 0) {
                    return;
                }
                try {
                    writeFrame(ch, type, b, off, len);
                } catch (IOException e) {
                    gone = true; // the client hung up: the run goes on to its end (or is cancelled) unheard
                }
            }
        };
    }

    private static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    private static ByteBuffer readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("the other side closed the connection");
            }
        }
        return b.flip();
    }

    /**
     * The folder of this user's daemons, made (0700) when missing; refused when it is a link, or not the user's own
     * alone (links are not followed: a link another user planted to a folder of this user's is refused, not used).
     */
    public static Path folder() throws IOException {
        return folder(Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** {@link #folder()} in {@code tmp}. */
    public static Path folder(Path tmp) throws IOException {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = tmp.resolve("replay-daemon-" + user).toAbsolutePath();
        java.nio.file.LinkOption noFollow = java.nio.file.LinkOption.NOFOLLOW_LINKS;
        if (!Files.exists(dir, noFollow)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another run made it meanwhile
            }
        }
        if (!Files.isDirectory(dir, noFollow)) {
            throw new IOException(dir + " is not a folder (a link, or a file): the run daemon's folder must be a folder "
                    + "of yours alone");
        }
        String me = System.getProperty("user.name");
        String owner = Files.getOwner(dir, noFollow).getName();
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, noFollow);
        if (!owner.equals(me) || perms.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
            throw new IOException(dir + " is owned by " + owner + " with mode " + PosixFilePermissions.toString(perms)
                    + "; the run daemon's folder must be " + me + "'s alone (rwx------; or set TMPDIR)");
        }
        return dir;
    }

    /** How long a daemon waits for the next run before it exits (REPLAY_DAEMON_IDLE). */
    public static final java.time.Duration DEFAULT_IDLE = java.time.Duration.ofMinutes(15);

    /** {@code --idle} and REPLAY_DAEMON_IDLE: a number with s, m or h, the default when unset; refused with an {@link IllegalArgumentException}. */
    public static java.time.Duration parseIdle(String v) {
        if (v == null || v.isBlank()) {
            return DEFAULT_IDLE;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(s|m|h)").matcher(v.trim());
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new IllegalArgumentException("'" + v + "': a positive number with s, m or h (90s, 15m, 1h)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "s" -> java.time.Duration.ofSeconds(n);
            case "m" -> java.time.Duration.ofMinutes(n);
            default -> java.time.Duration.ofHours(n);
        };
    }

    /** The longest socket path the kernel takes (sun_path holds 108 bytes with the closing NUL). */
    public static final int MAX_SOCKET_PATH = 107;

    /**
     * Variables a run reads whose values are paths (a relative one is the client's folder's, and the daemon runs in
     * /): resolved against the client's folder, in the settings and in the daemon's environment alike.
     */
    public static final Set<String> PATH_VARIABLES = Set.of("TMPDIR", "NVCC", "CUDA_HOME", "CUDA_PATH", "REPLAY_CUDA_CACHE",
            "REPLAY_CUDA_CPU_CACHE", "REPLAY_LLVM_MC", "REPLAY_ROCM_DEVICE_LIBS", "REPLAY_WORK_DIR", "REPLAY_STORAGE_DIR",
            "REPLAY_CONFIG", "REPLAY_API_TOKEN_FILE", "REPLAY_TLS_KEY_STORE", "REPLAY_TLS_TRUST_STORE",
            "REPLAY_TLS_PASSWORD_FILE");
    /** Variables whose values are lists of folders (an empty or relative entry is the client's folder's). */
    public static final Set<String> PATH_LISTS = Set.of("PATH", "LD_LIBRARY_PATH", "CPATH", "LIBRARY_PATH");

    /**
     * The environment a run reads, sorted, paths resolved against {@code cwd}: part of SETTINGS, and the daemon's
     * own. The farm's ({@code REPLAY_*}, {@code CUDA_*}), the tools' it starts ({@code PATH}, {@code NVCC*},
     * {@code CPATH}, {@code LIBRARY_PATH}, {@code LD_LIBRARY_PATH}, {@code TMPDIR}), the JVM's
     * ({@code JAVA_TOOL_OPTIONS}) and the locale's ({@code LANG}, {@code LC_*}: the encoding of file names).
     */
    public static Map<String, String> environment(Path cwd) {
        Map<String, String> env = new TreeMap<>();
        System.getenv().forEach((k, v) -> {
            if ((k.startsWith("REPLAY_") && !k.equals("REPLAY_DAEMON")) || k.startsWith("CUDA_") || k.startsWith("NVCC")
                    || k.startsWith("LC_") || k.equals("LANG") || k.equals("JAVA_TOOL_OPTIONS")
                    || PATH_LISTS.contains(k) || PATH_VARIABLES.contains(k)) {
                env.put(k, resolved(k, v, cwd));
            }
        });
        return env;
    }

    /** {@code v} of variable {@code k} with its paths resolved against {@code cwd}. */
    public static String resolved(String k, String v, Path cwd) {
        if (PATH_VARIABLES.contains(k)) {
            return v.isEmpty() ? v : cwd.resolve(v).normalize().toString();
        }
        return PATH_LISTS.contains(k) ? resolvedList(v, cwd) : v;
    }

    /** A list of paths ({@code :} between them: PATH, a class path) with each resolved against {@code cwd}. */
    public static String resolvedList(String v, Path cwd) {
        List<String> entries = new ArrayList<>();
        for (String e : v.split(java.io.File.pathSeparator, -1)) {
            entries.add(cwd.resolve(e).normalize().toString()); // an empty entry is the folder itself
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    /** The file of the daemon of {@code socket} named like it with {@code suffix} for ".sock" (its log, its work folder). */
    public static Path beside(Path socket, String suffix) {
        String name = socket.getFileName().toString();
        return socket.resolveSibling((name.endsWith(".sock") ? name.substring(0, name.length() - ".sock".length()) : name)
                + suffix);
    }

    /** This process's umask (the mode of the files a run writes), from /proc; empty where there is none. */
    public static String umask() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Umask:")) {
                    return line.substring("Umask:".length()).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the umask is not part of the settings
        }
        return "";
    }

    /** INSTALL: this distribution's class path. */
    public static String install() {
        return hash(List.of(System.getProperty("java.class.path", ""))).substring(0, 8);
    }

    /**
     * BUILD: the wire's version, the Java home and the code: each class path entry's size and time, for a folder
     * the newest of its files, for a lone jar ({@code java -jar}) the jars its manifest names too.
     */
    public static String build() {
        List<String> parts = new ArrayList<>();
        parts.add("wire " + VERSION);
        String[] entries = System.getProperty("java.class.path", "").split(java.io.File.pathSeparator);
        for (String entry : entries) {
            parts.add(stamp(Path.of(entry).toAbsolutePath()));
        }
        if (entries.length == 1 && entries[0].endsWith(".jar")) {
            Path jar = Path.of(entries[0]).toAbsolutePath();
            try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
                java.util.jar.Manifest m = j.getManifest();
                String cp = m == null ? null : m.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH);
                if (cp != null) {
                    for (String e : cp.trim().split("\\s+")) {
                        parts.add(stamp(jar.resolveSibling(e)));
                    }
                }
            } catch (IOException | RuntimeException e) {
                parts.add(jar + " unreadable");
            }
        }
        parts.add(System.getProperty("java.home", ""));
        return hash(parts).substring(0, 8);
    }

    /** A class path entry's size and time; for a folder, its files' count and newest time. */
    private static String stamp(Path p) {
        try {
            if (Files.isDirectory(p)) {
                long[] newest = {0, 0};
                try (java.util.stream.Stream<Path> s = Files.walk(p)) {
                    s.filter(Files::isRegularFile).forEach(f -> {
                        newest[0]++;
                        try {
                            newest[1] = Math.max(newest[1], Files.getLastModifiedTime(f).toMillis());
                        } catch (IOException gone) {
                            // removed while walked
                        }
                    });
                }
                return p + " folder " + newest[0] + " " + newest[1];
            }
            return p + " " + Files.size(p) + " " + Files.getLastModifiedTime(p).toMillis();
        } catch (IOException | RuntimeException e) {
            return p + " missing";
        }
    }

    /** SETTINGS: the JVM's options, {@link #environment} and the umask. */
    public static String settings(List<String> jvmOptions, Path cwd) {
        List<String> parts = new ArrayList<>(jvmOptions);
        environment(cwd).forEach((k, v) -> parts.add(k + "=" + v));
        parts.add("umask " + umask());
        return hash(parts).substring(0, 8);
    }

    /** The socket of the daemon for this distribution, build and settings: INSTALL-BUILD-SETTINGS.sock. */
    public static Path socket(Path folder, List<String> jvmOptions, Path cwd) {
        return folder.resolve(install() + "-" + build() + "-" + settings(jvmOptions, cwd) + ".sock");
    }

    /** Whether {@code other} is a daemon's socket of this distribution (INSTALL) from another build of it. */
    public static boolean olderBuild(Path other, Path mine) {
        String[] o = other.getFileName().toString().split("-");
        String[] m = mine.getFileName().toString().split("-");
        return o.length == 3 && m.length == 3 && other.getFileName().toString().endsWith(".sock")
                && o[0].equals(m[0]) && !o[1].equals(m[1]);
    }

    private static String hash(List<String> parts) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String p : parts) {
                md.update(p.getBytes(StandardCharsets.UTF_8));
                md.update((byte) 0);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private DaemonWire() {
    }
}
