package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.job.PostgresServer;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.EvalGate;

/**
 * Two coordinator-role nodes as real processes, one journal on a real PostgreSQL server and one storage
 * directory: the older one is active (the job service is a Cluster Singleton), the other stands by
 * ({@code replay status} says so, and names the active one's URL, which the cluster told it) and forwards
 * every request there: the job is submitted and watched with only the standby's address. The active one is
 * SIGKILLed mid-job while {@code replay watch} follows the job through the standby: the split-brain resolver downs it, the singleton starts on the other, which reads the job
 * back from the journal and resumes it (the slices merged before the kill are not evaluated again); the
 * watch reaches it and ends finished; the outputs equal replay eval's and an atomic counter shows nothing
 * was counted twice; {@code replay purge} then removes the ended job and its outputs.
 */
@Tag("cluster")
class CoordinatorFailoverTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void killing_the_active_coordinator_mid_job_lets_the_standby_resume_and_finish_it() throws Exception {
        int groups = 30;
        Path object = Toolchain.compileOpenCl(dir, "spinc", CoordinatorKillTest.SPIN_COUNT, "-O2");
        Path capture = dir.resolve("spinc.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "spinc", "--groups",
                String.valueOf(groups), "--group-size", "64", "--arg", "zeros:" + groups * 64 * 4, "--arg", "zeros:4",
                "--arg", "u32:60000", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        try (PostgresServer pg = new PostgresServer()) {
            Path config = Files.writeString(dir.resolve("node.conf"), """
                    akka.cluster.split-brain-resolver.stable-after = 2s
                    akka.cluster.failure-detector.acceptable-heartbeat-pause = 2s
                    replay.coordinator.slice-target = 300ms
                    replay.coordinator.journal.url = "%s"
                    replay.coordinator.journal.user = "replay"
                    """.formatted(pg.url()));
            int[] ports = CoordinatorKillTest.freePorts(4);
            String urlA = "http://127.0.0.1:" + ports[2];
            String urlB = "http://127.0.0.1:" + ports[3];
            String both = urlA + "," + urlB;
            Path storage = dir.resolve("storage");
            List<Process> started = new ArrayList<>();
            try {
                Process a = coordinator("a", ports[0], ports[2], config, storage, List.of(), started);
                Process b = coordinator("b", ports[1], ports[3], config, storage, List.of("127.0.0.1:" + ports[0]), started);
                try (FarmNode eval = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("eval"))
                        .withSeeds(List.of("127.0.0.1:" + ports[0])).withEvalThreads(1)
                        .withConfig(ConfigFactory.parseFile(config.toFile()).withFallback(
                                ConfigFactory.parseString("akka.coordinated-shutdown.exit-jvm = off"))
                                .withFallback(EvalGate.config("coordinator-failover"))));
                     EvalGate gate = EvalGate.named("coordinator-failover")) {
                    NodeProcesses.awaitUp(eval, 3);
                    assertEquals(200, get(urlA + "/jobs").statusCode(), "the older one is active");
                    // the younger stands by and says so (its own /status, replay status); the cluster told it where the
                    // active one's API is, and the shared PostgreSQL journal draws no warning
                    CliRun status = Await.value("the standby learning the active one's URL",
                            () -> CliRun.of("status", "--coordinator", urlB), r -> r.out().contains("active coordinator: " + urlA));
                    assertEquals(0, status.exitCode(), status.err());
                    assertTrue(status.out().contains(urlB + "  ") && status.out().contains("standby")
                            && status.out().contains("journal postgresql"), status.out());
                    assertTrue(!status.out().contains("warning"), "one shared PostgreSQL journal: nothing to warn of: " + status.out());
                    HttpResponse<String> standby = get(urlB + "/jobs");
                    assertEquals(200, standby.statusCode(), "the standby forwards to the active one: " + standby.body());
                    assertEquals(java.util.Optional.of(urlB), standby.headers().firstValue("X-Replay-Forwarded-By"));
                    assertTrue(Files.isDirectory(dir.resolve("work-a").resolve("uploads")),
                            "replay node spools uploads in its work directory, not java.io.tmpdir");

                    // a client given only the standby's address submits and watches through it. The evaluator's groups
                    // wait at its gate: never all 30 go through before the kill, so it comes mid-job because the
                    // test holds the job there
                    gate.hold();
                    CliRun submit = CliRun.of("submit", capture.toString(), "--coordinator", urlB, "--every-group");
                    assertEquals(0, submit.exitCode(), submit.err());
                    String job = submit.out().trim();
                    CompletableFuture<CliRun> watch = CompletableFuture.supplyAsync(() ->
                            CliRun.of("watch", job, "--coordinator", urlB));
                    gate.releaseUntil(groups, () -> groupsDone(urlA, job) >= 4); // the fetch and at most 29 groups
                    long done = Await.value("job " + job + " with 4 groups done", () -> groupsDone(urlA, job), d -> d >= 4);
                    a.destroyForcibly(); // SIGKILL the active coordinator
                    assertTrue(a.waitFor(30, TimeUnit.SECONDS));
                    assertEquals(137, a.exitValue(), "killed by SIGKILL");
                    assertTrue(done < groups, "the kill came mid-job");
                    gate.open(); // the evaluator finishes what it holds while the standby takes over

                    CliRun watched = watch.get(300, TimeUnit.SECONDS);
                    assertEquals(0, watched.exitCode(), watched.out() + watched.err());
                    assertTrue(watched.out().contains("job " + job + " finished: " + groups + " groups"), watched.out());
                    assertTrue(watched.err().contains("reconnecting"), "the watch said it reconnected: " + watched.err());
                    assertEquals(200, get(urlB + "/jobs/" + job).statusCode(), "the standby took over");

                    Path out = dir.resolve("out");
                    CliRun results = CliRun.of("results", job, "--coordinator", both, "--out", out.toString());
                    assertEquals(0, results.exitCode(), results.err());
                    CliRun reference = CliRun.of("eval", capture.toString(), "--every-group", "--out",
                            dir.resolve("ref").toString());
                    assertEquals(0, reference.exitCode(), reference.err());
                    RunCommandTest.assertHoldsEvalFiles(dir.resolve("ref"), out, true);
                    byte[] counter = Files.readAllBytes(out.resolve("host").resolve("guest-1.bin"));
                    assertEquals(groups * 64, java.nio.ByteBuffer.wrap(counter).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                            .getInt(), "every work-item counted once");
                    String log = Files.readString(dir.resolve("b.err"));
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                            "job " + job + ": resumed from its journal: (\\d+) of " + groups).matcher(log);
                    assertTrue(m.find(), "the standby resumed the job from the journal:\n" + log);
                    assertTrue(Integer.parseInt(m.group(1)) > 0, "slices merged before the kill were kept: " + m.group());
                    assertTrue(b.isAlive(), "the new active coordinator runs");

                    // an ended job purged (replay purge): gone from the list, its folder in the shared storage deleted
                    assertTrue(Files.isDirectory(storage.resolve("jobs").resolve(job)));
                    CliRun purge = CliRun.of("purge", job, "--coordinator", both);
                    assertEquals(0, purge.exitCode(), purge.err());
                    assertEquals("job " + job + " purged", purge.out().trim());
                    assertEquals(404, get(urlB + "/jobs/" + job).statusCode());
                    assertTrue(!Files.exists(storage.resolve("jobs").resolve(job)), "its outputs are deleted");
                    CliRun again = CliRun.of("purge", job, "--coordinator", urlB);
                    assertEquals(2, again.exitCode(), again.out());
                    assertTrue(again.err().contains("no job '" + job + "'"), again.err());
                }
            } finally {
                started.forEach(Process::destroyForcibly);
                for (Process p : started) {
                    p.waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    private Process coordinator(String name, int port, int httpPort, Path config, Path storage, List<String> seeds,
                                List<Process> started) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-cp", classpath, "org.replayfarm.cli.Replay",
                "node", "--role", "coordinator", "--host", "127.0.0.1", "--port", String.valueOf(port), "--http-port",
                String.valueOf(httpPort), "--metrics-port", "0", "--config", config.toString(), "--work-dir",
                dir.resolve("work-" + name).toString(), "--storage-dir", storage.toString()));
        for (String s : seeds) {
            command.addAll(List.of("--seed", s));
        }
        Path err = dir.resolve(name + ".err");
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile());
        pb.environment().put("REPLAY_LOG_LEVEL", "INFO");
        Process p = pb.start();
        started.add(p);
        NodeProcesses.awaitNodeLine(p, err);
        return p;
    }

    private long groupsDone(String url, String job) throws Exception {
        HttpResponse<String> r = get(url + "/jobs/" + job);
        assertEquals(200, r.statusCode(), r.body());
        return new ObjectMapper().readTree(r.body()).path("groups_done").asLong();
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
