package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.cli.examples.ShadowPass;
import org.replayfarm.model.testing.Toolchain;

/**
 * The shadow pass end to end at a 128x72 frame (64x36 mask, 8 x 5 groups): shadow.cl compiled by clang-19
 * with the flags of examples/shadow-pass/BUILD, the capture built from the generated inputs (depth, a normal
 * map read through channel order Z, Y, X, W, the mask, the BVH, the camera), every group run on the host
 * model, and the stored mask compared texel by texel with the independent reference tracer's mask. Then
 * {@code replay run} against the reference attached as a recorded run (equal), and against a copy with
 * known texels flipped (caught at exactly those texels, in the regions and groups they lie in).
 */
@Tag("cluster")
class ShadowPassCaptureTest {
    private static final String REFERENCE = "independent Java ray tracer (reference)";
    private static final int W = 128;
    private static final int H = 72;
    private static final int MW = 64;
    private static final int MH = 36;

    @TempDir
    static Path dir;
    static Path capture;
    static Path inputs;

    @BeforeAll
    static void build() throws Exception {
        Path example = Toolchain.root().resolve("examples/shadow-pass");
        Files.copy(example.resolve("shadow.cl"), dir.resolve("shadow.cl"));
        String compile = Files.readAllLines(example.resolve("BUILD")).stream()
                .filter(l -> l.startsWith("clang-19 ")).findFirst().orElseThrow();
        Toolchain.run(dir, ExampleRebuildTest.words(compile));
        inputs = dir.resolve("inputs");
        CliRun gen = CliRun.of("example", "shadow-pass", "--width", "" + W, "--height", "" + H, "--out", inputs.toString());
        assertEquals(0, gen.exitCode(), gen.err());
        capture = buildCapture("ZYXW", dir.resolve("shadow.capture"));
        CliRun added = CliRun.of("capture", "add-run", capture.toString(), "--label", REFERENCE,
                "--from", inputs.resolve("reference").toString());
        assertEquals(0, added.exitCode(), added.out() + added.err());
    }

    private static Path buildCapture(String normalOrder, Path out) {
        return buildCapture(dir.resolve("shadow.o"), normalOrder, out);
    }

