package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.FreePorts;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.job.Job;

/**
 * Three nodes in this JVM, each on its own loopback address (127.0.0.2-4, as pods have their own IPs),
 * form a cluster through Akka Management Cluster Bootstrap with no seed nodes: discovery "config" lists
 * their management endpoints, the same bootstrap code path Kubernetes takes with discovery
 * "kubernetes-api". The cluster then runs a job whose outputs equal replay eval's, and the health checks
 * answer over real HTTP.
 */
@Tag("cluster")
class BootstrapClusterTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    private static int status(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static long up(FarmNode node) {
        var state = Cluster.get(node.system()).state();
        return StreamSupport.stream(state.getMembers().spliterator(), false)
                .filter(m -> m.status() == MemberStatus.up()).count();
    }

    @Test
    void three_nodes_form_a_cluster_through_cluster_bootstrap_and_run_a_job_with_replay_evals_outputs() throws Exception {
        String[] hosts = {"127.0.0.2", "127.0.0.3", "127.0.0.4"};
        int[] mgmt = new int[hosts.length];
        List<String> points = new ArrayList<>();
        for (int i = 0; i < hosts.length; i++) {
            mgmt[i] = FreePorts.on(hosts[i]);
            points.add("\"" + hosts[i] + ":" + mgmt[i] + "\"");
        }
        Config common = ConfigFactory.parseString("""
                replay.cluster.discovery = config
                replay.cluster.contact-points = %s
                replay.cluster.required-contact-points = 3
                akka.management.cluster.bootstrap.contact-point-discovery.stable-margin = 1s
                akka.management.cluster.bootstrap.contact-point-discovery.interval = 200ms
                akka.management.cluster.bootstrap.contact-point.probe-interval = 200ms
                akka.cluster.split-brain-resolver.stable-after = 3s
                akka.coordinated-shutdown.exit-jvm = off
                akka.loglevel = WARNING
                """.formatted(points));
        List<FarmNode> nodes = new ArrayList<>();
        try {
            Config first = ConfigFactory.parseString("replay.cluster.management.port = " + mgmt[0]).withFallback(common);
            FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR), dir.resolve("c"))
                    .withAddress(hosts[0], 0).withHttp(hosts[0], 0).withSerializeMessages(true).withConfig(first));
            nodes.add(coordinator);
            String base0 = "http://" + hosts[0] + ":" + mgmt[0];
            assertTrue(coordinator.system().settings().config().getStringList("akka.cluster.seed-nodes").isEmpty(), "no seed nodes");
            // alone it finds one contact point of the three required: it must neither form a cluster nor say ready
            assertEquals(200, status(base0 + "/alive"), "alive as soon as the management endpoint is up");
            assertEquals(500, status(base0 + "/ready"), "not ready before the member is Up");
            assertEquals(0, up(coordinator), "no cluster is formed from one contact point of three");

            for (int i = 1; i < hosts.length; i++) {
                Config c = ConfigFactory.parseString("replay.cluster.management.port = " + mgmt[i]).withFallback(common);
                nodes.add(FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("e" + i))
                        .withAddress(hosts[i], 0).withEvalThreads(1).withSerializeMessages(true).withConfig(c)));
            }
            Await.until("every node seeing the three members Up", () -> nodes.stream().allMatch(n -> up(n) >= 3));
            for (FarmNode n : nodes) {
                assertEquals(3, up(n), "every node sees the three members Up: " + n.address());
            }
            for (int i = 0; i < hosts.length; i++) {
                String base = "http://" + hosts[i] + ":" + mgmt[i];
                assertEquals(200, status(base + "/ready"), "ready once Up: " + base);
                assertEquals(200, status(base + "/alive"), base);
                assertTrue(nodes.get(i).address().contains("@" + hosts[i] + ":"), nodes.get(i).address());
            }

            Await.until("both evaluators' shard regions known",
                    () -> coordinator.evaluatorRegions(java.time.Duration.ofSeconds(1)) >= 2);
            String sha = coordinator.jobs().storeCapture(TestCaptures.spin(dir, 12, 20_000));
            var done = new java.util.concurrent.CompletableFuture<org.replayfarm.coordinator.job.JobProgress>();
            coordinator.jobs().start("boot", sha, GroupSelection.everyGroup(),
                    org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET, dir.resolve("out"));
            coordinator.jobs().subscribe("boot", p -> {
                if (p.ended()) {
                    done.complete(p);
                }
            });
            var p = done.get(60, TimeUnit.SECONDS);
            assertEquals("finished", p.state(), p.error());
            assertEquals(12, p.groupsDone());
            Job.JobStats stats = coordinator.jobs().stats("boot").orElseThrow();
            assertEquals(2, stats.slicesByNode().size(), "both evaluators took slices: " + stats);
            TestCaptures.assertSameOutputs(TestCaptures.reference(TestCaptures.spin(dir, 12, 20_000),
                    GroupSelection.everyGroup(), dir.resolve("ref")), dir.resolve("out"));
        } finally {
            for (int i = nodes.size() - 1; i >= 0; i--) {
                nodes.get(i).close();
            }
        }
    }

    @Test
    void bad_discovery_settings_are_errors_naming_the_setting() {
        Config base = ConfigFactory.load();
        var e = assertThrows(IllegalArgumentException.class, () -> Bootstrap.akkaSettings(
                ConfigFactory.parseString("replay.cluster.discovery = dns").withFallback(base), "127.0.0.1"));
        assertTrue(e.getMessage().contains("replay.cluster.discovery") && e.getMessage().contains("'dns'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Bootstrap.akkaSettings(
                ConfigFactory.parseString("replay.cluster.discovery = config").withFallback(base), "127.0.0.1"));
        assertTrue(e.getMessage().contains("contact-points"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Bootstrap.akkaSettings(ConfigFactory.parseString(
                "replay.cluster { discovery = config, contact-points = [\"10.0.0.1\"] }").withFallback(base), "127.0.0.1"));
        assertTrue(e.getMessage().contains("'10.0.0.1' is not HOST:PORT"), e.getMessage());
        // seeds stays today's behaviour: no management endpoint, no bootstrap
        Bootstrap seeds = Bootstrap.of(FarmNode.config(FarmNode.Settings.of(Set.of("eval"), dir), 1));
        assertTrue(seeds.usesSeeds() && !seeds.managementEnabled());
        Config k8s = FarmNode.config(FarmNode.Settings.of(Set.of("eval"), dir)
                .withConfig(ConfigFactory.parseString("replay.cluster.discovery = kubernetes-api")), 1);
        assertEquals("kubernetes-api", k8s.getString(
                "akka.management.cluster.bootstrap.contact-point-discovery.discovery-method"));
        assertEquals("app=%s", k8s.getString("akka.discovery.kubernetes-api.pod-label-selector"));
        assertEquals("replay-farm", k8s.getString("akka.management.cluster.bootstrap.contact-point-discovery.service-name"));
        assertEquals(60, k8s.getDuration("akka.coordinated-shutdown.phases.cluster-sharding-shutdown-region.timeout").toSeconds());
    }
}
