package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.Instruction;

/**
 * The indirect targets ControlFlow computes (programs assembled by llvm-mc-19, run on the host model — the oracle —
 * and through cuda-cpu): calls whose callee address travels through VGPR lanes (clang -O0's spill) and nested calls
 * get a label and a switch case only where a call returns or a code address was made; a jump table (a code address
 * plus a register) makes the analysis fall back to every instruction; a jump the analysis could not see coming
 * (a code address changed in a VGPR) faults on the device naming its target.
 */
@Tag("corpus")
class ControlFlowTest {
    @TempDir
    Path dir;

    private static final String CALLS = """
            ; two calls through s_getpc/s_swappc; the first callee's address spilled to VGPR lanes and back
            s_mov_b32 s10, 5
            s_getpc_b64 s[4:5]
            s_add_u32 s4, s4, twice - .
            s_addc_u32 s5, s5, 0
            v_writelane_b32 v3, s4, 0
            v_writelane_b32 v3, s5, 1
            s_mov_b32 s4, 0
            s_mov_b32 s5, 0
            s_cmp_eq_u32 s10, 5
            s_cbranch_scc0 skip
            v_readlane_b32 s4, v3, 0
            v_readlane_b32 s5, v3, 1
            s_swappc_b64 s[30:31], s[4:5]
            skip:
            s_getpc_b64 s[6:7]
            s_add_u32 s6, s6, plus3 - .
            s_addc_u32 s7, s7, 0
            s_swappc_b64 s[30:31], s[6:7]
            v_mov_b32 v1, s10
            v_mov_b32 v0, 0
            global_store_dword v0, v1, s[0:1]
            s_endpgm
            twice:
            v_writelane_b32 v4, s30, 0
            v_writelane_b32 v4, s31, 1
            s_getpc_b64 s[8:9]
            s_add_u32 s8, s8, plus3 - .
            s_addc_u32 s9, s9, 0
            s_swappc_b64 s[30:31], s[8:9]
            v_readlane_b32 s30, v4, 0
            v_readlane_b32 s31, v4, 1
            s_lshl_b32 s10, s10, 1
            s_setpc_b64 s[30:31]
            plus3:
            s_add_u32 s10, s10, 3
            s_setpc_b64 s[30:31]
            """;

    private static final String JUMP_TABLE = """
            ; a jump table: a code address plus an index the scan does not know
            s_mov_b32 s10, 2
            s_getpc_b64 s[4:5]
            s_add_u32 s4, s4, table - .
            s_addc_u32 s5, s5, 0
            s_lshl_b32 s11, s10, 2
            s_add_u32 s4, s4, s11
            s_addc_u32 s5, s5, 0
            s_setpc_b64 s[4:5]
            table:
            s_branch case0
            s_branch case1
            s_branch case2
            case0:
            s_mov_b32 s12, 100
            s_branch done
            case1:
            s_mov_b32 s12, 101
            s_branch done
            case2:
            s_mov_b32 s12, 102
            done:
            v_mov_b32 v1, s12
            v_mov_b32 v0, 0
            global_store_dword v0, v1, s[0:1]
            s_endpgm
            """;

    private static final String HIDDEN = """
            ; a code address copied into a VGPR, moved by a VALU add the scan does not follow, and jumped to
            s_getpc_b64 s[4:5]
            s_add_u32 s4, s4, mid - .
            s_addc_u32 s5, s5, 0
            v_mov_b32 v1, s4
            v_add_nc_u32 v1, 4, v1
            v_readfirstlane_b32 s4, v1
            s_setpc_b64 s[4:5]
            mid:
            s_mov_b32 s12, 1
            s_mov_b32 s12, 2
            v_mov_b32 v1, s12
            v_mov_b32 v0, 0
            global_store_dword v0, v1, s[0:1]
            s_endpgm
            """;

    private static final String INTO_A_RUN = """
            ; a computed jump into the middle of a straight run of shared bodies (s_add_u32 s12, s12, N)
            s_mov_b32 s10, 2
            s_getpc_b64 s[4:5]
            s_add_u32 s4, s4, seq - .
            s_addc_u32 s5, s5, 0
            s_lshl_b32 s11, s10, 2
            s_add_u32 s4, s4, s11
            s_addc_u32 s5, s5, 0
            s_mov_b32 s12, 0
            s_setpc_b64 s[4:5]
            seq:
            s_add_u32 s12, s12, 1
            s_add_u32 s12, s12, 2
            s_add_u32 s12, s12, 4
            s_add_u32 s12, s12, 8
            s_add_u32 s12, s12, 16
            v_mov_b32 v1, s12
            v_mov_b32 v0, 0
            global_store_dword v0, v1, s[0:1]
            s_endpgm
            """;

    private CaptureFile capture(String asm) throws Exception {
        return Differential.assemble(dir, asm, 32, 32, 1, List.of(new byte[256]), 0, 0);
    }

    private static int cases(Translation t) {
        return (int) t.source().lines().filter(l -> l.startsWith("    case 0x")).count();
    }

