package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.AddressFromURIString;
import akka.cluster.typed.Cluster;
import akka.cluster.typed.Down;
import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;

/**
 * A coordinator that loses its cluster (downed, as the split-brain resolver downs a node that stalled)
 * exits with status 2, so that whatever runs it starts it again; before, it shut down with status 0.
 */
@Tag("cluster")
class NodeExitTest {
    @TempDir
    Path dir;

    @Test
    void a_downed_coordinator_exits_non_zero() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path err = dir.resolve("coordinator.err");
        Process p = new ProcessBuilder(javaBin, "-Xmx512m", "-cp", classpath, "org.replayfarm.cli.Replay", "node",
                "--role", "coordinator", "--host", "127.0.0.1", "--port", "0", "--http-port", "0", "--metrics-port", "0",
                "--work-dir", dir.resolve("coordinator").toString()).redirectError(err.toFile()).start();
        try {
            String first = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(first != null && first.startsWith("node akka://farm@"), first + "\n" + Files.readString(err));
            String address = first.split(" ")[1];
            String seed = address.substring(address.indexOf('@') + 1);
            try (FarmNode eval = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("eval"))
                    .withSeeds(List.of(seed)).withEvalThreads(1).withConfig(ConfigFactory.parseString(
                            "akka.coordinated-shutdown.exit-jvm = off")))) {
                NodeProcesses.awaitUp(eval, 2);
                Cluster.get(eval.system()).manager().tell(new Down(AddressFromURIString.parse(address)));
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the downed coordinator still runs");
            }
            assertEquals(2, p.exitValue(), Files.readString(err));
            assertTrue(Files.readString(err).contains("this node lost its cluster"), Files.readString(err));
        } finally {
            p.destroyForcibly();
        }
    }
}
