package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.junit.jupiter.api.Tag;

/**
 * Golden sources: three small programs (assembled by llvm-mc-19) translate to exactly the kernel.cu kept in
 * src/test/resources/.../golden, so any change in the emitted code shows in review as a change of those
 * files. The translation is also deterministic: translating twice gives the same bytes. After an intended
 * change, regenerate with {@code -Dreplay.golden.update=true} and review the diff.
 */
@Tag("corpus")
class GoldenSourceTest {
    private static final Path GOLDEN = Toolchain.root().resolve(
            "gpu-node/src/test/resources/org/replayfarm/gpunode/translate/golden");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"scalar_loop", "barrier_call", "vector_store"})
    void translation_matches_its_golden_source(String name) throws Exception {
        String asm = Files.readString(GOLDEN.resolve(name + ".s"));
        boolean wave64 = asm.contains("; wave64");
        CaptureFile c = Differential.assemble(dir, asm, wave64 ? 64 : 32, wave64 ? 128 : 64, 1,
                List.of(new byte[256]), 0, 0);
        Translation t = new Translator().translate(ProgramInfo.of(c));
        Translation again = new Translator().translate(ProgramInfo.of(c));
        assertEquals(t.source(), again.source(), "the same program translates to the same bytes");
        assertEquals(List.of(), t.refusals(), "refusals");
        Path golden = GOLDEN.resolve(name + ".cu");
        if (Boolean.getBoolean("replay.golden.update")) {
            Files.writeString(golden, t.source());
        }
        assertEquals(Files.readString(golden), t.source(), name + ": the emitted code changed; review it and "
                + "regenerate the golden file with -Dreplay.golden.update=true");
        // as `replay translate` writes it, the directory compiles with nvcc for sm_90 as it lies: the BUILD
        // line (with PTX), and the issue's short line
        Path out = dir.resolve("translation");
        CpuBuild.writeSources(t, out);
        List<String> cmd = new java.util.ArrayList<>(List.of(NVCC));
        if (name.equals("scalar_loop")) {
            cmd.addAll(List.of("-arch=sm_90", "--fmad=false"));
        } else {
            cmd.addAll(CpuBuild.NVCC_FLAGS);
        }
        cmd.addAll(List.of("-c", "kernel.cu", "-o", "kernel.o"));
        CpuBuild.run(cmd, out, 600);
        assertTrue(Files.size(out.resolve("kernel.o")) > 0, "nvcc wrote an object");
        CpuBuild.run(List.of(NVCC, "-arch=sm_90", "--fmad=false", "-lineinfo", "-ptx", "kernel.cu", "-o", "kernel.ptx"),
                out, 600);
        String ptx = Files.readString(out.resolve("kernel.ptx"));
        assertTrue(ptx.contains(".entry replay_kernel"), "the PTX has the kernel entry");
        assertTrue(ptx.contains(".file") && ptx.contains("guest.s"), "the PTX names guest.s (the #line directives)");
    }

    private static final String NVCC = "/usr/local/cuda/bin/nvcc";
}