    private static int labels(Translation t) {
        return (int) t.source().lines().filter(l -> l.startsWith("L_")).count();
    }

    private void agree(CaptureFile c) throws Exception {
        Differential.Side host = Differential.host(c, 100_000);
        Differential.Side device = Differential.device(c, dir, 100_000);
        List<String> diff = Differential.differences(host, device, 32, 32);
        assertTrue(diff.isEmpty(), "host and translation differ:\n" + String.join("\n", diff));
        assertEquals(List.of(""), host.faults(), "the host model runs it without a fault");
        assertEquals(host.waveInstructions(), device.waveInstructions(), "wave instructions executed");
    }

    @Test
    void calls_get_cases_only_for_return_addresses_and_callees() throws Exception {
        CaptureFile c = capture(CALLS);
        Translation t = new Translator().translate(ProgramInfo.of(c));
        assertTrue(t.ok(), t.coverageReport());
        String report = t.coverageReport();
        // cases: the entry, the three return addresses, the two callees (twice, plus3)
        assertEquals(6, cases(t), report + t.source());
        assertTrue(report.contains("6 indirect targets"), report);
        // blocks: those six (the branch target skip is the first call's return address)
        assertEquals(6, labels(t), t.source());
        agree(c);
        byte[] out = Differential.host(c, 100_000).ranges().get(0);
        assertEquals(19, out[0], "5 -> plus3 8 -> twice 16 -> plus3 19 (the host model's result)");
    }

    @Test
    void a_jump_table_falls_back_to_every_instruction() throws Exception {
        CaptureFile c = capture(JUMP_TABLE);
        Translation t = new Translator().translate(ProgramInfo.of(c));
        assertTrue(t.ok(), t.coverageReport());
        int instructions = ProgramInfo.of(c).program().instructions().size();
        assertTrue(t.coverageReport().contains("every instruction is a block and an indirect target (PC 0x"),
                t.coverageReport());
        assertTrue(t.coverageReport().contains("s_setpc_b64 jumps to a code address"), t.coverageReport());
        assertTrue(cases(t) >= instructions - 1, cases(t) + " cases for " + instructions + " instructions");
        agree(c);
        assertEquals(102, Differential.host(c, 100_000).ranges().get(0)[0]);
    }

    @Test
    void the_address_switch_enters_a_run_of_shared_bodies_in_its_middle() throws Exception {
        CaptureFile c = capture(INTO_A_RUN);
        Translation t = new Translator().translate(ProgramInfo.of(c));
        assertTrue(t.ok(), t.coverageReport());
        assertTrue(t.coverageReport().contains("every instruction is a block"), t.coverageReport());
        // one run over the five adds (and what follows), entered by the switch at each of their blocks but the first
        assertTrue(t.source().matches("(?s).*RT_RUN\\(rt_at\\); /\\* \\d+ instructions, entered at \\d+ \\*/.*"),
                t.source());
        assertTrue(t.source().matches("(?s).*#if RT_SHAPE_RUNS\n    case 0x[0-9a-f]+ull: rt_at = \\d+; goto rt_run_0;\n#else.*"),
                t.source());
        agree(c);
        assertEquals(4 + 8 + 16, Differential.host(c, 100_000).ranges().get(0)[0], "it lands on the third add");
        // the GPU build's form (every call inline, the switch going to the labels) agrees too
        Differential.Side host = Differential.host(c, 100_000);
        Differential.Side inline = Differential.device(c, dir, 100_000,
                new CpuBuild("g++", Differential.CACHE, null, List.of("-DRT_INLINE_SHAPES")));
        assertEquals(List.of(), Differential.differences(host, inline, 32, 32), "-DRT_INLINE_SHAPES");
        assertEquals(host.waveInstructions(), inline.waveInstructions(), "wave instructions executed, inline");
    }

    @Test
    void a_jump_outside_the_targets_faults_naming_the_target() throws Exception {
        CaptureFile c = capture(HIDDEN);
        Translation t = new Translator().translate(ProgramInfo.of(c));
        assertTrue(t.ok(), t.coverageReport());
        assertTrue(t.coverageReport().contains("indirect targets"), t.coverageReport());
        long target = -1;
        for (Instruction i : ProgramInfo.of(c).program().instructions()) {
            if (i.mnemonic().equals("s_mov_b32") && target < 0 && i.fields().toString().contains("sdst=12")) {
                target = i.pc() + i.length(); // the second s_mov_b32 s12: where the hidden add lands
            }
        }
        assertTrue(target > 0);
        Differential.Side host = Differential.host(c, 100_000);
        assertEquals(List.of(""), host.faults(), "the host model follows any address");
        assertEquals(2, host.ranges().get(0)[0]);
        Differential.Side device = Differential.device(c, dir, 100_000);
        assertEquals(List.of("wave 0 pc 0x" + Long.toHexString(target)), device.faults(),
                "the device faults at the target the analysis did not see, never runs a wrong block");
    }
}
