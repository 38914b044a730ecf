package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code --tier}: {@code replay eval} of the saxpy example on each of the three tiers writes the same outputs byte
 * for byte; a tier that does not exist is refused by {@code eval}, {@code run} and {@code node}, naming it and the
 * three there are.
 */
@Tag("unit")
class TierOptionTest {
    @TempDir
    Path dir;

    @Test
    void eval_writes_the_same_outputs_on_every_tier() throws Exception {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        byte[] first = null;
        for (String tier : new String[] {"reference", "fast", "compiled"}) {
            Path out = dir.resolve(tier);
            CliRun run = CliRun.of("eval", capture.toString(), "--every-group", "--threads", "1", "--tier", tier,
                    "--out", out.toString());
            assertEquals(0, run.exitCode(), tier + ": " + run.out() + run.err());
            byte[] bytes = Files.readAllBytes(out.resolve("host/guest-1.bin"));
            if (first == null) {
                first = bytes;
            } else {
                assertArrayEquals(first, bytes, tier + " against reference");
            }
        }
    }

    @Test
    void an_unknown_tier_is_refused_by_name() {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        for (String[] args : new String[][] {
                {"eval", capture.toString(), "--every-group", "--tier", "jit", "--out", dir.resolve("e").toString()},
                {"run", capture.toString(), "--every-group", "--tier", "jit", "--out", dir.resolve("r").toString()},
                {"node", "--role", "eval", "--tier", "jit"}}) {
            CliRun run = CliRun.of(args);
            assertEquals(Replay.EXIT_ERROR, run.exitCode(), args[0] + ": " + run.out() + run.err());
            assertTrue(run.err().contains("--tier: unknown host-model tier 'jit' (compiled, fast or reference)"),
                    args[0] + ": " + run.err());
        }
    }
}
