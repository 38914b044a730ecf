package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/**
 * Packed f16 math (OP_SEL, OP_SEL_HI, NEG_LO, NEG_HI, clamp, inline constants in both halves), the
 * mixed-precision fma, dot2, and the packing conversions.
 */
@Tag("unit")
class ValuFloatPackedTest {
    @TempDir
    Path dir;

    private static String hex(int v) {
        return Integer.toHexString(v);
    }

    static int f(float v) {
        return Float.floatToRawIntBits(v);
    }

    // s0 = {hi 1.0, lo 2.0}, s1 = {hi 0.5, lo 0.25}
    private GuestAsm asm() {
        return new GuestAsm(dir).sgpr(0, 0x3C004000).sgpr(1, 0x38003400).f32(2, 0.1f);
    }

    @Test
    void pk_add_selects_and_negates_halves() throws Exception {
        Wave w = asm().runWave(String.join("\n",
                "v_pk_add_f16 v1, s0, s1",
                "v_pk_add_f16 v2, s0, s1 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[1,0] neg_hi:[0,1]",
                "v_pk_add_f16 v3, s0, 1.0"));
        assertEquals(hex(0x3E004080), hex(w.vgpr(1, 0)), "{1.5, 2.25}");
        assertEquals(hex(0x3E00BA00), hex(w.vgpr(2, 0)), "{2.0 - 0.5, -1.0 + 0.25}");
        assertEquals(hex(0x40004200), hex(w.vgpr(3, 0)), "1.0 added to both halves");
    }

    @Test
    void pk_mul_fma_fmac_min_max_and_clamp() throws Exception {
        Wave w = asm().sgpr(3, 0x7C018000).sgpr(4, 0x3C000000).runWave(String.join("\n",
                "v_pk_mul_f16 v1, s0, s1",
                "v_pk_mul_f16 v2, s0, 4.0 clamp",
                "v_pk_fma_f16 v3, s0, s1, s1",
                "v_pk_mul_f16 v5, s1, 1.0",
                "v_pk_fmac_f16 v5, s0, v5",
                "v_pk_max_f16 v6, s3, s4",
                "v_pk_min_f16 v7, s3, s4"));
        assertEquals(hex(0x38003800), hex(w.vgpr(1, 0)), "{0.5, 0.5}");
        assertEquals(hex(0x3C003C00), hex(w.vgpr(2, 0)), "{4, 8} clamped to 1");
        assertEquals(hex(0x3C003A00), hex(w.vgpr(3, 0)), "{1.0, 0.75}");
        assertEquals(hex(0x3C003A00), hex(w.vgpr(5, 0)));
        assertEquals(hex(0x7E010000), hex(w.vgpr(6, 0)), "{quieted sNaN, max(-0, +0) = +0}");
        assertEquals(hex(0x7E018000), hex(w.vgpr(7, 0)), "{quieted sNaN, min(-0, +0) = -0}");
    }

    @Test
    void fma_mix_reads_f16_or_f32_sources_and_mixlo_mixhi_write_one_half() throws Exception {
        Wave w = asm().f32(4, 2f).f32(5, -3f).runWave(String.join("\n",
                "v_mul_f32_e64 v2, 1.0, s2",
                "v_fma_mix_f32 v1, s0, s1, v2 op_sel:[1,0,0] op_sel_hi:[1,1,0]",
                "v_mul_f32_e64 v3, 1.0, s4",
                "v_fma_mixlo_f16 v3, s0, s1, v2 op_sel_hi:[1,1,0]",
                "v_mul_f32_e64 v4, 1.0, s4",
                "v_fma_mixhi_f16 v4, s0, s1, v2 op_sel_hi:[1,1,0]",
                "v_mul_f32_e64 v7, 1.0, s5",
                "v_fma_mix_f32 v6, -s0, |v7|, v2 op_sel_hi:[1,0,0]"));
        assertEquals(hex(f(Math.fma(1f, 0.25f, 0.1f))), hex(w.vgpr(1, 0)));
        // 2.0 * 0.25 + 0.1 = 0.6 -> f16 0x38CD (0.6 = 1.2 * 2^-1, 0.2 * 1024 = 204.8 -> 205)
        assertEquals(hex(0x4000_38CD), hex(w.vgpr(3, 0)));
        assertEquals(hex(0x38CD_0000), hex(w.vgpr(4, 0)));
        assertEquals(hex(f(Math.fma(-2f, 3f, 0.1f))), hex(w.vgpr(6, 0)));
    }

