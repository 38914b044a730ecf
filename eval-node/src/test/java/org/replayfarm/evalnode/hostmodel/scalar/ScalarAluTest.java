package org.replayfarm.evalnode.hostmodel.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertScc;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr64;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.scc;

import java.math.BigInteger;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/**
 * SOP2, SOPC and SOPK: results and SCC as the RDNA 2 ISA guide defines them. Expected values are
 * worked out by hand from the instruction descriptions (or with BigInteger where noted).
 */
@Tag("unit")
class ScalarAluTest {
    @TempDir
    Path dir;

    @Test
    void s_cselect_picks_s0_when_scc_is_set_and_s1_when_clear() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_cmp_eq_u32 0, 0
                s_cselect_b32 s10, 7, 9
                s_cmp_eq_u32 0, 1
                s_cselect_b32 s11, 7, 9
                s_mov_b64 s[20:21], 0x12345678
                s_mov_b32 s21, 0xabcd
                s_cmp_eq_u32 0, 0
                s_cselect_b64 s[12:13], s[20:21], 0
                s_cmp_eq_u32 0, 1
                s_cselect_b64 s[14:15], s[20:21], -1
                """);
        assertSgpr(w, 10, 7);
        assertSgpr(w, 11, 9);
        assertSgpr64(w, 12, 0x0000abcd_12345678L);
        assertSgpr64(w, 14, -1L);
        assertEquals(false, w.scc(), "s_cselect leaves SCC alone");
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void s_add_u32_and_s_addc_u32_set_scc_to_the_carry_out_and_chain_into_64_bit_adds(boolean wave64)
            throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("s_mov_b32 s20, -1\n"
                + "s_add_u32 s10, s20, 1\n" + scc(30)          // 0xffffffff + 1 = 0, carry
                + "s_add_u32 s11, 1, 2\n" + scc(31)            // 3, no carry
                + "s_cmp_eq_u32 0, 0\n"                        // SCC = 1 as carry in
                + "s_addc_u32 s12, s20, 0\n" + scc(32)         // 0xffffffff + 0 + 1 = 0, carry
                + "s_cmp_eq_u32 0, 0\n"
                + "s_addc_u32 s13, 5, 6\n" + scc(33)           // 5 + 6 + 1 = 12
                + "s_mov_b32 s22, -1\ns_mov_b32 s23, 1\n"     // s[22:23] = 0x1_ffffffff
                + "s_add_u32 s14, s22, 1\ns_addc_u32 s15, s23, 0\n" + scc(34));
        assertSgpr(w, 10, 0);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 3);
        assertScc(w, 31, false);
        assertSgpr(w, 12, 0);
        assertScc(w, 32, true);
        assertSgpr(w, 13, 12);
        assertScc(w, 33, false);
        assertSgpr64(w, 14, 0x2_0000_0000L);
        assertScc(w, 34, false);
    }

    @Test
    void s_sub_u32_and_s_subb_u32_set_scc_to_the_borrow_and_chain_into_64_bit_subtracts() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_sub_u32 s10, 0, 1\n" + scc(30)          // borrow
                + "s_sub_u32 s11, 5, 3\n" + scc(31)                    // 2
                + "s_sub_u32 s12, 5, 5\n" + scc(32)                    // 0, no borrow
                + "s_cmp_eq_u32 0, 0\n"
                + "s_subb_u32 s13, 5, 5\n" + scc(33)                   // 5 - 5 - 1 = -1, borrow
                + "s_cmp_eq_u32 0, 0\n"
                + "s_subb_u32 s14, 5, 4\n" + scc(34)                   // 0, no borrow
                + "s_mov_b32 s22, 0\ns_mov_b32 s23, 1\n"              // 0x1_00000000 - 1
                + "s_sub_u32 s16, s22, 1\ns_subb_u32 s17, s23, 0\n" + scc(35));
        assertSgpr(w, 10, 0xffffffffL);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 2);
        assertScc(w, 31, false);
        assertSgpr(w, 12, 0);
        assertScc(w, 32, false);
        assertSgpr(w, 13, -1);
        assertScc(w, 33, true);
        assertSgpr(w, 14, 0);
        assertScc(w, 34, false);
        assertSgpr64(w, 16, 0xffffffffL);
        assertScc(w, 35, false);
    }

    @Test
    void s_add_i32_and_s_sub_i32_set_scc_on_signed_overflow_only() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s20, 0x7fffffff\ns_mov_b32 s21, 0x80000000\n"
                + "s_add_i32 s10, s20, 1\n" + scc(30)      // overflow to 0x80000000
                + "s_add_i32 s11, -1, 1\n" + scc(31)       // 0, no overflow (carry is not overflow)
                + "s_add_i32 s12, s21, -1\n" + scc(32)     // overflow to 0x7fffffff
                + "s_sub_i32 s13, s21, 1\n" + scc(33)      // overflow
                + "s_sub_i32 s14, 0, s21\n" + scc(34)      // -(-2^31) overflows to itself
                + "s_sub_i32 s15, 5, 7\n" + scc(35));      // -2
        assertSgpr(w, 10, 0x80000000L);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 0);
        assertScc(w, 31, false);
        assertSgpr(w, 12, 0x7fffffff);
        assertScc(w, 32, true);
        assertSgpr(w, 13, 0x7fffffff);
        assertScc(w, 33, true);
        assertSgpr(w, 14, 0x80000000L);
        assertScc(w, 34, true);
        assertSgpr(w, 15, -2);
        assertScc(w, 35, false);
    }

    @Test
    void s_min_and_s_max_compare_signed_or_unsigned_and_set_scc_when_s0_is_chosen() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_min_i32 s10, -1, 1\n" + scc(30)
                + "s_min_u32 s11, -1, 1\n" + scc(31)
                + "s_max_i32 s12, -1, 1\n" + scc(32)
                + "s_max_u32 s13, -1, 1\n" + scc(33)
                + "s_min_i32 s14, 4, 4\n" + scc(34)
                + "s_max_u32 s15, 4, 4\n" + scc(35));
        assertSgpr(w, 10, -1);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 1);
        assertScc(w, 31, false);
        assertSgpr(w, 12, 1);
        assertScc(w, 32, false);
        assertSgpr(w, 13, -1);
        assertScc(w, 33, true);
        assertSgpr(w, 14, 4);
        assertScc(w, 34, false);
        assertSgpr(w, 15, 4);
        assertScc(w, 35, false);
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void bitwise_logic_in_32_and_64_bits_sets_scc_when_the_result_is_not_zero(boolean wave64) throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("s_mov_b32 s20, 0xf0f0\ns_mov_b32 s21, 0xff00\n"
                + "s_and_b32 s10, s20, s21\n"
                + "s_or_b32 s11, s20, s21\n"
                + "s_xor_b32 s12, s20, s21\n"
                + "s_andn2_b32 s13, s20, s21\n"
                + "s_orn2_b32 s14, s20, s21\n"
                + "s_nand_b32 s15, s20, s21\n"
                + "s_nor_b32 s16, s20, s21\n"
                + "s_xnor_b32 s17, s20, s21\n"
                + "s_and_b32 s18, 0xf0, 0xf0\n" + scc(30)
                + "s_and_b32 s19, 0xf0, 15\n" + scc(31)
                + "s_mov_b32 s22, 0xf0f0\ns_mov_b32 s23, 0x0f0f0000\n"   // s[22:23] = 0x0f0f0000_0000f0f0
                + "s_mov_b64 s[24:25], -1\ns_mov_b32 s24, 0xff00ff00\n"  // s[24:25] = 0xffffffff_ff00ff00
                + "s_and_b64 s[40:41], s[22:23], s[24:25]\n"
                + "s_or_b64 s[42:43], s[22:23], s[24:25]\n"
                + "s_xor_b64 s[44:45], s[22:23], s[24:25]\n"
                + "s_andn2_b64 s[46:47], s[22:23], s[24:25]\n"
                + "s_orn2_b64 s[48:49], s[22:23], s[24:25]\n"
                + "s_nand_b64 s[50:51], s[22:23], s[24:25]\n"
                + "s_nor_b64 s[52:53], s[22:23], s[24:25]\n"
                + "s_xnor_b64 s[54:55], s[22:23], s[24:25]\n" + scc(32)
                + "s_nor_b64 s[56:57], -1, 0\n" + scc(33));
        assertSgpr(w, 10, 0xf000);
        assertSgpr(w, 11, 0xfff0);
        assertSgpr(w, 12, 0x0ff0);
        assertSgpr(w, 13, 0x00f0);
        assertSgpr(w, 14, 0xffff00ffL | 0xf0f0);
        assertSgpr(w, 15, 0xffff0fffL);
        assertSgpr(w, 16, 0xffff000fL);
        assertSgpr(w, 17, 0xfffff00fL);
        assertSgpr(w, 18, 0xf0);
        assertScc(w, 30, true);
        assertSgpr(w, 19, 0);
        assertScc(w, 31, false);
        long a = 0x0f0f0000_0000f0f0L;
        long b = 0xffffffff_ff00ff00L;
        assertSgpr64(w, 40, 0x0f0f0000_0000f000L);
        assertSgpr64(w, 42, 0xffffffff_ff00fff0L);
        assertSgpr64(w, 44, 0xf0f0ffff_ff000ff0L);
        assertSgpr64(w, 46, 0x00000000_000000f0L);
        assertSgpr64(w, 48, 0x0f0f0000_00fff0ffL);
        assertSgpr64(w, 50, ~0x0f0f0000_0000f000L);
        assertSgpr64(w, 52, ~0xffffffff_ff00fff0L);
        assertSgpr64(w, 54, ~(a ^ b));
        assertScc(w, 32, true);
        assertSgpr64(w, 56, 0);
        assertScc(w, 33, false);
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void shifts_use_only_the_low_5_or_6_bits_of_the_amount_and_set_scc_when_not_zero(boolean wave64) throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("s_mov_b32 s20, 0x80000001\n"
                + "s_lshl_b32 s10, s20, 32\n" + scc(30)      // amount 0
                + "s_lshl_b32 s11, s20, 33\n" + scc(31)      // amount 1: 0x00000002
                + "s_lshl_b32 s12, 0x80000000, 1\n" + scc(32) // 0
                + "s_lshr_b32 s13, s20, 35\n"                  // amount 3: 0x10000000
                + "s_ashr_i32 s14, s20, 31\n"                  // -1
                + "s_ashr_i32 s15, s20, 63\n"                  // amount 31: -1
                + "s_mov_b32 s22, 1\ns_mov_b32 s23, 0x80000000\n"   // s[22:23] = 0x80000000_00000001
                + "s_lshl_b64 s[40:41], s[22:23], 64\n"       // amount 0
                + "s_lshl_b64 s[42:43], s[22:23], 65\n"       // amount 1: 2
                + "s_lshr_b64 s[44:45], s[22:23], 63\n"       // 1
                + "s_ashr_i64 s[46:47], s[22:23], 63\n"       // -1
                + "s_ashr_i64 s[48:49], s[22:23], 32\n"       // 0xffffffff_80000000
                + "s_lshr_b64 s[50:51], s[22:23], 127\n" + scc(33)  // amount 63: 1
                + "s_lshl_b64 s[52:53], s[22:23], 63\n" + scc(34)   // 0x80000000_00000000
                + "s_lshl_b64 s[54:55], s[52:53], 1\n" + scc(35));  // 0
        assertSgpr(w, 10, 0x80000001L);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 2);
        assertScc(w, 31, true);
        assertSgpr(w, 12, 0);
        assertScc(w, 32, false);
        assertSgpr(w, 13, 0x10000000);
        assertSgpr(w, 14, -1);
        assertSgpr(w, 15, -1);
        assertSgpr64(w, 40, 0x80000000_00000001L);
        assertSgpr64(w, 42, 2);
        assertSgpr64(w, 44, 1);
        assertSgpr64(w, 46, -1);
        assertSgpr64(w, 48, 0xffffffff_80000000L);
        assertSgpr64(w, 50, 1);
        assertScc(w, 33, true);
        assertSgpr64(w, 52, 0x80000000_00000000L);
        assertScc(w, 34, true);
        assertSgpr64(w, 54, 0);
        assertScc(w, 35, false);
    }

    @Test
    void s_bfm_builds_a_mask_of_s0_bits_at_s1_with_both_masked_to_5_or_6_bits() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_bfm_b32 s10, 5, 3\n"
                + "s_bfm_b32 s11, 32, 3\n"       // width 0: 0
                + "s_bfm_b32 s12, 31, 1\n"
                + "s_bfm_b32 s13, 4, 30\n"       // bits above 31 drop
                + "s_bfm_b32 s14, 37, 33\n"      // width 5, offset 1
                + "s_bfm_b64 s[40:41], 40, 8\n"
                + "s_bfm_b64 s[42:43], 64, 8\n"  // width 0
                + "s_bfm_b64 s[44:45], 63, 0\n"
                + "s_cmp_eq_u32 0, 0\n" + "s_bfm_b32 s15, 0, 0\n" + scc(30));
        assertSgpr(w, 10, 0xf8);
        assertSgpr(w, 11, 0);
        assertSgpr(w, 12, 0xfffffffeL);
        assertSgpr(w, 13, 0xc0000000L);
        assertSgpr(w, 14, 0x3e);
        assertSgpr64(w, 40, 0x0000ffff_ffffff00L);
        assertSgpr64(w, 42, 0);
        assertSgpr64(w, 44, 0x7fffffff_ffffffffL);
        assertSgpr(w, 15, 0);
        assertScc(w, 30, true);  // s_bfm does not write SCC
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void s_bfe_extracts_width_s1_22_16_bits_at_offset_s1_4_0_zero_or_sign_extended(boolean wave64) throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("s_mov_b32 s20, 0x123456f8\ns_mov_b32 s21, 0x80000000\n"
                + "s_bfe_u32 s10, s20, 0x80008\n" + scc(30)       // offset 8, width 8: 0x56
                + "s_bfe_i32 s11, s20, 0x40004\n" + scc(31)       // offset 4, width 4: 0xf -> -1
                + "s_bfe_i32 s12, s20, 0x40010\n"                 // offset 16, width 4: 0x4
                + "s_bfe_u32 s13, s20, 8\n" + scc(32)             // width 0: 0
                + "s_bfe_u32 s14, s20, 0x80024\n"                 // offset 36 -> 4, width 8: 0x6f
                // offset 31, width 16: signext((S0.i >> 31) & 0xffff) from 16 bits, the arithmetic shift's sign bits: -1
                + "s_bfe_i32 s15, s21, 0x10001f\n"
                + "s_mov_b32 s22, 0\ns_mov_b32 s23, 0xf1000000\n" // 0xf1000000_00000000
                + "s_bfe_u64 s[40:41], s[22:23], 0x4003c\n"       // offset 60, width 4: 0xf
                + "s_bfe_i64 s[42:43], s[22:23], 0x4003c\n"       // -1
                + "s_bfe_i64 s[44:45], s[22:23], 0x80038\n"       // offset 56, width 8: 0xf1 -> -15
                + "s_bfe_u64 s[46:47], s[22:23], 0x200018\n"      // offset 24, width 32: 0x00000000 -> 0? bits 24..55
                + "s_bfe_u64 s[48:49], s[22:23], 0x400000\n" + scc(33)); // width 64 at offset 0: the value
        assertSgpr(w, 10, 0x56);
        assertScc(w, 30, true);
        assertSgpr(w, 11, -1);
        assertScc(w, 31, true);
        assertSgpr(w, 12, 4);
        assertSgpr(w, 13, 0);
        assertScc(w, 32, false);
        assertSgpr(w, 14, 0x6f);
        assertSgpr(w, 15, -1);
        assertSgpr64(w, 40, 0xf);
        assertSgpr64(w, 42, -1);
        assertSgpr64(w, 44, -15);
        assertSgpr64(w, 46, 0xf1000000_00000000L >>> 24 & 0xffffffffL);
        assertSgpr64(w, 48, 0xf1000000_00000000L);
        assertScc(w, 33, true);
    }

    @Test
    void multiplies_give_the_low_or_high_32_bits_of_the_product_and_leave_scc() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s20, -1\ns_mov_b32 s21, 0x80000000\ns_mov_b32 s22, 0x10000\n"
                + "s_cmp_eq_u32 0, 0\n"
                + "s_mul_i32 s10, s22, s22\n"
                + "s_mul_i32 s11, -3, 7\n"
                + "s_mul_hi_u32 s12, s20, s20\n"
                + "s_mul_hi_i32 s13, s20, s20\n"
                + "s_mul_hi_i32 s14, s21, 2\n"
                + "s_mul_hi_u32 s15, s21, 2\n"
                + "s_mul_hi_i32 s16, s21, s21\n" + scc(30));
        assertSgpr(w, 10, 0);
        assertSgpr(w, 11, -21);
        BigInteger m32 = BigInteger.ONE.shiftLeft(32);
        BigInteger uMax = m32.subtract(BigInteger.ONE);
        assertSgpr(w, 12, uMax.multiply(uMax).shiftRight(32).longValue());
        assertSgpr(w, 13, BigInteger.ONE.negate().multiply(BigInteger.ONE.negate()).shiftRight(32).longValue());
        BigInteger min = BigInteger.valueOf(Integer.MIN_VALUE);
        assertSgpr(w, 14, min.multiply(BigInteger.TWO).shiftRight(32).longValue());
        assertSgpr(w, 15, BigInteger.valueOf(0x80000000L).multiply(BigInteger.TWO).shiftRight(32).longValue());
        assertSgpr(w, 16, min.multiply(min).shiftRight(32).longValue());
        assertScc(w, 30, true);
    }

    @Test
    void s_absdiff_i32_is_the_wrapped_absolute_difference_with_scc_when_not_zero() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s20, 0x80000000\n"
                + "s_absdiff_i32 s10, 3, 10\n" + scc(30)
                + "s_absdiff_i32 s11, 10, 3\n"
                + "s_absdiff_i32 s12, 5, 5\n" + scc(31)
                + "s_absdiff_i32 s13, s20, 1\n"      // -2^31 - 1 wraps to 0x7fffffff
                + "s_absdiff_i32 s14, s20, 0\n" + scc(32)); // |-2^31| stays 0x80000000
        assertSgpr(w, 10, 7);
        assertScc(w, 30, true);
        assertSgpr(w, 11, 7);
        assertSgpr(w, 12, 0);
        assertScc(w, 31, false);
        assertSgpr(w, 13, 0x7fffffff);
        assertSgpr(w, 14, 0x80000000L);
        assertScc(w, 32, true);
    }

    @Test
    void s_lshlN_add_u32_shifts_then_adds_with_scc_the_carry_out_including_shifted_out_bits() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s20, 0x10000000\ns_mov_b32 s21, 0x3fffffff\n"
                + "s_lshl1_add_u32 s10, 3, 4\n" + scc(30)           // 10
                + "s_lshl2_add_u32 s11, s21, 4\n" + scc(31)         // 0xfffffffc + 4 = 2^32
                + "s_lshl3_add_u32 s12, 5, 1\n" + scc(32)           // 41
                + "s_lshl4_add_u32 s13, s20, 1\n" + scc(33)         // 2^32 + 1: the shifted-out bit carries
                + "s_lshl1_add_u32 s14, s20, -1\n" + scc(34));      // 0x20000000 + 0xffffffff
        assertSgpr(w, 10, 10);
        assertScc(w, 30, false);
        assertSgpr(w, 11, 0);
        assertScc(w, 31, true);
        assertSgpr(w, 12, 41);
        assertScc(w, 32, false);
        assertSgpr(w, 13, 1);
        assertScc(w, 33, true);
        assertSgpr(w, 14, 0x1fffffff);
        assertScc(w, 34, true);
    }

    @Test
    void s_pack_takes_low_or_high_halves_of_each_source() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s20, 0x11112222\ns_mov_b32 s21, 0x33334444\n"
                + "s_pack_ll_b32_b16 s10, s20, s21\n"
                + "s_pack_lh_b32_b16 s11, s20, s21\n"
                + "s_pack_hh_b32_b16 s12, s20, s21\n");
        assertSgpr(w, 10, 0x44442222);
        assertSgpr(w, 11, 0x33332222);
        assertSgpr(w, 12, 0x33331111);
    }

    @Test
    void s_cmp_compares_signed_or_unsigned_into_scc() throws Exception {
        String[] ops = {"eq_i32", "lg_i32", "gt_i32", "ge_i32", "lt_i32", "le_i32",
                "eq_u32", "lg_u32", "gt_u32", "ge_u32", "lt_u32", "le_u32"};
        StringBuilder asm = new StringBuilder();
        for (int i = 0; i < ops.length; i++) {
            asm.append("s_cmp_").append(ops[i]).append(" -1, 1\n").append(scc(10 + 2 * i));
            asm.append("s_cmp_").append(ops[i]).append(" 7, 7\n").append(scc(31 + 2 * i));
        }
        Wave w = new GuestAsm(dir).runWave(asm.toString());
        // -1 against 1: signed -1 < 1; unsigned 0xffffffff > 1
        boolean[] minusOneVsOne = {false, true, false, false, true, true, false, true, true, true, false, false};
        boolean[] equal = {true, false, false, true, false, true, true, false, false, true, false, true};
        for (int i = 0; i < ops.length; i++) {
            assertScc(w, 10 + 2 * i, minusOneVsOne[i]);
        }
        for (int i = 0; i < ops.length; i++) {
            assertScc(w, 31 + 2 * i, equal[i]);
        }
    }

    @Test
    void s_bitcmp_tests_bit_s1_masked_and_64_bit_compares_see_the_whole_pair() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s20, 2\ns_mov_b32 s22, 0\ns_mov_b32 s23, 0x80000000\n"
                + "s_bitcmp1_b32 s20, 1\n" + scc(10)
                + "s_bitcmp1_b32 s20, 33\n" + scc(11)     // bit 1 again
                + "s_bitcmp0_b32 s20, 0\n" + scc(12)
                + "s_bitcmp0_b32 s20, 1\n" + scc(13)
                + "s_bitcmp1_b64 s[22:23], 63\n" + scc(14)
                + "s_bitcmp1_b64 s[22:23], 127\n" + scc(15)  // bit 63 again
                + "s_bitcmp0_b64 s[22:23], 31\n" + scc(16)
                + "s_mov_b32 s24, 0\ns_mov_b32 s25, 0x80000000\n"
                + "s_cmp_eq_u64 s[22:23], s[24:25]\n" + scc(17)
                + "s_mov_b32 s25, 0\n"
                + "s_cmp_eq_u64 s[22:23], s[24:25]\n" + scc(18)   // low halves equal, high differ
                + "s_cmp_lg_u64 s[22:23], s[24:25]\n" + scc(19)
                + "s_cmp_lg_u64 s[24:25], 0\n" + scc(20));
        assertScc(w, 10, true);
        assertScc(w, 11, true);
        assertScc(w, 12, true);
        assertScc(w, 13, false);
        assertScc(w, 14, true);
        assertScc(w, 15, true);
        assertScc(w, 16, true);
        assertScc(w, 17, true);
        assertScc(w, 18, false);
        assertScc(w, 19, true);
        assertScc(w, 20, false);
    }

    @Test
    void sopk_sign_extends_simm16_for_signed_forms_and_zero_extends_it_for_unsigned_compares() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_movk_i32 s10, 0x8000\n"
                + "s_movk_i32 s11, 0x7fff\n"
                + "s_mov_b32 s20, -1\n"
                + "s_cmpk_eq_i32 s20, 0xffff\n" + scc(30)     // -1 == -1
                + "s_cmpk_eq_u32 s20, 0xffff\n" + scc(31)     // 0xffffffff != 0x0000ffff
                + "s_cmpk_gt_u32 s20, 0xffff\n" + scc(32)
                + "s_cmpk_lt_i32 s20, 0x1\n" + scc(33)
                + "s_cmpk_lg_i32 s20, 0x1\n" + scc(34)
                + "s_cmpk_ge_i32 s20, 0xffff\n" + scc(35)
                + "s_cmpk_le_i32 s20, 0x8000\n" + scc(36)     // -1 <= -32768 is false
                + "s_cmpk_gt_i32 s20, 0x8000\n" + scc(37)
                + "s_cmpk_lg_u32 s20, 0xffff\n" + scc(38)
                + "s_cmpk_ge_u32 s20, 0x1\n" + scc(39)
                + "s_cmpk_lt_u32 s20, 0x1\n" + scc(40)
                + "s_cmpk_le_u32 s20, 0xffff\n" + scc(41));
        assertSgpr(w, 10, 0xffff8000L);
        assertSgpr(w, 11, 0x7fff);
        assertScc(w, 30, true);
        assertScc(w, 31, false);
        assertScc(w, 32, true);
        assertScc(w, 33, true);
        assertScc(w, 34, true);
        assertScc(w, 35, true);
        assertScc(w, 36, false);
        assertScc(w, 37, true);
        assertScc(w, 38, true);
        assertScc(w, 39, true);
        assertScc(w, 40, false);
        assertScc(w, 41, false);
    }

    @Test
    void s_cmovk_moves_only_when_scc_is_set_and_s_addk_sets_scc_on_signed_overflow() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_mov_b32 s10, 1\ns_mov_b32 s11, 1\n"
                + "s_cmp_eq_u32 0, 0\ns_cmovk_i32 s10, 0xfffe\n"
                + "s_cmp_eq_u32 0, 1\ns_cmovk_i32 s11, 0xfffe\n"
                + "s_mov_b32 s12, 0x7fffffff\ns_addk_i32 s12, 0x1\n" + scc(30)
                + "s_mov_b32 s13, 5\ns_addk_i32 s13, 0xfff6\n" + scc(31)     // 5 + -10
                + "s_mov_b32 s14, 0x80000000\ns_addk_i32 s14, 0xffff\n" + scc(32)
                + "s_mov_b32 s15, 1000\ns_cmp_eq_u32 0, 0\ns_mulk_i32 s15, 0xfffd\n" + scc(33));
        assertSgpr(w, 10, -2);
        assertSgpr(w, 11, 1);
        assertSgpr(w, 12, 0x80000000L);
        assertScc(w, 30, true);
        assertSgpr(w, 13, -5);
        assertScc(w, 31, false);
        assertSgpr(w, 14, 0x7fffffff);
        assertScc(w, 32, true);
        assertSgpr(w, 15, -3000);
        assertScc(w, 33, true);  // s_mulk leaves SCC
    }
}
