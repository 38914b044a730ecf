package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Issue 33, script 40: ACO's FLOAT_MODE flushes f32 denormals for a shader that asked for nothing, lavapipe keeps
 * them (Vulkan allows either), and values computed from a flushed input differ far beyond ulps. The comparison runs
 * the storing group again with denormals kept: where that gives lavapipe's bytes, the element differs only by the
 * float mode, and the range line, the result line and report.json say so. A real difference beside them is still
 * one, and a translation, which must follow the capture's mode, is not excused.
 */
@Tag("corpus")
class FloatModeDifferenceTest {
    @TempDir
    static Path dir;
    static Path capture;
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void build() {
        capture = dir.resolve("d40.capture");
        CliRun built = CliRun.of("capture", "build", "--amber",
                Toolchain.root().resolve("cli/src/test/resources/amber/40_denormals.amber").toString(), "-o",
                capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
    }

    @Test
    void lavapipes_kept_denormals_are_named_and_a_real_difference_beside_them_is_not_excused() throws Exception {
        Path out = dir.resolve("run");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("element(s) differ only by the float mode (denormals kept)"), run.out());
        JsonNode out1 = JSON.readTree(out.resolve("report.json").toFile()).path("comparison").path("ranges").get(1);
        long excused = out1.path("tolerated_float_mode").asLong();
        assertTrue(excused > 0, out1.toString());

        // lavapipe's outputs with r[7] (1.0, no denormal anywhere near it) changed: that byte is a difference
        Path device = Files.createDirectories(dir.resolve("device"));
        for (String f : new String[] {"guest-0.bin", "guest-1.bin", "guest-2.bin"}) {
            Files.copy(out.resolve("device").resolve(f), device.resolve(f));
        }
        byte[] r = Files.readAllBytes(device.resolve("guest-1.bin"));
        r[7 * 4 + 3] ^= 0x01;
        Files.write(device.resolve("guest-1.bin"), r);
        Path planted = dir.resolve("planted");
        CliRun different = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + device, "--out",
                planted.toString());
        assertEquals(1, different.exitCode(), different.out() + different.err());
        JsonNode out2 = JSON.readTree(planted.resolve("report.json").toFile()).path("comparison").path("ranges").get(1);
        assertEquals(1, out2.path("differing").asLong(), out2.toString());
        assertEquals(excused, out2.path("tolerated_float_mode").asLong(), "the denormal bytes are still excused");
    }

    @Test
    void a_translation_follows_the_captures_mode_and_is_compared_exactly() throws Exception {
        Path out = dir.resolve("cuda");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu", "--out",
                out.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        JsonNode out1 = JSON.readTree(out.resolve("report.json").toFile()).path("comparison").path("ranges").get(1);
        assertEquals(0, out1.path("tolerated_float_mode").asLong(), out1.toString());
        assertTrue(!run.out().contains("float mode"), run.out());
    }
}
