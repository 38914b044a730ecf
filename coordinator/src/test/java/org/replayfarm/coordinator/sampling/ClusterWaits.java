package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.fail;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.StreamSupport;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.model.testing.Await;

/** Waits for the sampling tests' loopback cluster to reach a state (see {@link Await}). */
final class ClusterWaits {
    private ClusterWaits() {
    }

    /** Waits until {@code coordinator} sees {@code members} members up. */
    static void awaitUp(FarmNode coordinator, int members) throws InterruptedException {
        Await.until("the cluster reaching " + members + " members up", () -> StreamSupport.stream(
                Cluster.get(coordinator.system()).state().getMembers().spliterator(), false)
                .filter(m -> m.status() == MemberStatus.up()).count() == members);
    }

    /** Asks the coordinator's sampling store for snapshots until one satisfies {@code until}. */
    static SamplingSnapshot awaitSnapshot(FarmNode coordinator, Predicate<SamplingSnapshot> until) throws Exception {
        return Await.value("the sampling store reaching the expected state",
                () -> SamplingStore.snapshot(coordinator.system(), coordinator.samplingStore(), Duration.ofSeconds(5))
                        .toCompletableFuture().get(10, TimeUnit.SECONDS), until);
    }
}
