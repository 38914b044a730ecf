package org.replayfarm.gpunode.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;

/**
 * A translation folder built as it lies, for the GPU ({@code cuda:DIR}: nvcc, no GPU needed to compile) and the CPU
 * ({@code cuda-cpu:DIR}: g++): an edit changes the build (and its cache key), a folder that does not compile is an error
 * whose message starts with the compiler's first error, and the translation's tracing switch (-DRT_TRACE) is refused
 * in the GPU build with a message saying so.
 */
@Tag("corpus")
class FolderBuildTest {
    @TempDir
    Path dir;

    private Path folder() throws Exception {
        CaptureFile c = CaptureFile.open(Path.of("../examples/saxpy/saxpy.capture"));
        Translation t = new Translator().translate(ProgramInfo.of(c));
        assertTrue(t.ok(), t.coverageReport());
        Path f = dir.resolve("t");
        CpuBuild.writeSources(t, f);
        return f;
    }

    @Test
    void nvccBuildsTheFolderAsItLies() throws Exception {
        assumeTrue(Files.isExecutable(Path.of(FatbinBuild.defaultNvcc())) || FatbinBuild.defaultNvcc().equals("nvcc"),
                "nvcc");
        Path f = folder();
        FatbinBuild nvcc = new FatbinBuild(FatbinBuild.defaultNvcc(), dir.resolve("cache"));
        FatbinBuild.Built built = nvcc.buildFolder(f);
        assertTrue(built.compiled());
        assertEquals(0xBA55ED50, ByteBuffer.wrap(built.fatbinBytes()).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        assertFalse(nvcc.buildFolder(f).compiled(), "the same folder comes from the cache");
        Files.writeString(f.resolve("kernel.cu"), Files.readString(f.resolve("kernel.cu")) + "\n/* an edit */\n");
        FatbinBuild.Built edited = nvcc.buildFolder(f);
        assertTrue(edited.compiled() && !edited.hash().equals(built.hash()), "an edit is a new build");
        Files.writeString(f.resolve("kernel.cu"), Files.readString(f.resolve("kernel.cu")) + "\nint broken(\n");
        IOException e = assertThrows(IOException.class, () -> nvcc.buildFolder(f));
        assertTrue(e.getMessage().startsWith("the folder " + f + " does not build: ") && e.getMessage().contains("error"),
                e.getMessage());
    }

    @Test
    void gxxBuildsTheFolderAsItLiesAndTheGpuBuildRefusesTracing() throws Exception {
        Path f = folder();
        CpuBuild gxx = new CpuBuild("g++", dir.resolve("cpu"), "-O0");
        CpuBuild.Built built = gxx.buildFolder(f);
        assertTrue(built.compiled() && Files.isExecutable(built.runner()));
        assertTrue(gxx.with("-DRT_TRACE").buildFolder(f).compiled(), "the traced runner is another build");
        Files.writeString(f.resolve("replay_rt.h"), "#error planted\n" + Files.readString(f.resolve("replay_rt.h")));
        IOException e = assertThrows(IOException.class, () -> gxx.buildFolder(f));
        assertTrue(e.getMessage().contains("does not build: ") && e.getMessage().contains("planted"), e.getMessage());

        assumeTrue(Files.isExecutable(Path.of(FatbinBuild.defaultNvcc())) || FatbinBuild.defaultNvcc().equals("nvcc"),
                "nvcc");
        Path g = folder();
        Files.writeString(g.resolve("kernel.cu"), "#define RT_TRACE 1\n" + Files.readString(g.resolve("kernel.cu")));
        IOException traced = assertThrows(IOException.class,
                () -> new FatbinBuild(FatbinBuild.defaultNvcc(), dir.resolve("gpu")).buildFolder(g));
        assertTrue(traced.getMessage().contains("the GPU build does not trace"), traced.getMessage());
    }
}
