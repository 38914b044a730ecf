package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.job.ClusterJobService;

/**
 * Artery over TLS with mutual authentication on loopback, with material keytool made as docs/operations.md says: a
 * coordinator and an evaluator with certificates the cluster's key signed run a job to replay eval's
 * outputs; a node with a self-signed certificate, and one without TLS, try to join meanwhile and never do.
 */
@Tag("cluster")
class ClusterTlsTest {
    @TempDir
    Path dir;

    private static final Config BASE = ConfigFactory.parseString("""
            akka.cluster.split-brain-resolver.stable-after = 3s
            akka.coordinated-shutdown.exit-jvm = off
            akka.loglevel = ERROR
            """);

    @Test
    void a_tls_cluster_runs_a_job_and_refuses_nodes_without_the_clusters_certificate() throws Exception {
        TlsMaterial tls = new TlsMaterial(dir.resolve("tls"));
        Path coordinatorKey = tls.node("coordinator");
        Path evaluatorKey = tls.node("eval-0");
        Path strangerKey = tls.stranger("stranger");
        Path capture = TestCaptures.histogram(dir);
        try (FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of("coordinator"), dir.resolve("coordinator"))
                .withSerializeMessages(true).withConfig(tls.settings(coordinatorKey).withFallback(BASE)))) {
            assertEquals("tls-tcp", coordinator.system().settings().config().getString("akka.remote.artery.transport"));
            List<String> seeds = List.of(coordinator.seed());
            // the strangers knock first: a self-signed certificate (trusting the cluster), and no TLS at all
            Config warn = ConfigFactory.parseString("akka.loglevel = WARNING").withFallback(BASE);
            try (FarmNode stranger = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("stranger"))
                    .withSeeds(seeds).withEvalThreads(1).withConfig(tls.settings(strangerKey).withFallback(warn)));
                 FarmNode plain = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("plain"))
                         .withSeeds(seeds).withEvalThreads(1).withConfig(warn));
                 FarmNode evaluator = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("eval-0"))
                         .withSeeds(seeds).withEvalThreads(1).withSerializeMessages(true)
                         .withConfig(tls.settings(evaluatorKey).withFallback(BASE)))) {
                java.util.Queue<String> strangerLog = logOf(stranger);
                java.util.Queue<String> plainLog = logOf(plain);
                Await.until("the evaluator's shard region known",
                        () -> coordinator.evaluatorRegions(java.time.Duration.ofSeconds(1)) >= 1);
                GroupSelection every = GroupSelection.everyGroup();
                Path out = dir.resolve("job");
                String id = runJob(coordinator, capture, every, out);
                TestCaptures.assertSameOutputs(TestCaptures.reference(capture, every, dir.resolve("expected")), out);
                assertTrue(id.startsWith("job-"));
                // the strangers keep knocking: wait (up to a minute) until each has logged its failure - the
                // self-signed node its refused handshakes, the plain one its failed joins (Akka warns from its
                // second seed-node-timeout of 5 s on), however fast the job above ran
                java.util.function.Predicate<String> refusal = m -> m.toLowerCase(java.util.Locale.ROOT)
                        .matches("(?s).*(ssl|certificat|handshake|tls).*");
                Await.until("the stranger's refused handshake and the plain node's failed join in their logs",
                        () -> strangerLog.stream().anyMatch(refusal) && !plainLog.isEmpty());
                Set<String> members = members(coordinator);
                assertEquals(Set.of(coordinator.address(), evaluator.address()), members,
                        "only the nodes with the cluster's certificates are members");
                assertFalse(upSelf(stranger), "the node with a self-signed certificate joined");
                assertFalse(upSelf(plain), "the node without TLS joined");
                // and not for want of trying: their connections failed (what they logged, at WARNING and above)
                List<String> tlsRefusals = strangerLog.stream().filter(refusal).toList();
                System.out.println("the self-signed node logged " + strangerLog.size() + " warning(s), e.g. "
                        + strangerLog.stream().limit(2).toList() + "; the node without TLS " + plainLog.size()
                        + ", e.g. " + plainLog.stream().limit(2).toList());
                assertFalse(tlsRefusals.isEmpty(), "the self-signed node's handshakes failed: " + strangerLog);
                assertFalse(plainLog.isEmpty(), "the node without TLS failed to connect: " + plainLog);
            }
        }
    }

    @Test
    void a_key_store_without_a_trust_store_or_password_is_refused_naming_what_is_missing() throws Exception {
        Path missing = dir.resolve("nope.p12");
        var noTrust = assertThrows(IllegalArgumentException.class, () -> ClusterTls.akkaSettings(ConfigFactory.parseString(
                "replay.cluster.tls { key-store = \"" + missing + "\", trust-store = \"\", password = x, password-file = \"\" }")));
        assertTrue(noTrust.getMessage().contains("trust-store"), noTrust.getMessage());
        java.nio.file.Files.writeString(missing, "not a store");
        var noPassword = assertThrows(IllegalArgumentException.class, () -> ClusterTls.akkaSettings(ConfigFactory.parseString(
                "replay.cluster.tls { key-store = \"" + missing + "\", trust-store = \"" + missing
                        + "\", password = \"\", password-file = \"\" }")));
        assertTrue(noPassword.getMessage().contains("password"), noPassword.getMessage());
        var noFile = assertThrows(IllegalArgumentException.class, () -> ClusterTls.akkaSettings(ConfigFactory.parseString(
                "replay.cluster.tls { key-store = \"" + dir.resolve("absent.p12") + "\", trust-store = \"" + missing
                        + "\", password = x, password-file = \"\" }")));
        assertTrue(noFile.getMessage().contains("absent.p12"), noFile.getMessage());
    }

    private static String runJob(FarmNode coordinator, Path capture, GroupSelection selection, Path out) throws Exception {
        ClusterJobService jobs = coordinator.jobs();
        String sha = jobs.storeCapture(capture);
        String id = "job-" + System.nanoTime();
        var end = new java.util.concurrent.CompletableFuture<org.replayfarm.coordinator.job.JobProgress>();
        jobs.start(id, sha, selection, org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET, out);
        try (AutoCloseable sub = jobs.subscribe(id, p -> {
            if (p.ended()) {
                end.complete(p);
            }
        })) {
            var p = end.get(90, TimeUnit.SECONDS);
            assertEquals("finished", p.state(), p.error());
        }
        return id;
    }

    /** The log events (WARNING and above) of {@code node} from now on, as text. */
    private static java.util.Queue<String> logOf(FarmNode node) {
        java.util.Queue<String> logged = new java.util.concurrent.ConcurrentLinkedQueue<>();
        akka.actor.ActorSystem classic = akka.actor.typed.javadsl.Adapter.toClassic(node.system());
        akka.actor.ActorRef collector = akka.actor.typed.javadsl.Adapter.toClassic(node.system().systemActorOf(
                collect(logged), "log-collector", akka.actor.typed.Props.empty()));
        classic.getEventStream().subscribe(collector, akka.event.Logging.Warning.class);
        classic.getEventStream().subscribe(collector, akka.event.Logging.Error.class);
        return logged;
    }

    /** Collects the log events it is sent (with their causes) as text. */
    private static akka.actor.typed.Behavior<Object> collect(java.util.Queue<String> into) {
        return akka.actor.typed.javadsl.Behaviors.receiveMessage(m -> {
            if (m instanceof akka.event.Logging.LogEvent e) {
                StringBuilder b = new StringBuilder(String.valueOf(e.message()));
                if (e instanceof akka.event.Logging.Error err) {
                    for (Throwable t = err.cause(); t != null; t = t.getCause()) {
                        b.append(" / ").append(t);
                    }
                }
                into.add(b.toString());
            }
            return akka.actor.typed.javadsl.Behaviors.same();
        });
    }

    private static Set<String> members(FarmNode node) {
        var state = Cluster.get(node.system()).state();
        return StreamSupport.stream(state.getMembers().spliterator(), false)
                .map(m -> m.address().toString()).collect(java.util.stream.Collectors.toSet());
    }

    private static boolean upSelf(FarmNode node) {
        return Cluster.get(node.system()).selfMember().status() == MemberStatus.up();
    }
}
