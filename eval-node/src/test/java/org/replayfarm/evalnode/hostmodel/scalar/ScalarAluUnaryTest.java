package org.replayfarm.evalnode.hostmodel.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertScc;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr64;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.scc;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/** SOP1: results and SCC as the RDNA 2 ISA guide defines them; expected values worked out by hand. */
@Tag("unit")
class ScalarAluUnaryTest {
    @TempDir
    Path dir;

    @Test
    void moves_and_conditional_moves_leave_scc_and_cmov_moves_only_when_scc_is_set() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s10, 0x12345678\n"
                + "s_mov_b64 s[12:13], -2\n"
                + "s_mov_b32 s14, 1\ns_mov_b32 s15, 1\ns_mov_b64 s[16:17], 1\ns_mov_b64 s[18:19], 1\n"
                + "s_cmp_eq_u32 0, 0\n"
                + "s_cmov_b32 s14, 5\ns_cmov_b64 s[16:17], -5\n"
                + "s_mov_b32 s20, 0\n" + scc(30)
                + "s_cmp_eq_u32 0, 1\n"
                + "s_cmov_b32 s15, 5\ns_cmov_b64 s[18:19], -5\n");
        assertSgpr(w, 10, 0x12345678);
        assertSgpr64(w, 12, -2);
        assertSgpr(w, 14, 5);
        assertSgpr64(w, 16, -5);
        assertScc(w, 30, true);
        assertSgpr(w, 15, 1);
        assertSgpr64(w, 18, 1);
    }

    @Test
    void s_not_inverts_and_sets_scc_when_the_result_is_not_zero() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_not_b32 s10, 0xff\n" + scc(30)
                + "s_not_b32 s11, -1\n" + scc(31)
                + "s_not_b64 s[12:13], -1\n" + scc(32)
                + "s_not_b64 s[14:15], 1\n" + scc(33));
        assertSgpr(w, 10, 0xffffff00L);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 0);
        assertScc(w, 31, false);
        assertSgpr64(w, 12, 0);
        assertScc(w, 32, false);
        assertSgpr64(w, 14, -2);
        assertScc(w, 33, true);
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void s_wqm_sets_every_quad_with_any_bit_set_and_s_quadmask_gives_one_bit_per_quad(boolean wave64) throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("s_mov_b32 s20, 0x00f01001\n"
                + "s_mov_b32 s22, 0x00000100\ns_mov_b32 s23, 0x80000001\n" // s[22:23] = 0x80000001_00000100
                + "s_wqm_b32 s10, s20\n" + scc(30)
                + "s_wqm_b32 s11, 0\n" + scc(31)
                + "s_wqm_b64 s[12:13], s[22:23]\n"
                + "s_quadmask_b32 s14, s20\n" + scc(32)
                + "s_quadmask_b64 s[16:17], s[22:23]\n"
                + "s_quadmask_b32 s18, 0\n" + scc(33));
        assertSgpr(w, 10, 0x00f0f00f);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 0);
        assertScc(w, 31, false);
        assertSgpr64(w, 12, 0xf000000f_00000f00L);
        assertSgpr(w, 14, 0b101001);   // quads 0, 3 and 5
        assertScc(w, 32, true);
        assertSgpr64(w, 16, 1 << 2 | 1 << 8 | 1 << 15);
        assertSgpr(w, 18, 0);
        assertScc(w, 33, false);
    }

    @Test
    void s_brev_reverses_bits_and_s_bitreplicate_doubles_each_bit() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_cmp_eq_u32 0, 1\n"
                + "s_brev_b32 s10, 1\n"
                + "s_brev_b32 s11, 0x12345678\n"
                + "s_brev_b64 s[12:13], 1\n"
                + "s_mov_b32 s20, 0x80000001\n"
                + "s_bitreplicate_b64_b32 s[14:15], s20\n"
                + "s_bitreplicate_b64_b32 s[16:17], 0x5\n" + scc(30));
        assertSgpr(w, 10, 0x80000000L);
        assertSgpr(w, 11, 0x1e6a2c48);
        assertSgpr64(w, 12, 0x80000000_00000000L);
        assertSgpr64(w, 14, 0xc0000000_00000003L);
        assertSgpr64(w, 16, 0x33);
        assertScc(w, 30, false);
    }

    @Test
    void bit_counts_count_zeros_or_ones_with_scc_when_the_count_is_not_zero() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_bcnt1_i32_b32 s10, 0\n" + scc(30)
                + "s_bcnt1_i32_b32 s11, 0xf0f\n" + scc(31)
                + "s_bcnt0_i32_b32 s12, -1\n" + scc(32)
                + "s_bcnt0_i32_b32 s13, 0xf0f\n"
                + "s_bcnt0_i32_b64 s14, 0\n"
                + "s_mov_b32 s22, -1\ns_mov_b32 s23, 1\n"
                + "s_bcnt1_i32_b64 s15, s[22:23]\n"
                + "s_bcnt0_i32_b64 s16, s[22:23]\n");
        assertSgpr(w, 10, 0);
        assertScc(w, 30, false);
        assertSgpr(w, 11, 8);
        assertScc(w, 31, true);
        assertSgpr(w, 12, 0);
        assertScc(w, 32, false);
        assertSgpr(w, 13, 24);
        assertSgpr(w, 14, 64);
        assertSgpr(w, 15, 33);
        assertSgpr(w, 16, 31);
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void find_first_bit_instructions_return_minus_one_when_there_is_no_such_bit(boolean wave64) throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("s_mov_b32 s20, 0x80000000\ns_mov_b32 s21, 0xc0000000\n"
                + "s_mov_b32 s22, 0\ns_mov_b32 s23, 0x100\n"            // s[22:23] = 1 << 40
                + "s_ff0_i32_b32 s10, -1\n"
                + "s_ff0_i32_b32 s11, 0xffff\n"
                + "s_ff1_i32_b32 s12, 0\n"
                + "s_ff1_i32_b32 s13, s20\n"
                + "s_ff1_i32_b64 s14, s[22:23]\n"
                + "s_ff0_i32_b64 s15, -1\n"
                + "s_ff1_i32_b64 s16, 0\n"
                + "s_ff0_i32_b64 s17, s[22:23]\n"
                + "s_flbit_i32_b32 s40, 0\n"
                + "s_flbit_i32_b32 s41, 1\n"
                + "s_flbit_i32_b32 s42, s20\n"
                + "s_flbit_i32_b64 s43, 1\n"
                + "s_flbit_i32_b64 s44, 0\n"
                + "s_flbit_i32_b64 s45, s[22:23]\n"
                + "s_flbit_i32 s46, -1\n"
                + "s_flbit_i32 s47, 0\n"
                + "s_flbit_i32 s48, 0x40000000\n"
                + "s_flbit_i32 s49, s21\n"
                + "s_flbit_i32_i64 s50, -2\n"
                + "s_flbit_i32_i64 s51, -1\n"
                + "s_flbit_i32_i64 s52, 0\n"
                + "s_flbit_i32_i64 s53, s[22:23]\n"
                + "s_flbit_i32 s54, 1\n");
        assertSgpr(w, 10, -1);
        assertSgpr(w, 11, 16);
        assertSgpr(w, 12, -1);
        assertSgpr(w, 13, 31);
        assertSgpr(w, 14, 40);
        assertSgpr(w, 15, -1);
        assertSgpr(w, 16, -1);
        assertSgpr(w, 17, 0);
        assertSgpr(w, 40, -1);
        assertSgpr(w, 41, 31);
        assertSgpr(w, 42, 0);
        assertSgpr(w, 43, 63);
        assertSgpr(w, 44, -1);
        assertSgpr(w, 45, 23);
        assertSgpr(w, 46, -1);
        assertSgpr(w, 47, -1);
        assertSgpr(w, 48, 1);
        assertSgpr(w, 49, 2);   // two leading copies of the sign bit
        assertSgpr(w, 50, 63);
        assertSgpr(w, 51, -1);
        assertSgpr(w, 52, -1);
        assertSgpr(w, 53, 23);
        assertSgpr(w, 54, 31);
    }

    @Test
    void sign_extension_and_bit_set_use_the_low_5_or_6_bits_of_the_bit_number() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_sext_i32_i8 s10, 0x80\n"
                + "s_sext_i32_i8 s11, 0x17f\n"
                + "s_sext_i32_i16 s12, 0x8000\n"
                + "s_sext_i32_i16 s13, 0x17fff\n"
                + "s_mov_b32 s14, 0\ns_bitset1_b32 s14, 33\n"       // bit 1
                + "s_mov_b32 s15, -1\ns_bitset0_b32 s15, 31\n"
                + "s_mov_b64 s[16:17], 0\ns_bitset1_b64 s[16:17], 63\n"
                + "s_mov_b64 s[18:19], -1\ns_bitset0_b64 s[18:19], 96\n"); // bit 32
        assertSgpr(w, 10, -128);
        assertSgpr(w, 11, 127);
        assertSgpr(w, 12, -32768);
        assertSgpr(w, 13, 32767);
        assertSgpr(w, 14, 2);
        assertSgpr(w, 15, 0x7fffffff);
        assertSgpr64(w, 16, 0x80000000_00000000L);
        assertSgpr64(w, 18, 0xfffffffe_ffffffffL);
    }

    @Test
    void s_abs_i32_keeps_the_most_negative_value_and_sets_scc_when_not_zero() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_abs_i32 s10, -5\n" + scc(30)
                + "s_abs_i32 s11, 0x80000000\n" + scc(31)
                + "s_abs_i32 s12, 0\n" + scc(32)
                + "s_abs_i32 s13, 7\n");
        assertSgpr(w, 10, 5);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 0x80000000L);
        assertScc(w, 31, true);
        assertSgpr(w, 12, 0);
        assertScc(w, 32, false);
        assertSgpr(w, 13, 7);
    }

    private static final String[] SAVEEXEC = {"and", "or", "xor", "andn2", "orn2", "nand", "nor", "xnor", "andn1",
        "orn1"};

    /** The new EXEC of each s_*_saveexec form, as the descriptions define it. */
    private static long saveexec(String op, long s, long e) {
        return switch (op) {
            case "and" -> s & e;
            case "or" -> s | e;
            case "xor" -> s ^ e;
            case "andn2" -> s & ~e;
            case "orn2" -> s | ~e;
            case "nand" -> ~(s & e);
            case "nor" -> ~(s | e);
            case "xnor" -> ~(s ^ e);
            case "andn1" -> ~s & e;
            case "orn1" -> ~s | e;
            default -> throw new IllegalArgumentException(op);
        };
    }

    @Test
    void saveexec_b32_in_wave32_saves_exec_lo_applies_the_operation_and_sets_scc_from_the_new_exec()
            throws Exception {
        long e = 0xf0f0;
        long s = 0xff00;
        for (String op : SAVEEXEC) {
            Wave w = new GuestAsm(dir).runWave("s_mov_b32 exec_lo, 0xf0f0\ns_mov_b32 s20, 0xff00\n"
                    + "s_" + op + "_saveexec_b32 s10, s20\n" + scc(30) + "s_mov_b32 s11, exec_lo\n"
                    + "s_mov_b32 exec_lo, -1\n");
            assertSgpr(w, 10, e);
            assertSgpr(w, 11, saveexec(op, s, e));
            assertScc(w, 30, (int) saveexec(op, s, e) != 0);
        }
        Wave w = new GuestAsm(dir).runWave("s_and_saveexec_b32 s10, 0\n" + scc(30) + "s_mov_b32 s11, exec_lo\n");
        assertSgpr(w, 10, -1);
        assertSgpr(w, 11, 0);
        assertScc(w, 30, false);
        assertEquals(0, w.exec(), "the wave is left with EXEC = 0");
    }

    @Test
    void saveexec_b64_in_wave64_works_on_the_whole_exec_and_b32_forms_only_on_exec_lo() throws Exception {
        long e = 0x0000ffff_f0f0f0f0L;
        long s = 0xff00ff00_ff00ff00L;
        for (String op : SAVEEXEC) {
            Wave w = new GuestAsm(dir).wave64(true).runWave("s_mov_b32 exec_lo, 0xf0f0f0f0\ns_mov_b32 exec_hi, 0xffff\n"
                    + "s_mov_b32 s20, 0xff00ff00\ns_mov_b32 s21, 0xff00ff00\n"
                    + "s_" + op + "_saveexec_b64 s[10:11], s[20:21]\n" + scc(30) + "s_mov_b64 s[12:13], exec\n"
                    + "s_mov_b64 exec, -1\n");
            assertSgpr64(w, 10, e);
            assertSgpr64(w, 12, saveexec(op, s, e));
            assertScc(w, 30, saveexec(op, s, e) != 0);
        }
        // the 32-bit form in wave64: exec_hi is left alone, SCC looks at exec_lo only
        Wave w = new GuestAsm(dir).wave64(true).runWave("s_mov_b32 exec_hi, 0xffff\n"
                + "s_and_saveexec_b32 s10, 0\n" + scc(30) + "s_mov_b64 s[12:13], exec\n");
        assertSgpr(w, 10, -1);
        assertSgpr64(w, 12, 0x0000ffff_00000000L);
        assertScc(w, 30, false);
        assertEquals(0x0000ffff_00000000L, w.exec());
    }

    @Test
    void wrexec_writes_the_new_exec_to_both_exec_and_the_destination() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 exec_lo, 0xf0f0\ns_mov_b32 s20, 0xff00\n"
                + "s_andn1_wrexec_b32 s10, s20\n" + scc(30) + "s_mov_b32 s11, exec_lo\n"
                + "s_mov_b32 exec_lo, 0xf0f0\n"
                + "s_andn2_wrexec_b32 s12, s20\n" + scc(31) + "s_mov_b32 s13, exec_lo\n"
                + "s_mov_b32 exec_lo, 0xf0f0\n"
                + "s_andn2_wrexec_b32 s14, 0xf0\n" + scc(32) + "s_mov_b32 exec_lo, -1\n");
        assertSgpr(w, 10, 0x00f0);
        assertSgpr(w, 11, 0x00f0);
        assertScc(w, 30, true);
        assertSgpr(w, 12, 0x0f00);
        assertSgpr(w, 13, 0x0f00);
        assertScc(w, 31, true);
        assertSgpr(w, 14, 0);
        assertScc(w, 32, false);
        Wave w64 = new GuestAsm(dir).wave64(true).runWave("s_mov_b64 exec, -1\ns_mov_b32 s20, 0\ns_mov_b32 s21, 0xffff0000\n"
                + "s_andn1_wrexec_b64 s[10:11], s[20:21]\n" + scc(30) + "s_mov_b64 s[12:13], exec\n");
        assertSgpr64(w64, 10, 0x0000ffff_ffffffffL);
        assertSgpr64(w64, 12, 0x0000ffff_ffffffffL);
        assertScc(w64, 30, true);
    }

    @Test
    void m0_relative_moves_index_the_scalar_file_from_the_named_register() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s10, 10\ns_mov_b32 s11, 11\ns_mov_b32 s12, 12\ns_mov_b32 s13, 13\n"
                + "s_mov_b32 m0, 3\n"
                + "s_movrels_b32 s20, s10\n"        // s13
                + "s_movreld_b32 s30, 77\n"          // s33 = 77
                + "s_mov_b32 m0, 2\n"
                + "s_movrels_b64 s[22:23], s[10:11]\n"  // s[12:13]
                + "s_movreld_b64 s[40:41], -1\n"         // s[42:43]
                + "s_mov_b32 m0, 0x20001\n"              // destination index 2, source index 1
                + "s_movrelsd_2_b32 s50, s10\n");        // s52 = s11
        assertSgpr(w, 20, 13);
        assertSgpr(w, 33, 77);
        assertSgpr(w, 30, 0);
        assertSgpr64(w, 22, 13L << 32 | 12);
        assertSgpr64(w, 42, -1);
        assertSgpr(w, 52, 11);
        assertSgpr(w, 50, 0);
    }

    @Test
    void an_m0_relative_move_past_the_last_sgpr_faults() throws Exception {
        String message = new GuestAsm(dir).faultMessage("s_mov_b32 m0, 200\ns_movrels_b32 s20, s10\n");
        assertTrue(message.contains("M0-relative source"), message);
    }
}
