package org.replayfarm.cli.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.cli.CliRun;
import org.replayfarm.cli.commands.BenchFirstDivergenceCommand;

/**
 * Issue 34's first wrong instruction through the CLI: a translation folder run as it lies ({@code --device
 * cuda-cpu:DIR}, edited, broken, of another capture), {@code replay explain --first-divergence} naming a planted bug
 * with both sides' values and writing it into report.json and summary.txt, a device that cannot run code saying what
 * would localise the difference, and planted single-instruction bugs over the examples (wave32 and wave64) named
 * exactly.
 */
@Tag("cluster")
class FirstDivergenceTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static Path example(String path) {
        return Toolchain.root().resolve("examples").resolve(path);
    }

    private Path translate(Path capture, String name) {
        Path out = dir.resolve(name);
        CliRun t = CliRun.of("translate", capture.toString(), "--out", out.toString());
        assertEquals(0, t.exitCode(), t.out() + t.err());
        return out;
    }

    /** The saxpy translation with v_fmac_f32's result (pc 0x100060084) off by bit 4: a planted bug. */
    private Path plantedSaxpy() throws Exception {
        Path t = translate(example("saxpy/saxpy.capture"), "planted");
        String k = Files.readString(t.resolve("kernel.cu"));
        var site = Mutants.sites(k).stream().filter(s -> s.pc() == 0x100060084L).findFirst().orElseThrow();
        assertTrue(site.instruction().startsWith("v_fmac_f32"), site.toString());
        Files.writeString(t.resolve("kernel.cu"), Mutants.apply(k, site, Mutants.Operator.BITFLIP).orElseThrow());
        return t;
    }

    @Test
    void a_translation_folder_runs_as_it_lies() throws Exception {
        Path saxpy = example("saxpy/saxpy.capture");
        Path t = translate(saxpy, "t");
        CliRun same = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "cuda-cpu:" + t, "--out",
                dir.resolve("o1").toString());
        assertEquals(0, same.exitCode(), same.out() + same.err());
        assertTrue(same.out().contains("cuda-cpu:" + t), same.out());

        Path planted = plantedSaxpy();
        CliRun differs = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "cuda-cpu:" + planted, "--out",
                dir.resolve("o2").toString(), "--first-divergence");
        assertEquals(1, differs.exitCode(), differs.out() + differs.err());
        // run --first-divergence: the search after the summary, and in the report
        assertTrue(differs.out().contains("first divergence: group (0, 0, 0) wave 0 pc 0x100060084: v_fmac_f32_e32"),
                differs.out());
        assertEquals("0x100060084", JSON.readTree(dir.resolve("o2/report.json").toFile()).path("first_divergence")
                .path("pc").asText());

        Files.writeString(t.resolve("kernel.cu"), Files.readString(t.resolve("kernel.cu")) + "\nnot C at all;\n");
        CliRun broken = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "cuda-cpu:" + t, "--out",
                dir.resolve("o3").toString());
        assertEquals(2, broken.exitCode(), broken.out() + broken.err());
        assertTrue(broken.err().contains("does not build") && broken.err().contains("error:"), broken.err());

        Path other = translate(example("shadow-pass/shadow.capture"), "other");
        CliRun wrong = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "cuda-cpu:" + other, "--out",
                dir.resolve("o4").toString());
        assertEquals(2, wrong.exitCode(), wrong.out() + wrong.err());
        assertTrue(wrong.err().contains("translated from another capture"), wrong.err());

        CliRun none = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "cuda-cpu:" + dir.resolve("nowhere"),
                "--out", dir.resolve("o5").toString());
        assertEquals(2, none.exitCode(), none.out() + none.err());
        assertTrue(none.err().contains("no such folder"), none.err());
    }

    @Test
    void explain_names_the_planted_instruction_with_both_sides() throws Exception {
        Path saxpy = example("saxpy/saxpy.capture");
        Path planted = plantedSaxpy();
        Path out = dir.resolve("run");
        CliRun run = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "cuda-cpu:" + planted, "--out",
                out.toString());
        assertEquals(1, run.exitCode(), run.out() + run.err());
        CliRun e = CliRun.of("explain", out.toString(), "--first-divergence");
        assertEquals(0, e.exitCode(), e.out() + e.err());
        assertTrue(e.out().contains("first divergence: group (0, 0, 0) wave 0 pc 0x100060084: v_fmac_f32_e32 v3, s0, v2"),
                e.out());
        // lane 0: 2.5 * 0.0 + 1000.0 on the host, bits 4 and 22 flipped on the device
        assertTrue(e.out().contains("v3 lane 0          0x447a0000 (1000.0, 1148846080) | 0x443a0010"), e.out());
        assertTrue(e.out().contains("operands before it (host | device):") && e.out().contains("s0 "), e.out());
        assertTrue(e.out().contains("0x100060078: global_load_dword v3, v[0:1], off"), e.out());
        JsonNode f = JSON.readTree(out.resolve("report.json").toFile()).path("first_divergence");
        assertEquals("0x100060084", f.path("pc").asText(), f.toString());
        assertEquals("registers", f.path("kind").asText());
        assertEquals("v3", f.path("differs").get(0).path("register").asText());
        assertTrue(Files.readString(out.resolve("summary.txt")).contains("first divergence    group (0, 0, 0) wave 0 pc "
                + "0x100060084: v_fmac_f32_e32 v3, s0, v2"));

        // the unplanted translation: nothing differs in the group
        CliRun clean = CliRun.of("explain", out.toString(), "--first-divergence", "--device", "cuda-cpu", "--group", "3");
        assertEquals(0, clean.exitCode(), clean.out() + clean.err());
        assertTrue(clean.out().contains("no divergence: the 48 instructions of group (3, 0, 0) agree"), clean.out());

        // a device that cannot run code lists the slice as candidates and says what would localise it
        CliRun recorded = CliRun.of("explain", out.toString(), "--first-divergence", "--device", "dir:" + out.resolve("device"));
        assertEquals(0, recorded.exitCode(), recorded.out() + recorded.err());
        assertTrue(recorded.out().contains("candidates: the backward slice of range 1")
                && recorded.out().contains("0x100060088: global_store_dword v[0:1], v3, off")
                && recorded.out().contains("0x100060084: v_fmac_f32_e32 v3, s0, v2"), recorded.out());
        assertTrue(recorded.out().contains("cannot run code") && recorded.out().contains("--device cuda-cpu"),
                recorded.out());
    }

    /** A store that writes the wrong bytes changes no register: the store itself is named, with what it stored. */
    @Test
    void a_store_that_writes_wrong_bytes_is_named() throws Exception {
        Path saxpy = example("saxpy/saxpy.capture");
        Path t = translate(saxpy, "store");
        String k = Files.readString(t.resolve("kernel.cu"));
        String store = "rt_mem_put_dword(t_b, 0, V(3, l));";
        int at = k.indexOf(store, k.indexOf("/* global_store_dword v[0:1], v3, off */"));
        assertTrue(at > 0);
        Files.writeString(t.resolve("kernel.cu"), k.substring(0, at) + "rt_mem_put_dword(t_b, 0, V(3, l) ^ 0x400000u);"
                + k.substring(at + store.length()));
        CliRun run = CliRun.of("run", saxpy.toString(), "--every-group", "--device", "cuda-cpu:" + t, "--out",
                dir.resolve("store-run").toString(), "--first-divergence");
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("first divergence: group (0, 0, 0) wave 0 pc 0x100060088: global_store_dword "
                + "v[0:1], v3, off"), run.out());
        assertTrue(run.out().contains("while every register agreed before it (store)"), run.out());
        assertTrue(run.out().contains("range 1 bytes 0..3 lane 0 0x447a0000 (1000.0, 1148846080) | 0x443a0000"),
                run.out());
    }

    /** Issue 39: a --source build with -g keeps its line table beside the capture; the divergence shows the source line. */
    @Test
    void a_g_build_shows_the_source_line_of_the_first_divergence() throws Exception {
        Path cl = dir.resolve("fm.cl");
        Files.writeString(cl, """
                kernel void fm(global const float *x, global float *y) {
                    size_t i = get_global_id(0);
                    float a = x[i];
                    float t = a * 0.1f + 1.0f / (a + 3.0f);
                    y[i] = t * 1.7f + sqrt(a + 1.0f);
                }
                """);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1024).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 256; i++) {
            b.putFloat(i * 0.731f % 5.3f);
        }
        Files.write(dir.resolve("x.bin"), b.array());
        Files.write(dir.resolve("y.bin"), new byte[1024]);
        Path capture = dir.resolve("fm.capture");
        CliRun built = CliRun.of("capture", "build", "--source", cl.toString(), "--cflag", "-g", "--kernel", "fm",
                "--groups", "4", "--group-size", "64", "--arg", "buffer:" + dir.resolve("x.bin"), "--arg",
                "buffer:" + dir.resolve("y.bin"), "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        assertTrue(Files.isRegularFile(dir.resolve("fm.debug.o")), built.out());
        Path t = translate(capture, "fm-t");
        String k = Files.readString(t.resolve("kernel.cu"));
        Mutants.Site rcp = Mutants.sites(k).stream().filter(s -> s.instruction().startsWith("v_rcp_f32")).findFirst()
                .orElseThrow();
        Files.writeString(t.resolve("kernel.cu"), Mutants.apply(k, rcp, Mutants.Operator.BITFLIP).orElseThrow());
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu:" + t, "--out",
                dir.resolve("fm-run").toString(), "--first-divergence");
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains(String.format("pc 0x%x: v_rcp_f32_e32", rcp.pc())), run.out());
        assertTrue(run.out().contains("source: fm.cl:4: float t = a * 0.1f + 1.0f / (a + 3.0f);"), run.out());
    }

    @Test
    void the_search_sees_past_an_approximate_instructions_noise() throws Exception {
        Path bloom = example("bloom-tiles/bloom.capture");
        Path t = translate(bloom, "noise");
        String k = Files.readString(t.resolve("kernel.cu"));
        List<Mutants.Site> sites = Mutants.sites(k);
        Mutants.Site rcp = sites.stream().filter(s -> s.pc() == 0x1000800b4L).findFirst().orElseThrow();
        assertTrue(rcp.instruction().startsWith("v_rcp_f32"), rcp.toString());
        String noisy = Mutants.noise(k, rcp).orElseThrow();
        Files.writeString(t.resolve("kernel.cu"), noisy);
        Path out = dir.resolve("noise-run");
        CliRun run = CliRun.of("run", bloom.toString(), "--every-group", "--device", "cuda-cpu:" + t, "--out", out.toString());
        assertTrue(run.exitCode() <= 1, run.out() + run.err());
        // v_rcp_f32 one unit in the last place off in every lane, and everything after it follows from that
        CliRun e = CliRun.of("explain", out.toString(), "--first-divergence", "--group", "0,0,0");
        assertEquals(0, e.exitCode(), e.out() + e.err());
        assertTrue(e.out().contains("no divergence") && !e.out().contains(" 0 approximate result(s) within"), e.out());

        // the same noise, and a real bug in the instruction that reads the noisy register next
        Mutants.Site mul = Mutants.sites(noisy).stream().filter(s -> s.pc() == 0x1000800b8L).findFirst().orElseThrow();
        assertTrue(mul.instruction().startsWith("v_mul_f32_e32 v7, v1, v0"), mul.toString());
        Files.writeString(t.resolve("kernel.cu"), Mutants.apply(noisy, mul, Mutants.Operator.BITFLIP).orElseThrow()
                .replaceFirst("#define RT_SHAPE_RUNS 0[^\n]*\n", ""));
        Path out2 = dir.resolve("bug-run");
        CliRun run2 = CliRun.of("run", bloom.toString(), "--every-group", "--device", "cuda-cpu:" + t, "--out",
                out2.toString());
        assertEquals(1, run2.exitCode(), run2.out() + run2.err());
        CliRun e2 = CliRun.of("explain", out2.toString(), "--first-divergence");
        assertEquals(0, e2.exitCode(), e2.out() + e2.err());
        assertTrue(e2.out().contains("pc 0x1000800b8: v_mul_f32_e32 v7, v1, v0"), e2.out());
    }

    @Test
    void planted_bugs_are_named_exactly() throws Exception {
        BenchFirstDivergenceCommand.setUp();
        try {
            plantAndJudge();
        } finally {
            System.clearProperty("replay.cuda-cpu.opt");
            System.clearProperty("replay.cuda-cpu.budget");
        }
    }

    private void plantAndJudge() throws Exception {
        BenchFirstDivergenceCommand bench = new BenchFirstDivergenceCommand();
        bench.perCapture = 8;
        bench.seed = 7;
        List<BenchFirstDivergenceCommand.Verdict> all = new ArrayList<>();
        StringWriter log = new StringWriter();
        PrintWriter out = new PrintWriter(log, true);
        all.addAll(bench.bench(example("saxpy/saxpy.capture"), Files.createDirectories(dir.resolve("m32")), out));
        all.addAll(bench.bench(example("shadow-pass/shadow.capture"), Files.createDirectories(dir.resolve("m64")), out));
        BenchFirstDivergenceCommand.summary(all, out);
        long changed = all.stream().filter(v -> !v.outcome().equals("unchanged") && !v.outcome().equals("no-run")).count();
        assertTrue(changed >= 4, "too few mutants changed an output to judge:\n" + log);
        assertTrue(all.stream().noneMatch(v -> v.outcome().equals("no-run")), log.toString());
        assertTrue(bench.exactShare(all).orElseThrow() >= 0.95, log.toString());
    }
}
