package org.replayfarm.evalnode.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/**
 * Probe captures on the host model: every original output byte-identical, the probe range holding each probed
 * register as the host model had it after that step of the original run (its StepListener, the oracle), and the
 * jumps and the appended code as llvm-mc-19 disassembles them.
 */
@Tag("unit")
class ProbePatcherTest {
    @TempDir
    Path dir;

    static Path example(String p) {
        return Toolchain.root().resolve("examples").resolve(p);
    }

    static byte[] range(Evaluation.Outcome o, int n) {
        return o.memory().range(n).clone();
    }

    static Evaluation.Outcome runAll(CaptureFile f) throws Exception {
        Kernel k = new Kernel(f);
        List<int[]> groups = new GroupSelection(true, List.of()).resolve(k.dispatch());
        return Evaluation.run(k, groups, 1, HostModel.DEFAULT_BUDGET, n -> { });
    }

    void probesEveryInstruction(String capture, int[] group) throws Exception {
        CaptureFile file = CaptureFile.open(example(capture));
        HostModel model = new HostModel(new Kernel(file), HostModel.DEFAULT_BUDGET);
        Execution exec = Execution.record(model, group, null);
        Map<Long, ProbePatcher.Point> points = new LinkedHashMap<>();
        Map<String, Integer> hits = new LinkedHashMap<>();
        Set<Integer> steps = new HashSet<>();
        for (Execution.Step s : exec.order()) {
            if (s.access().writes().length > 0 && ProbePatcher.probeable(s.insn())
                    && (points.size() < 40 || points.containsKey(s.pc()))) {
                int n = hits.merge(s.wave() + ":" + s.pc(), 1, Integer::sum);
                int most = points.containsKey(s.pc()) ? Math.max(n, points.get(s.pc()).maxHits()) : n;
                points.put(s.pc(), new ProbePatcher.Point(s.pc(), s.access().writes(), most));
                steps.add(s.seq());
            }
        }
        assertTrue(points.size() >= 5, "points: " + points.keySet());
        ProbePatcher.Patched p = ProbePatcher.write(file, group, new ArrayList<>(points.values()),
                dir.resolve("probe.capture"));
        CaptureFile probe = CaptureFile.open(p.file());
        Evaluation.Outcome original = runAll(file);
        Evaluation.Outcome probed = runAll(probe);
        assertEquals(0, probed.faults().size(), probed.faults().toString());
        for (int n = 0; n < file.metadata().getRangesCount(); n++) {
            assertArrayEquals(range(original, n), range(probed, n), "range " + n + " changed by the probes");
        }
        Map<Long, List<List<ProbePatcher.Record>>> records = p.read(ByteBuffer.wrap(range(probed, p.range())));
        // the oracle: each register after each step, as the host model's StepListener sees it in the original run
        Map<Integer, Execution.Values> oracle = exec.values(model, steps);
        int compared = 0;
        Set<Integer> waves = new HashSet<>();
        for (Execution.Step s : exec.order()) {
            if (!steps.contains(s.seq())) {
                continue;
            }
            ProbePatcher.Record r = records.get(s.pc()).get(s.wave()).get(s.hit());
            Execution.Values h = oracle.get(s.seq());
            for (int reg : s.access().writes()) {
                assertArrayEquals(h.after().get(reg), r.values().get(reg), String.format(
                        "wave %d pc 0x%x (%s) execution %d: %s", s.wave(), s.pc(), s.text(), s.hit(),
                        Registers.name(reg)));
                compared++;
            }
            waves.add(s.wave());
        }
        assertEquals(new Kernel(file).wavesPerGroup(), waves.size(), "waves probed");
        assertTrue(compared >= points.size(), "compared " + compared);
        checkEncodings(file, probe, new ArrayList<>(points.keySet()), exec.waveSize() == 64);
    }

    /** llvm-mc-19 disassembles each probed PC as an s_branch into the appended code, and all of that code. */
    static void checkEncodings(CaptureFile original, CaptureFile probe, List<Long> pcs, boolean wave64) throws Exception {
        long base = probe.metadata().getProgram().getCodeAddress();
        ByteBuffer code = probe.blob(probe.metadata().getProgram().getCode()).order(ByteOrder.LITTLE_ENDIAN);
        int originalLength = (int) original.metadata().getProgram().getCode().getLength();
        StringBuilder bytes = new StringBuilder();
        for (long pc : pcs) {
            int w = code.getInt((int) (pc - base));
            for (int i = 0; i < 4; i++) {
                bytes.append(String.format("0x%02x ", (w >>> (8 * i)) & 0xff));
            }
            bytes.append('\n');
        }
        List<String> lines = disassemble(bytes.toString(), wave64);
        assertEquals(pcs.size(), lines.size(), lines.toString());
        for (int i = 0; i < pcs.size(); i++) {
            assertTrue(lines.get(i).startsWith("s_branch "), lines.get(i));
            long target = pcs.get(i) + 4 + 4L * Integer.parseInt(lines.get(i).substring(9).strip());
            assertTrue(target >= base + originalLength, String.format("0x%x jumps to 0x%x", pcs.get(i), target));
        }
        StringBuilder appended = new StringBuilder();
        int from = (originalLength + 255) & ~255;
        for (int at = from; at < code.limit(); at++) {
            appended.append(String.format("0x%02x ", code.get(at) & 0xff));
        }
        List<String> stub = disassemble(appended.toString(), wave64);
        assertFalse(stub.isEmpty());
        assertTrue(stub.stream().anyMatch(l -> l.startsWith("global_store_dword")), stub.toString());
        assertTrue(stub.stream().noneMatch(l -> l.contains("invalid")), stub.toString());
    }

    static List<String> disassemble(String bytes, boolean wave64) throws Exception {
        Path in = Files.createTempFile("probe-bytes", ".txt");
        try {
            Files.writeString(in, bytes);
            List<String> cmd = new ArrayList<>(List.of("llvm-mc-19", "--disassemble", "-triple=amdgcn-amd-amdhsa",
                    "-mcpu=gfx1030"));
            if (wave64) {
                cmd.add("-mattr=+wavefrontsize64");
            }
            cmd.add(in.toString());
            String out = org.replayfarm.model.build.Llvm.run(cmd);
            List<String> lines = new ArrayList<>();
            for (String l : out.split("\n")) {
                String t = l.strip();
                if (!t.isEmpty() && !t.startsWith(".") && !t.startsWith("#") && !t.startsWith(";")) {
                    lines.add(t.replaceAll("\\s*;.*$", "").replaceAll("\\s+", " "));
                }
            }
            return lines;
        } finally {
            Files.deleteIfExists(in);
        }
    }

    @Test
    void a_probe_capture_changes_no_output_and_stores_each_register_as_the_host_model_had_it_wave32() throws Exception {
        probesEveryInstruction("saxpy/saxpy.capture", new int[] {3, 0, 0});
    }

    @Test
    void a_probe_capture_changes_no_output_and_stores_each_register_as_the_host_model_had_it_wave64() throws Exception {
        probesEveryInstruction("bloom-tiles/bloom.capture", new int[] {5, 3, 0});
    }

    @Test
    void a_probe_in_a_group_of_eight_waves_with_lds_and_barriers_records_each_wave_apart() throws Exception {
        probesEveryInstruction("hip-reduce/reduce.capture", new int[] {2, 0, 0});
    }
}
