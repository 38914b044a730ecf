package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.fail;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.StreamSupport;
import org.replayfarm.coordinator.cluster.FarmNode;

/** Polls the sampling tests' loopback cluster until it reaches a state, failing after 30 s. */
final class ClusterWaits {
    private ClusterWaits() {
    }

    /** Waits until {@code coordinator} sees {@code members} members up. */
    static void awaitUp(FarmNode coordinator, int members) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < end) {
            var state = Cluster.get(coordinator.system()).state();
            if (StreamSupport.stream(state.getMembers().spliterator(), false)
                    .filter(m -> m.status() == MemberStatus.up()).count() == members) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling a condition
        }
        fail("the cluster did not reach " + members + " members up");
    }

    /** Asks the coordinator's sampling store for snapshots until one satisfies {@code until}. */
    static SamplingSnapshot awaitSnapshot(FarmNode coordinator, Predicate<SamplingSnapshot> until) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        SamplingSnapshot s = null;
        while (System.nanoTime() < end) {
            s = SamplingStore.snapshot(coordinator.system(), coordinator.samplingStore(), Duration.ofSeconds(5))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            if (until.test(s)) {
                return s;
            }
            TimeUnit.MILLISECONDS.sleep(20); // polling a condition
        }
        fail("the store never reached the expected state: " + s);
        return s;
    }
}
