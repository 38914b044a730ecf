package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.job.Job;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.EvalGate;

/**
 * Evaluators as separate JVMs ({@code replay node --role eval}) joined to a coordinator: a third joins
 * mid-job, then one is killed with SIGKILL mid-job; the job completes, every group counted once, with
 * replay eval's outputs, and the newcomer gets slices.
 */
@Tag("cluster")
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

    /**
     * {@link #SPIN} compiled by clang-19 and built into DIR/NAME.capture: {@code groups} groups of 64 lanes, each
     * lane looping {@code iterations} times.
     */
    static Path spinCapture(Path dir, String name, int groups, int iterations) throws Exception {
        Path object = Toolchain.compileOpenCl(dir, "spin", SPIN, "-O2");
        Path capture = dir.resolve(name + ".capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "spin", "--groups",
                String.valueOf(groups), "--group-size", "64", "--arg", "zeros:" + groups * 64 * 4, "--arg",
                "u32:" + iterations, "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        return capture;
    }

    private NodeProcesses nodes;

    @BeforeEach
    void startProcesses() {
        nodes = new NodeProcesses(dir);
    }

    @AfterEach
    void stopProcesses() {
        nodes.close();
    }

    @Test
    void an_evaluator_killed_mid_job_and_one_joining_mid_job_leave_the_outputs_those_of_replay_eval() throws Exception {
        int groups = 300;
        Path capture = spinCapture(dir, "spin", groups, 150000);
        Path config = dir.resolve("node.conf");
        Files.writeString(config, """
                akka.cluster.split-brain-resolver.stable-after = 2s
                akka.remote.artery.advanced.aeron.give-up-message-after = 5s
                akka.cluster.failure-detector.acceptable-heartbeat-pause = 2s
                replay.coordinator.slice-target = 500ms
                """ + EvalGate.processConfig(dir.resolve("gate")));
        // the two evaluator JVMs start side by side
        try (NodeProcesses.Farm farm = nodes.farm(config, 2, Map.of(), "--metrics-port", "0")) {
            FarmNode coordinator = farm.coordinator();
            String first = farm.evaluators().get(0);
            String second = farm.evaluators().get(1);
            Await.until("the sharding coordinator knowing both evaluators",
                    () -> coordinator.evaluatorRegions(java.time.Duration.ofSeconds(1)) >= 2);

            String sha = coordinator.jobs().storeCapture(capture);
            CompletableFuture<JobProgress> end = NodeProcesses.startJob(coordinator, "farm", sha, dir.resolve("out"));
            CompletableFuture<JobProgress> started = new CompletableFuture<>();
            coordinator.jobs().subscribe("farm", p -> {
                if (p.groupsDone() >= 4) {
                    started.complete(p);
                }
            });
            started.get(120, TimeUnit.SECONDS);
            // from here the first two evaluators' groups wait at their gates: the job is held part done, so the third
            // gets slices and the second holds some when it is killed, because the test holds the job there
            long firstPid = nodes.process(0).pid();
            EvalGate.holdProcess(dir.resolve("gate"), firstPid);
            EvalGate.holdProcess(dir.resolve("gate"), nodes.process(1).pid());
            long t0 = System.nanoTime();
            // a third node joins mid-job, while both others work: it joins before the kill, since a member
            // joining while another is unreachable is not made Up until that one is downed and removed, which
            // left it too little of the job on a loaded machine
            String third = nodes.evaluator(coordinator.seed(), config, 3, Map.of(), "--metrics-port", "0");
            NodeProcesses.awaitUp(coordinator, 4);
            nodes.awaitCaptureFetched(3, sha); // the job gave the newcomer a slice
            long thirdWorking = System.nanoTime();
            nodes.awaitCaptureFetched(2, sha); // the second must hold a slice when it is killed
            JobProgress atKill = coordinator.jobs().progress("farm").orElseThrow();
            assertTrue(!atKill.ended(), "the job was still running when the newcomer had its first slice");
            long before = atKill.groupsDone();
            nodes.process(1).destroyForcibly(); // SIGKILL the second evaluator: no leaving, no goodbye
            // the job goes on with the first and the third while the split-brain resolver downs the second
            NodeProcesses.awaitGone(coordinator, second);
            EvalGate.releaseProcess(dir.resolve("gate"), firstPid);
            JobProgress done = end.get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals("finished", done.state(), done.error());
            assertEquals(groups, done.groupsDone());
            Job.JobStats stats = coordinator.jobs().stats("farm").orElseThrow();
            System.out.printf("the third had a slice %.1f s after %d groups were done; killed the second at %d groups "
                    + "done; the job ended %.1f s after the third had its slice; %s%n", (thirdWorking - t0) / 1e9,
                    started.get().groupsDone(), before, (System.nanoTime() - thirdWorking) / 1e9, stats);
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
