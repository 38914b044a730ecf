package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.replayfarm.model.testing.FreePorts;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.EvalGate;

/**
 * The coordinator as a real process, SIGKILLed mid-job (kill -9: no leaving, no last write) while {@code
 * replay watch} follows the job, and started again on the same work directory (its journal) with --seed
 * naming itself and the surviving evaluator: the watch reconnects and ends with the job finished, the
 * outputs equal replay eval's (an atomic counter shows nothing was counted twice), and a job accepted just
 * before the kill is still known.
 */
@Tag("cluster")
class CoordinatorKillTest {
    static final String SPIN_COUNT = """
            __kernel void spinc(__global uint *out, __global uint *count, uint iters) {
                uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
                uint x = i;
                for (uint k = 0; k < iters; k++) {
                    x = x * 1664525u + 1013904223u;
                }
                out[i] = x;
                __atomic_fetch_add(count, 1u, __ATOMIC_RELAXED);
            }
            """;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void a_coordinator_killed_mid_job_and_restarted_on_its_journal_finishes_it_under_a_reconnecting_watch()
            throws Exception {
        int groups = 30;
        Path object = Toolchain.compileOpenCl(dir, "spinc", SPIN_COUNT, "-O2");
        Path capture = dir.resolve("spinc.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "spinc", "--groups",
                String.valueOf(groups), "--group-size", "64", "--arg", "zeros:" + groups * 64 * 4, "--arg", "zeros:4",
                "--arg", "u32:60000", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        Path config = Files.writeString(dir.resolve("node.conf"), """
                akka.cluster.split-brain-resolver.stable-after = 2s
                akka.cluster.failure-detector.acceptable-heartbeat-pause = 2s
                replay.coordinator.slice-target = 300ms
                """);
        // a two-node cluster split one to one keeps the side with the lowest address: the evaluator's port is
        // the lower, so it is the side that survives the coordinator (with more evaluators the majority does)
        int[] ports = freePorts(3);
        int evalPort = Math.min(ports[0], ports[1]);
        int coordinatorPort = Math.max(ports[0], ports[1]);
        int httpPort = ports[2];
        String url = "http://127.0.0.1:" + httpPort;
        Path work = dir.resolve("coordinator");
        List<Process> started = new ArrayList<>();
        try {
            Process first = coordinator(work, coordinatorPort, httpPort, config, List.of(), "first", started);
            try (FarmNode eval = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("eval"))
                    .withAddress("127.0.0.1", evalPort).withSeeds(List.of("127.0.0.1:" + coordinatorPort))
                    .withEvalThreads(1).withConfig(ConfigFactory.parseFile(config.toFile()).withFallback(
                            ConfigFactory.parseString("akka.coordinated-shutdown.exit-jvm = off"))
                            .withFallback(EvalGate.config("coordinator-kill"))));
                 EvalGate gate = EvalGate.named("coordinator-kill")) {
                NodeProcesses.awaitUp(eval, 2);
                // the evaluator's groups wait at its gate: never all 30 go through before the kill, so the
                // kill comes mid-job because the test holds the job there
                gate.hold();
                CliRun submit = CliRun.of("submit", capture.toString(), "--coordinator", url, "--every-group");
                assertEquals(0, submit.exitCode(), submit.err());
                String job = submit.out().trim();
                CompletableFuture<CliRun> watch = CompletableFuture.supplyAsync(() ->
                        CliRun.of("watch", job, "--coordinator", url));
                gate.releaseUntil(groups, () -> groupsDone(url, job) >= 4); // the fetch and at most 29 groups
                long done = Await.value("job " + job + " with 4 groups done", () -> groupsDone(url, job), d -> d >= 4);
                // one more job, accepted (201) just before the kill: the journal has it
                CliRun late = CliRun.of("submit", capture.toString(), "--coordinator", url, "--group", "0");
                assertEquals(0, late.exitCode(), late.err());
                String lateJob = late.out().trim();
                first.destroyForcibly(); // SIGKILL
                assertTrue(first.waitFor(30, TimeUnit.SECONDS));
                assertEquals(137, first.exitValue(), "killed by SIGKILL");
                assertTrue(done < groups, "the kill came mid-job");
                gate.open(); // the evaluator finishes what it holds while no coordinator runs

                coordinator(work, coordinatorPort, httpPort, config,
                        List.of("127.0.0.1:" + coordinatorPort, "127.0.0.1:" + evalPort), "second", started);
                CliRun watched;
                try {
                    watched = watch.get(300, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("the watch did not end within 300 s of the restart; the restarted "
                            + "coordinator's log:\n" + Files.readString(dir.resolve("second.err")), e);
                }
                assertEquals(0, watched.exitCode(), watched.out() + watched.err());
                assertTrue(watched.out().contains("job " + job + " finished: " + groups + " groups"), watched.out());
                assertTrue(watched.err().contains("reconnecting"), "the watch said it reconnected: " + watched.err());
                JsonNode lateState = get(url + "/jobs/" + lateJob);
                assertEquals(lateJob, lateState.path("job").asText(), lateState.toString());

                Path out = dir.resolve("out");
                CliRun results = CliRun.of("results", job, "--coordinator", url, "--out", out.toString());
                assertEquals(0, results.exitCode(), results.err());
                CliRun eval2 = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("ref").toString());
                assertEquals(0, eval2.exitCode(), eval2.err());
                RunCommandTest.assertHoldsEvalFiles(dir.resolve("ref"), out, true);
                byte[] counter = Files.readAllBytes(out.resolve("host").resolve("guest-1.bin"));
                assertEquals(groups * 64, java.nio.ByteBuffer.wrap(counter).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(),
                        "every work-item counted once");
            }
        } finally {
            started.forEach(Process::destroyForcibly);
        }
    }

    private Process coordinator(Path work, int port, int httpPort, Path config, List<String> seeds, String name,
                                List<Process> started) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-cp", classpath, "org.replayfarm.cli.Replay",
                "node", "--role", "coordinator", "--host", "127.0.0.1", "--port", String.valueOf(port), "--http-port",
                String.valueOf(httpPort), "--metrics-port", "0", "--config", config.toString(), "--work-dir", work.toString()));
        for (String s : seeds) {
            command.addAll(List.of("--seed", s));
        }
        Path err = dir.resolve(name + ".err");
        Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
        started.add(p);
        NodeProcesses.awaitNodeLine(p, err);
        return p;
    }

    private long groupsDone(String url, String job) throws Exception {
        return get(url + "/jobs/" + job).path("groups_done").asLong();
    }

    private JsonNode get(String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url + ": " + r.body());
        return new ObjectMapper().readTree(r.body());
    }

    /** n distinct loopback ports free at the time of asking, ascending (also used by CoordinatorFailoverTest). */
    static int[] freePorts(int n) {
        return FreePorts.loopback(n);
    }
}
