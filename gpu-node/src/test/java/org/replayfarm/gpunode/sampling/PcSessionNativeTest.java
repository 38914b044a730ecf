package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shim's C session (src/main/native/pcsession.c) against a fake CUPTI (src/test/native/pcsession_test.c),
 * without a GPU: Enable before the stall-reason queries and the configuration, activity before Enable and
 * never again; a drain ends at its round cap on a fake that never lowers remainingNumPcs; GetData never gets
 * the configuration buffer; one functionName shared by every record is read each time and never freed.
 */
@Tag("unit")
class PcSessionNativeTest {
    private static final Path CUDA = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"));

    @Test
    void the_session_keeps_cuptis_order_and_its_drain_ends_without_freeing_shared_names(@TempDir Path dir)
            throws Exception {
        assumeTrue(Files.isRegularFile(CUDA.resolve("include/cupti_pcsampling.h")), "no CUPTI headers under " + CUDA);
        Path exe = dir.resolve("pcsession_test");
        Path log = dir.resolve("out.txt");
        Process cc = new ProcessBuilder("gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I" + CUDA.resolve("include"),
                "-Isrc/main/native", "-Wl,--wrap=free", "-o", exe.toString(), "src/test/native/pcsession_test.c",
                "src/main/native/pcsession.c", "-lpthread").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assumeTrue(cc.waitFor(120, TimeUnit.SECONDS), "gcc did not finish");
        assertEquals(0, cc.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        Process run = new ProcessBuilder(exe.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        run.waitFor(60, TimeUnit.SECONDS);
        assertEquals("OK", Files.readString(log, StandardCharsets.UTF_8).strip());
        assertEquals(0, run.exitValue());
    }
}
