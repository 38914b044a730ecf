package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Issue 39's tolerances end to end through {@code replay run}: a clang-19 kernel computes exp(A[i]) - 1 (v_exp_f32,
 * an approximate instruction, then a cancellation near zero); the device folder is the host's own output with one
 * element in [2^-6, 2^-5) moved 128 ulps (2^-22 = 2.4e-7) up. Exactly, and under --ulp 16, it differs, and the
 * summary, the reasons and report.json suggest --abs 2.4e-7 or --ulp 128; --abs, --rel and a view's own abs accept
 * it, a view's own tolerance replaces the command's; a manifest line carries its capture's tolerance. saxpy's
 * groups execute no approximate instruction: its one-ulp difference is accepted by --rel, never suggested.
 */
@Tag("cluster")
class ToleranceRunTest {
    static final String SOURCE = """
            // C[i] = exp(A[i]) - 1: near zero the subtraction cancels, and what is left carries exp's rounding
            __kernel void cancel(__global const float *A, __global float *C, uint n) {
                uint i = get_global_id(0);
                if (i < n) {
                    C[i] = __builtin_expf(A[i]) - 1.0f;
                }
            }
            """;

    @TempDir
    static Path dir;
    static Path capture;
    static Path device;
    static int planted;

    @BeforeAll
    static void build() throws Exception {
        Path object = Toolchain.compileOpenCl(dir, "cancel", SOURCE, "-cl-kernel-arg-info", "-include",
                Toolchain.root().resolve("include/replay-cl.h").toString());
        ByteBuffer a = ByteBuffer.allocate(256 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 256; i++) {
            a.putFloat((i % 64) * 0.002f - 0.05f);
        }
        Files.write(dir.resolve("a.bin"), a.array());
        capture = dir.resolve("cancel.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "cancel", "--groups", "4",
                "--group-size", "64", "--arg", "buffer:" + dir.resolve("a.bin"), "--arg", "zeros:1024",
                "--arg", "u32:256", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        CliRun host = CliRun.of("run", capture.toString(), "--every-group", "--device", "none", "--evaluators", "2",
                "--out", dir.resolve("host").toString());
        assertEquals(0, host.exitCode(), host.out() + host.err());
        ByteBuffer c = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("host/host/guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        planted = -1;
        for (int i = 0; i < 256 && planted < 0; i++) {
            float v = c.getFloat(i * 4);
            if (v >= 0x1p-6f && v < 0x1p-5f && Math.ulp(v) == 0x1p-29f) {
                planted = i;
            }
        }
        assertTrue(planted >= 0, "some exp(A[i]) - 1 lies in [2^-6, 2^-5)");
        c.putInt(planted * 4, c.getInt(planted * 4) + 128); // 128 ulps of 2^-29: 2^-22 = 2.384e-7 up
        device = Files.createDirectories(dir.resolve("device"));
        Files.write(device.resolve("guest-1.bin"), c.array());
    }

    /** {@code replay run} against the device folder; its exit status, what it printed and its report. */
    private record Run(int exit, String out, JsonNode report) {
        JsonNode c() {
            return report.get("comparison").get("ranges").get(1);
        }
    }

    private static Run run(String name, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", capture.toString(), "--every-group", "--device", "dir:" + device,
                "--evaluators", "2", "--out", dir.resolve(name).toString()));
        args.addAll(List.of(more));
        CliRun r = CliRun.of(args.toArray(String[]::new));
        JsonNode report = Files.isRegularFile(dir.resolve(name).resolve("report.json"))
                ? new ObjectMapper().readTree(dir.resolve(name).resolve("report.json").toFile()) : null;
        return new Run(r.exitCode(), r.out() + r.err(), report);
    }

    private static final String SUGGESTED = "), stored by groups that executed approximate instructions: --abs 2.4e-7 or "
            + "--ulp 128 would accept it";

    @Test
    void exactly_and_under_ulp_16_it_differs_and_the_summary_suggests_the_flag_from_the_largest_difference()
            throws Exception {
        for (String[] options : List.of(new String[0], new String[] {"--ulp", "16"})) {
            Run r = run("exact" + options.length, options);
            assertEquals(1, r.exit(), r.out());
            assertEquals(1, r.c().get("differing_elements").asInt(), r.out());
            assertEquals(planted, r.c().get("values").get(0).get("index").asInt());
            assertEquals(128, r.c().get("values").get(0).get("ulps").get(0).asInt());
            assertTrue(r.out().contains("  every difference (1 float value) is within 2.4e-7 absolute / 128 ulps ("),
                    r.out());
            assertTrue(r.out().contains(SUGGESTED), r.out());
            String summary = Files.readString(dir.resolve("exact" + options.length).resolve("summary.txt"));
            assertTrue(summary.contains(SUGGESTED), summary);
            JsonNode suggestion = r.report().get("comparison").get("suggestion");
            assertEquals(List.of("--abs 2.4e-7", "--ulp 128"), List.of(suggestion.get("flags").get(0).asText(),
                    suggestion.get("flags").get(1).asText()));
            assertEquals(0x1p-22, suggestion.get("abs").asDouble());
            assertTrue(r.report().get("result").get("reasons").get(1).asText().endsWith(SUGGESTED),
                    r.report().get("result").toString());
            assertTrue(r.c().get("largest_difference").get("approximate").asBoolean());
        }
    }

