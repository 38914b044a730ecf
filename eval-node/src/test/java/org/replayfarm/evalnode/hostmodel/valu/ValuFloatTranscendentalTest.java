package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.OpcodeTable;

/**
 * Approximate functions (special values exactly, ordinary values within 1 ulp of Java's Math), the
 * division helpers (a whole division sequence as LLVM emits it gives the correctly rounded quotient,
 * including denormal and near-overflow quotients), and v_trig_preop_f64 against published bits of 2/pi.
 */
@Tag("unit")
class ValuFloatTranscendentalTest {
    @TempDir
    Path dir;

    static int f(float v) {
        return Float.floatToRawIntBits(v);
    }

    private static String hex(int v) {
        return Integer.toHexString(v);
    }

    private static void assertUlp(float want, int got, String what) {
        float g = Float.intBitsToFloat(got);
        assertTrue(Math.abs(g - want) <= Math.ulp(want), what + ": " + g + " vs " + want);
    }

    @Test
    void transcendentals_are_registered_approximate_and_arithmetic_exact() {
        SemanticsTable t = SemanticsTable.gfx1030();
        OpcodeTable ops = OpcodeTable.gfx1030();
        assertEquals(Fidelity.APPROXIMATE, t.fidelity(ops.byMnemonic(Encoding.VOP1, "v_rcp_f32")));
        assertEquals(Fidelity.APPROXIMATE, t.fidelity(ops.byMnemonic(Encoding.VOP3, "v_sin_f16")));
        assertEquals(Fidelity.EXACT, t.fidelity(ops.byMnemonic(Encoding.VOP2, "v_fmac_f32")));
        assertEquals(Fidelity.EXACT, t.fidelity(ops.byMnemonic(Encoding.VOP3P, "v_pk_fma_f16")));
    }

    @Test
    void special_values_of_rcp_rsq_sqrt_log_exp() throws Exception {
        Wave w = new GuestAsm(dir).sgpr(0, 0x80000000).f32(1, -1f).sgpr(2, 0x7f800000).sgpr(3, 0xff800000)
                .runWave(String.join("\n",
                        "v_rcp_f32_e32 v1, 0", "v_rcp_f32_e32 v2, s0", "v_rsq_f32_e32 v3, s0", "v_sqrt_f32_e32 v4, s0",
                        "v_sqrt_f32_e32 v5, s1", "v_log_f32_e32 v6, 0", "v_log_f32_e32 v7, s1", "v_exp_f32_e32 v8, s3",
                        "v_exp_f32_e32 v9, s2", "v_rcp_f32_e32 v10, s2", "v_sin_f32_e32 v11, s2",
                        "v_rcp_iflag_f32_e32 v12, s0"));
        assertEquals(hex(0x7f800000), hex(w.vgpr(1, 0)));
        assertEquals(hex(0xff800000), hex(w.vgpr(2, 0)));
        assertEquals(hex(0xff800000), hex(w.vgpr(3, 0)));
        assertEquals(hex(0x80000000), hex(w.vgpr(4, 0)));
        assertEquals(hex(0x7fc00000), hex(w.vgpr(5, 0)));
        assertEquals(hex(0xff800000), hex(w.vgpr(6, 0)));
        assertEquals(hex(0x7fc00000), hex(w.vgpr(7, 0)));
        assertEquals(0, w.vgpr(8, 0));
        assertEquals(hex(0x7f800000), hex(w.vgpr(9, 0)));
        assertEquals(0, w.vgpr(10, 0));
        assertEquals(hex(0x7fc00000), hex(w.vgpr(11, 0)));
        assertEquals(hex(0xff800000), hex(w.vgpr(12, 0)));
    }

