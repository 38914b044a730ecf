package org.replayfarm.cli;

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
