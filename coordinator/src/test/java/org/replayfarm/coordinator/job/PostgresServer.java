package org.replayfarm.coordinator.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.replayfarm.model.testing.FreePorts;

/**
 * A real PostgreSQL server for a test, on loopback: initdb into a fresh folder and pg_ctl start on a free
 * port (as the postgres user when the tests run as root, which PostgreSQL refuses); close stops it.
 * Debian's package (run-tests installs it when missing) puts initdb under /usr/lib/postgresql/N/bin.
 */
public final class PostgresServer implements AutoCloseable {
    public final int port;
    private final Path base;
    private final Path data;
    private final Path bin;
    private final boolean root;

    public PostgresServer() throws Exception {
        bin = findBin();
        root = "root".equals(System.getProperty("user.name"));
        base = Files.createTempDirectory("replay-pg");
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxrwxrwx"));
        data = base.resolve("data");
        // below the ephemeral range (FreePorts): initdb runs for seconds before the server binds the port
        port = FreePorts.loopback();
        run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-A", "trust", "-U", "replay", "--no-sync",
                "-E", "UTF8"));
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-w", "-t", "60", "-l",
                base.resolve("log").toString(), "-o", "-p " + port + " -k " + base + " -c listen_addresses=127.0.0.1 -c fsync=off",
                "start"));
    }

    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    private static Path findBin() throws IOException {
        List<Path> candidates = new ArrayList<>();
        Path lib = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(lib)) {
            try (Stream<Path> versions = Files.list(lib)) {
                versions.sorted(java.util.Comparator.reverseOrder()).forEach(v -> candidates.add(v.resolve("bin")));
            }
        }
        for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!p.isEmpty()) {
                candidates.add(Path.of(p));
            }
        }
        for (Path c : candidates) {
            if (Files.isExecutable(c.resolve("initdb")) && Files.isExecutable(c.resolve("pg_ctl"))) {
                return c;
            }
        }
        throw new IllegalStateException("no PostgreSQL server here (initdb and pg_ctl under /usr/lib/postgresql/*/bin "
                + "or on PATH): run-tests installs Debian's postgresql package");
    }

    private void run(List<String> command) throws Exception {
        List<String> full = new ArrayList<>();
        if (root) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(base.resolve("cmd.log").toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + Files.readString(base.resolve("cmd.log"))
                    + (Files.exists(base.resolve("log")) ? Files.readString(base.resolve("log")) : ""));
        }
    }

    @Override
    public void close() throws Exception {
        try {
            run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
        } finally {
            try (Stream<Path> s = Files.walk(base)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
