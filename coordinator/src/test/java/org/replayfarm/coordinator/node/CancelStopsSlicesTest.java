package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.cluster.EvaluatorNode;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.job.ClusterJobService;

/**
 * A cancelled job's slices stop on the evaluators. Before, the cancel only dropped their results: a group looping
 * under a large budget (the API takes any) kept its evaluator thread to the end, and with every thread of the
 * farm held so, no later job ran a single group until the nodes were restarted.
 */
@Tag("cluster")
class CancelStopsSlicesTest {
    @TempDir
    Path dir;

    @Test
    void a_cancelled_job_lets_go_of_its_evaluator_and_the_next_job_runs() throws Exception {
        // each group loops 2e9 times (minutes on the host model) under a budget of 1e12 instructions per wave
        Path spin = TestCaptures.spin(dir, 2, 2_000_000_000);
        // the gate is open: it counts the evaluator's tasks, so the test knows when the group runs
        try (FarmCluster farm = new FarmCluster(dir.resolve("farm"), 1, EvalGate.config("cancel-stops"));
             EvalGate gate = EvalGate.named("cancel-stops")) {
            ClusterJobService jobs = farm.coordinator.jobs();
            EvaluatorNode evaluator = farm.evaluators.get(0).evaluator();
            String sha = jobs.storeCapture(spin);
            jobs.start("runaway", sha, GroupSelection.everyGroup(), 1_000_000_000_000L, dir.resolve("runaway"));
            // the group is in its loop once a task of the evaluator runs with its slice taken and the capture fetched
            Await.until("the evaluator running the runaway job's group",
                    () -> evaluator.running() > 0 && gate.finished() >= 1 && gate.running() > 0);

            var cancel = jobs.cancel("runaway");
            assertEquals(org.replayfarm.coordinator.job.JobService.CancelOutcome.CANCELLED, cancel.outcome(), cancel.toString());
            long cancelled = System.nanoTime();
            Await.until("the evaluator letting go of the cancelled slice", () -> evaluator.running() == 0);
            double seconds = (System.nanoTime() - cancelled) / 1e9;
            System.out.printf("cancel test: the evaluator let go of the cancelled slice %.2f s after the cancel%n", seconds);

            // the one evaluator thread is free again: the next job runs to its end with replay eval's outputs
            Path out = dir.resolve("saxpy");
            farm.run(TestCaptures.saxpy(), GroupSelection.everyGroup(), out);
            TestCaptures.assertSameOutputs(TestCaptures.reference(TestCaptures.saxpy(), GroupSelection.everyGroup(),
                    dir.resolve("saxpy-eval")), out);
        }
    }
}