    private static Path buildCapture(Path elf, String normalOrder, Path out) {
        CliRun built = CliRun.of("capture", "build", "--elf", elf.toString(), "--kernel", "shadow",
                "--groups", "8,5", "--group-size", "64",
                "--arg", "image:raw:" + inputs.resolve("depth.raw") + "," + W + "x" + H + ",format=32_FLOAT",
                "--arg", "image:raw:" + inputs.resolve("normals.raw") + "," + W + "x" + H + ",format=8_8_8_8_UNORM,order=" + normalOrder,
                "--arg", "image:raw:" + inputs.resolve("mask-initial.raw") + "," + MW + "x" + MH + ",format=8_UNORM",
                "--arg", "bvh:" + inputs.resolve("scene.bvh"), "--arg", "buffer:" + inputs.resolve("camera.bin"),
                "--arg", "zeros:4", "-o", out.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        return out;
    }

    /** Texels (x,y) where the host's mask differs from the reference. */
    private static List<String> differing(byte[] host, byte[] reference) {
        assertEquals(reference.length, host.length);
        List<String> d = new ArrayList<>();
        for (int i = 0; i < host.length; i++) {
            if (host[i] != reference[i]) {
                d.add(i % MW + "," + i / MW);
            }
        }
        return d;
    }

    @Test
    void every_group_on_the_host_model_stores_the_reference_mask_texel_for_texel() throws Exception {
        Path out = dir.resolve("eval");
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
        assertEquals(40, report.get("groups").asInt());
        assertEquals(0, report.get("faults").size(), "no fault, no wave over the instruction budget");
        assertEquals(0, report.get("instructions_by_fidelity").get("unsupported").asInt());
        assertArrayEquals(new byte[4], Files.readAllBytes(out.resolve("host/guest-1.bin")), "no traversal stack overflowed");

        byte[] host = Files.readAllBytes(out.resolve("host/image-" + ShadowPass.MASK_IMAGE + ".raw"));
        byte[] reference = Files.readAllBytes(inputs.resolve("reference-mask.raw"));
        int lit = 0;
        int dark = 0;
        for (byte b : host) {
            int v = b & 0xFF;
            assertTrue(v == 0 || v == 255, "every texel stored, 0 or 255; found " + v);
            lit += v == 255 ? 1 : 0;
            dark += v == 0 ? 1 : 0;
        }
        assertTrue(lit > 300 && dark > 300, "a mask with light and shadow: " + lit + " lit, " + dark + " dark");
        Set<String> grazes = new HashSet<>(Files.readAllLines(inputs.resolve("grazes.txt")));
        List<String> differ = differing(host, reference);
        System.out.println("shadow pass " + W + "x" + H + ": " + differ.size() + " texels differ from the reference, grazing rays "
                + grazes.size() + " " + new TreeSet<>(grazes));
        assertEquals(List.of(), differ.stream().filter(p -> !grazes.contains(p)).toList(),
                "texels that differ from the reference and are not listed grazes");
        assertEquals(List.of(), differ, "at this size no texel differs at all");
    }

    @Test
    void another_seeds_scene_at_an_odd_size_matches_its_reference_mask_apart_from_listed_grazes() throws Exception {
        // seed 99 (other boxes and spheres), a 150x94 frame: a 75x47 mask, so the last column and row of groups
        // (10 x 6 of 8 x 8) are partly outside it and their threads store nothing
        int w = 150;
        int h = 94;
        int mw = 75;
        int mh = 47;
        Path in = dir.resolve("seed99");
        CliRun gen = CliRun.of("example", "shadow-pass", "--seed", "99", "--width", "" + w, "--height", "" + h, "--out",
                in.toString());
        assertEquals(0, gen.exitCode(), gen.err());
        Path capture = dir.resolve("seed99.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", dir.resolve("shadow.o").toString(), "--kernel", "shadow",
                "--groups", "10,6", "--group-size", "64",
                "--arg", "image:raw:" + in.resolve("depth.raw") + "," + w + "x" + h + ",format=32_FLOAT",
                "--arg", "image:raw:" + in.resolve("normals.raw") + "," + w + "x" + h + ",format=8_8_8_8_UNORM,order=ZYXW",
                "--arg", "image:raw:" + in.resolve("mask-initial.raw") + "," + mw + "x" + mh + ",format=8_UNORM",
                "--arg", "bvh:" + in.resolve("scene.bvh"), "--arg", "buffer:" + in.resolve("camera.bin"),
                "--arg", "zeros:4", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        Path out = dir.resolve("seed99-eval");
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        assertArrayEquals(new byte[4], Files.readAllBytes(out.resolve("host/guest-1.bin")), "no traversal stack overflowed");
        byte[] host = Files.readAllBytes(out.resolve("host/image-" + ShadowPass.MASK_IMAGE + ".raw"));
        byte[] reference = Files.readAllBytes(in.resolve("reference-mask.raw"));
        assertEquals(mw * mh, reference.length);
        Set<String> grazes = new HashSet<>(Files.readAllLines(in.resolve("grazes.txt")));
        List<String> differ = new ArrayList<>();
        int lit = 0;
        for (int i = 0; i < host.length; i++) {
            int v = host[i] & 0xFF;
            assertTrue(v == 0 || v == 255, "every texel stored, 0 or 255; found " + v + " at " + i % mw + "," + i / mw);
            lit += v == 255 ? 1 : 0;
            if (host[i] != reference[i]) {
                differ.add(i % mw + "," + i / mw);
            }
        }
        System.out.println("shadow pass, seed 99, " + w + "x" + h + ": " + differ.size() + " texels differ from the reference, "
                + "grazing rays " + grazes.size() + " " + new TreeSet<>(grazes) + "; " + lit + " lit of " + host.length);
        assertTrue(lit > 300 && host.length - lit > 300, "a mask with light and shadow");
        assertEquals(List.of(), differ.stream().filter(p -> !grazes.contains(p)).toList(),
                "texels that differ from the reference and are not listed grazes");
    }

    @Test
    void the_normal_map_order_is_applied_the_identity_order_reads_swizzled_normals_and_shadows_differ() throws Exception {
        Path identity = buildCapture("XYZW", dir.resolve("identity.capture"));
        Path out = dir.resolve("identity");
        CliRun eval = CliRun.of("eval", identity.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        List<String> differ = differing(Files.readAllBytes(out.resolve("host/image-2.raw")),
                Files.readAllBytes(inputs.resolve("reference-mask.raw")));
        // the normal only offsets the shadow ray's origin (by the camera's bias), so few texels change: 18 here
        assertTrue(differ.size() >= 10, "normals read as (z, y, x) move the shadow rays' origins: " + differ.size() + " differ");
    }

    @Test
    void a_short_stack_overflows_counted_once_a_drop_and_drops_only_turn_shadow_into_light() throws Exception {
        // BUILD's compile with the wave's stack cut to 2 entries (the scene needs up to 15)
        Path example = Toolchain.root().resolve("examples/shadow-pass");
        List<String> compile = new ArrayList<>(ExampleRebuildTest.words(Files.readAllLines(example.resolve("BUILD")).stream()
                .filter(l -> l.startsWith("clang-19 ")).findFirst().orElseThrow()));
        compile.add(1, "-DSTACK=2");
        compile.set(compile.indexOf("shadow.o"), "shadow-stack2.o");
        Toolchain.run(dir, compile);
        Path shortStack = buildCapture(dir.resolve("shadow-stack2.o"), "ZYXW", dir.resolve("stack2.capture"));
        Path out = dir.resolve("stack2");
        CliRun eval = CliRun.of("eval", shortStack.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
        assertEquals(0, report.get("faults").size(), "every wave ends although children were dropped");
        long dropped = java.nio.ByteBuffer.wrap(Files.readAllBytes(out.resolve("host/guest-1.bin")))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0) & 0xFFFFFFFFL;
        byte[] host = Files.readAllBytes(out.resolve("host/image-2.raw"));
        byte[] reference = Files.readAllBytes(inputs.resolve("reference-mask.raw"));
        int lighter = 0;
        for (int i = 0; i < host.length; i++) {
            int v = host[i] & 0xFF;
            assertTrue(v == 0 || v == 255, "every texel stored, 0 or 255; found " + v);
            if (v != (reference[i] & 0xFF)) {
                assertEquals(0, reference[i], "a drop can only lose an occluder: texel " + i % MW + "," + i / MW);
                lighter++;
            }
        }
        System.out.println("shadow pass " + W + "x" + H + " with a 2-entry stack: " + dropped + " children dropped, "
                + lighter + " texels lit that the reference shadows");
        assertTrue(dropped > 0, "the 2-entry stack overflows and the counter says so");
        assertTrue(lighter > 0, "the dropped children held occluders: shadows are lost");
    }

    @Test
    void replay_run_equals_the_recorded_reference_and_catches_a_corrupted_copy_at_exactly_its_texels() throws Exception {
        ObjectMapper json = new ObjectMapper();
        Path clean = dir.resolve("run-clean");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--evaluators", "2", "--out", clean.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("device          recorded run '" + REFERENCE + "'"), run.out());
        JsonNode mask = json.readTree(clean.resolve("report.json").toFile()).get("comparison").get("images").get(2);
        assertEquals(List.of(MW * MH, MW * MH, 0, 0), List.of(mask.get("texels").asInt(), mask.get("compared").asInt(),
                mask.get("differing").asInt(), mask.get("device_only").asInt()));

        // the reference with lit and shadow swapped at (5, 3), a 2x2 block at (40..41, 20..21) and (63, 35)
        byte[] bad = Files.readAllBytes(inputs.resolve("reference/image-2.raw"));
        int[][] flipped = {{5, 3}, {40, 20}, {41, 20}, {40, 21}, {41, 21}, {63, 35}};
        for (int[] t : flipped) {
            bad[t[1] * MW + t[0]] ^= (byte) 0xFF;
        }
        Path from = Files.createDirectories(dir.resolve("corrupted"));
        Files.write(from.resolve("image-2.raw"), bad);
        Path corrupted = dir.resolve("corrupted.capture");
        CliRun added = CliRun.of("capture", "add-run", capture.toString(), "--label", "corrupted", "--from", from.toString(),
                "-o", corrupted.toString());
        assertEquals(0, added.exitCode(), added.out() + added.err());
        Path out = dir.resolve("run-corrupted");
        CliRun caught = CliRun.of("run", corrupted.toString(), "--every-group", "--device", "recorded:corrupted",
                "--evaluators", "2", "--out", out.toString());
        assertEquals(1, caught.exitCode(), caught.out() + caught.err());
        assertTrue(caught.out().contains("result          different (exit status 1)"), caught.out());
        JsonNode image = json.readTree(out.resolve("report.json").toFile()).get("comparison").get("images").get(2);
        assertEquals(List.of(MW * MH, 6, 0, 3), List.of(image.get("compared").asInt(), image.get("differing").asInt(),
                image.get("device_only").asInt(), image.get("regions_total").asInt()));
        Set<String> regions = new TreeSet<>();
        for (JsonNode r : image.get("regions")) {
            List<String> groups = new ArrayList<>();
            r.get("groups").forEach(g -> groups.add(g.get("group").asText()));
            regions.add(r.get("x0").asInt() + "," + r.get("y0").asInt() + ".." + r.get("x1").asInt() + "," + r.get("y1").asInt()
                    + " " + r.get("differing").asInt() + " " + groups);
        }
        assertEquals(new TreeSet<>(List.of("5,3..5,3 1 [(0, 0, 0)]", "40,20..41,21 4 [(5, 2, 0)]", "63,35..63,35 1 [(7, 4, 0)]")),
                regions);
        // the diff PNG marks exactly the flipped texels red
        BufferedImage diff = ImageIO.read(out.resolve("diff/image-2.png").toFile());
        Set<String> red = new TreeSet<>();
        for (int y = 0; y < MH; y++) {
            for (int x = 0; x < MW; x++) {
                if ((diff.getRGB(x, y) & 0xFFFFFF) == 0xFF2020) {
                    red.add(x + "," + y);
                }
            }
        }
        Set<String> expected = new TreeSet<>();
        for (int[] t : flipped) {
            expected.add(t[0] + "," + t[1]);
        }
        assertEquals(expected, red);
        String junit = Files.readString(out.resolve("junit.xml"));
        assertTrue(junit.contains("failures=\"1\""), junit);
    }
}
