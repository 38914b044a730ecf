package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/**
 * Float arithmetic through the whole interpreter: round modes, fused vs separately rounded multiply-add,
 * denormal modes, IEEE and legacy min/max, clamp with and without DX10_CLAMP, omod, ABS/NEG, OPSEL, and
 * wave32/wave64 lanes. Expected values are the documented behaviour, hand-derived values, Java's
 * Math.fma, or results of the C library under fesetround (gcc, x86-64) where the comment says so.
 */
@Tag("unit")
class ValuFloatArithTest {
    @TempDir
    Path dir;

    static int f(float v) {
        return Float.floatToRawIntBits(v);
    }

    static int mode(int round, int denorm) {
        return GuestAsm.mode(round, round, denorm, denorm, true, true);
    }

    private static String hex(int v) {
        return Integer.toHexString(v);
    }

    @Test
    void add_and_mul_f32_round_in_each_of_the_four_modes() throws Exception {
        // expected: C under fesetround (FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO)
        int[] add = {0x3f800000, 0x3f800001, 0x3f800000, 0x3f800000};
        int[] addNeg = {0xbf800000, 0xbf800000, 0xbf800001, 0xbf800000};
        int[] mul = {0x3f800002, 0x3f800003, 0x3f800002, 0x3f800002};
        for (int round = 0; round < 4; round++) {
            Wave w = new GuestAsm(dir).mode(mode(round, 3)).f32(0, 1f).sgpr(1, 0x30800000)
                    .f32(2, -1f).sgpr(3, 0xb0800000).sgpr(4, 0x3f800001)
                    .runWave("v_add_f32_e64 v1, s0, s1\nv_add_f32_e64 v2, s2, s3\nv_mul_f32_e64 v3, s4, s4");
            assertEquals(hex(add[round]), hex(w.vgpr(1, 0)), "1 + 2^-30, mode " + round);
            assertEquals(hex(addNeg[round]), hex(w.vgpr(2, 0)), "-1 - 2^-30, mode " + round);
            assertEquals(hex(mul[round]), hex(w.vgpr(3, 0)), "(1 + 2^-23)^2, mode " + round);
        }
    }

    @Test
    void exact_zero_sum_is_minus_zero_only_rounding_toward_minus_infinity() throws Exception {
        for (int round = 0; round < 4; round++) {
            Wave w = new GuestAsm(dir).mode(mode(round, 3)).f32(0, 3f).f32(1, -3f)
                    .runWave("v_add_f32_e64 v1, s0, s1\nv_sub_f32_e64 v2, s0, s0");
            int want = round == 2 ? 0x80000000 : 0;
            assertEquals(hex(want), hex(w.vgpr(1, 0)));
            assertEquals(hex(want), hex(w.vgpr(2, 0)));
        }
    }

    @Test
    void fma_rounds_once_where_multiply_then_add_rounds_twice() throws Exception {
        float a = Float.intBitsToFloat(0x3f800001); // 1 + 2^-23
        float b = Float.intBitsToFloat(0x3f7ffffe); // 1 - 2^-23
        Wave w = new GuestAsm(dir).f32(0, a).f32(1, b).f32(2, -1f).runWave(String.join("\n",
                "v_mul_f32_e64 v9, s2, 1.0", // v9 = -1
                "v_fma_f32 v1, s0, s1, v9",
                "v_mul_f32_e64 v2, s0, s1",
                "v_add_f32_e32 v3, s2, v2",
                "v_mul_f32_e64 v4, s2, 1.0",
                "v_fmac_f32_e64 v4, s0, s1",
                "v_mul_f32_e64 v6, s1, 1.0",
                "v_fmaak_f32 v7, s0, v6, 0xbf800000",
                "v_fmamk_f32 v8, s0, 0x3f7ffffe, v6"));
        int fused = f(Math.fma(a, b, -1f));
        assertEquals(hex(0xa8800000), hex(fused), "Math.fma: -2^-46");
        assertEquals(hex(fused), hex(w.vgpr(1, 0)), "v_fma_f32");
        assertEquals(0, w.vgpr(3, 0), "product rounds to 1.0, then 1 - 1 = +0");
        assertEquals(hex(fused), hex(w.vgpr(4, 0)), "v_fmac_f32");
        assertEquals(hex(fused), hex(w.vgpr(7, 0)), "v_fmaak_f32");
        assertEquals(hex(f(Math.fma(a, b, b))), hex(w.vgpr(8, 0)), "v_fmamk_f32");
    }

