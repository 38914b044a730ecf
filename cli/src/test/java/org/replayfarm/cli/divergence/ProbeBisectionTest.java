package org.replayfarm.cli.divergence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.cli.CliRun;
import org.replayfarm.cli.commands.BenchFirstDivergenceCommand;

/**
 * Issue 34's probe bisection through the CLI: an exec: device (replay mutant-run: the host model with a planted bug,
 * a program of its own) differs, and {@code replay explain --first-divergence} finds the mutated instruction by probe
 * captures run on that program, within one wave and across the waves of a group through LDS; a device that cannot
 * trace refuses {@code --method trace}, a folder of outputs lists the slice as candidates; and the planted-bug
 * benchmark's exec: half on a small sample names its mutants exactly.
 */
@Tag("cluster")
class ProbeBisectionTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static Path example(String path) {
        return Toolchain.root().resolve("examples").resolve(path);
    }

    /** The exec: device that runs any capture with {@code op} planted at {@code pc} of {@code capture}. */
    private static String mutant(Path capture, Mutants.Operator op, long pc) throws Exception {
        CaptureFile f = CaptureFile.open(capture);
        var p = f.metadata().getProgram();
        int word = f.blob(p.getCode()).order(ByteOrder.LITTLE_ENDIAN).getInt((int) (pc - p.getCodeAddress()));
        return "exec:" + BenchFirstDivergenceCommand.mutantCommand(op, pc, word, 1_000_000);
    }

    private Path differingRun(Path capture, String device, String name) {
        Path out = dir.resolve(name);
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", device, "--out", out.toString());
        assertEquals(1, run.exitCode(), run.out() + run.err());
        return out;
    }

    @Test
    void an_exec_device_with_a_planted_bug_is_searched_by_probes_and_the_mutated_instruction_named() throws Exception {
        Path saxpy = example("saxpy/saxpy.capture");
        // v_mad_u64_u32 computes the element's index: every address after it is off
        Path out = differingRun(saxpy, mutant(saxpy, Mutants.Operator.BITFLIP, 0x100060020L), "flip");
        CliRun e = CliRun.of("explain", out.toString(), "--first-divergence");
        assertEquals(0, e.exitCode(), e.out() + e.err());
        assertTrue(e.out().contains("first divergence: group (0, 0, 0) wave 0 pc 0x100060020: v_mad_u64_u32"), e.out());
        assertTrue(e.out().contains("differs (host | device):") && e.out().contains("operands before it"), e.out());
        assertTrue(e.out().contains("searched: probe bisection of group (0, 0, 0)"), e.out());
        JsonNode f = JSON.readTree(out.resolve("report.json").toFile()).path("first_divergence");
        assertEquals("probe bisection", f.path("method").asText());
        assertEquals("0x100060020", f.path("pc").asText());
        assertEquals("registers", f.path("kind").asText());
        assertTrue(f.path("probe_runs").asInt() >= 1 && f.path("probes").size() >= f.path("probe_runs").asInt(),
                f.toString());
        assertTrue(Files.readString(out.resolve("summary.txt")).contains("pc 0x100060020: v_mad_u64_u32"));
    }

    @Test
    void a_bug_in_a_value_another_wave_passes_through_lds_is_followed_to_that_wave() throws Exception {
        Path reduce = example("hip-reduce/reduce.capture");
        // v_add_nc_u32 v4, 1, v2 in the tree reduction: its wave writes LDS that wave 0 reads and stores
        Path out = differingRun(reduce, mutant(reduce, Mutants.Operator.BITFLIP, 0x1000619e4L), "lds");
        CliRun e = CliRun.of("explain", out.toString(), "--first-divergence", "--method", "probes");
        assertEquals(0, e.exitCode(), e.out() + e.err());
        assertTrue(e.out().contains("pc 0x1000619e4: v_add_nc_u32_e32 v4, 1, v2"), e.out());
        JsonNode f = JSON.readTree(out.resolve("report.json").toFile()).path("first_divergence");
        assertTrue(f.path("wave").asInt() != 0, "the mutated wave is not the storing one: " + f);
    }

    /**
     * Four groups swap a value into one word with a returning global_atomic_swap (order-dependent: the evaluation runs
     * them in group order, each getting the value the one before it swapped in) and store what they got back; only
     * group 0 executes the s_add_u32 that makes its value. A bug there shows in group 1's word (searched from there),
     * where every instruction agrees but the swap's returned value: the search follows the swap into group 0 and names the add.
     */
    @Test
    void a_wrong_value_another_group_wrote_is_followed_into_that_group() throws Exception {
        Path s = dir.resolve("swap.s");
        Files.writeString(s, """
                s_load_dwordx4 s[24:27], s[0:1], 0x0
                s_waitcnt lgkmcnt(0)
                v_cmp_eq_u32_e32 vcc_lo, 0, v0
                s_and_saveexec_b32 s12, vcc_lo
                s_cbranch_execz done
                s_mul_i32 s13, s20, 3
                s_cmp_eq_u32 s20, 0
                s_cbranch_scc0 swap
                s_add_u32 s13, s13, 100
                swap:
                v_mov_b32_e32 v1, s13
                v_mov_b32_e32 v2, 0
                global_atomic_swap v3, v2, v1, s[24:25] glc
                s_waitcnt vmcnt(0)
                s_lshl_b32 s14, s20, 2
                v_mov_b32_e32 v4, s14
                global_store_dword v4, v3, s[26:27]
                done:
                s_endpgm
                """);
        Files.write(dir.resolve("word.bin"), new byte[] {7, 0, 0, 0});
        Files.write(dir.resolve("out.bin"), new byte[16]);
        Path capture = dir.resolve("swap.capture");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "4", "--group-size", "32",
                "--vgprs", "16", "--workgroup-id-sgpr", "20", "--arg", "buffer:" + dir.resolve("word.bin"), "--arg",
                "buffer:" + dir.resolve("out.bin"), "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        long add = -1;
        for (var insn : new org.replayfarm.evalnode.hostmodel.Kernel(CaptureFile.open(capture)).program()
                .instructions()) {
            if (insn.mnemonic().equals("s_add_u32")) {
                add = insn.pc();
            }
        }
        Path out = differingRun(capture, mutant(capture, Mutants.Operator.BITFLIP, add), "swap");
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        assertEquals(4, report.path("order_dependent_in_order").path("groups").size(), report.toString());
        CliRun e = CliRun.of("explain", out.toString(), "--first-divergence", "--method", "probes", "--group", "1,0,0");
        assertEquals(0, e.exitCode(), e.out() + e.err());
        assertTrue(e.out().contains(String.format("first divergence: group (0, 0, 0) wave 0 pc 0x%x: s_add_u32 s13, "
                + "s13, 0x64", add)), e.out());
        assertTrue(e.out().contains("followed across groups: group (1, 0, 0)'s global_atomic_swap"), e.out());
        // a folder of outputs: the slice of group 1's word goes on into group 0
        CliRun listed = CliRun.of("explain", out.toString(), "--first-divergence", "--group", "1,0,0", "--device",
                "dir:" + out.resolve("device"));
        assertEquals(0, listed.exitCode(), listed.out() + listed.err());
        assertTrue(listed.out().contains("written last before it in the in-order pass by group (0, 0, 0)")
                && listed.out().contains(String.format("0x%x: s_add_u32 s13, s13, 0x64", add)), listed.out());
    }

    /**
     * The mutant the count-matching search missed (docs/perf.md): shadow-pass's v_sub_nc_u32 in the BVH traversal with
     * bits 4 and 22 of v2 flipped changes how often the loop runs; matched by path, it is named. A minute or two of
     * exec: runs over the 510 groups: run with -Dreplay.probes.shadow=true.
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = "replay.probes.shadow", matches = "true")
    void a_bug_that_changes_a_loops_trip_count_in_the_shadow_pass_is_named() throws Exception {
        Path shadow = example("shadow-pass/shadow.capture");
        Path out = differingRun(shadow, mutant(shadow, Mutants.Operator.BITFLIP, 0x100270544L), "trip");
        CliRun e = CliRun.of("explain", out.toString(), "--first-divergence", "--method", "probes");
        assertEquals(0, e.exitCode(), e.out() + e.err());
        assertTrue(e.out().contains("pc 0x100270544: v_sub_nc_u32_e32 v2, v4, v2"), e.out());
        assertTrue(e.out().contains("control diverged first"), e.out());
    }

    /**
     * The probe path of a translation (what a GPU node's cuda device runs, there compiled by nvcc): a probe capture
     * of saxpy translated afresh and run by the CPU runner gives the probe range the host model gives, record for
     * record, with every original range unchanged.
     */
    @Test
    void a_probe_capture_runs_on_a_translation_as_on_the_host_model() throws Exception {
        CaptureFile file = CaptureFile.open(example("saxpy/saxpy.capture"));
        var model = new org.replayfarm.evalnode.hostmodel.HostModel(new org.replayfarm.evalnode.hostmodel.Kernel(file),
                org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET);
        var exec = org.replayfarm.evalnode.probe.Execution.record(model, new int[] {1, 0, 0}, null);
        List<org.replayfarm.evalnode.probe.ProbePatcher.Point> points = new java.util.ArrayList<>();
        for (long pc : List.of(0x100060020L, 0x100060044L, 0x100060070L, 0x100060084L)) {
            var step = exec.order().stream().filter(st -> st.pc() == pc).findFirst().orElseThrow();
            points.add(new org.replayfarm.evalnode.probe.ProbePatcher.Point(pc, step.access().writes(), 1));
        }
        var patched = org.replayfarm.evalnode.probe.ProbePatcher.write(file, new int[] {1, 0, 0}, points,
                dir.resolve("probe.capture"));
        Path out = dir.resolve("probe-run");
        CliRun run = CliRun.of("run", patched.file().toString(), "--every-group", "--device", "cuda-cpu", "--out",
                out.toString());
        assertEquals(0, run.exitCode(), "the translation's ranges, the probe range included, equal the host "
                + "model's: " + run.out() + run.err());
        byte[] probes = Files.readAllBytes(out.resolve("device").resolve("guest-" + patched.range() + ".bin"));
        var records = patched.read(java.nio.ByteBuffer.wrap(probes));
        assertEquals(4, records.size());
        assertTrue(records.values().stream().allMatch(w -> w.get(0).size() == 1), records.toString());
    }

    @Test
    void a_device_that_cannot_trace_refuses_trace_and_a_folder_of_outputs_lists_the_slice() throws Exception {
        Path saxpy = example("saxpy/saxpy.capture");
        Path out = differingRun(saxpy, mutant(saxpy, Mutants.Operator.BITFLIP, 0x100060084L), "refuse");
        CliRun trace = CliRun.of("explain", out.toString(), "--first-divergence", "--method", "trace");
        assertEquals(2, trace.exitCode(), trace.out() + trace.err());
        assertTrue(trace.err().contains("cannot trace"), trace.err());
        CliRun bad = CliRun.of("explain", out.toString(), "--first-divergence", "--method", "guess");
        assertEquals(2, bad.exitCode(), bad.out() + bad.err());
        CliRun dir = CliRun.of("explain", out.toString(), "--first-divergence", "--device", "dir:" + out.resolve("device"));
        assertEquals(0, dir.exitCode(), dir.out() + dir.err());
        assertTrue(dir.out().contains("candidates: the backward slice of range 1"), dir.out());
        assertTrue(dir.out().contains("0x100060084: v_fmac_f32_e32 v3, s0, v2"), dir.out());
        assertTrue(dir.out().contains("an exec: device"), dir.out());
    }

    @Test
    void the_benchmarks_exec_half_names_its_planted_bugs_exactly() throws Exception {
        BenchFirstDivergenceCommand bench = new BenchFirstDivergenceCommand();
        bench.perCapture = 8;
        bench.seed = 34;
        StringWriter log = new StringWriter();
        PrintWriter out = new PrintWriter(log, true);
        List<BenchFirstDivergenceCommand.ProbeVerdict> all = bench.benchProbes(example("saxpy/saxpy.capture"),
                Files.createDirectories(dir.resolve("bench")), out);
        BenchFirstDivergenceCommand.probeSummary(all, out);
        long changed = all.stream().filter(v -> !v.outcome().equals("unchanged") && !v.outcome().equals("no-run")).count();
        assertTrue(changed >= 2, "too few mutants changed an output to judge:\n" + log);
        assertTrue(all.stream().noneMatch(v -> v.outcome().equals("no-run")), log.toString());
        assertTrue(BenchFirstDivergenceCommand.probeExactShare(all).orElseThrow() >= 0.95, log.toString());
        assertTrue(log.toString().contains("probe runs per search"), log.toString());
    }
}