    @Test
    void abs_rel_and_a_views_own_abs_accept_it_and_a_views_own_replaces_the_commands() throws Exception {
        Run abs = run("abs", "--abs", "2.4e-7");
        assertEquals(0, abs.exit(), abs.out());
        assertEquals(1, abs.c().get("tolerated_abs").asInt());
        assertEquals(0, abs.c().get("differing_elements").asInt());
        assertEquals(2.4e-7, abs.report().get("comparison").get("tolerances").get("abs").asDouble());
        assertEquals("float values within 2.4e-7 absolute; applied to the float values of range 1 (C, f32)",
                abs.report().get("comparison").get("tolerances").get("statement").asText());
        assertTrue(abs.out().contains("comparison      float values within 2.4e-7 absolute; applied to the float values "
                + "of range 1 (C, f32)"), abs.out());
        assertTrue(abs.out().contains("1 within tolerance (0 by --ulp, 1 by --abs, 0 by --approximate)"), abs.out());
        assertTrue(abs.report().get("comparison").get("suggestion").isNull());

        Run rel = run("rel", "--rel", "2e-5");
        assertEquals(0, rel.exit(), rel.out());
        assertEquals(1, rel.c().get("tolerated_rel").asInt());

        Run own = run("own", "--view", "C=abs=2.4e-7");
        assertEquals(0, own.exit(), own.out());
        assertEquals(1, own.c().get("tolerated_abs").asInt());
        assertEquals("--view", own.c().get("tolerance").get("from").asText());
        JsonNode byView = own.report().get("comparison").get("tolerances").get("by_view").get(0);
        assertEquals("range 1 (C, f32)", byView.get("what").asText());
        assertEquals(2.4e-7, byView.get("abs").asDouble());
        assertTrue(own.out().contains("comparison      exact but for the float values of range 1 (C, f32) within 2.4e-7 "
                + "absolute (--view)"), own.out());

        Run typed = run("typed", "--view", "1=f32,abs=2.4e-7");
        assertEquals(0, typed.exit(), typed.out());

        Run replaced = run("replaced", "--abs", "2.4e-7", "--view", "C=abs=1e-9");
        assertEquals(1, replaced.exit(), "the view's 1e-9 replaces --abs 2.4e-7 for C: " + replaced.out());

        Run integers = run("integers", "--view", "A=i32,abs=1");
        assertEquals(2, integers.exit(), integers.out());
        assertTrue(integers.out().contains("--view 'A=i32,abs=1': range 0 (A) is i32, compared exactly whatever is "
                + "asked: tolerances apply to float elements"), integers.out());
    }

    @Test
    void a_manifest_line_carries_its_captures_tolerance() throws Exception {
        Path manifest = dir.resolve("suite.txt");
        Files.writeString(manifest, "cancel.capture --abs 2.4e-7\ncancel.capture\n");
        CliRun b = CliRun.of("run", "--manifest", manifest.toString(), "--every-group", "--device", "dir:" + device,
                "--evaluators", "2", "--out", dir.resolve("batch").toString());
        assertEquals(1, b.exitCode(), b.out() + b.err());
        JsonNode batch = new ObjectMapper().readTree(dir.resolve("batch/batch.json").toFile());
        assertEquals("pass", batch.get("captures").get(0).get("status").asText(), batch.toString());
        assertEquals("fail", batch.get("captures").get(1).get("status").asText(), batch.toString());
        assertTrue(batch.get("captures").get(1).get("reason").asText().contains("--abs 2.4e-7 or --ulp 128 would accept it"),
                batch.toString());
        JsonNode first = new ObjectMapper().readTree(dir.resolve("batch/cancel/report.json").toFile());
        assertEquals(1, first.get("comparison").get("ranges").get(1).get("tolerated_abs").asInt());
    }

    @Test
    void saxpy_executes_no_approximate_instruction_its_difference_is_accepted_by_rel_but_never_suggested()
            throws Exception {
        Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        ByteBuffer y = ByteBuffer.allocate(4000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 1000; i++) {
            y.putFloat(i * 4, 1000f + i); // 2.5 * 0.5i + (1000 - 0.25i), exact in f32
        }
        y.putFloat(40, Math.nextUp(1010f)); // element 10: one ulp (6.1e-5) up
        Path folder = Files.createDirectories(dir.resolve("saxpy-device"));
        Files.write(folder.resolve("guest-1.bin"), y.array());
        CliRun exact = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "dir:" + folder, "--evaluators", "2",
                "--out", dir.resolve("saxpy-exact").toString());
        assertEquals(1, exact.exitCode(), exact.out() + exact.err());
        assertTrue(exact.out().contains("range 1 (arg2): 1 of 1000 compared f32 elements differ, 0 device-only"),
                exact.out());
        assertFalse(exact.out().contains("would accept"), "no approximate instruction stored it: " + exact.out());
        JsonNode report = new ObjectMapper().readTree(dir.resolve("saxpy-exact/report.json").toFile());
        assertTrue(report.get("comparison").get("suggestion").isNull());
        assertFalse(report.get("comparison").get("ranges").get(1).get("largest_difference").get("approximate").asBoolean());
        CliRun rel = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "dir:" + folder, "--evaluators", "2",
                "--rel", "1e-7", "--out", dir.resolve("saxpy-rel").toString());
        assertEquals(0, rel.exitCode(), rel.out() + rel.err());
        assertTrue(rel.out().contains("1 within tolerance (0 by --ulp, 1 by --rel, 0 by --approximate)"), rel.out());
    }
}
