package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.Address;
import akka.cluster.Member;
import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.job.ClusterJobService;

/**
 * An evaluator that joins while another member is unreachable is WeaklyUp ({@code allow-weakly-up-members}) until
 * the unreachable one is downed: it gets no slices while WeaklyUp (keep-majority does not count it, and it may be
 * on the side that is downed), and takes its share once Up. The downing is the test's, so nothing depends on
 * timing: the split-brain resolver waits longer than the test runs. About 2.5 minutes (the shutdown of a cluster
 * with a member that vanished is slow), so it runs with {@code -Dreplay.chaos=all}, as the network-fault schedules.
 */
@Tag("cluster")
class WeaklyUpEvaluatorTest {
    @TempDir
    Path dir;

    @Test
    @EnabledIfSystemProperty(named = "replay.chaos", matches = "all")
    void an_evaluator_that_joined_weakly_up_gets_no_slices_until_it_is_up() throws Exception {
        Path capture = TestCaptures.histogram(dir);
        try (FarmCluster farm = new FarmCluster(dir.resolve("farm"), 1, ConfigFactory.parseString("""
                akka.cluster.allow-weakly-up-members = 1s
                akka.cluster.split-brain-resolver.stable-after = 600s
                """))) {
            // an evaluator that stops without leaving (its process killed): the others see it unreachable
            FarmNode lost = farm.addEvaluator(ConfigFactory.parseString("""
                    akka.coordinated-shutdown.run-by-actor-system-terminate = off
                    akka.cluster.run-coordinated-shutdown-when-down = off
                    """));
            Address lostAddress = Cluster.get(lost.system()).selfMember().address();
            lost.system().terminate();
            Cluster cluster = Cluster.get(farm.coordinator.system());
            Await.until("the stopped evaluator unreachable", () -> cluster.state().getUnreachable().stream()
                    .anyMatch(m -> m.address().equals(lostAddress)));

            FarmNode late = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("farm/eval-late"))
                    .withSeeds(List.of(farm.coordinator.seed())).withEvalThreads(1).withSerializeMessages(true)
                    .withConfig(ConfigFactory.parseString("""
                            akka.cluster.allow-weakly-up-members = 1s
                            akka.cluster.split-brain-resolver.stable-after = 600s
                            akka.coordinated-shutdown.exit-jvm = off
                            akka.loglevel = WARNING
                            """)));
            farm.evaluators.add(late);
            Address lateAddress = Cluster.get(late.system()).selfMember().address();
            Await.until("the late evaluator WeaklyUp", () -> status(cluster, lateAddress) == MemberStatus.weaklyUp());

            // a job now: the sharding coordinator places no new shard while a member is unreachable, so nothing is
            // evaluated yet; what the job sent is what it chose: the Up evaluator's slots, none for the WeaklyUp one
            ClusterJobService jobs = farm.coordinator.jobs();
            String sha = jobs.storeCapture(capture);
            java.util.concurrent.CompletableFuture<org.replayfarm.coordinator.job.JobProgress> sent =
                    new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<org.replayfarm.coordinator.job.JobProgress> end =
                    new java.util.concurrent.CompletableFuture<>();
            jobs.start("weak", sha, GroupSelection.everyGroup(),
                    org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET, dir.resolve("out"));
            try (AutoCloseable sub = jobs.subscribe("weak", p -> {
                if (p.figures().slicesInFlight() > 0) {
                    sent.complete(p);
                }
                if (p.ended()) {
                    end.complete(p);
                }
            })) {
                Await.until("the job sending its first slices", () -> jobs.progress("weak").orElseThrow().figures()
                        .slicesInFlight() > 0 || sent.isDone());
                long inFlight = jobs.progress("weak").orElseThrow().figures().slicesInFlight();
                Member up = Cluster.get(farm.evaluators.get(0).system()).selfMember();
                int slots = up.getRoles().stream().filter(r -> r.startsWith("slots-"))
                        .mapToInt(r -> Integer.parseInt(r.substring(6))).findFirst().orElse(4);
                assertEquals(slots, inFlight, "the Up evaluator's " + slots + " slots only: the WeaklyUp one got none");
                assertEquals(MemberStatus.weaklyUp(), status(cluster, lateAddress));

                // the unreachable evaluator downed: the cluster converges, the late one is Up and takes its share
                cluster.manager().tell(akka.cluster.typed.Down.apply(lostAddress));
                Await.until("the late evaluator Up", () -> status(cluster, lateAddress) == MemberStatus.up());
                org.replayfarm.coordinator.job.JobProgress p = end.get(120, java.util.concurrent.TimeUnit.SECONDS);
                assertEquals("finished", p.state(), p.error());
                farm.evaluators.remove(lost);
                assertTrue(farm.stats("weak").slicesByNode().containsKey(lateAddress.toString()),
                        "once Up it takes slices: " + farm.stats("weak"));
            }
        }
    }

    private static MemberStatus status(Cluster cluster, Address address) {
        return StreamSupport.stream(cluster.state().getMembers().spliterator(), false)
                .filter(m -> m.address().equals(address)).map(Member::status).findFirst().orElse(MemberStatus.removed());
    }
}
