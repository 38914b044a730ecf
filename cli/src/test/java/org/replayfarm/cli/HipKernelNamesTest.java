package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * Issue 39: a HIP kernel's mangled symbol reached junit.xml and the web UI as it is, and its ranges were compared as
 * bytes. The report keeps the symbol and adds its declaration ({@code kernel_demangled}), which junit.xml's suite and
 * the web UI's job page show; its pointer arguments are typed from that declaration (a {@code float*} is f32); and a
 * differing integer region is not annotated with approximate instructions, which cannot excuse it.
 */
@Tag("cluster")
class HipKernelNamesTest {
    @TempDir
    Path dir;

    @Test
    void a_hip_kernels_reports_read_its_declaration_and_type_its_ranges() throws Exception {
        Path hip = dir.resolve("scale.hip");
        Files.writeString(hip, """
                __global__ void scale(float *x, int *c, float a, unsigned n) {
                    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
                    if (i < n) {
                        x[i] = __expf(x[i] * a);
                        c[i] = (int) i * 3;
                    }
                }
                """);
        Files.write(dir.resolve("x.bin"), new byte[256]);
        Files.write(dir.resolve("c.bin"), new byte[256]);
        Path capture = dir.resolve("scale.capture");
        CliRun built = CliRun.of("capture", "build", "--source", hip.toString(), "--kernel", "scale", "--groups", "1",
                "--group-size", "64", "--arg", "buffer:" + dir.resolve("x.bin"), "--arg", "buffer:" + dir.resolve("c.bin"),
                "--arg", "f32:2", "--arg", "u32:64", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        String symbol = CaptureFile.open(capture).metadata().getProgram().getKernelName();
        assertTrue(symbol.startsWith("_Z"), symbol);
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "none", "--out",
                dir.resolve("o").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        JsonNode report = new ObjectMapper().readTree(dir.resolve("o/report.json").toFile());
        assertEquals(symbol, report.path("kernel").asText());
        String declared = report.path("kernel_demangled").asText();
        assertEquals("scale(float *, int *, float, uint)", declared);
        String junit = Files.readString(dir.resolve("o/junit.xml"));
        assertTrue(junit.contains("<testsuite name=\"replay scale(float *, int *, float, uint)\""), junit);
        assertFalse(junit.contains(symbol), junit);

        // the host's outputs as the device's, one element of c changed: typed from the signature, no approx note
        Path device = Files.createDirectories(dir.resolve("device"));
        for (String f : new String[] {"guest-0.bin", "guest-1.bin"}) {
            Files.copy(dir.resolve("o/host").resolve(f), device.resolve(f));
        }
        byte[] c = Files.readAllBytes(device.resolve("guest-1.bin"));
        c[8] ^= 1;
        Files.write(device.resolve("guest-1.bin"), c);
        CliRun compared = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + device, "--out",
                dir.resolve("o2").toString());
        assertEquals(1, compared.exitCode(), compared.out() + compared.err());
        JsonNode ranges = new ObjectMapper().readTree(dir.resolve("o2/report.json").toFile()).path("comparison")
                .path("ranges");
        assertEquals("f32", ranges.get(0).path("view").path("type").asText(), ranges.get(0).toString());
        assertEquals("kernel signature", ranges.get(0).path("view").path("source").asText());
        assertEquals("i32", ranges.get(1).path("view").path("type").asText(), ranges.get(1).toString());
        assertTrue(compared.out().contains("element(s) 2..2, stored by (0, 0, 0)\n")
                || compared.out().contains("element(s) 2..2, stored by (0, 0, 0)" + System.lineSeparator()), compared.out());
        assertFalse(compared.out().contains("approx]"), compared.out());
    }
}
