package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/**
 * The corpus compile check's batches (NvccBatch): translations of different wave sizes and register counts, each in
 * its own namespace with its own headers and macros, compile as one unit with nvcc (PTX for compute_90, then ptxas to
 * sm_90), every translation's entry present; a translation that does not compile fails the batch.
 */
@Tag("corpus")
class NvccBatchTest {
    private static final Path GOLDEN = Toolchain.root().resolve(
            "gpu-node/src/test/resources/org/replayfarm/gpunode/translate/golden");
    private static final Path NVCC = Path.of("/usr/local/cuda/bin/nvcc");
    private static final Path PTXAS = Path.of("/usr/local/cuda/bin/ptxas");

    @TempDir
    Path dir;

    private List<Translation> goldens() throws Exception {
        List<Translation> out = new ArrayList<>();
        for (String name : List.of("vector_store", "barrier_call", "scalar_loop")) {
            String asm = Files.readString(GOLDEN.resolve(name + ".s"));
            boolean wave64 = asm.contains("; wave64");
            CaptureFile c = Differential.assemble(dir, asm, wave64 ? 64 : 32, wave64 ? 128 : 64, 1,
                    List.of(new byte[256]), 0, 0);
            out.add(new Translator().translate(ProgramInfo.of(c)));
        }
        return out;
    }

    @Test
    void translations_of_both_wave_sizes_compile_as_one_batch() throws Exception {
        List<Translation> ts = goldens();
        assertTrue(ts.get(0).source().contains("#define RT_WAVE 32") && ts.get(1).source().contains("#define RT_WAVE 64"));
        String src = NvccBatch.source(ts);
        assertFalse(src.contains("#include \""), "the runtime headers are expanded in place");
        for (int n = 0; n < ts.size(); n++) {
            assertTrue(src.contains("namespace rt_b" + n + " {"), "translation " + n + " has its namespace");
            assertTrue(src.contains("#define replay_kernel " + NvccBatch.entry(n)), "translation " + n + "'s entry");
        }
        // each translation expands its own copy of the headers (its RT_WAVE), and undefines its macros after
        assertEquals(ts.size(), src.split("RT_WAVE_FUNCTION\\(rt_program_wave\\) \\{", -1).length - 1);
        assertEquals(ts.size(), src.split("\n#undef RT_WAVE\n", -1).length - 1);
        String ptx = NvccBatch.compile(NVCC, PTXAS, ts, dir.resolve("batch"), 600);
        for (int n = 0; n < ts.size(); n++) {
            assertTrue(ptx.contains(".entry " + NvccBatch.entry(n) + "("), "the PTX has entry " + n);
        }
        assertTrue(Files.size(dir.resolve("batch/batch.o")) > 0, "ptxas wrote the sm_90 object");
    }

    @Test
    void a_translation_that_does_not_compile_fails_its_batch() throws Exception {
        List<Translation> ts = new ArrayList<>(goldens().subList(0, 1));
        Translation ok = ts.get(0);
        ts.add(new Translation(ok.source().replace("RT_PROLOGUE();", "RT_PROLOGUE(); not_a_name = 1;"),
                ok.listing(), ok.headers(), ok.refusals(), ok.coverage(), ok.approximate(), ok.unreached(),
                ok.controlFlow()));
        IOException e = assertThrows(IOException.class, () -> NvccBatch.compile(NVCC, PTXAS, ts, dir.resolve("bad"), 600));
        assertTrue(e.getMessage().contains("not_a_name"), e.getMessage());
    }
}
