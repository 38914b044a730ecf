package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's kernel is valid PTX (ptxas says so), and without a GPU it prints no figures. */
@Tag("unit")
class SamplingBenchmarkTest {
    private static final Path PTXAS = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas");

    @TempDir
    Path dir;

    @Test
    void the_benchmark_kernel_assembles_with_ptxas_for_sm_90() throws Exception {
        assumeTrue(Files.isExecutable(PTXAS), "no ptxas here");
        Path ptx = dir.resolve("spin.ptx");
        Files.writeString(ptx, SamplingBenchmark.spinPtx());
        Process p = new ProcessBuilder(PTXAS.toString(), "-arch=sm_90", ptx.toString(), "-o", dir.resolve("spin.cubin").toString())
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), log);
        assertTrue(Files.size(dir.resolve("spin.cubin")) > 0);
    }

    @Test
    void without_a_gpu_it_says_it_needs_one_and_prints_no_figures() {
        assumeFalse(Files.exists(Path.of("/dev/nvidia0")), "a GPU is here: run the benchmark itself");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = SamplingBenchmark.run(new String[0], new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(2, rc, out);
        assertTrue(out.contains("needs a GPU machine") && out.contains("no figures measured"), out);
        assertFalse(out.contains("overhead"), out);
    }
}
