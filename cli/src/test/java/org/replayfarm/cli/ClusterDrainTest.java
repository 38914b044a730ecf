package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.coordinator.node.EvalGate;
import org.replayfarm.model.testing.Await;

/**
 * Scale-in as Kubernetes does it: an evaluator JVM ({@code replay node --role eval}) gets SIGTERM mid-job.
 * Its coordinated shutdown leaves the cluster gracefully and finishes the slices it holds, so the job
 * completes with replay eval's outputs, every group counted once.
 */
@Tag("cluster")
class ClusterDrainTest {
    @TempDir
    Path dir;

    /** The evaluators log at INFO, so a failure shows what the victim did. */
    private static final Map<String, String> INFO_LOGS = Map.of("REPLAY_LOG_LEVEL", "INFO");

    private NodeProcesses nodes;

    @BeforeEach
    void startProcesses() {
        nodes = new NodeProcesses(dir);
    }

    @AfterEach
    void stopProcesses() {
        nodes.close();
    }

    /** The nodes' configuration file: a quick split-brain resolver and {@code line}. */
    private Path config(String line) throws Exception {
        Path config = dir.resolve("node.conf");
        Files.writeString(config, "akka.cluster.split-brain-resolver.stable-after = 2s\n" + line + "\n"
                + EvalGate.processConfig(dir.resolve("gate")));
        return config;
    }

    @Test
    void an_evaluator_given_sigterm_mid_job_finishes_the_slices_it_holds_and_the_job_keeps_replay_evals_outputs() throws Exception {
        int groups = 24;
        Path capture = ClusterProcessesTest.spinCapture(dir, "spin", groups, 300000);
        try (NodeProcesses.Farm farm = nodes.farm(config("replay.coordinator.slice-target = 1s"), 2, INFO_LOGS,
                "--no-metrics")) {
            FarmNode coordinator = farm.coordinator();
            String stays = farm.evaluators().get(0);
            String victim = farm.evaluators().get(1);

            String sha = coordinator.jobs().storeCapture(capture);
            long started = System.nanoTime();
            // the first evaluator's groups wait at its gate until the SIGTERM is sent: it comes mid-job because the
            // test holds the job there
            long staysPid = nodes.process(0).pid();
            EvalGate.holdProcess(dir.resolve("gate"), staysPid);
            CompletableFuture<JobProgress> end = NodeProcesses.startJob(coordinator, "drain", sha, dir.resolve("out"));
            // an evaluator fetches the capture when its first slice arrives, then evaluates that slice
            nodes.awaitCaptureFetched(2, sha);
            Path victimLog = dir.resolve("eval-2.err");
            long doneBefore = coordinator.jobs().progress("drain").orElseThrow().groupsDone();
            Process p = nodes.process(1);
            p.destroy(); // SIGTERM, as the kubelet sends on scale-in
            EvalGate.releaseProcess(dir.resolve("gate"), staysPid);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the evaluator stopped by itself after SIGTERM");
            assertEquals(0, p.exitValue(), "a completed drain after SIGTERM is a clean exit (not the signal's 143)");

            JobProgress done = end.get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals("finished", done.state(), done.error());
            assertTrue(doneBefore < groups, "the SIGTERM came mid-job: " + doneBefore);
            assertEquals(groups, done.groupsDone());
            Job.JobStats stats = coordinator.jobs().stats("drain").orElseThrow();
            // the node announced its drain before handing its shards off: it got no new slices and finished
            // the ones it held, so nothing was sent again
            assertEquals(0, stats.resent(), "nothing was sent again: " + stats + "\n" + Files.readString(victimLog));
            assertEquals(0, stats.duplicates(), stats.toString());
            assertEquals(0, stats.nondeterministic(), stats.toString());
            assertTrue(stats.slicesByNode().getOrDefault(victim, 0L) > 0,
                    "the victim returned the slice it held when SIGTERM came: " + stats + "\n" + Files.readString(victimLog));
            assertTrue(stats.slicesByNode().getOrDefault(stays, 0L) > 0, stats.toString());
            String err = Files.readString(dir.resolve("eval-2.err"));
            assertFalse(err.contains(" ERROR "), "the drained node logged no error:\n" + err);
            System.out.printf("drain test: job %.1f s, SIGTERM after %d of %d groups, victim %s%n",
                    (System.nanoTime() - started) / 1e9, doneBefore, groups, stats.slicesByNode());
        }
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("ref").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        RunCommandTest.assertHoldsEvalFiles(dir.resolve("ref"), dir.resolve("out"), true);
    }

    /** A drain that cannot finish within replay.cluster.drain-timeout is no clean exit: status 2, and it says why. */
    @Test
    void a_drain_cut_off_by_its_timeout_exits_2() throws Exception {
        int groups = 2;
        // each group spins for seconds: the slice the node holds outlasts a 2 s drain
        Path capture = ClusterProcessesTest.spinCapture(dir, "slow", groups, 20000000);
        try (NodeProcesses.Farm farm = nodes.farm(config("replay.cluster.drain-timeout = 2s"), 1, INFO_LOGS,
                "--no-metrics")) {
            FarmNode coordinator = farm.coordinator();
            String sha = coordinator.jobs().storeCapture(capture);
            coordinator.jobs().start("cut", sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, dir.resolve("out"));
            nodes.awaitCaptureFetched(1, sha);
            Process p = nodes.process(0);
            // its second group waits at the gate behind the first (one thread): the slice it holds cannot end
            // within the drain, whatever the machine
            EvalGate.holdProcess(dir.resolve("gate"), p.pid());
            p.destroy(); // SIGTERM while the node evaluates a slice that lasts far longer than the drain may
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the evaluator stopped by itself after SIGTERM");
            String err = Files.readString(dir.resolve("eval-1.err"));
            assertEquals(2, p.exitValue(), err);
            assertTrue(err.contains("replay node: the drain did not finish within 2 s (replay.cluster.drain-timeout)"), err);
        }
    }
}
