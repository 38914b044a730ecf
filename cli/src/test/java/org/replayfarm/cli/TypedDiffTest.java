package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Typed comparison on a real clang-19 kernel (-g, -cl-kernel-arg-info): C[i] = exp(A[i]) over a 16x32 grid and a
 * 4-bin histogram all 8 groups add to atomically. The device folder is the host's own output with planted
 * differences (C[37] one ulp up, C[100] = 2.0, H[2] + 1), so those are the only differences: each is named by
 * parameter, element, row and column, with both values, bits and ulps; tolerances apply to float elements only
 * and only where they are asked for; the stores responsible are named with the PC and instruction
 * llvm-objdump-19 lists there and the source line of the DWARF line table; the bin names every group.
 */
@Tag("cluster")
class TypedDiffTest {
    static final String SOURCE = """
            // C[i] = exp(A[i]) for a 16x32 grid, and a 4-bin histogram every group adds to atomically.
            __kernel void expk(__global const float *A, __global float *C, __global uint *H, uint n) {
                uint i = get_global_id(0);
                if (i < n) {
                    C[i] = __builtin_expf(A[i]);
                    __atomic_fetch_add(&H[i % 4], 1u, __ATOMIC_RELAXED);
                }
            }
            """;

    @TempDir
    static Path dir;
    static Path capture;
    static Path device;
    static byte[] hostC;

    @BeforeAll
    static void build() throws Exception {
        Path object = Toolchain.compileOpenCl(dir, "expk", SOURCE, "-g", "-cl-kernel-arg-info", "-include",
                Toolchain.root().resolve("include/replay-cl.h").toString());
        ByteBuffer a = ByteBuffer.allocate(512 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 512; i++) {
            a.putFloat((i % 37) * 0.173f - 2.5f);
        }
        Files.write(dir.resolve("a.bin"), a.array());
        capture = dir.resolve("expk.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "expk", "--groups", "8",
                "--group-size", "64", "--arg", "buffer:" + dir.resolve("a.bin"), "--arg", "zeros:2048", "--arg", "zeros:16",
                "--arg", "u32:512", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        CliRun host = CliRun.of("run", capture.toString(), "--every-group", "--device", "none", "--evaluators", "2",
                "--out", dir.resolve("host").toString());
        assertEquals(0, host.exitCode(), host.out() + host.err());
        device = Files.createDirectories(dir.resolve("device"));
        hostC = Files.readAllBytes(dir.resolve("host/host/guest-1.bin"));
        ByteBuffer c = ByteBuffer.wrap(hostC.clone()).order(ByteOrder.LITTLE_ENDIAN);
        c.putInt(37 * 4, c.getInt(37 * 4) + 1);   // one ulp up (a positive float)
        c.putFloat(100 * 4, 2.0f);                 // far off
        Files.write(device.resolve("guest-1.bin"), c.array());
        ByteBuffer h = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("host/host/guest-2.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(128, h.getInt(8), "16 work-items of each of 8 groups added to bin 2");
        h.putInt(8, 129);
        Files.write(device.resolve("guest-2.bin"), h.array());
    }

    private static JsonNode run(String name, String... more) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("run", capture.toString(), "--every-group",
                "--device", "dir:" + device, "--evaluators", "2", "--out", dir.resolve(name).toString()));
        args.addAll(java.util.List.of(more));
        CliRun r = CliRun.of(args.toArray(String[]::new));
        assertEquals(1, r.exitCode(), r.out() + r.err());
        Files.writeString(dir.resolve(name + ".out"), r.out());
        return new ObjectMapper().readTree(dir.resolve(name).resolve("report.json").toFile());
    }

