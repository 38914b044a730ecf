package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code replay node} on an Artery port another socket holds stops with one line naming the address and
 * port, and exit status 2: no stack trace from the remoting layer first.
 */
@Tag("cluster")
class NodePortClashTest {
    @TempDir
    Path dir;

    @Test
    void a_taken_cluster_port_is_one_clear_line_and_exit_2() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = taken.getLocalPort();
            String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", classpath, "org.replayfarm.cli.Replay", "node",
                    "--role", "eval", "--host", "127.0.0.1", "--port", String.valueOf(port), "--seed", "127.0.0.1:" + port,
                    "--no-metrics", "--work-dir", dir.resolve("work").toString());
            pb.redirectError(dir.resolve("err").toFile());
            pb.redirectOutput(dir.resolve("out").toFile());
            Process p = pb.start();
            try {
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the node stopped by itself");
            } finally {
                p.destroyForcibly();
            }
            List<String> err = Files.readAllLines(dir.resolve("err"), StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank()).toList();
            assertEquals(2, p.exitValue(), String.join("\n", err));
            assertEquals(1, err.size(), "one line, no stack trace:\n" + String.join("\n", err));
            assertEquals("replay: error: 127.0.0.1:" + port + " is already in use (--port (the cluster's Artery TCP port)): "
                    + "another process, or another replay node, listens there; pick another port (0 picks a free one)", err.get(0));
            assertEquals("", Files.readString(dir.resolve("out")));
        }
    }
}
