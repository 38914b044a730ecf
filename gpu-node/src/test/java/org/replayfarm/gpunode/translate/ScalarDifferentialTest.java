package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeTable;

/**
 * Scalar ALU and control flow, the host model against the translation on the CPU: seeded random
 * programs over every SOP1/SOP2/SOPC/SOPK row whose operands are plain registers and immediates (every
 * source kind: SGPRs, inline constants, literals, vcc, exec, m0, scc-reading ops), plus loops, calls
 * through s_getpc/s_setpc/s_swappc, an unknown branch target and a runaway loop. Every SGPR, SCC and
 * MODE of every wave is compared (Differential).
 */
@Tag("unit")
class ScalarDifferentialTest {
    @TempDir
    Path dir;

    /** Rows a random program cannot use as plain ALU operations (control, EXEC-only, hardware registers). */
    private static final Set<String> SKIP = Set.of("s_getpc_b64", "s_setpc_b64", "s_swappc_b64", "s_rfe_b64",
            "s_movrels_b32", "s_movrels_b64", "s_movreld_b32", "s_movreld_b64", "s_movrelsd_2_b32", "s_call_b64",
            "s_getreg_b32", "s_setreg_b32", "s_setreg_imm32_b32", "s_subvector_loop_begin", "s_subvector_loop_end",
            "s_version", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_expcnt", "s_waitcnt_lgkmcnt");

    private static String reg(SplittableRandom rnd, boolean wide) {
        if (wide) {
            int r = rnd.nextInt(0, 15) * 2 + 4;
            return "s[" + r + ":" + (r + 1) + "]";
        }
        return "s" + rnd.nextInt(4, 34);
    }

    private static String source(SplittableRandom rnd, boolean wide) {
        int k = rnd.nextInt(10);
        if (k < 6) {
            return reg(rnd, wide);
        }
        return switch (k) {
            case 6 -> Integer.toString(rnd.nextInt(-16, 65));
            case 7 -> new String[] {"0.5", "-1.0", "2.0", "-4.0", "1.0"}[rnd.nextInt(5)];
            case 8 -> wide ? "vcc" : rnd.nextBoolean() ? "m0" : "vcc_lo";
            default -> wide ? Integer.toString(rnd.nextInt(-16, 65))
                    : String.format("0x%x", rnd.nextInt());
        };
    }

    static String program(long seed, int length) {
        SplittableRandom rnd = new SplittableRandom(seed);
        OpcodeTable table = OpcodeTable.gfx1030();
        List<Opcode> rows = new ArrayList<>();
        for (Encoding e : List.of(Encoding.SOP1, Encoding.SOP2, Encoding.SOPC, Encoding.SOPK)) {
            for (Opcode o : table.rows(e)) {
                if (!SKIP.contains(o.mnemonic()) && !o.mnemonic().contains("saveexec") && !o.mnemonic().contains("wrexec")) {
                    rows.add(o);
                }
            }
        }
        StringBuilder b = new StringBuilder();
        for (int r = 4; r < 40; r++) {
            b.append(String.format("s_mov_b32 s%d, 0x%x%n", r, rnd.nextInt()));
        }
        b.append(String.format("s_mov_b32 m0, 0x%x%ns_mov_b32 vcc_lo, 0x%x%ns_mov_b32 vcc_hi, 0x%x%n", rnd.nextInt(),
                rnd.nextInt(), rnd.nextInt()));
        b.append("s_cmp_eq_u32 s4, s5\n");
        for (int i = 0; i < length; i++) {
            Opcode o = rows.get(rnd.nextInt(rows.size()));
            List<String> ops = new ArrayList<>();
            for (String operand : o.operands()) {
                String[] nt = operand.split(":");
                String type = nt.length > 1 ? nt[1] : "";
                switch (nt[0]) {
                    case "sdst" -> ops.add(reg(rnd, type.equals("b64")));
                    case "ssrc0", "ssrc1" -> ops.add(source(rnd, type.equals("b64")));
                    case "simm16" -> ops.add(String.format("0x%x", rnd.nextInt(0x10000)));
                    default -> throw new IllegalStateException(o + ": operand " + operand);
                }
            }
            // the ISA allows one literal per instruction: a second one becomes a register
            boolean literal = false;
            for (int k = 0; k < ops.size(); k++) {
                if (o.encoding() != Encoding.SOPK && ops.get(k).matches("0x[0-9a-f]+")) {
                    if (literal) {
                        ops.set(k, "s7");
                    }
                    literal = true;
                }
            }
            b.append(o.mnemonic()).append(' ').append(String.join(", ", ops)).append('\n');
        }
        b.append("s_endpgm\n");
        return b.toString();
    }

    private void agree(String assembly, int waveSize, int groupSize, int groups) throws Exception {
        CaptureFile c = Differential.assemble(dir, assembly, waveSize, groupSize, groups, List.of(), 0, 0);
        Differential.Side host = Differential.host(c, 1_000_000);
        Differential.Side device = Differential.device(c, dir, 1_000_000);
        List<String> diff = Differential.differences(host, device, groupSize, waveSize);
        assertTrue(diff.isEmpty(), "host and translation differ:\n" + String.join("\n", diff.subList(0,
                Math.min(diff.size(), 30))) + "\nprogram:\n" + assembly);
        assertEquals(host.waveInstructions(), device.waveInstructions(), "wave instructions executed");
    }

    @Test
    void random_scalar_programs_agree_with_the_host_model() throws Exception {
        int programs = 0;
        for (long seed = 1; seed <= 6; seed++) {
            agree(program(seed, 120), seed % 2 == 0 ? 64 : 32, seed % 2 == 0 ? 64 : 32, 1);
            programs++;
        }
        System.out.println("[scalar differential] " + programs + " programs of 120 random instructions agreed");
    }

    @Test
    void loops_calls_and_exec_masks_agree() throws Exception {
        String asm = """
                s_mov_b32 s10, 0
                s_mov_b32 s11, 1
                loop:
                s_add_u32 s10, s10, s11
                s_lshl_b32 s11, s11, 1
                s_cmp_lt_u32 s11, 0x10000
                s_cbranch_scc1 loop
                s_getpc_b64 s[20:21]
                s_add_u32 s20, s20, func - .
                s_addc_u32 s21, s21, 0
                s_swappc_b64 s[30:31], s[20:21]
                s_mov_b32 s12, s10
                s_and_saveexec_b32 s40, s13
                s_or_saveexec_b32 s41, s14
                s_xor_b32 exec_lo, exec_lo, s15
                s_cbranch_execz skip
                s_mov_b32 s16, 7
                skip:
                s_mov_b32 exec_lo, -1
                s_endpgm
                func:
                s_mul_i32 s13, s10, 3
                s_mov_b32 s14, 0xff00ff
                s_mov_b32 s15, 0xf0f0
                s_setpc_b64 s[30:31]
                """;
        agree(asm, 32, 32, 2);
    }

    @Test
    void wave64_saveexec_and_barrier_between_waves_agree() throws Exception {
        String asm = """
                s_mov_b64 s[10:11], exec
                s_mov_b32 s12, 0x0000ffff
                s_mov_b32 s13, 0xffff0000
                s_and_saveexec_b64 s[14:15], s[12:13]
                s_barrier
                s_mov_b64 exec, s[14:15]
                s_barrier
                s_bcnt1_i32_b64 s16, exec
                s_ff1_i32_b64 s17, s[12:13]
                s_endpgm
                """;
        agree(asm, 64, 256, 2);
    }

    @Test
    void m0_relative_moves_and_debugger_branches_agree() throws Exception {
        String asm = """
                s_mov_b32 s20, 11
                s_mov_b32 s21, 22
                s_mov_b32 s22, 33
                s_mov_b32 m0, 0x00030001
                s_movrelsd_2_b32 s10, s20
                s_mov_b32 m0, 0x00000002
                s_movrelsd_2_b32 s11, s20
                s_mov_b32 m0, 1
                s_movrels_b32 s12, s20
                s_movreld_b32 s14, s22
                s_mov_b32 s30, 1
                s_cbranch_cdbgsys skip
                s_cbranch_cdbguser skip
                s_cbranch_cdbgsys_or_user skip
                s_cbranch_cdbgsys_and_user skip
                s_mov_b32 s30, 2
                skip:
                s_mov_b32 m0, 0x00640000
                s_movrelsd_2_b32 s10, s20
                s_endpgm
                """;
        agree(asm, 32, 32, 1);
    }

    @Test
    void an_unknown_target_and_a_runaway_loop_fault_the_same_way() throws Exception {
        agree("""
                s_mov_b32 s20, 0x1234
                s_mov_b32 s21, 0
                s_setpc_b64 s[20:21]
                s_endpgm
                """, 32, 32, 1);
        String runaway = """
                s_mov_b32 s10, 0
                loop:
                s_add_u32 s10, s10, 1
                s_branch loop
                """;
        CaptureFile c = Differential.assemble(dir, runaway, 32, 32, 1, List.of(), 0, 0);
        Differential.Side host = Differential.host(c, 1000);
        Differential.Side device = Differential.device(c, dir, 1000);
        assertTrue(!host.faults().get(0).isEmpty(), "the host model stops the runaway wave");
        assertTrue(!device.faults().get(0).isEmpty(), "the translation stops the runaway wave");
    }
}