    @Test
    void differing_elements_are_named_by_parameter_index_row_and_column_with_values_bits_and_ulps() throws Exception {
        JsonNode report = run("exact", "--view", "C=f32[16x32]");
        assertEquals("replay-farm/run-report/2", report.get("schema").asText());
        JsonNode c = report.get("comparison").get("ranges").get(1);
        assertEquals("C", c.get("name").asText(), "named by its kernel parameter");
        assertEquals("float*", c.get("type_name").asText());
        assertEquals("f32", c.get("view").get("type").asText());
        assertEquals(16, c.get("view").get("rows").asInt());
        assertEquals(512, c.get("compared_elements").asInt());
        assertEquals(2, c.get("differing_elements").asInt());
        JsonNode v37 = c.get("values").get(0);
        assertEquals(37, v37.get("index").asInt());
        assertEquals(1, v37.get("row").asInt());
        assertEquals(5, v37.get("col").asInt());
        int bits37 = ByteBuffer.wrap(hostC).order(ByteOrder.LITTLE_ENDIAN).getInt(37 * 4);
        assertEquals(String.format("0x%08x", bits37), v37.get("host_bits").get(0).asText());
        assertEquals(String.format("0x%08x", bits37 + 1), v37.get("device_bits").get(0).asText());
        assertEquals(1, v37.get("ulps").get(0).asInt());
        assertEquals(Float.toString(Float.intBitsToFloat(bits37)), v37.get("host").get(0).asText());
        JsonNode v100 = c.get("values").get(1);
        assertEquals(java.util.List.of(100, 3, 4), java.util.List.of(v100.get("index").asInt(), v100.get("row").asInt(),
                v100.get("col").asInt()));
        assertEquals("2.0", v100.get("device").get(0).asText());
        assertEquals("(1, 0, 0)", v100.get("groups").get(0).asText(), "element 100 is group 1's");
        assertTrue(Files.size(dir.resolve("exact").resolve(c.get("heat_map_png").asText())) > 0);

        JsonNode h = report.get("comparison").get("ranges").get(2);
        assertEquals("H", h.get("name").asText());
        assertEquals("u32", h.get("view").get("type").asText());
        assertEquals(1, h.get("differing_elements").asInt());
        assertEquals(8, h.get("values").get(0).get("groups").size(), "every group added to the bin, not only the last");
        assertEquals(8, h.get("regions").get(0).get("groups").size());
        assertEquals("129", h.get("values").get(0).get("device").get(0).asText());
        String summary = Files.readString(dir.resolve("exact/summary.txt"));
        assertTrue(summary.contains("element 100 [3][4] (bytes 400..403): host "), summary);
        assertTrue(summary.contains("device 2.0 (0x40000000)"), summary);
        assertTrue(summary.contains("comparison      exact: every bit compared"), summary);
    }

    @Test
    void the_stores_responsible_are_named_with_pc_instruction_and_source_line_and_atomics_by_every_group()
            throws Exception {
        JsonNode report = run("traced", "--view", "C=f32[16x32]");
        JsonNode store = report.get("comparison").get("ranges").get(1).get("values").get(1).get("stores").get(0);
        // element 100: group 1, work-item 36 of 64, wave32: wave 1, lane 4
        assertEquals("(1, 0, 0)", store.get("group").asText());
        assertEquals(1, store.get("wave").asInt());
        assertEquals(4, store.get("lane").asInt());
        assertEquals("store", store.get("kind").asText());
        // the oracle: llvm-objdump-19's listing of the object at that offset from .text
        long pc = Long.decode(store.get("pc").asText());
        long codeAddress = Long.decode(new ObjectMapper().readTree(CliRun.of("capture", "export", capture.toString(), "--out",
                dir.resolve("export").toString()).exitCode() == 0 ? dir.resolve("export/manifest.json").toFile() : null)
                .get("program").get("code_address").asText());
        String listing = Toolchain.disassemble(dir.resolve("expk.o"));
        Matcher m = Pattern.compile("(?m)^\\s+(\\S.*?)\\s+// ([0-9A-F]{12}):").matcher(listing);
        String objdump = null;
        while (m.find()) {
            if (Long.parseLong(m.group(2), 16) == pc - codeAddress) {
                objdump = m.group(1).trim();
            }
        }
        assertEquals(objdump, store.get("instruction").asText());
        assertTrue(objdump.startsWith("global_store_dword"), objdump);
        assertEquals("expk.cl:5: C[i] = __builtin_expf(A[i]);", store.get("source").asText());

        JsonNode bin = report.get("comparison").get("ranges").get(2).get("values").get(0).get("stores");
        Set<String> groups = new HashSet<>();
        bin.forEach(s -> {
            groups.add(s.get("group").asText());
            assertTrue(s.get("kind").asText().equals("atomic add"), s.toString());
            assertTrue(s.get("instruction").asText().startsWith("global_atomic_add"), s.toString());
            assertEquals("expk.cl:6: __atomic_fetch_add(&H[i % 4], 1u, __ATOMIC_RELAXED);", s.get("source").asText());
        });
        assertEquals(8, groups.size(), "every contributing group's atomics are listed");

        CliRun explain = CliRun.of("explain", dir.resolve("traced").toString(), "--range", "C", "--element", "100");
        assertEquals(0, explain.exitCode(), explain.out() + explain.err());
        assertTrue(explain.out().contains("range 1 C (f32[16x32]), element 100 [3][4], bytes 400..403"), explain.out());
        assertTrue(explain.out().contains("device 2.0 (0x40000000)"), explain.out());
        assertTrue(explain.out().contains(String.format("(1, 0, 0) wave 1 lane 4 pc 0x%x: %s", pc, objdump)), explain.out());
        assertTrue(explain.out().contains("at expk.cl:5: C[i] = __builtin_expf(A[i]);"), explain.out());
        CliRun none = CliRun.of("explain", dir.resolve("traced").toString(), "--range", "Q", "--element", "1");
        assertEquals(2, none.exitCode());
        assertTrue(none.err().contains("--range 'Q': no such range in the report; ranges: [0 (A), 1 (C), 2 (H)"), none.err());
        // a group the dispatch does not have, or not a group at all: refused before anything is printed
        CliRun outside = CliRun.of("explain", dir.resolve("traced").toString(), "--range", "C", "--element", "100",
                "--group", "99,0,0");
        assertEquals(2, outside.exitCode());
        assertTrue(outside.err().contains("--group 99,0,0: group (99, 0, 0) is outside the dispatch of "), outside.err());
        CliRun badForm = CliRun.of("explain", dir.resolve("traced").toString(), "--range", "C", "--element", "100",
                "--group", "1,x");
        assertEquals(2, badForm.exitCode());
        assertTrue(badForm.err().contains("--group '1,x': expected X[,Y[,Z]]") && badForm.out().isEmpty(),
                badForm.out() + badForm.err());
        // a damaged report: one line naming the file and where the JSON stops
        Path damaged = Files.createDirectories(dir.resolve("damaged"));
        Files.write(damaged.resolve("report.json"), java.util.Arrays.copyOf(
                Files.readAllBytes(dir.resolve("traced/report.json")), 300));
        CliRun cut = CliRun.of("explain", damaged.toString(), "--range", "C", "--element", "1");
        assertEquals(2, cut.exitCode());
        assertTrue(cut.err().startsWith("replay: " + damaged.resolve("report.json") + " is not a run report (not valid "
                + "JSON: Unexpected end-of-input"), cut.err());
        assertTrue(cut.err().matches("(?s).* at line \\d+, column \\d+\\)\\s*Try.*") && !cut.err().contains("Source"),
                cut.err());
        Files.writeString(damaged.resolve("report.json"), "{}");
        CliRun empty = CliRun.of("explain", damaged.toString(), "--range", "C", "--element", "1");
        assertEquals(2, empty.exitCode());
        assertTrue(empty.err().contains("is not a run report (no \"schema\""), empty.err());
    }