    @Test
    void dot2_sums_both_products_and_the_accumulator() throws Exception {
        Wave w = asm().runWave(String.join("\n",
                "v_mul_f32_e64 v2, 1.0, s2",
                "v_dot2_f32_f16 v1, s0, s1, v2",
                "v_pk_mul_f16 v10, s1, 1.0",
                "v_mul_f32_e64 v9, 1.0, s2",
                "v_dot2c_f32_f16_e32 v9, s0, v10",
                "v_dot2_f32_f16 v3, s0, s1, v2 neg_lo:[1,0,0]",
                "v_dot2_f32_f16 v4, s0, s1, v2 op_sel_hi:[1,0,1]"));
        float want = (float) (1.0 + (double) 0.1f); // 2*0.25 + 1*0.5 exactly 1, then + 0.1f rounded once
        assertEquals(hex(f(want)), hex(w.vgpr(1, 0)));
        assertEquals(hex(f(want)), hex(w.vgpr(9, 0)));
        assertEquals(hex(f(0.1f)), hex(w.vgpr(3, 0)), "-2 * 0.25 + 1 * 0.5 + 0.1");
        // hi product: s0.hi 1.0 * s1.lo 0.25 (op_sel_hi of src1 clear): 0.5 + 0.25 + 0.1
        assertEquals(hex(f((float) (0.75 + (double) 0.1f))), hex(w.vgpr(4, 0)));
    }

    @Test
    void packing_conversions() throws Exception {
        Wave w = asm().f32(3, 1f / 3).f32(4, 1e6f).f32(5, 0.5f).f32(6, -1f).f32(7, 2f).f32(8, 3.5f)
                .sgpr(9, 0x11223344).f32(10, 300f).sgpr(11, 0x7fc00000).runWave(String.join("\n",
                        "v_cvt_pkrtz_f16_f32_e64 v1, s3, s4",
                        "v_cvt_pknorm_i16_f32 v2, s5, s6",
                        "v_cvt_pknorm_u16_f32 v3, s5, s7",
                        "v_cvt_pk_u8_f32 v4, s8, 2, s9",
                        "v_cvt_pk_u8_f32 v5, s10, 0, s9",
                        "v_cvt_pk_u8_f32 v6, s11, 3, s9",
                        "v_cvt_pknorm_i16_f16 v7, s0, s1 op_sel:[1,0,0]",
                        "v_cvt_pkrtz_f16_f32_e32 v8, s5, v2".replace("v2", "v9")));
        assertEquals(hex(0x7BFF3555), hex(w.vgpr(1, 0)), "both halves toward zero: {65504, 0x3555}");
        assertEquals(hex(0x80014000), hex(w.vgpr(2, 0)), "{-32767, 16384}");
        assertEquals(hex(0xFFFF8000), hex(w.vgpr(3, 0)), "{65535, 32768}");
        assertEquals(hex(0x11043344), hex(w.vgpr(4, 0)), "3.5 -> 4 (nearest even) into byte 2");
        assertEquals(hex(0x112233FF), hex(w.vgpr(5, 0)), "300 saturates at 255");
        assertEquals(hex(0x00223344), hex(w.vgpr(6, 0)), "NaN -> 0");
        assertEquals(hex(0x20007FFF), hex(w.vgpr(7, 0)), "{0.25 * 32767 = 8191.75 -> 8192, s0.hi 1.0 -> 32767}");
        assertEquals(hex(0x00003800), hex(w.vgpr(8, 0)), "0.5 and v9 = +0");
    }

    @Test
    void cvt_pk_u8_rounds_per_the_f32_round_mode() throws Exception {
        int[] want = {0x11223304, 0x11223304, 0x11223303, 0x11223303}; // 3.5: even 4, up 4, down 3, toward zero 3
        for (int round = 0; round < 4; round++) {
            Wave w = new GuestAsm(dir).mode(GuestAsm.mode(round, 0, 3, 3, true, true)).f32(0, 3.5f)
                    .sgpr(1, 0x11223344).runWave("v_cvt_pk_u8_f32 v1, s0, 0, s1");
            assertEquals(hex(want[round]), hex(w.vgpr(1, 0)), "mode " + round);
        }
    }

    @Test
    void packed_math_runs_every_lane_in_wave64() throws Exception {
        Wave w = new GuestAsm(dir).wave64().runWave("v_cvt_f16_u16_e32 v1, v0\nv_pk_add_f16 v2, v1, v1 op_sel_hi:[0,0]");
        for (int lane = 0; lane < 64; lane++) {
            int h = Float.floatToRawIntBits(2f * lane);
            // 2*lane as a half, written twice (both results read the low halves)
            int half = lane == 0 ? 0 : (((h >>> 23 & 0xFF) - 127 + 15) << 10) | (h >>> 13 & 0x3FF);
            assertEquals(hex(half << 16 | half), hex(w.vgpr(2, lane)), "lane " + lane);
        }
    }
}
