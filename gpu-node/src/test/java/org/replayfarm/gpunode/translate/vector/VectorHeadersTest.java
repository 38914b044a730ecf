package org.replayfarm.gpunode.translate.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vector unit's runtime headers (rt_valu.h, rt_float.h, rt_xlane.h) build both ways: a translation
 * holding every row the unit translates, in every form (VOP3, the 32-bit form, DPP16, DPP8, SDWA, VOP3P),
 * compiles with nvcc for sm_90 (with PTX, --fmad=false, the project's GPU flags) and with g++ -O2 with the
 * CPU flags; and the same program runs equal to the host model.
 */
class VectorHeadersTest {
    static final Path NVCC = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc");

    @TempDir
    Path dir;

    private Path everyRow(int wave, boolean everyForm) throws Exception {
        VectorRig rig = new VectorRig(dir, wave, AluProgramGenerator.VREGS);
        AluProgramGenerator g = new AluProgramGenerator(wave, 0xA11L + wave);
        VectorRig.Built b = rig.build("all" + wave, g.everyRow(everyForm));
        assertTrue(b.translation().ok(), () -> b.translation().coverageReport());
        Path d = rig.writeTranslation("all" + wave, b);
        // and the program agrees with the host model (every register), built at -O0 by the rig
        VectorRig.await(VectorRig.compile(d), d);
        assertEquals(List.of(), VectorRig.diff(rig.host(b), rig.device(d), wave));
        return d;
    }

    private static void run(Path d, List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(d.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "timed out: " + cmd);
        assertEquals(0, p.exitValue(), () -> String.join(" ", cmd) + "\n" + out);
    }

    /** Every row in every form (VOP3, 32-bit, DPP16/DPP8/SDWA twice), wave32 and wave64: equal to the host model. */
    @Test
    void every_row_in_every_form_runs_equal_to_the_host_model() throws Exception {
        everyRow(32, true);
        everyRow(64, true);
    }

    /**
     * Every row once (one form each, random operands and modifiers), wave32 and wave64, compiles with g++ -O2
     * and the CPU flags, and with nvcc for sm_90 with PTX and the project's GPU flags (ptxas at -O1 here to
     * keep the check's time down: the kernel is one function of several hundred inlined operations).
     */
    @Test
    void every_row_compiles_with_gxx_O2_and_nvcc_for_sm_90() throws Exception {
        Path d32 = everyRow(32, false);
        Path d64 = everyRow(64, false);
        long t0 = System.nanoTime();
        for (Path d : new Path[] {d32, d64}) {
            run(d, List.of("g++", "-std=c++17", "-O2", "-ffp-contract=off", "-fno-strict-aliasing", "-frounding-math",
                    "-c", "-o", "kernel-cpu.o", "-x", "c++", "kernel.cu"));
        }
        System.out.printf("every-row g++ -O2: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        Assumptions.assumeTrue(Files.isExecutable(NVCC), "no nvcc at " + NVCC);
        for (Path d : new Path[] {d32, d64}) {
            run(d, List.of(NVCC.toString(), "-gencode", "arch=compute_90,code=[sm_90,compute_90]", "--fmad=false",
                    "-prec-div=true", "-prec-sqrt=true", "-lineinfo", "-Xptxas", "-O1", "-c", "-o", "kernel-gpu.o",
                    "kernel.cu"));
            assertTrue(Files.size(d.resolve("kernel-gpu.o")) > 0);
        }
        System.out.printf("every-row g++ -O2 + nvcc: %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }
}
