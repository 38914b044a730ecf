package org.replayfarm.gpunode.translate.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vector unit's runtime headers (rt_valu.h, rt_float.h, rt_xlane.h) build both ways: a translation
 * holding every row the unit translates, in every form (VOP3, the 32-bit form, DPP16, DPP8, SDWA, VOP3P),
 * compiles with nvcc for sm_90 (with PTX, --fmad=false, the project's GPU flags) and with g++ -O2 with the
 * CPU flags; and the same program runs equal to the host model.
 */
@Tag("corpus")
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
     * Every row once (one form each, random operands and modifiers), wave64, compiles with g++ -O2
     * and the CPU flags, and with nvcc to PTX for compute_90 with the project's GPU flags; a smaller program of
     * the common forms (DPP16, DPP8, SDWA, permlane, readlane/writelane, compares, carries, 16-bit halves,
     * f64) goes all the way to an sm_90 cubin. (ptxas over the every-row kernel, one function of several
     * hundred inlined operations, takes minutes on this machine: kept out of CI.)
     */
    @Test
    void every_row_compiles_with_gxx_O2_and_nvcc_for_sm_90() throws Exception {
        // wave64 (two lanes per thread on the GPU: every shuffle and slot path); wave32 is the smaller case
        Path d64 = everyRow(64, false);
        long t0 = System.nanoTime();
        for (Path d : new Path[] {d64}) {
            run(d, List.of("g++", "-std=c++17", "-O2", "-ffp-contract=off", "-fno-strict-aliasing", "-frounding-math",
                    "-c", "-o", "kernel-cpu.o", "-x", "c++", "kernel.cu"));
        }
        System.out.printf("every-row g++ -O2: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        Assumptions.assumeTrue(Files.isExecutable(NVCC), "no nvcc at " + NVCC);
        for (Path d : new Path[] {d64}) {
            run(d, List.of(NVCC.toString(), "-arch=compute_90", "--fmad=false", "-prec-div=true", "-prec-sqrt=true",
                    "-lineinfo", "-ptx", "-o", "kernel.ptx", "kernel.cu"));
            assertTrue(Files.readString(d.resolve("kernel.ptx")).contains(".target sm_90"));
        }
        System.out.printf("every-row g++ -O2 + nvcc -ptx: %.1f s%n", (System.nanoTime() - t0) / 1e9);
        for (int wave : new int[] {32, 64}) {
            VectorRig rig = new VectorRig(dir, wave, AluProgramGenerator.VREGS);
            VectorRig.Built b = rig.build("common" + wave, COMMON.replace("VCC", wave == 32 ? "vcc_lo" : "vcc")
                    .replace("MASK", wave == 32 ? "s20" : "s[20:21]"));
            assertTrue(b.translation().ok(), () -> b.translation().coverageReport());
            Path d = rig.writeTranslation("common" + wave, b);
            run(d, List.of(NVCC.toString(), "-gencode", "arch=compute_90,code=[sm_90,compute_90]", "--fmad=false",
                    "-prec-div=true", "-prec-sqrt=true", "-lineinfo", "-c", "-o", "kernel-gpu.o", "kernel.cu"));
            assertTrue(Files.size(d.resolve("kernel-gpu.o")) > 0);
        }
        System.out.printf("every-row g++ -O2 + nvcc -ptx + common forms sm_90: %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    static final String COMMON = """
            v_mov_b32 v1, 0x3fc00000
            v_cvt_f32_u32 v2, v0
            v_mul_lo_u32 v4, v0, 0x9e3779b9
            v_add_f32 v6, v1, v2
            v_mul_f32_e64 v7, -v2, 0.5 clamp
            v_cmp_gt_f32 VCC, v2, 4.0
            v_cndmask_b32 v8, v1, v2, VCC
            v_add_co_u32 v9, MASK, v4, v2
            v_add_co_ci_u32 v10, VCC, v4, v9, VCC
            v_mov_b32_dpp v11, v4 row_shr:1 bound_ctrl:1
            v_mov_b32_dpp v12, v4 quad_perm:[3,2,1,0] row_mask:0x5 bank_mask:0xa
            v_add_nc_u32_sdwa v13, v4, v5 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:WORD_1
            v_mov_b32_dpp v14, v4 dpp8:[7,6,5,4,3,2,1,0]
            v_readlane_b32 s5, v4, 7
            v_readfirstlane_b32 s6, v5
            v_writelane_b32 v15, s5, 9
            v_permlanex16_b32 v16, v4, s5, s6
            v_fma_f16 v17, v2, v2, v2 op_sel:[0,1,0,1]
            v_fma_f64 v[18:19], v[6:7], v[8:9], v[10:11]
            v_ldexp_f64 v[20:21], v[6:7], v4
            v_rcp_f32 v22, v2
            v_cmpx_lt_u32_e64 v0, 20
            s_round_mode 0x3
            v_add_f32 v3, v1, v6
            s_endpgm
            """;
}
