package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.job.Job;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.coordinator.node.EvalGate;

/**
 * An evaluator JVM frozen mid-job (SIGSTOP, as a long GC pause or a suspended VM freezes one) and thawed
 * (SIGCONT) after the split-brain resolver has downed it: the slices it held are sent again, the job finishes
 * on the other evaluator with every group counted once and replay eval's outputs, and the thawed node, no
 * longer a member, exits with status 2 so that whatever runs it starts it again.
 */
@Tag("cluster")
class ClusterPauseTest {
    @TempDir
    Path dir;

    @Test
    void an_evaluator_frozen_mid_job_and_thawed_after_it_was_downed_changes_nothing_and_exits_2() throws Exception {
        int groups = 120;
        Path capture = ClusterProcessesTest.spinCapture(dir, "spin", groups, 150000);
        Path config = dir.resolve("node.conf");
        Files.writeString(config, """
                akka.cluster.split-brain-resolver.stable-after = 2s
                akka.cluster.failure-detector.acceptable-heartbeat-pause = 2s
                replay.coordinator.slice-target = 500ms
                """ + EvalGate.processConfig(dir.resolve("gate")));
        try (NodeProcesses nodes = new NodeProcesses(dir);
             NodeProcesses.Farm farm = nodes.farm(config, 2, Map.of(), "--metrics-port", "0")) {
            FarmNode coordinator = farm.coordinator();
            String stays = farm.evaluators().get(0);
            String frozen = farm.evaluators().get(1);
            String sha = coordinator.jobs().storeCapture(capture);
            // the first evaluator's groups wait at its gate until the second is gone: the job still runs then because
            // the test holds it, however fast the machine
            long staysPid = nodes.process(0).pid();
            EvalGate.holdProcess(dir.resolve("gate"), staysPid);
            CompletableFuture<JobProgress> end = NodeProcesses.startJob(coordinator, "pause", sha, dir.resolve("out"));
            // the second holds a slice when it freezes (it fetches the capture when its first one arrives)
            nodes.awaitCaptureFetched(2, sha);
            Process victim = nodes.process(1);
            signal("STOP", victim.pid());
            long frozenAt = coordinator.jobs().progress("pause").orElseThrow().groupsDone();
            // unreachable after the heartbeat pause, downed by the resolver once that is stable, then removed
            NodeProcesses.awaitGone(coordinator, frozen);
            assertTrue(!coordinator.jobs().progress("pause").orElseThrow().ended(),
                    "the job still ran when the node was gone");
            EvalGate.releaseProcess(dir.resolve("gate"), staysPid);
            signal("CONT", victim.pid());
            // thawed, it finds it is no member any more: it must not stay up as a node of no cluster
            assertTrue(victim.waitFor(60, TimeUnit.SECONDS), "the thawed node still runs:\n" + err(2));
            assertEquals(2, victim.exitValue(), err(2));
            assertTrue(err(2).contains("this node lost its cluster"), err(2));

            JobProgress done = end.get(120, TimeUnit.SECONDS);
            assertEquals("finished", done.state(), done.error());
            assertEquals(groups, done.groupsDone());
            Job.JobStats stats = coordinator.jobs().stats("pause").orElseThrow();
            System.out.printf("froze the second at %d groups done; %s%n", frozenAt, stats);
            assertTrue(frozenAt < groups, "the freeze came mid-job");
            assertTrue(stats.resent() >= 1, "the frozen node's slices were sent again: " + stats);
            assertEquals(0, stats.nondeterministic(), stats.toString());
            assertTrue(stats.slicesByNode().getOrDefault(stays, 0L) > 0, stats.toString());
        }
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("ref").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        RunCommandTest.assertHoldsEvalFiles(dir.resolve("ref"), dir.resolve("out"), true);
    }

    private String err(int n) throws Exception {
        return Files.readString(dir.resolve("eval-" + n + ".err"));
    }

    /** Sends SIG{@code name} to process {@code pid} with kill(1). */
    private static void signal(String name, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid)).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name + " " + pid);
    }
}