    @Test
    void fma_f32_and_f64_round_per_mode() throws Exception {
        // f32: fma(1 + 2^-23, 1 + 2^-23, -1) = 2^-22 + 2^-46; C under fesetround
        int[] want = {0x34800000, 0x34800001, 0x34800000, 0x34800000};
        double x = 1.0 / 3.0;
        for (int round = 0; round < 4; round++) {
            Wave w = new GuestAsm(dir).mode(mode(round, 3)).sgpr(0, 0x3f800001).f32(1, -1f)
                    .f64(2, 1.0).f64(4, Math.scalb(1.0, -60))
                    .runWave("v_fma_f32 v1, s0, s0, s1\nv_add_f64 v[2:3], s[2:3], s[4:5]\nv_fma_f64 v[4:5], s[2:3], s[2:3], s[4:5]");
            assertEquals(hex(want[round]), hex(w.vgpr(1, 0)));
            // C: 1 + 2^-60 is 3ff0000000000001 toward +inf, 1.0 otherwise
            long add = round == 1 ? 0x3ff0000000000001L : 0x3ff0000000000000L;
            assertEquals(add, w.vgpr64(2, 0), "f64 add, mode " + round);
            assertEquals(add, w.vgpr64(4, 0), "f64 fma, mode " + round);
        }
    }

    @Test
    void f16_add_overflows_to_infinity_or_max_by_the_f16_round_mode_only() throws Exception {
        // 65504 + 16 = 65520, the halfway point to 65536: nearest even gives inf; toward zero 65504
        Wave near = new GuestAsm(dir).mode(GuestAsm.mode(3, 0, 3, 3, true, true)).sgpr(0, 0x7BFF).sgpr(1, 0x4C00)
                .runWave("v_add_f16_e64 v1, s0, s1");
        assertEquals(0x7C00, near.vgpr(1, 0));
        Wave rtz = new GuestAsm(dir).mode(GuestAsm.mode(0, 3, 3, 3, true, true)).sgpr(0, 0x7BFF).sgpr(1, 0x4C00)
                .runWave("v_add_f16_e64 v1, s0, s1\nv_mul_f16_e64 v2, s0, s0");
        assertEquals(0x7BFF, rtz.vgpr(1, 0));
        assertEquals(0x7BFF, rtz.vgpr(2, 0), "65504^2 toward zero is the largest half");
    }

    @Test
    void f32_denormal_inputs_and_outputs_follow_each_denorm_mode() throws Exception {
        // in: 2^-140 (denormal) * 2^30 = 2^-110 (normal); out: 2^-100 * 2^-40 = 2^-140 (denormal)
        int in = 0x00000200;
        int out = 0x00000200;
        for (int denorm = 0; denorm < 4; denorm++) {
            Wave w = new GuestAsm(dir).mode(GuestAsm.mode(0, 0, denorm, 3, true, true)).sgpr(0, in).f32(1, 0x1p30f)
                    .f32(2, -0x1p-100f).f32(3, 0x1p-40f)
                    .runWave("v_mul_f32_e64 v1, s0, s1\nv_mul_f32_e64 v2, s2, s3");
            boolean keepIn = (denorm & 1) != 0;
            boolean keepOut = (denorm & 2) != 0;
            assertEquals(hex(keepIn ? f(0x1p-110f) : 0), hex(w.vgpr(1, 0)), "input, mode " + denorm);
            assertEquals(hex(keepOut ? 0x80000000 | out : 0x80000000), hex(w.vgpr(2, 0)), "output, mode " + denorm);
        }
    }

    @Test
    void f16_and_f64_denormals_follow_their_own_mode_not_the_f32_one() throws Exception {
        // f32 keeps denormals, f16/f64 flush in and out
        Wave w = new GuestAsm(dir).mode(GuestAsm.mode(0, 0, 3, 0, true, true)).sgpr(0, 0x0001).sgpr(1, 0x3C00)
                .sgpr64(2, 1L).f64(4, 1.0).sgpr(6, 1)
                .runWave("v_mul_f16_e64 v1, s0, s1\nv_mul_f64 v[2:3], s[2:3], s[4:5]\nv_mul_f32_e64 v4, s6, 1.0");
        assertEquals(0, w.vgpr(1, 0));
        assertEquals(0L, w.vgpr64(2, 0));
        assertEquals(1, w.vgpr(4, 0), "the f32 denormal survives");
    }

