package org.replayfarm.coordinator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.cluster.EvaluatorNode;
import org.replayfarm.evalnode.eval.GroupSelection;

/**
 * A cancelled job's slices stop on the evaluators. Before, the cancel only dropped their results: a group looping
 * under a large budget (the API takes any) kept its evaluator thread to the end, and with every thread of the
 * farm held so, no later job ran a single group until the nodes were restarted.
 */
class CancelStopsSlicesTest {
    @TempDir
    Path dir;

    @Test
    void a_cancelled_job_lets_go_of_its_evaluator_and_the_next_job_runs() throws Exception {
        // each group loops 2e9 times (minutes on the host model) under a budget of 1e12 instructions per wave
        Path spin = TestCaptures.spin(dir, 2, 2_000_000_000);
        try (FarmCluster farm = new FarmCluster(dir.resolve("farm"), 1, ConfigFactory.empty())) {
            ClusterJobService jobs = farm.coordinator.jobs();
            EvaluatorNode evaluator = farm.evaluators.get(0).evaluator();
            String sha = jobs.storeCapture(spin);
            jobs.start("runaway", sha, GroupSelection.everyGroup(), 1_000_000_000_000L, dir.resolve("runaway"));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (evaluator.running() == 0 && System.nanoTime() < until) {
                TimeUnit.MILLISECONDS.sleep(20); // polling a condition
            }
            assertTrue(evaluator.running() > 0, "the evaluator took the runaway job's slice");
            TimeUnit.SECONDS.sleep(1); // well into its loop

            var cancel = jobs.cancel("runaway");
            assertEquals(org.replayfarm.coordinator.jobs.JobService.CancelOutcome.CANCELLED, cancel.outcome(), cancel.toString());
            long cancelled = System.nanoTime();
            until = cancelled + TimeUnit.SECONDS.toNanos(30);
            while (evaluator.running() > 0 && System.nanoTime() < until) {
                TimeUnit.MILLISECONDS.sleep(20); // polling a condition
            }
            double seconds = (System.nanoTime() - cancelled) / 1e9;
            assertEquals(0, evaluator.running(), "the evaluator still evaluates the cancelled job's slice after 30 s");
            System.out.printf("cancel test: the evaluator let go of the cancelled slice %.2f s after the cancel%n", seconds);

            // the one evaluator thread is free again: the next job runs to its end with replay eval's outputs
            Path out = dir.resolve("saxpy");
            farm.run(TestCaptures.saxpy(), GroupSelection.everyGroup(), out);
            TestCaptures.assertSameOutputs(TestCaptures.reference(TestCaptures.saxpy(), GroupSelection.everyGroup(),
                    dir.resolve("saxpy-eval")), out);
        }
    }
}