    @Test
    void tolerances_apply_to_float_elements_only_and_the_summary_says_to_what() throws Exception {
        JsonNode approx = run("approx", "--approximate");
        JsonNode c = approx.get("comparison").get("ranges").get(1);
        assertEquals(1, c.get("differing_elements").asInt(), "C[100] is far off: no approximate instruction explains it");
        assertEquals(1, c.get("tolerated_approximate").asInt(), "C[37] is one ulp off in a group that ran v_exp_f32");
        assertEquals(100, c.get("values").get(0).get("index").asInt());
        assertEquals(1, approx.get("comparison").get("ranges").get(2).get("differing_elements").asInt(),
                "the histogram's integers are compared exactly");
        JsonNode ulp = run("ulp", "--ulp", "4");
        assertEquals(1, ulp.get("comparison").get("ranges").get(1).get("tolerated_ulp").asInt());
        assertEquals(1, ulp.get("comparison").get("ranges").get(1).get("differing_elements").asInt());
        String statement = ulp.get("comparison").get("tolerances").get("statement").asText();
        assertEquals("float values within 4 ulp; applied to the float values of range 1 (C, f32); compared exactly "
                + "(integers or untyped bytes): range 2 (H, u32)", statement, "A is not in the device folder: not compared");
        assertTrue(Files.readString(dir.resolve("ulp.out")).contains("1 within tolerance (1 by --ulp, 0 by --approximate)"));
    }

    @Test
    void the_heat_map_shows_each_element_and_says_how_it_was_drawn() throws Exception {
        run("heat", "--view", "C=f32[16x32]");
        Path png = dir.resolve("heat/diff/range-1-heatmap.png");
        BufferedImage img = ImageIO.read(png.toFile());
        int scale = img.getWidth() / 32;
        assertEquals(16 * scale, img.getHeight());
        assertEquals(0x000000, img.getRGB(0, 0) & 0xFFFFFF, "an equal element is black");
        assertEquals(0xFFFF00, img.getRGB(5 * scale, 1 * scale) & 0xFFFFFF, "C[37], 1 ulp: yellow");
        int far = img.getRGB(4 * scale, 3 * scale) & 0xFFFFFF;
        assertEquals(0xFF, far >> 16, "C[100] is red-ish");
        assertTrue((far >> 8 & 0xFF) < 0x80, Integer.toHexString(far));
        String text = new String(Files.readAllBytes(png), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(text.contains("tEXtDescription") && text.contains("heat map of range 1 (C) as f32[16x32]"));
        CliRun bad = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + device, "--view",
                "C=f32[100x100]", "--out", dir.resolve("bad").toString());
        assertEquals(2, bad.exitCode());
        assertTrue(bad.err().contains("100x100 f32 elements take 40000 bytes, range 1 (C) holds 2048"), bad.err());
        CliRun missing = CliRun.of("run", capture.toString(), "--every-group", "--view", "Q=f32", "--out",
                dir.resolve("bad2").toString());
        assertEquals(2, missing.exitCode());
        assertTrue(missing.err().contains("--view 'Q=f32': no range 'Q'; ranges: [0 (A), 1 (C), 2 (H)"), missing.err());
    }
}
