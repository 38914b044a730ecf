package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39, point 1, on images: a Vulkan shader adds floats into one texel of an r32ui image with an
 * imageAtomicCompSwap loop from every workgroup, and exchanges its invocation id into three others. Evaluated apart,
 * each group's loop succeeded against the initial 0 and the merge kept one group's sum; the groups now run again in
 * group order on the texels the ones before them left, and the host's image equals lavapipe's (the sum's terms are
 * quarters, exact in any order; the exchanges end on the last group's ids, as lavapipe's in-order groups do).
 */
@Tag("corpus")
class OrderDependentImageAtomicsTest {
    @TempDir
    Path dir;

    @Test
    void texel_compare_and_swap_loops_across_groups_sum_as_a_device_does() throws Exception {
        Path shader = dir.resolve("casimg.comp");
        Files.writeString(shader, """
                #version 450
                layout(local_size_x = 64) in;
                layout(set = 0, binding = 0, r32ui) uniform coherent uimage2D acc;
                layout(set = 0, binding = 1) readonly buffer In { float v[]; };
                void main() {
                  uint i = gl_GlobalInvocationID.x;
                  float add = v[i];
                  uint seen = imageLoad(acc, ivec2(0, 0)).x;
                  while (true) {
                    uint want = floatBitsToUint(uintBitsToFloat(seen) + add);
                    uint prev = imageAtomicCompSwap(acc, ivec2(0, 0), seen, want);
                    if (prev == seen) break;
                    seen = prev;
                  }
                  imageAtomicExchange(acc, ivec2(1 + int(i % 3u), 0), i);
                }
                """);
        ByteBuffer v = ByteBuffer.allocate(4 * 256).order(ByteOrder.LITTLE_ENDIAN);
        float sum = 0;
        for (int i = 0; i < 256; i++) {
            float x = 0.5f + (i % 7) * 0.25f;
            v.putFloat(x);
            sum += x;
        }
        Files.write(dir.resolve("v.bin"), v.array());
        Files.write(dir.resolve("img.bin"), new byte[16]);
        Path capture = dir.resolve("casimg.capture");
        CliRun built = CliRun.of("capture", "build", "--source", shader.toString(), "--groups", "4", "--binding",
                "0.0=image:raw:" + dir.resolve("img.bin") + ",4x1,format=32_UINT", "--binding",
                "0.1=buffer:" + dir.resolve("v.bin"), "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        Path out = dir.resolve("run");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("their 4 group(s) ran again one after another in group order, memory and images "
                + "carried"), run.out());
        ByteBuffer host = ByteBuffer.wrap(Files.readAllBytes(out.resolve("host/image-0.raw"))).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(sum, Float.intBitsToFloat(host.getInt(0)), "every group's terms, not one group's");
        assertEquals(255, host.getInt(4 * (1 + 255 % 3)), "the last group's last exchange there");
        JsonNode image = new ObjectMapper().readTree(out.resolve("report.json").toFile()).path("comparison")
                .path("images").get(0);
        assertEquals(4, image.path("compared").asInt(), image.toString());
        assertEquals(0, image.path("differing").asInt(), "equal to lavapipe's: " + image);
    }
}
