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
                    "--rounds", "1", "--cold-first", first, "--tier", "both");
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

    /**
     * All three tiers (the default): a row each, the cold-first tier first and the others slowest first, a ratio line
     * per pair in the form the issue names, and the compiled tier's code cache with its compile time.
     */
    @Test
    void three_tiers_print_a_row_each_and_a_ratio_per_pair() {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        CliRun run = CliRun.of("bench", "--capture", capture.toString(), "--repeat", "1", "--groups", "1",
                "--rounds", "1", "--cold-first", "compiled");
        assertEquals(0, run.exitCode(), run.err());
        String out = run.out();
        assertTrue(out.contains("cold passes in the order [compiled, reference, fast]"), out);
        for (String t : new String[] {"reference", "fast", "compiled"}) {
            assertTrue(out.contains("tier " + String.format("%-9s", t)), t + ": " + out);
        }
        for (String pair : new String[] {"compiled tier \\S+x faster than the fast tier warm \\(wall\\), \\S+x \\(process CPU\\)",
                "compiled tier \\S+x faster than the reference tier warm", "fast tier \\S+x faster than the reference tier warm"}) {
            assertTrue(java.util.regex.Pattern.compile(pair).matcher(out).find(), pair + ": " + out);
        }
        assertTrue(out.contains("compiled tier code cache: "), out);
        assertTrue(out.contains("ms generating and loading them"), out);
    }
}
