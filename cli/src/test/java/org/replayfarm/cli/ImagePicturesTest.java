package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * A clang-19 kernel storing x * 1000 + y into a 16x8 32_FLOAT image (far outside [0, 1], so clamping would show
 * a white picture): the float pictures are normalised and say how in their PNG text; three planted texels give
 * differing texel values traced to their image_store, and enlarged crops of their regions.
 */
@Tag("cluster")
class ImagePicturesTest {
    static final String SOURCE = """
            // Stores x * 1000 + y into a 16x8 32_FLOAT image (values far outside [0, 1]).
            kernel void ramp(constant uint8 *img) {
                int x = get_global_id(0) % 16;
                int y = get_global_id(0) / 16;
                float v = x * 1000.0f + y;
                __asm__ volatile("image_store %0, %1, %2 dmask:0x1 dim:SQ_RSRC_IMG_2D unorm"
                                 : : "v"(v), "v"((int2)(x, y)), "s"(*img) : "memory");
            }
            """;

    @TempDir
    Path dir;

    @Test
    void float_images_are_normalised_and_regions_get_enlarged_crops() throws Exception {
        Path object = Toolchain.compileOpenCl(dir, "ramp", SOURCE, "-include",
                Toolchain.root().resolve("include/replay-cl.h").toString());
        Files.write(dir.resolve("z.raw"), new byte[16 * 8 * 4]);
        Path capture = dir.resolve("ramp.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "ramp", "--groups", "2",
                "--group-size", "64", "--arg", "image:raw:" + dir.resolve("z.raw") + ",16x8,format=32_FLOAT", "-o",
                capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        ByteBuffer t = ByteBuffer.allocate(16 * 8 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int y = 0; y < 8; y++) {
            for (int x = 0; x < 16; x++) {
                t.putFloat((y * 16 + x) * 4, x * 1000.0f + y); // what the kernel stores, computed here
            }
        }
        t.putFloat((2 * 16 + 3) * 4, -1.0f);
        t.putFloat((2 * 16 + 4) * 4, -1.0f);
        t.putFloat((6 * 16 + 12) * 4, 99999.0f);
        Path device = Files.createDirectories(dir.resolve("device"));
        Files.write(device.resolve("image-0.raw"), t.array());
        Path out = dir.resolve("out");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + device, "--evaluators", "2",
                "--out", out.toString());
        assertEquals(1, run.exitCode(), run.out() + run.err());
        JsonNode image = new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("comparison").get("images").get(0);
        assertEquals(3, image.get("differing").asInt());
        assertEquals(2, image.get("regions_total").asInt());
        JsonNode v = image.get("values").get(0);
        assertEquals(java.util.List.of(3, 2), java.util.List.of(v.get("col").asInt(), v.get("row").asInt()));
        assertEquals("3002.0", v.get("host").get(0).asText());
        assertEquals("-1.0", v.get("device").get(0).asText());
        JsonNode store = v.get("stores").get(0);
        assertTrue(store.get("instruction").asText().startsWith("image_store v"), store.toString());
        assertEquals("texel store", store.get("kind").asText());
        assertEquals("3002.0 (0x453ba000)", store.get("value").asText(), "the value written, as the format's channel");
        assertEquals(3, store.get("lane").asInt(), "texel (3, 2) is work-item 35 of group 0: wave 1, lane 3");
        assertEquals(1, store.get("wave").asInt());

        BufferedImage host = ImageIO.read(out.resolve("host/image-0.png").toFile());
        assertEquals(0, host.getRGB(0, 0) & 0xFF, "the smallest value, 0, is black");
        assertEquals(255, host.getRGB(15, 7) & 0xFF, "the largest, 15007, is white");
        int mid = host.getRGB(8, 0) & 0xFF;
        assertEquals(Math.round(255 * 8000.0 / 15007), mid, 1, "linear in between");
        String text = new String(Files.readAllBytes(out.resolve("host/image-0.png")), StandardCharsets.ISO_8859_1);
        assertTrue(text.contains("Normalisation") && text.contains("channel 0 0.0 -> 0, 15007.0 -> 255"), text);

        String cropFile = image.get("regions").get(0).get("crop_png").asText();
        BufferedImage crop = ImageIO.read(out.resolve(cropFile).toFile());
        // the region x 3..4, y 2..2 with 4 texels of context, clipped: x 0..8, y 0..6: 9 x 7 texels, enlarged
        int scale = crop.getWidth() / 9;
        assertTrue(scale >= 16, "enlarged: " + crop.getWidth());
        assertEquals(7 * scale, crop.getHeight());
        assertEquals(0xFF2020, crop.getRGB(3 * scale + scale / 2, 2 * scale + scale / 2) & 0xFFFFFF);
        assertTrue((crop.getRGB(0, 0) & 0xFFFFFF) != 0xFF2020);
        assertTrue(Files.isRegularFile(out.resolve(image.get("regions").get(1).get("crop_png").asText())));

        // texel (12, 6) is work-item 108: group 1, work-item 44, wave 1, lane 12
        CliRun explain = CliRun.of("explain", out.toString(), "--image", "0", "--texel", "12,6");
        assertEquals(0, explain.exitCode(), explain.out() + explain.err());
        assertTrue(explain.out().contains("(1, 0, 0) wave 1 lane 12 pc 0x"), explain.out());
        assertTrue(explain.out().contains("[texel store] wrote 12006.0 (0x463b9800)"), explain.out());
        assertTrue(explain.out().contains("  host   12006.0 (0x463b9800)\n  device 99999.0 (0x47c34f80)\n"), explain.out());
        // a texel the report does not list (it is equal): its values come from the images the run wrote
        CliRun equal = CliRun.of("explain", out.toString(), "--image", "0", "--texel", "5,5");
        assertEquals(0, equal.exitCode(), equal.out() + equal.err());
        assertTrue(equal.out().contains("  host   5005.0 (0x459c6800)\n  device 5005.0 (0x459c6800)\n"), equal.out());
        assertTrue(equal.out().contains("re-running 2 group(s) with store tracing: (0, 0, 0) (1, 0, 0)\n"), equal.out());
        CliRun outside = CliRun.of("explain", out.toString(), "--image", "0", "--texel", "16,0");
        assertEquals(2, outside.exitCode());
        assertTrue(outside.err().contains("--texel 16,0: image 0 is 16x8"), outside.err());
    }
}
