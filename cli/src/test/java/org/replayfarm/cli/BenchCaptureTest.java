package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code replay bench --capture}: a shared one-group warm-up on every tier before either tier's cold pass, the cold
 * order chosen by {@code --cold-first} and printed, and the figures kept by tier (reference, fast) whatever the order.
 */
@Tag("corpus")
class BenchCaptureTest {
    @Test
    void the_cold_order_is_chosen_and_printed_after_a_shared_warm_up() {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        for (String first : new String[] {"reference", "fast"}) {
            CliRun run = CliRun.of("bench", "--capture", capture.toString(), "--repeat", "1", "--groups", "1",
                    "--rounds", "1", "--cold-first", first);
            assertEquals(0, run.exitCode(), run.err());
            String other = first.equals("fast") ? "reference" : "fast";
            assertTrue(run.out().contains("warm-up: group [0, 0, 0] once on each tier before any cold pass"), run.out());
            assertTrue(run.out().contains("cold passes in the order [" + first + ", " + other + "]"), run.out());
            assertTrue(run.out().contains(first + " cold pass first"), run.out());
            // the per-tier lines come in the cold order
            int a = run.out().indexOf("tier " + first);
            int b = run.out().indexOf("tier " + other);
            assertTrue(a >= 0 && b > a, run.out());
            // passes of a few milliseconds: a ratio over a CPU time the clock reads as 0 says n/a, not Infinity
            assertTrue(!run.out().contains("Infinity") && !run.out().contains("NaN"), run.out());
        }
    }
}