    @Test
    void max_and_min_handle_nans_and_signed_zeros_in_ieee_and_legacy_mode() throws Exception {
        int snan = 0x7f800001;
        int qnan = 0x7fc00002;
        for (boolean ieee : new boolean[] {true, false}) {
            Wave w = new GuestAsm(dir).mode(GuestAsm.mode(0, 0, 3, 3, true, ieee)).sgpr(0, snan).f32(1, 1f)
                    .sgpr(2, qnan).f32(3, 0f).f32(4, -0f).runWave(String.join("\n",
                            "v_max_f32_e64 v1, s0, s1", "v_max_f32_e64 v2, s1, s0", "v_max_f32_e64 v3, s2, s1",
                            "v_min_f32_e64 v4, s1, s2", "v_max_f32_e64 v5, s3, s4", "v_max_f32_e64 v6, s4, s3",
                            "v_min_f32_e64 v7, s3, s4", "v_min_f32_e64 v8, s4, s3"));
            int quieted = snan | 0x00400000;
            assertEquals(hex(ieee ? quieted : f(1f)), hex(w.vgpr(1, 0)), "max(sNaN, 1), ieee " + ieee);
            assertEquals(hex(ieee ? quieted : f(1f)), hex(w.vgpr(2, 0)), "max(1, sNaN), ieee " + ieee);
            assertEquals(hex(f(1f)), hex(w.vgpr(3, 0)), "a quiet NaN gives the number");
            assertEquals(hex(f(1f)), hex(w.vgpr(4, 0)));
            assertEquals(0, w.vgpr(5, 0), "max(+0, -0) = +0");
            assertEquals(0, w.vgpr(6, 0), "max(-0, +0) = +0");
            assertEquals(hex(0x80000000), hex(w.vgpr(7, 0)), "min(+0, -0) = -0");
            assertEquals(hex(0x80000000), hex(w.vgpr(8, 0)), "min(-0, +0) = -0");
        }
    }

