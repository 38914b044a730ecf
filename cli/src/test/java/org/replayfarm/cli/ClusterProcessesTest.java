package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.cluster.FarmNode;
import org.replayfarm.coordinator.cluster.Job;
import org.replayfarm.coordinator.jobs.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.model.testing.Toolchain;

/**
 * Evaluators as separate JVMs ({@code replay node --role eval}) joined to a coordinator: one is killed
 * with SIGKILL mid-job and a third joins mid-job; the job completes, every group counted once, with
 * replay eval's outputs, and the newcomer gets slices.
 */
class ClusterProcessesTest {
    static final String SPIN = """
            __kernel void spin(__global uint *out, uint iters) {
                uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
                uint x = i;
                for (uint k = 0; k < iters; k++) {
                    x = x * 1664525u + 1013904223u;
                }
                out[i] = x;
            }
            """;

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stopProcesses() {
        processes.forEach(Process::destroyForcibly);
    }

    /** Starts {@code replay node --role eval} in a new JVM and returns its cluster address once it printed it. */
    private String evaluator(String seed, Path config, int n) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-cp", classpath, "org.replayfarm.cli.Replay", "node",
                "--role", "eval", "--host", "127.0.0.1", "--port", "0", "--seed", seed, "--threads", "1", "--metrics-port", "0",
                "--config", config.toString(), "--work-dir", dir.resolve("eval-" + n).toString());
        pb.redirectError(dir.resolve("eval-" + n + ".err").toFile());
        Process p = pb.start();
        processes.add(p);
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                return r.readLine();
            } catch (Exception e) {
                return null;
            }
        });
        String first = line.get(60, TimeUnit.SECONDS);
        if (first == null || !first.startsWith("node akka://farm@")) {
            fail("evaluator " + n + " did not start: " + first + "\n" + Files.readString(dir.resolve("eval-" + n + ".err")));
        }
        return first.split(" ")[1];
    }

    private static void awaitUp(FarmNode node, int members) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            var state = Cluster.get(node.system()).state();
            long up = StreamSupport.stream(state.getMembers().spliterator(), false)
                    .filter(m -> m.status() == MemberStatus.up()).count();
            if (up == members && state.getUnreachable().isEmpty()) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling a condition
        }
        fail("the cluster did not reach " + members + " members up");
    }

    @Test
    void an_evaluator_killed_mid_job_and_one_joining_mid_job_leave_the_outputs_those_of_replay_eval() throws Exception {
        Path object = Toolchain.compileOpenCl(dir, "spin", SPIN, "-O2");
        Path capture = dir.resolve("spin.capture");
        int groups = 100;
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "spin", "--groups",
                String.valueOf(groups), "--group-size", "64", "--arg", "zeros:" + groups * 64 * 4, "--arg", "u32:150000",
                "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        Path config = dir.resolve("node.conf");
        Files.writeString(config, """
                akka.cluster.split-brain-resolver.stable-after = 2s
                akka.remote.artery.advanced.aeron.give-up-message-after = 5s
                akka.cluster.failure-detector.acceptable-heartbeat-pause = 2s
                replay.coordinator.slice-target = 500ms
                """);
        try (FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR), dir.resolve("coordinator"))
                .withConfig(ConfigFactory.parseFile(config.toFile())))) {
            awaitUp(coordinator, 1);
            String first = evaluator(coordinator.seed(), config, 1);
            awaitUp(coordinator, 2);
            String second = evaluator(coordinator.seed(), config, 2);
            awaitUp(coordinator, 3);

            String sha = coordinator.jobs().storeCapture(capture);
            CompletableFuture<JobProgress> end = new CompletableFuture<>();
            CompletableFuture<JobProgress> started = new CompletableFuture<>();
            coordinator.jobs().start("farm", sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, dir.resolve("out"));
            coordinator.jobs().subscribe("farm", p -> {
                if (p.groupsDone() >= 4) {
                    started.complete(p);
                }
                if (p.ended()) {
                    end.complete(p);
                }
            });
            started.get(60, TimeUnit.SECONDS);
            String third = evaluator(coordinator.seed(), config, 3);
            awaitUp(coordinator, 4);
            long before = coordinator.jobs().progress("farm").orElseThrow().groupsDone();
            processes.get(1).destroyForcibly(); // SIGKILL the second evaluator: no leaving, no goodbye
            JobProgress done = end.get(120, TimeUnit.SECONDS);
            assertEquals("finished", done.state(), done.error());
            assertEquals(groups, done.groupsDone());
            Job.JobStats stats = coordinator.jobs().stats("farm").orElseThrow();
            assertTrue(stats.slicesByNode().getOrDefault(third, 0L) > 0, "the node that joined mid-job got slices: " + stats);
            assertTrue(stats.slicesByNode().containsKey(first), stats.toString());
            assertTrue(before < groups, "the kill came mid-job");
            assertTrue(stats.resent() >= 1, "the killed node's slices were sent again: " + stats);
            assertEquals(0, stats.nondeterministic());
            assertTrue(second.startsWith("akka://farm@127.0.0.1:"), second);
        }
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("ref").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        // a job writes replay run's outputs: they hold replay eval's (the reference), byte for byte
        RunCommandTest.assertHoldsEvalFiles(dir.resolve("ref"), dir.resolve("out"), true);
    }
}