    @Test
    void ordinary_values_are_within_one_ulp() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, 3f).f32(1, 0.1f).f64(2, 3.0).runWave(String.join("\n",
                "v_rcp_f32_e32 v1, s0", "v_sqrt_f32_e32 v2, s0", "v_rsq_f32_e32 v3, 4.0", "v_exp_f32_e32 v4, s0",
                "v_log_f32_e32 v5, 0x41000000", "v_sin_f32_e32 v6, 0.25", "v_cos_f32_e32 v7, 0.5",
                "v_sin_f32_e32 v8, s1", "v_log_f32_e32 v9, s0", "v_rcp_f64_e32 v[10:11], s[2:3]",
                "v_sqrt_f64_e32 v[12:13], s[2:3]", "v_rcp_f16_e32 v14, 2.0", "v_sqrt_f16_e32 v15, 4.0",
                "v_exp_f16_e32 v16, 0x4200", "v_cos_f16_e32 v17, 0", "v_rsq_f64_e32 v[18:19], 4.0"));
        assertUlp(1f / 3, w.vgpr(1, 0), "rcp(3)");
        assertEquals(hex(f((float) Math.sqrt(3))), hex(w.vgpr(2, 0)), "sqrt correctly rounded");
        assertEquals(hex(f(0.5f)), hex(w.vgpr(3, 0)));
        assertEquals(hex(f(8f)), hex(w.vgpr(4, 0)), "2^3");
        assertEquals(hex(f(3f)), hex(w.vgpr(5, 0)), "log2(8)");
        assertEquals(hex(f(1f)), hex(w.vgpr(6, 0)), "sin(2pi * 0.25)");
        assertEquals(hex(f(-1f)), hex(w.vgpr(7, 0)), "cos(2pi * 0.5)");
        assertUlp((float) Math.sin(2 * Math.PI * 0.1f), w.vgpr(8, 0), "sin(2pi * 0.1)");
        assertUlp((float) (Math.log(3) / Math.log(2)), w.vgpr(9, 0), "log2(3)");
        assertEquals(Double.doubleToRawLongBits(1.0 / 3), w.vgpr64(10, 0));
        assertEquals(Double.doubleToRawLongBits(Math.sqrt(3)), w.vgpr64(12, 0));
        assertEquals(0x3800, w.vgpr(14, 0));
        assertEquals(0x4000, w.vgpr(15, 0));
        assertEquals(0x4800, w.vgpr(16, 0), "2^3 = 8");
        assertEquals(0x3C00, w.vgpr(17, 0));
        assertEquals(Double.doubleToRawLongBits(0.5), w.vgpr64(18, 0));
    }

    /** The f32 division sequence LLVM emits for gfx10 (div_scale, rcp, Newton-Raphson fmas, div_fmas, fixup). */
    private static final String DIVIDE = String.join("\n",
            "v_div_scale_f32 v3, s10, s1, s1, s0",
            "v_div_scale_f32 v4, vcc_lo, s0, s1, s0",
            "v_rcp_f32_e32 v5, v3",
            "v_fma_f32 v6, -v3, v5, 1.0",
            "v_fmac_f32_e32 v5, v6, v5",
            "v_mul_f32_e32 v6, v4, v5",
            "v_fma_f32 v7, -v3, v6, v4",
            "v_fmac_f32_e32 v6, v7, v5",
            "v_fma_f32 v3, -v3, v6, v4",
            "v_div_fmas_f32 v3, v3, v5, v6",
            "v_div_fixup_f32 v1, v3, s1, s0");

    @Test
    void the_llvm_division_sequence_gives_correctly_rounded_quotients() throws Exception {
        float[][] cases = {{1f, 3f}, {10f, 7f}, {0x1p-140f, 3f}, {1f, 0x1p-130f}, {0x1p100f, 0x1p-30f},
            {3f, 0x1p120f}, {0x1p-126f, 0x1.8p10f}, {-5f, 0.1f}, {1f, 0f}, {0f, 0f}, {Float.POSITIVE_INFINITY, 2f},
            {Float.MAX_VALUE, 0x1p-30f}, {0x1p120f, -0x1p-120f}, {-0x1p100f, 0x1.8p-140f}};
        for (float[] c : cases) {
            Wave w = new GuestAsm(dir).f32(0, c[0]).f32(1, c[1]).runWave(DIVIDE);
            float want = c[0] / c[1];
            int got = w.vgpr(1, 0);
            if (Float.isNaN(want)) {
                assertEquals(hex(0xffc00000), hex(got), "0/0 gives div_fixup's NaN");
            } else {
                assertEquals(hex(f(want)), hex(got), c[0] + " / " + c[1]);
            }
        }
    }

    @Test
    void div_scale_sets_vcc_for_a_quotient_that_would_be_denormal_in_each_wave_size() throws Exception {
        for (boolean wide : new boolean[] {false, true}) {
            GuestAsm asm = new GuestAsm(dir).f32(0, 0x1p-140f).f32(1, 3f);
            if (wide) {
                asm.wave64();
            }
            Wave w = asm.runWave(wide ? "v_div_scale_f32 v4, vcc, s0, s1, s0" : "v_div_scale_f32 v4, vcc_lo, s0, s1, s0");
            long all = wide ? -1L : 0xFFFFFFFFL;
            assertEquals(all, w.vcc());
            assertEquals(hex(f(0x1p-76f)), hex(w.vgpr(4, 0)), "numerator scaled by 2^64");
        }
    }

    @Test
    void div_fixup_special_cases() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, 2f).f32(1, -0f).sgpr(2, 0x7f800000).runWave(String.join("\n",
                "v_div_fixup_f32 v1, s0, s1, 1.0", "v_div_fixup_f32 v2, s0, s2, s2", "v_div_fixup_f32 v3, s0, s2, 1.0",
                "v_div_fixup_f32 v4, s0, -1.0, 4.0", "v_div_fixup_f64 v[6:7], 2.0, 0, 0", "v_div_fixup_f16 v8, 2.0, 0, 1.0"));
        assertEquals(hex(0xff800000), hex(w.vgpr(1, 0)), "1 / -0 = -inf");
        assertEquals(hex(0xffc00000), hex(w.vgpr(2, 0)), "inf / inf");
        assertEquals(0, w.vgpr(3, 0), "1 / inf = +0");
        assertEquals(hex(f(-2f)), hex(w.vgpr(4, 0)), "the quotient with the sign of 4 / -1");
        assertEquals(0xfff8000000000000L, w.vgpr64(6, 0));
        assertEquals(0x7C00, w.vgpr(8, 0));
    }

    @Test
    void div_fixup_turns_a_nan_quotient_of_finite_operands_into_the_overflowed_infinity() throws Exception {
        // an overflowing quotient reaches fixup as NaN (the scaled Newton steps compute inf - inf)
        Wave w = new GuestAsm(dir).sgpr(0, 0x7fc00000).f64(2, Double.MAX_VALUE).sgpr(4, 0).sgpr(5, 0x7ff80000)
                .runWave(String.join("\n", "v_div_fixup_f32 v1, s0, -2.0, 4.0", "v_div_fixup_f32 v2, s0, 2.0, s0",
                        "v_div_fixup_f64 v[4:5], s[4:5], 0.5, s[2:3]"));
        assertEquals(hex(0xff800000), hex(w.vgpr(1, 0)), "4 / -2 with a NaN quotient: -inf");
        assertEquals(hex(0x7fc00000), hex(w.vgpr(2, 0)), "a NaN numerator stays NaN");
        assertEquals(Long.toHexString(0x7ff0000000000000L), Long.toHexString(w.vgpr64(4, 0)));
    }

    @Test
    void f64_division_sequence_and_fmas_scaling() throws Exception {
        String seq = String.join("\n",
                "v_div_scale_f64 v[2:3], s10, s[2:3], s[2:3], s[0:1]",
                "v_rcp_f64_e32 v[4:5], v[2:3]",
                "v_fma_f64 v[6:7], -v[2:3], v[4:5], 1.0",
                "v_fma_f64 v[4:5], v[4:5], v[6:7], v[4:5]",
                "v_fma_f64 v[6:7], -v[2:3], v[4:5], 1.0",
                "v_div_scale_f64 v[8:9], vcc_lo, s[0:1], s[2:3], s[0:1]",
                "v_fma_f64 v[4:5], v[4:5], v[6:7], v[4:5]",
                "v_mul_f64 v[6:7], v[8:9], v[4:5]",
                "v_fma_f64 v[2:3], -v[2:3], v[6:7], v[8:9]",
                "v_div_fmas_f64 v[2:3], v[2:3], v[4:5], v[6:7]",
                "v_div_fixup_f64 v[0:1], v[2:3], s[2:3], s[0:1]");
        double[][] cases = {{1, 3}, {Math.scalb(1.0, -1070), 3}, {2, 7e-300}, {5, 0x1p1000},
            {Double.MAX_VALUE, 0x1p-600}, {0x1p600, -0x1.8p-1040}, {-0x1p1000, 0x1p-30}}; // the last three overflow
        for (double[] c : cases) {
            Wave w = new GuestAsm(dir).f64(0, c[0]).f64(2, c[1]).runWave(seq);
            assertEquals(Double.doubleToRawLongBits(c[0] / c[1]), w.vgpr64(0, 0), c[0] + " / " + c[1]);
        }
    }

    @Test
    void trig_preop_gives_successive_53_bit_segments_of_two_over_pi() throws Exception {
        // 2/pi in hex (fdlibm's ipio2 table): 0.A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163...
        BigInteger twoOverPi = new BigInteger("A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163", 16);
        int bits = 54 * 4;
        Wave w = new GuestAsm(dir).f64(0, 1.0).runWave(String.join("\n",
                "v_trig_preop_f64 v[2:3], s[0:1], 0", "v_trig_preop_f64 v[4:5], s[0:1], 1",
                "v_trig_preop_f64 v[6:7], s[0:1], 2"));
        for (int seg = 0; seg < 3; seg++) {
            long mant = twoOverPi.shiftRight(bits - 53 * (seg + 1)).and(BigInteger.ONE.shiftLeft(53)
                    .subtract(BigInteger.ONE)).longValueExact();
            double want = Math.scalb((double) mant, -53 * (seg + 1));
            assertEquals(Double.doubleToRawLongBits(want), w.vgpr64(2 + 2 * seg, 0), "segment " + seg);
        }
        // a large argument (biased exponent 1077 + 10) starts 10 bits further in
        Wave big = new GuestAsm(dir).f64(0, Math.scalb(1.0, 64)).runWave("v_trig_preop_f64 v[2:3], s[0:1], 0");
        long mant = twoOverPi.shiftRight(bits - 63).and(BigInteger.ONE.shiftLeft(53).subtract(BigInteger.ONE))
                .longValueExact();
        assertEquals(Double.doubleToRawLongBits(Math.scalb((double) mant, -63)), big.vgpr64(2, 0));
    }
}
