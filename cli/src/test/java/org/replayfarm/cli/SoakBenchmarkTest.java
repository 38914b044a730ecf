package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.coordinator.http.JobRequest;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.cli.client.CoordinatorClient;

/**
 * The soak (a benchmark, not in the regular suite: {@code -Dreplay.soak=true}): {@code replay.soak.jobs}
 * (200) jobs from {@code replay.soak.clients} (10) parallel clients over the HTTP API, while one of two
 * evaluator processes is SIGKILLed and started again every {@code replay.soak.kill-every} (20) seconds,
 * bounded to 10 minutes. Every job must finish with outputs equal to replay eval's (an atomic counter
 * included: nothing counted twice). Prints the figures.
 *
 * <pre>mvn -o -q -B -pl cli -am test -Dtest=SoakBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false -Dreplay.soak=true</pre>
 */
@EnabledIfSystemProperty(named = "replay.soak", matches = "true")
@Tag("cluster")
class SoakBenchmarkTest {
    @TempDir
    Path dir;

    @Test
    void every_job_of_the_soak_is_exact_while_an_evaluator_is_killed_and_restarted() throws Exception {
        int jobs = Integer.getInteger("replay.soak.jobs", 200);
        int clients = Integer.getInteger("replay.soak.clients", 10);
        long killEvery = Long.getLong("replay.soak.kill-every", 20);
        long bound = TimeUnit.MINUTES.toNanos(10);
        int groups = 16;
        Path object = Toolchain.compileOpenCl(dir, "spinc", CoordinatorKillTest.SPIN_COUNT, "-O2");
        Path capture = dir.resolve("spinc.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "spinc", "--groups",
                String.valueOf(groups), "--group-size", "64", "--arg", "zeros:" + groups * 64 * 4, "--arg", "zeros:4",
                "--arg", "u32:20000", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        CliRun ref = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("ref").toString());
        assertEquals(0, ref.exitCode(), ref.err());
        byte[] out0 = Files.readAllBytes(dir.resolve("ref/host/guest-0.bin"));
        byte[] out1 = Files.readAllBytes(dir.resolve("ref/host/guest-1.bin"));
        assertEquals(groups * 64, java.nio.ByteBuffer.wrap(out1).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt());

        Path config = Files.writeString(dir.resolve("node.conf"), """
                akka.cluster.split-brain-resolver.stable-after = 2s
                akka.cluster.failure-detector.acceptable-heartbeat-pause = 2s
                replay.coordinator.slice-target = 200ms
                """);
        try (FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of("coordinator"), dir.resolve("coordinator"))
                .withConfig(ConfigFactory.parseFile(config.toFile()).withFallback(ConfigFactory.parseString(
                        "akka.coordinated-shutdown.exit-jvm = off\nreplay.metrics.enabled = off")))
                .withRoutes(s -> List.of(ApiRoutes.routes(s, ApiRoutes.Limits.defaults()))));
             NodeProcesses evaluators = new NodeProcesses(dir)) {
            String seed = coordinator.seed();
            evaluators.evaluator(seed, config, 0, Map.of(), "--metrics-port", "0");
            evaluators.evaluator(seed, config, 1, Map.of(), "--metrics-port", "0");
            NodeProcesses.awaitUp(coordinator, 3);
            String url = coordinator.httpUrl();
            String sha = new CoordinatorClient(url).upload(capture);

            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger kills = new AtomicInteger();
            Thread killer = new Thread(() -> {
                int n = 1;
                int index = 1; // the process index of the evaluator killed next
                long next = System.nanoTime() + TimeUnit.SECONDS.toNanos(killEvery);
                try {
                    while (running.get()) {
                        // a kill every killEvery seconds from the start (at once after a restart that took longer)
                        while (running.get() && System.nanoTime() < next) {
                            TimeUnit.MILLISECONDS.sleep(100); // the soak benchmark (opt-in) kills on a wall-clock schedule by design
                        }
                        if (!running.get()) {
                            return;
                        }
                        Process p = evaluators.process(index);
                        p.destroyForcibly(); // SIGKILL
                        p.waitFor(30, TimeUnit.SECONDS);
                        kills.incrementAndGet();
                        next += TimeUnit.SECONDS.toNanos(killEvery);
                        n++;
                        evaluators.evaluator(seed, config, n, Map.of(), "--metrics-port", "0");
                        index = n; // processes are numbered in start order: 0, 1, then one per restart
                    }
                } catch (Exception e) {
                    if (running.get()) {
                        throw new IllegalStateException(e);
                    }
                }
            }, "soak-killer");
            killer.setDaemon(true);

            long start = System.nanoTime();
            killer.start();
            AtomicInteger next = new AtomicInteger();
            List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
            Map<String, String> wrong = new ConcurrentHashMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                done.add(pool.submit(() -> {
                    CoordinatorClient client = new CoordinatorClient(url);
                    for (int i = next.getAndIncrement(); i < jobs; i = next.getAndIncrement()) {
                        if (System.nanoTime() - start > bound) {
                            wrong.put("job #" + i, "not started within the 10-minute bound");
                            continue;
                        }
                        long t0 = System.nanoTime();
                        String id = client.start(new JobRequest(sha, GroupSelection.everyGroup()));
                        JobProgress p;
                        do {
                            TimeUnit.MILLISECONDS.sleep(100); // polling the job's state: the benchmark measures its latency on the wall clock
                            p = client.progress(id);
                        } while (!p.ended() && System.nanoTime() - start < bound);
                        latencies.add(System.nanoTime() - t0);
                        if (!p.state().equals("finished")) {
                            wrong.put(id, "ended " + p.state() + ": " + p.error());
                            continue;
                        }
                        Path got = Files.createDirectories(dir.resolve("results").resolve(id));
                        client.download(id, "host/guest-0.bin", got.resolve("guest-0.bin"));
                        client.download(id, "host/guest-1.bin", got.resolve("guest-1.bin"));
                        if (!Arrays.equals(out0, Files.readAllBytes(got.resolve("guest-0.bin")))
                                || !Arrays.equals(out1, Files.readAllBytes(got.resolve("guest-1.bin")))) {
                            wrong.put(id, "outputs differ from replay eval's");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(11, TimeUnit.MINUTES);
            }
            double wall = (System.nanoTime() - start) / 1e9;
            running.set(false);
            killer.join(60_000);
            pool.shutdownNow();
            long resent = 0;
            long duplicates = 0;
            for (var e : coordinator.jobs().jobs()) {
                var st = coordinator.jobs().stats(e.getKey().jobId());
                if (st.isPresent()) {
                    resent += st.get().resent();
                    duplicates += st.get().duplicates();
                }
            }
            List<Long> sorted = new ArrayList<>(latencies);
            Collections.sort(sorted);
            System.out.printf(java.util.Locale.ROOT, "soak: %d jobs (%d groups each) from %d clients in %.1f s (%.1f jobs/min); "
                            + "%d evaluator kills (every %d s); latency p50 %.2f s, p95 %.2f s, max %.2f s; %d slices re-sent, "
                            + "%d duplicate results counted once; %d exact, %d wrong%n",
                    jobs, groups, clients, wall, jobs / wall * 60, kills.get(), killEvery,
                    sorted.get(sorted.size() / 2) / 1e9, sorted.get((int) (sorted.size() * 0.95)) / 1e9,
                    sorted.get(sorted.size() - 1) / 1e9, resent, duplicates, jobs - wrong.size(), wrong.size());
            assertTrue(wrong.isEmpty(), "every job exact: " + wrong);
            assertTrue(wall * 1e9 < bound + TimeUnit.MINUTES.toNanos(1), "bounded to 10 minutes: " + wall + " s");
        }
    }
}
