package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The farm benchmark at a toy size: it must run end to end (eval, embedded farm, two evaluator JVMs, the
 * coordinator's memory rows) and print every figure. Its figures are not checked: they are the
 * benchmark's output, not a test's.
 */
@Tag("cluster")
class BenchFarmCommandTest {
    @Test
    void every_row_of_the_benchmark_runs_and_prints_its_figures() {
        CliRun run = CliRun.of("bench-farm", "--groups", "4", "--iters", "10", "--repeat", "2", "--memory-groups", "50,200");
        assertEquals(0, run.exitCode(), run.err());
        String out = run.out();
        for (String row : new String[] {"eval, 1 thread", "threads", "run (embedded)", "embedded vs eval",
                "cluster, 2 eval JVMs"}) {
            assertTrue(out.contains(row), "row '" + row + "' in:\n" + out);
        }
        Matcher memory = Pattern.compile("coordinator, +(\\d+) groups: [0-9.]+ s, peak live heap ([0-9.]+) MiB").matcher(out);
        int rows = 0;
        while (memory.find()) {
            rows++;
            assertTrue(Double.parseDouble(memory.group(2)) > 0, memory.group());
        }
        assertEquals(2, rows, out);
        assertEquals(2, CliRun.of("bench-farm", "--repeat", "0").exitCode(), "--repeat 0 is refused");
    }
}
