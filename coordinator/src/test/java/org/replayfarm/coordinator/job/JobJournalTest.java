package org.replayfarm.coordinator.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.EvalGate;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.node.TestCaptures;

/**
 * Jobs that survive their coordinator: a coordinator stopped abruptly mid-job (no leaving, no drain) and
 * started again on the same work directory (its H2 journal) resumes the job: the slices that had
 * finished are merged from the journal, not evaluated again, and the outputs equal replay eval's; its progress
 * shows them from its first answer; a finished job still answers after a further restart.
 */
@Tag("cluster")
class JobJournalTest {
    @TempDir
    Path dir;

    private static final Config ABRUPT = ConfigFactory.parseString("""
            akka.coordinated-shutdown.run-by-actor-system-terminate = off
            akka.coordinated-shutdown.exit-jvm = off
            akka.cluster.split-brain-resolver.stable-after = 3s
            akka.loglevel = WARNING
            """);

    private Config journal = ConfigFactory.empty();

    private FarmNode coordinator(Path work) throws Exception {
        return FarmNode.start(FarmNode.Settings.of(Set.of("coordinator"), work).withSerializeMessages(true)
                .withConfig(journal.withFallback(ABRUPT)));
    }

    private FarmNode evaluator(FarmNode coordinator, Path work) throws Exception {
        return evaluator(coordinator, work, ConfigFactory.empty());
    }

    private FarmNode evaluator(FarmNode coordinator, Path work, Config extra) throws Exception {
        FarmNode e = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), work).withSeeds(List.of(coordinator.seed()))
                .withEvalThreads(1).withSerializeMessages(true).withConfig(extra.withFallback(ABRUPT)));
        Await.until("the evaluator's shard region known", () -> coordinator.evaluatorRegions(java.time.Duration.ofSeconds(1)) >= 1);
        return e;
    }

    @Test
    void a_coordinator_killed_mid_job_resumes_it_from_its_journal_without_recomputing_merged_slices() throws Exception {
        resumes(10, 300_000, 4);
    }

    /** The same against a real PostgreSQL server on loopback (the journal coordinators share in a cluster). */
    @Test
    void the_journal_on_postgresql_resumes_the_job_the_same_way() throws Exception {
        try (PostgresServer pg = new PostgresServer()) {
            journal = ConfigFactory.parseString("replay.coordinator.journal { url = \"" + pg.url()
                    + "\", user = replay, password = \"\" }");
            resumes(6, 200_000, 3);
        }
    }

    private void resumes(int groups, int iters, int killAfter) throws Exception {
        Path spin = TestCaptures.spin(dir, groups, iters);
        Path work = dir.resolve("coordinator");
        Path out = dir.resolve("out");
        String sha;
        FarmNode first = coordinator(work);
        // the first evaluator's groups wait at a gate: the test lets tasks through (the capture's fetch, then groups)
        // until killAfter groups are done, and never all of them, so the coordinator dies with the job part done
        // because the test holds it there (a slice counts once all its groups are done: slices grow once a rate is
        // known, so how many tasks that takes is the machine's)
        EvalGate gate = EvalGate.named("journal-" + groups);
        gate.hold();
        FarmNode eval = evaluator(first, dir.resolve("eval-1"), EvalGate.config("journal-" + groups));
        try {
            assertEquals(List.of(), first.startupWarnings(), "a coordinator with an empty journal has nothing to say");
            ClusterJobService jobs = first.jobs();
            sha = jobs.storeCapture(spin);
            CompletableFuture<JobProgress> partWay = new CompletableFuture<>();
            jobs.start("survivor", sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, out);
            jobs.subscribe("survivor", p -> {
                if (p.groupsDone() >= killAfter || p.ended()) {
                    partWay.complete(p);
                }
            });
            gate.releaseUntil(groups, () -> partWay.isDone()); // the fetch and at most groups - 1 groups
            JobProgress p = partWay.get(120, TimeUnit.SECONDS);
            assertEquals("running", p.state(), "stopped part way: " + p);
            assertTrue(p.groupsDone() < groups, "stopped part way: " + p);
        } finally {
            eval.close();
            first.close(); // abrupt: no coordinated shutdown, the job actor simply dies with the system
            gate.close(); // its held thread ends with nothing to answer
        }

        FarmNode second = coordinator(work);
        // its first answer, before any evaluator joins: what the journal holds, never 0 while it reads it back
        JobProgress firstSeen = second.jobs().progress("survivor").orElseThrow();
        FarmNode eval2 = evaluator(second, dir.resolve("eval-2"));
        try {
            assertTrue(second.startupWarnings().stream().anyMatch(w -> w.contains("started without --seed")
                    && w.contains("1 unfinished job(s)") && w.contains("formed a new cluster of its own")),
                    "one started without seeds, its unfinished job waiting, is told so: " + second.startupWarnings());
            ClusterJobService jobs = second.jobs();
            CompletableFuture<JobProgress> end = new CompletableFuture<>();
            jobs.subscribe("survivor", p -> {
                if (p.ended()) {
                    end.complete(p);
                }
            });
            JobProgress p = end.get(180, TimeUnit.SECONDS);
            assertEquals("finished", p.state(), p.error());
            Job.JobStats stats = jobs.stats("survivor").orElseThrow();
            assertTrue(stats.resumedGroups() >= 2, "the groups finished before the restart came from the journal: "
                    + stats);
            assertEquals(stats.resumedGroups(), firstSeen.groupsDone(), "the restarted coordinator showed the groups "
                    + "its journal holds from its first answer (a client never sees the job go backwards): " + firstSeen);
            long evaluatedNow = stats.slicesByNode().values().stream().mapToLong(Long::longValue).sum();
            assertTrue(evaluatedNow <= groups - stats.resumedGroups(), "only what had not finished was evaluated again "
                    + "(one group a slice at first): " + stats);
            TestCaptures.assertSameOutputs(TestCaptures.reference(spin, GroupSelection.everyGroup(), dir.resolve("ref")),
                    out);
        } finally {
            eval2.close();
            second.close();
        }

        FarmNode third = coordinator(work);
        try {
            // issue 39: every job it holds had ended, so nothing waits for evaluators and nothing is to be warned of
            assertTrue(third.startupWarnings().stream().noneMatch(w -> w.contains("started without --seed")),
                    "no warning of waiting jobs when every job had ended: " + third.startupWarnings());
            JobProgress again = third.jobs().progress("survivor").orElseThrow();
            assertEquals("finished", again.state(), "a finished job still answers after a restart");
            assertEquals(groups, again.groupsDone());
            assertEquals(out.toAbsolutePath(), third.jobs().results("survivor").orElseThrow());
        } finally {
            third.close();
        }
    }
}
