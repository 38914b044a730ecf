package org.replayfarm.evalnode.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Provenance;

/**
 * Probe bisection when a planted bug changes how many times a loop runs: the k-th execution of a PC on the device is
 * then another iteration than the host's k-th, and the search must match executions by the path that led to them.
 * The kernel (gfx1030 assembly, llvm-mc-19) runs a loop per lane whose body takes one of two blocks by the parity of
 * its counter; the device is the host model with one instruction's effect changed by hand (a {@link HostModel.StepListener}
 * of the test's own, run over the probe captures the search writes).
 */
@Tag("unit")
class ProbeSearchLoopTest {
    @TempDir
    Path dir;

    /**
     * y[lane] = a value folded over n = x[lane] iterations; odd iterations take the block at {@code odd}, even ones the
     * other; the counter's increment is {@code v_add_nc_u32_e32 v3, 1, v3}.
     */
    static final String LOOP = """
            v_lshlrev_b32_e32 v1, 2, v0
            global_load_dword v2, v1, s[0:1]
            s_waitcnt vmcnt(0)
            v_mov_b32_e32 v3, 0
            v_mov_b32_e32 v4, 1
            s_mov_b32 s10, exec_lo
            loop:
              v_and_b32_e32 v5, 1, v3
              v_cmp_eq_u32_e32 vcc_lo, 1, v5
              s_and_saveexec_b32 s12, vcc_lo
              s_cbranch_execz even
              v_mul_lo_u32 v4, v4, 3
              v_xor_b32_e32 v4, 0x55, v4
            even:
              s_andn2_b32 exec_lo, s12, exec_lo
              s_cbranch_execz join
              v_add_nc_u32_e32 v4, 7, v4
            join:
              s_or_b32 exec_lo, exec_lo, s12
              v_add_nc_u32_e32 v3, 1, v3
              v_cmp_lt_u32_e32 vcc_lo, v3, v2
              s_and_b32 exec_lo, exec_lo, vcc_lo
              s_cbranch_execnz loop
            s_mov_b32 exec_lo, s10
            global_store_dword v1, v4, s[2:3]
            s_endpgm
            """;

    @Test
    void a_bug_that_changes_a_loops_trip_count_is_named_through_the_branch_that_went_another_way() throws Exception {
        int[] x = new int[32];
        for (int l = 0; l < 32; l++) {
            x[l] = 5 + l % 4;
        }
        CaptureFile file = build(LOOP, x);
        HostModel model = new HostModel(new Kernel(file), HostModel.DEFAULT_BUDGET);
        long increment = pcOf(file, "v_add_nc_u32_e32 v3, 1, v3", model);
        // the hand-made mutant: the increment is lost once, when the counter is 2 (a carry-in that drops a bit):
        // iteration 2 runs again, every lane loops once more, and the odd/even blocks run in other iterations
        java.util.function.Function<CaptureFile, HostModel.StepListener> mutant = running -> new HostModel.StepListener() {
            private final int[] old = new int[32];
            private final boolean[] done = new boolean[32];

            @Override
            public void before(Wave wave, long pc, Instruction insn) {
                if (insn.mnemonic().equals("v_add_nc_u32") && isCopyOf(running, pc, increment)) {
                    for (int l = 0; l < 32; l++) {
                        old[l] = wave.vgpr(3, l);
                    }
                }
            }

            @Override
            public void after(Wave wave, long pc, Instruction insn) {
                if (insn.mnemonic().equals("v_add_nc_u32") && isCopyOf(running, pc, increment)) {
                    for (int l = 0; l < 32; l++) {
                        if ((wave.exec() >>> l & 1) != 0 && old[l] == 2 && !done[l]) {
                            wave.setVgpr(3, l, 2);
                            done[l] = true;
                        }
                    }
                }
            }
        };
        ByteBuffer original = ByteBuffer.wrap(run(file, null, 1));
        ByteBuffer mutated = ByteBuffer.wrap(run(file, mutant.apply(file), 1));
        assertTrue(!original.equals(mutated), "the mutant changes no output");

        Execution e = Execution.record(model, new int[] {0, 0, 0}, Execution.Target.range(1, 0, 4));
        Slice slice = Slice.of(e, e.store().wave(), e.store().step());
        List<String> log = new ArrayList<>();
        ProbeSearch.Result r = ProbeSearch.search(file, model, e, slice, (probe, range) -> {
            byte[] b = run(probe, mutant.apply(probe), range);
            log.add("run " + (log.size() + 1));
            return ByteBuffer.wrap(b);
        }, 1, Files.createDirectories(dir.resolve("work")));
        ProbeSearch.Answer a = r.answer().orElseThrow(() -> new AssertionError("no answer: " + r));
        assertEquals(increment, a.pc(), String.format("named 0x%x %s (%s), not the increment 0x%x; notes %s, probes %s",
                a.pc(), a.instruction(), a.why(), increment, r.notes(), r.probes()));
        assertEquals("registers", a.kind(), a.why());
        assertTrue(r.notes().stream().anyMatch(n -> n.startsWith("control diverged first")), r.notes().toString());
        assertTrue(a.differs().stream().allMatch(v -> v.register().equals("v3") && v.host() == 3 && v.device() == 2),
                a.differs().toString());
    }

