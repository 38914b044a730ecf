package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/**
 * The examples' translations in the nvcc compile check the kernel corpus gets (NvccBatch: compute_90 PTX with
 * {@link CpuBuild#NVCC_CHECK_FLAGS}, then ptxas to sm_90), as one batch: saxpy and hip-reduce here; the shadow pass
 * is compiled by ShadowPassDeviceTest with the other image programs it runs through cuda-cpu (ImageRig.nvccCheck).
 * Each must translate without a refusal; their results through cuda-cpu are ExamplesCudaCpuTest's (cli).
 */
@Tag("unit")
class ExamplesNvccTest {
    @TempDir
    Path dir;

    @Test
    void the_examples_compile_with_nvcc_for_sm_90() throws Exception {
        Path examples = Toolchain.root().resolve("examples");
        List<String> captures = List.of("saxpy/saxpy.capture", "hip-reduce/reduce.capture");
        List<Translation> ts = new java.util.ArrayList<>();
        for (String c : captures) {
            Translation t = new Translator().translate(ProgramInfo.of(CaptureFile.open(examples.resolve(c))));
            assertTrue(t.ok(), c + " is refused:\n" + t.coverageReport());
            ts.add(t);
        }
        String ptx = NvccBatch.compile(Path.of("/usr/local/cuda/bin/nvcc"), Path.of("/usr/local/cuda/bin/ptxas"), ts,
                dir.resolve("batch"), 600);
        for (int n = 0; n < ts.size(); n++) {
            assertTrue(ptx.contains(".entry " + NvccBatch.entry(n) + "("), captures.get(n) + "'s entry is in the PTX");
        }
        assertTrue(Files.size(dir.resolve("batch/batch.o")) > 0, "ptxas wrote the sm_90 object");
    }
}
