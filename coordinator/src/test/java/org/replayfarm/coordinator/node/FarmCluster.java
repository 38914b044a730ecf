package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.job.ClusterJobService;
import org.replayfarm.coordinator.job.Job;

/** A coordinator and evaluator nodes, each its own ActorSystem, in this JVM on loopback (port 0). */
public final class FarmCluster implements AutoCloseable {
    public final FarmNode coordinator;
    public final List<FarmNode> evaluators = new ArrayList<>();
    private final Path dir;
    private final Config config;

    public FarmCluster(Path dir, int evaluators, Config config) throws Exception {
        this(dir, evaluators, config, jobs -> List.of());
    }

    /** As above, the coordinator's HTTP server also serving {@code routes} (e.g. the job API). */
    public FarmCluster(Path dir, int evaluators, Config config,
                java.util.function.Function<org.replayfarm.coordinator.job.JobService, List<akka.http.javadsl.server.Route>> routes)
            throws Exception {
        this.dir = dir;
        this.config = config.withFallback(ConfigFactory.parseString("""
                akka.cluster.split-brain-resolver.stable-after = 3s
                akka.coordinated-shutdown.exit-jvm = off
                akka.loglevel = WARNING
                """));
        coordinator = FarmNode.start(FarmNode.Settings.of(Set.of("coordinator"), dir.resolve("coordinator"))
                .withSerializeMessages(true).withConfig(this.config).withRoutes(routes));
        awaitUp(1);
        for (int i = 0; i < evaluators; i++) {
            addEvaluator();
        }
    }

    public FarmNode addEvaluator() throws Exception {
        return addEvaluator(ConfigFactory.empty());
    }

    /** Adds an evaluator node with {@code extra} configuration over the cluster's. */
    public FarmNode addEvaluator(Config extra) throws Exception {
        int n = evaluators.size();
        FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("eval-" + n))
                .withSeeds(List.of(coordinator.seed())).withEvalThreads(1).withSerializeMessages(true)
                .withConfig(extra.withFallback(config)));
        evaluators.add(node);
        awaitUp(1 + evaluators.size());
        return node;
    }

    public void awaitUp(int members) throws InterruptedException {
        Await.until("the cluster reaching " + members + " members up, its evaluators' regions known", () -> {
            var state = Cluster.get(coordinator.system()).state();
            long up = StreamSupport.stream(state.getMembers().spliterator(), false)
                    .filter(m -> m.status() == MemberStatus.up()).count();
            // and a job would send slices to every evaluator at once
            return up == members && state.getUnreachable().isEmpty()
                    && (evaluators.isEmpty() || coordinator.evaluatorRegions(Duration.ofSeconds(1)) == evaluators.size());
        });
    }

    /** Runs a job on the cluster and waits for it to finish; returns its id. */
    public String run(Path capture, GroupSelection selection, Path out) throws Exception {
        ClusterJobService jobs = coordinator.jobs();
        String sha = jobs.storeCapture(capture);
        String id = "job-" + System.nanoTime();
        CompletableFuture<JobProgress> end = new CompletableFuture<>();
        jobs.start(id, sha, selection, org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET, out);
        try (AutoCloseable sub = jobs.subscribe(id, p -> {
            if (p.ended()) {
                end.complete(p);
            }
        })) {
            JobProgress p = end.get(60, TimeUnit.SECONDS);
            assertEquals("finished", p.state(), p.error());
            return id;
        }
    }

    public Job.JobStats stats(String jobId) {
        return coordinator.jobs().stats(jobId).orElseThrow();
    }

    @Override
    public void close() {
        // one at a time, youngest first: the oldest evaluator hosts the sharding coordinator
        for (int i = evaluators.size() - 1; i >= 0; i--) {
            evaluators.get(i).close();
        }
        coordinator.close();
    }
}