    /** Whether {@code pc} holds the instruction at {@code site} of the original program or a probe stub's copy of it. */
    static boolean isCopyOf(CaptureFile probe, long pc, long site) {
        if (pc == site) {
            return true;
        }
        var p = probe.metadata().getProgram();
        ByteBuffer code = probe.blob(p.getCode()).order(ByteOrder.LITTLE_ENDIAN);
        int here = code.getInt((int) (site - p.getCodeAddress()));
        if ((here & 0xffff0000) != 0xBF820000) {
            return false; // not patched: only the original runs it
        }
        return pc == site + 4 + 4L * (short) (here & 0xffff);
    }

    static long pcOf(CaptureFile file, String text, HostModel model) {
        for (Instruction insn : new Kernel(file).program().instructions()) {
            if (Execution.text(insn, org.replayfarm.model.isa.Syntax.WAVE32).equals(text)) {
                return insn.pc();
            }
        }
        throw new AssertionError("no " + text + " in the program");
    }

    /** Runs every group of {@code file} with {@code steps} (null: none) and returns range {@code range}'s bytes. */
    static byte[] run(CaptureFile file, HostModel.StepListener steps, int range) throws Exception {
        Kernel kernel = new Kernel(file);
        HostModel model = new HostModel(kernel, HostModel.DEFAULT_BUDGET);
        Evaluation.Totals totals = new Evaluation.Totals(kernel);
        HostModel.StepListener none = new HostModel.StepListener() {
            @Override
            public void before(Wave wave, long pc, Instruction insn) {
            }

            @Override
            public void after(Wave wave, long pc, Instruction insn) {
            }
        };
        for (int[] g : new GroupSelection(true, List.of()).resolve(kernel.dispatch())) {
            totals.add(model.runStepped(g[0], g[1], g[2], steps == null ? none : steps, null).result());
        }
        return totals.outcome(Duration.ZERO, 1).memory().range(range).clone();
    }

    /** A one-group wave32 capture of {@code asm}: x (32 words) at s[0:1], y at s[2:3], the group id in s4. */
    CaptureFile build(String asm, int[] x) throws Exception {
        Path s = dir.resolve("k.s");
        Files.writeString(s, asm);
        byte[] object = Llvm.assemble(s, false);
        ByteBuffer xb = ByteBuffer.allocate(4 * x.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : x) {
            xb.putInt(v);
        }
        Files.write(dir.resolve("x.bin"), xb.array());
        Files.write(dir.resolve("y.bin"), new byte[4 * x.length]);
        List<KernelArg> args = List.of(KernelArg.parse("buffer:" + dir.resolve("x.bin")),
                KernelArg.parse("buffer:" + dir.resolve("y.bin")));
        DispatchShape shape = new DispatchShape(1, 1, 1, 32, 1, 1, 1);
        Capture first = CaptureBuilder.fromRawCode(object, layout(Map.of()), shape, args,
                Provenance.getDefaultInstance()).metadata();
        Map<Integer, Integer> addresses = new LinkedHashMap<>();
        for (int i = 0; i < 2; i++) {
            long address = first.getRanges(i).getGuestAddress();
            addresses.put(2 * i, (int) address);
            addresses.put(2 * i + 1, (int) (address >>> 32));
        }
        CaptureBuilder.Built built = CaptureBuilder.fromRawCode(object, layout(addresses), shape, args,
                Provenance.getDefaultInstance());
        Path capture = dir.resolve("loop.capture");
        built.write(capture);
        return CaptureFile.open(capture);
    }

    private static RawLayout layout(Map<Integer, Integer> userSgprs) {
        return new RawLayout(32, 16, 106, 0, 0, userSgprs, OptionalInt.of(7), OptionalInt.of(4));
    }
}
