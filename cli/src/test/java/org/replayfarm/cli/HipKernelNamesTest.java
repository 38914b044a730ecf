package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;

/**
 * Issue 39: a HIP kernel's mangled symbol reached junit.xml and the web UI as it is. The report keeps the symbol and
 * adds its declaration ({@code kernel_demangled}), which junit.xml's suite and the web UI's job page show.
 */
@Tag("cluster")
class HipKernelNamesTest {
    @TempDir
    Path dir;

    @Test
    void a_hip_kernels_reports_read_its_declaration() throws Exception {
        Path hip = dir.resolve("scale.hip");
        Files.writeString(hip, """
                __global__ void scale(float *x, float a, unsigned n) {
                    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
                    if (i < n) x[i] *= a;
                }
                """);
        Files.write(dir.resolve("x.bin"), new byte[256]);
        Path capture = dir.resolve("scale.capture");
        CliRun built = CliRun.of("capture", "build", "--source", hip.toString(), "--kernel", "scale", "--groups", "1",
                "--group-size", "64", "--arg", "buffer:" + dir.resolve("x.bin"), "--arg", "f32:2", "--arg", "u32:64",
                "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        String symbol = CaptureFile.open(capture).metadata().getProgram().getKernelName();
        assertTrue(symbol.startsWith("_Z"), symbol);
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "none", "--out",
                dir.resolve("o").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        JsonNode report = new ObjectMapper().readTree(dir.resolve("o/report.json").toFile());
        assertEquals(symbol, report.path("kernel").asText());
        String declared = report.path("kernel_demangled").asText();
        assertEquals("scale(float *, float, uint)", declared);
        String junit = Files.readString(dir.resolve("o/junit.xml"));
        assertTrue(junit.contains("<testsuite name=\"replay " + declared.replace("&", "&amp;").replace("<", "&lt;")
                .replace(">", "&gt;").replace("\"", "&quot;") + "\""), junit);
        assertTrue(!junit.contains(symbol), junit);
    }
}