    @Test
    void min3_max3_med3_follow_the_isa_pseudocode() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, 3f).f32(1, 1f).sgpr(2, 0x7fc00000).runWave(String.join("\n",
                "v_med3_f32 v1, s0, s1, 2.0", "v_min3_f32 v2, s0, 2.0, s1", "v_max3_f32 v3, s1, 2.0, s0",
                "v_med3_f32 v4, s0, s2, 2.0", "v_med3_f16 v5, 4.0, 1.0, 2.0", "v_max3_f16 v6, 1.0, -4.0, 0.5"));
        assertEquals(hex(f(2f)), hex(w.vgpr(1, 0)));
        assertEquals(hex(f(1f)), hex(w.vgpr(2, 0)));
        assertEquals(hex(f(3f)), hex(w.vgpr(3, 0)));
        assertEquals(hex(f(2f)), hex(w.vgpr(4, 0)), "with a NaN: min3(3, NaN, 2) = 2");
        assertEquals(0x4000, w.vgpr(5, 0));
        assertEquals(0x3C00, w.vgpr(6, 0));
    }

    @Test
    void clamp_limits_to_zero_one_and_dx10_clamp_decides_nan() throws Exception {
        for (boolean dx10 : new boolean[] {true, false}) {
            Wave w = new GuestAsm(dir).mode(GuestAsm.mode(0, 0, 3, 3, dx10, true)).f32(0, 1.5f).f32(1, -3f)
                    .sgpr(2, 0x7fc00000).f32(3, 0.25f).runWave(String.join("\n",
                            "v_add_f32_e64 v1, s0, s0 clamp", "v_mul_f32_e64 v2, s1, s0 clamp",
                            "v_add_f32_e64 v3, s2, s0 clamp", "v_add_f32_e64 v4, s3, s3 clamp",
                            "v_add_f16_e64 v5, 4.0, 1.0 clamp", "v_add_f64 v[6:7], s[0:1], -4.0 clamp"));
            assertEquals(hex(f(1f)), hex(w.vgpr(1, 0)));
            assertEquals(0, w.vgpr(2, 0));
            assertEquals(hex(dx10 ? 0 : 0x7fc00000), hex(w.vgpr(3, 0)), "NaN, dx10 " + dx10);
            assertEquals(hex(f(0.5f)), hex(w.vgpr(4, 0)));
            assertEquals(0x3C00, w.vgpr(5, 0));
            assertEquals(0L, w.vgpr64(6, 0));
        }
    }

    @Test
    void omod_scales_the_result_unless_ieee_mode_is_on() throws Exception {
        Wave legacy = new GuestAsm(dir).mode(GuestAsm.mode(0, 0, 3, 3, true, false)).f32(0, 3f).runWave(String.join("\n",
                "v_add_f32_e64 v1, s0, 1.0 mul:2", "v_add_f32_e64 v2, s0, 1.0 mul:4", "v_add_f32_e64 v3, s0, 1.0 div:2",
                "v_add_f32_e64 v4, s0, 1.0 clamp mul:4"));
        assertEquals(hex(f(8f)), hex(legacy.vgpr(1, 0)));
        assertEquals(hex(f(16f)), hex(legacy.vgpr(2, 0)));
        assertEquals(hex(f(2f)), hex(legacy.vgpr(3, 0)));
        assertEquals(hex(f(1f)), hex(legacy.vgpr(4, 0)), "omod before clamp");
        Wave ieee = new GuestAsm(dir).f32(0, 3f).runWave("v_add_f32_e64 v1, s0, 1.0 mul:2");
        assertEquals(hex(f(4f)), hex(ieee.vgpr(1, 0)));
    }

    @Test
    void abs_and_neg_modifiers_apply_to_sources() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, 2f).f32(1, -5f)
                .runWave("v_add_f32_e64 v1, -|s0|, |s1|\nv_mul_f32_e64 v2, -s1, s0\nv_fma_f32 v3, -s0, |s1|, -1.0");
        assertEquals(hex(f(3f)), hex(w.vgpr(1, 0)));
        assertEquals(hex(f(10f)), hex(w.vgpr(2, 0)));
        assertEquals(hex(f(-11f)), hex(w.vgpr(3, 0)));
    }

    @Test
    void opsel_picks_source_halves_and_the_destination_half_of_16_bit_ops() throws Exception {
        // s0 = {hi 3.0, lo 1.0}, s1 = {hi 0.5, lo 2.0}
        // (llvm-mc-19 takes op_sel only on the VOP3-only 16-bit instructions for gfx1030)
        Wave w = new GuestAsm(dir).sgpr(0, 0x42003C00).sgpr(1, 0x38004000).runWave(String.join("\n",
                "v_fma_f16 v1, s0, s1, 0",
                "v_fma_f16 v1, s0, s1, 0 op_sel:[1,1,0,1]",
                "v_fma_f16 v2, s0, s1, 1.0 op_sel:[1,0,0,0]",
                "v_fma_f16 v3, s0, s1, 1.0 op_sel:[0,1,0,0]",
                "v_max3_f16 v4, s0, s1, 0 op_sel:[1,1,0,0]"));
        assertEquals(hex(0x3E00 << 16 | 0x4000), hex(w.vgpr(1, 0)), "high 3.0 * 0.5, low 1.0 * 2.0 kept");
        assertEquals(hex(0x4700), hex(w.vgpr(2, 0)), "3.0 * 2.0 + 1 = 7.0, high half cleared");
        assertEquals(hex(0x3E00), hex(w.vgpr(3, 0)), "1.0 * 0.5 + 1.0 = 1.5");
        assertEquals(hex(0x4200), hex(w.vgpr(4, 0)), "max3(3.0, 0.5, 0)");
    }

    @Test
    void legacy_multiplies_give_zero_for_zero_times_anything() throws Exception {
        Wave w = new GuestAsm(dir).sgpr(0, 0x7f800000).sgpr(1, 0x7fc00000).f32(2, 5f).runWave(String.join("\n",
                "v_mul_legacy_f32_e64 v1, 0, s0", "v_mul_legacy_f32_e64 v2, -0.0, s1".replace("-0.0", "0x80000000"),
                "v_mul_f32_e64 v3, 0, s0", "v_fma_legacy_f32 v4, 0, s0, s2", "v_mul_f32_e64 v5, s2, 1.0",
                "v_fmac_legacy_f32_e32 v5, 0, v5", "v_mul_legacy_f32_e64 v6, s2, s2"));
        assertEquals(0, w.vgpr(1, 0), "0 * inf = +0");
        assertEquals(0, w.vgpr(2, 0), "-0 * NaN = +0");
        assertEquals(hex(0x7fc00000), hex(w.vgpr(3, 0)), "IEEE 0 * inf = NaN");
        assertEquals(hex(f(5f)), hex(w.vgpr(4, 0)));
        assertEquals(hex(f(5f)), hex(w.vgpr(5, 0)));
        assertEquals(hex(f(25f)), hex(w.vgpr(6, 0)));
    }

    @Test
    void sub_subrev_and_ldexp() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, 5f).f32(1, 2f).sgpr(2, -149).runWave(String.join("\n",
                "v_sub_f32_e64 v1, s0, s1", "v_subrev_f32_e64 v2, s0, s1", "v_ldexp_f32 v3, 1.0, s2",
                "v_ldexp_f32 v4, s0, 200", "v_sub_f16_e64 v5, 1.0, 4.0", "v_subrev_f16_e64 v6, 1.0, 4.0",
                "v_ldexp_f16_e64 v7, 1.0, -24", "v_ldexp_f64 v[8:9], 1.0, s2"));
        assertEquals(hex(f(3f)), hex(w.vgpr(1, 0)));
        assertEquals(hex(f(-3f)), hex(w.vgpr(2, 0)));
        assertEquals(1, w.vgpr(3, 0), "2^-149, the smallest denormal");
        assertEquals(hex(0x7f800000), hex(w.vgpr(4, 0)));
        assertEquals(0xC200, w.vgpr(5, 0));
        assertEquals(0x4200, w.vgpr(6, 0));
        assertEquals(0x0001, w.vgpr(7, 0));
        assertEquals(Double.doubleToRawLongBits(0x1p-149), w.vgpr64(8, 0));
    }

    @Test
    void f64_add_mul_min_max() throws Exception {
        Wave w = new GuestAsm(dir).f64(0, 0.1).f64(2, 0.2).runWave(String.join("\n",
                "v_add_f64 v[2:3], s[0:1], s[2:3]", "v_mul_f64 v[4:5], s[0:1], s[2:3]",
                "v_max_f64 v[6:7], s[0:1], -s[2:3]", "v_min_f64 v[8:9], s[0:1], s[2:3]",
                "v_fma_f64 v[10:11], s[0:1], s[2:3], -s[0:1]"));
        assertEquals(Double.doubleToRawLongBits(0.1 + 0.2), w.vgpr64(2, 0));
        assertEquals(Double.doubleToRawLongBits(0.1 * 0.2), w.vgpr64(4, 0));
        assertEquals(Double.doubleToRawLongBits(0.1), w.vgpr64(6, 0));
        assertEquals(Double.doubleToRawLongBits(0.1), w.vgpr64(8, 0));
        assertEquals(Double.doubleToRawLongBits(Math.fma(0.1, 0.2, -0.1)), w.vgpr64(10, 0));
    }

    @Test
    void every_active_lane_computes_in_wave32_and_wave64() throws Exception {
        for (boolean wide : new boolean[] {false, true}) {
            GuestAsm asm = new GuestAsm(dir);
            if (wide) {
                asm.wave64();
            }
            int lanes = wide ? 40 : 20;
            Wave w = asm.groupSize(lanes).runWave("v_cvt_f32_u32_e32 v1, v0\nv_mul_f32_e32 v2, 0.5, v1\n"
                    + "v_fma_f32 v3, v1, v1, -1.0");
            for (int lane = 0; lane < w.waveSize(); lane++) {
                if (lane < lanes) {
                    assertEquals(hex(f(lane * 0.5f)), hex(w.vgpr(2, lane)), "lane " + lane);
                    assertEquals(hex(f((float) lane * lane - 1)), hex(w.vgpr(3, lane)), "lane " + lane);
                } else {
                    assertEquals(0, w.vgpr(2, lane), "inactive lane " + lane + " untouched");
                }
            }
        }
    }

    @Test
    void vop2_sdwa_and_dpp_forms_share_the_handler() throws Exception {
        Wave w = new GuestAsm(dir).runWave(String.join("\n",
                "v_cvt_f32_u32_e32 v1, v0",
                "v_add_f32_dpp v2, v1, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
                "v_mul_f32_sdwa v3, v1, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD"));
        assertEquals(hex(f(1f)), hex(w.vgpr(2, 0)), "lane 0: v1[lane 1] + v1[lane 0]");
        assertEquals(hex(f(9f)), hex(w.vgpr(3, 3)));
    }
}
