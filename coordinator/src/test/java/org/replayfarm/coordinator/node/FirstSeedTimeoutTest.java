package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that names itself first among several seeds (a coordinator restarted into a running cluster, as
 * docs/operations.md says) is Akka's first seed: when no other seed answers within seed-node-timeout it forms a cluster of its
 * own and never sees the evaluators. Its timeout is raised from Akka's 5 s; other nodes keep Akka's.
 */
@Tag("cluster")
class FirstSeedTimeoutTest {
    @TempDir
    Path dir;

    private Duration timeout(FarmNode.Settings s) {
        return FarmNode.config(s, 1).getDuration("akka.cluster.seed-node-timeout");
    }

    private FarmNode.Settings node(List<String> seeds) {
        return FarmNode.Settings.of(Set.of("coordinator"), dir).withAddress("127.0.0.1", 25520).withSeeds(seeds);
    }

    @Test
    void a_node_naming_itself_first_among_several_seeds_waits_longer_for_the_others() {
        assertEquals(Duration.ofSeconds(30), timeout(node(List.of("127.0.0.1:25520", "127.0.0.1:25521"))));
    }

    @Test
    void other_nodes_keep_akkas_default_and_the_nodes_own_config_wins() {
        assertEquals(Duration.ofSeconds(5), timeout(node(List.of("127.0.0.1:25521", "127.0.0.1:25520"))),
                "itself not first: it never forms a cluster of its own");
        assertEquals(Duration.ofSeconds(5), timeout(node(List.of("127.0.0.1:25520"))), "itself the only seed");
        assertEquals(Duration.ofSeconds(5), timeout(node(List.of())), "no seeds");
        assertEquals(Duration.ofSeconds(12), timeout(node(List.of("127.0.0.1:25520", "127.0.0.1:25521"))
                .withConfig(ConfigFactory.parseString("akka.cluster.seed-node-timeout = 12s"))));
    }
}
