package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.model.testing.Toolchain;
import org.junit.jupiter.api.Tag;

/**
 * Both examples' committed captures through {@code replay run --device cuda-cpu}: the translation, built
 * with g++ and run in its own process, gives the host model's final ranges and images bit for bit (exit 0),
 * and the report names the device as what ran. While a unit still refuses an instruction the example uses,
 * the run must stop with exit 2 naming PC, mnemonic and unit of each (never a silent mistranslation); the
 * test prints them.
 */
@Tag("cluster")
class ExamplesCudaCpuTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"saxpy/saxpy.capture", "shadow-pass/shadow.capture"})
    void the_example_runs_through_cuda_cpu_like_the_host_model(String capture) throws Exception {
        Path file = Toolchain.root().resolve("examples").resolve(capture);
        Path out = dir.resolve("out");
        CliRun run = CliRun.of("run", file.toString(), "--every-group", "--device", "cuda-cpu", "--out", out.toString());
        if (run.exitCode() == Replay.EXIT_ERROR && run.err().contains("is refused")) {
            assertTrue(run.err().matches("(?s).*pc 0x[0-9a-f]+ [a-z0-9_]+ \\([a-z]+ unit\\): .*"),
                    "a refusal names PC, mnemonic and unit:\n" + run.err());
            System.out.println("[examples cuda-cpu] " + capture + " REFUSED:\n" + run.err());
            return;
        }
        assertEquals(Replay.EXIT_OK, run.exitCode(), run.out() + run.err());
        String report = Files.readString(out.resolve("report.json"));
        assertTrue(report.contains("\"kind\" : \"cuda-cpu\"") && report.contains("CUDA C translation on the CPU, g++ "),
                "the report names what ran:\n" + report);
        System.out.println("[examples cuda-cpu] " + capture + ": equal to the host model");
    }
}
