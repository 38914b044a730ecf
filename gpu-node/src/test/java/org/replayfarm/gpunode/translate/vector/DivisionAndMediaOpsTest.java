package org.replayfarm.gpunode.translate.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;

/**
 * The instructions issue 13 left refused, each run on the host model and through the translation over
 * operands chosen for their special cases (every register of every lane compared): clang's f32 and f64
 * division sequences (v_div_scale, v_rcp, the Newton fmas, v_div_fmas, v_div_fixup) over numerator /
 * denominator pairs that take every branch of v_div_scale (near overflow, denormal denominator, denormal
 * reciprocal, denormal quotient, tiny numerator, zeros, infinities, NaNs), v_div_fixup_f16,
 * v_trig_preop_f64 over every segment and large exponents, the SADs, the packing conversions, v_fma_mix*,
 * the accumulating dots and v_swaprel. One build per wave size.
 */
@Tag("unit")
class DivisionAndMediaOpsTest {
    @TempDir
    Path dir;

    /** f32 numerator / denominator pairs, one per lane (wave32 holds the first 32). */
    static final int[][] F32_PAIRS = {
        {0x3f800000, 0x40400000}, // 1 / 3
        {0x3f800000, 0x7f000000}, // 1 / 2^127: the reciprocal is denormal
        {0x7f7fffff, 0x00800000}, // max / min normal: the quotient overflows, exponent difference >= 96
        {0x00000001, 0x40400000}, // a denormal numerator: tiny
        {0x3f800000, 0x00000010}, // a denormal denominator
        {0x7f000000, 0x7f000000}, // 2^127 / 2^127: reciprocal and quotient both small
        {0x03800000, 0x44800000}, // 2^-120 / 2^10: the quotient is denormal
        {0, 0}, {0x7f800000, 0x7f800000}, {0x3f800000, 0}, {0, 0x3f800000}, {0x7fc00000, 0x3f800000},
        {0x3f800000, 0x7fa00000}, {0x3f800000, 0x7f800000}, {0x71800000, 0x0e800000}, {0xc0a00000, 0x40000000},
        {0x00800000, 0x7e800000}, {0x0c000000, 0x3f000000}, {0x4b000001, 0x3f7fffff}, {0x80000000, 0xbf800000},
        {0x7f7fffff, 0x3f000000}, {0x00ffffff, 0x4b800000}, {0x33800000, 0x7f7fffff}, {0x5f800000, 0x1f800000},
        {0x3f800001, 0x3f7ffffe}, {0xff7fffff, 0x00000001}, {0x00000003, 0x00000002}, {0x40490fdb, 0x402df854},
        {0x1e3ce508, 0x5e3ce508}, {0x0b800000, 0x75800000}, {0x12345678, 0x00345678}, {0x3eaaaaab, 0xbeaaaaab},
        {0x7e800000, 0x3e800000}, {0x01000000, 0x7f000000}, {0x00400000, 0x3f800000}, {0x00400000, 0x00200000},
    };

    /** f64 pairs (high words; the low words are lane-dependent). */
    static final long[][] F64_PAIRS = {
        {0x3ff0000000000000L, 0x4008000000000000L}, {0x3ff0000000000000L, 0x7fe0000000000000L},
        {0x7fefffffffffffffL, 0x0010000000000000L}, {0x0000000000000001L, 0x4008000000000000L},
        {0x3ff0000000000000L, 0x0000000000000010L}, {0x7fe0000000000000L, 0x7fe0000000000000L},
        {0x0370000000000000L, 0x4090000000000000L}, {0, 0}, {0x7ff0000000000000L, 0x7ff0000000000000L},
        {0x3ff0000000000000L, 0}, {0, 0x3ff0000000000000L}, {0x7ff8000000000000L, 0x3ff0000000000000L},
        {0x3ff0000000000000L, 0x7ff4000000000000L}, {0x3ff0000000000000L, 0x7ff0000000000000L},
        {0x7c00000000000000L, 0x0400000000000000L}, {0xc014000000000000L, 0x4000000000000000L},
        {0x3ff0000000000001L, 0x3feffffffffffffeL}, {0x400921fb54442d18L, 0x4005bf0a8b145769L},
        {0x0010000000000000L, 0x7fd0000000000000L}, {0x0008000000000000L, 0x0004000000000000L},
        {0x7fefffffffffffffL, 0x3fe0000000000000L}, {0x0000000000000003L, 0x0000000000000002L},
    };

    /** trig_preop sources: exponents around 1077 and 1968, every segment by the lane. */
    static final long[] PREOP = {0x3ff0000000000000L, 0x4330000000000000L, 0x4350000000000000L, 0x43f0000000000000L,
        0x7b00000000000000L, 0x7b10000000000000L, 0x7fefffffffffffffL, 0x7ff0000000000000L, 0x0000000000000001L,
        0xc1e0000000000000L};

    private static String hex(long v) {
        return String.format("0x%08x", v & 0xffffffffL);
    }

    static String program(int wave) {
        String vcc = wave == 32 ? "vcc_lo" : "vcc";
        String mask = wave == 32 ? "s20" : "s[20:21]";
        StringBuilder b = new StringBuilder();
        b.append("v_mov_b32 v1, 1.0\nv_mov_b32 v2, 1.0\nv_mov_b32 v3, 0x9e3779b9\n");
        b.append("v_mul_lo_u32 v3, v0, v3\n"); // per-lane noise for the low words and integer ops
        b.append("v_mov_b32 v4, v3\nv_mov_b32 v5, 0x3ff00000\nv_mov_b32 v6, v3\nv_mov_b32 v7, 0x40080000\n");
        b.append("v_mov_b32 v24, 0x3ff00000\nv_mov_b32 v25, 0\n");
        for (int l = 0; l < wave; l++) {
            int[] p = F32_PAIRS[l % F32_PAIRS.length];
            b.append("v_writelane_b32 v1, ").append(hex(p[0])).append(", ").append(l).append('\n');
            b.append("v_writelane_b32 v2, ").append(hex(p[1])).append(", ").append(l).append('\n');
            long[] q = F64_PAIRS[l % F64_PAIRS.length];
            if (l % 3 == 0) { // exact powers and special values keep their low word
                b.append("v_writelane_b32 v4, ").append(hex(q[0])).append(", ").append(l).append('\n');
                b.append("v_writelane_b32 v6, ").append(hex(q[1])).append(", ").append(l).append('\n');
            }
            b.append("v_writelane_b32 v5, ").append(hex(q[0] >>> 32)).append(", ").append(l).append('\n');
            b.append("v_writelane_b32 v7, ").append(hex(q[1] >>> 32)).append(", ").append(l).append('\n');
            long t = PREOP[l % PREOP.length];
            b.append("v_writelane_b32 v24, ").append(hex(t >>> 32)).append(", ").append(l).append('\n');
            b.append("v_writelane_b32 v25, ").append(hex(t)).append(", ").append(l).append('\n');
        }
        // clang's correctly rounded f32 division (the -fno-fast-math sequence with denormals kept)
        b.append("""
                v_div_scale_f32 v8, null, v2, v2, v1
                v_div_scale_f32 v9, VCC, v1, v2, v1
                v_rcp_f32 v10, v8
                v_fma_f32 v11, -v8, v10, 1.0
                v_fma_f32 v10, v11, v10, v10
                v_mul_f32 v11, v9, v10
                v_fma_f32 v12, -v8, v11, v9
                v_fma_f32 v11, v12, v10, v11
                v_fma_f32 v8, -v8, v11, v9
                v_div_fmas_f32 v8, v8, v10, v11
                v_div_fixup_f32 v13, v8, v2, v1
                s_mov_b64 s[40:41], exec
                s_mov_b64 exec, DISPUTED
                v_div_scale_f32 v14, MASK, v2, v2, v1
                v_div_scale_f32 v15, MASK, -v1, v2, v1 clamp
                s_mov_b64 exec, s[40:41]
                """);
        // clang-19's f64 division (as it compiles a / b for gfx1030)
        b.append("""
                v_div_scale_f64 v[8:9], null, v[6:7], v[6:7], v[4:5]
                v_rcp_f64 v[10:11], v[8:9]
                v_fma_f64 v[12:13], -v[8:9], v[10:11], 1.0
                v_fma_f64 v[10:11], v[10:11], v[12:13], v[10:11]
                v_fma_f64 v[12:13], -v[8:9], v[10:11], 1.0
                v_fma_f64 v[10:11], v[10:11], v[12:13], v[10:11]
                v_div_scale_f64 v[12:13], VCC, v[4:5], v[6:7], v[4:5]
                v_mul_f64 v[16:17], v[12:13], v[10:11]
                v_fma_f64 v[8:9], -v[8:9], v[16:17], v[12:13]
                v_div_fmas_f64 v[8:9], v[8:9], v[10:11], v[16:17]
                v_div_fixup_f64 v[18:19], v[8:9], v[6:7], v[4:5]
                v_div_fmas_f64 v[20:21], v[4:5], v[6:7], v[4:5]
                v_cmp_gt_u32 VCC, 0x80000000, v3
                v_div_fmas_f32 v22, v1, v2, v1
                v_div_fmas_f32 v23, v2, 0x5f800000, v1
                v_cvt_f16_f32 v26, v1
                v_cvt_f16_f32 v27, v2
                v_div_fixup_f16 v26, v26, v27, v26
                v_div_fixup_f16 v27, v27, -v26, v27 op_sel:[0,1,0,1]
                v_and_b32 v28, 31, v0
                v_trig_preop_f64 v[28:29], v[24:25], v28
                v_trig_preop_f64 v[30:31], -|v[24:25]|, 3
                """);
        // SADs, packing conversions, mixes, dots, swaprel
        b.append("""
                v_msad_u8 v32, v3, v1, v2
                v_msad_u8 v33, v3, 0x00ff0080, 7
                v_qsad_pk_u16_u8 v[34:35], v[2:3], v1, v[4:5]
                v_mqsad_pk_u16_u8 v[36:37], v[2:3], v1, v[6:7]
                v_mqsad_u32_u8 v[38:41], v[2:3], v3, v[4:7]
                v_mqsad_u32_u8 v[2:5], v[2:3], v3, v[2:5]
                v_cvt_pk_u8_f32 v42, v1, v0, v3
                v_cvt_pk_u8_f32 v43, 0x42c80000, 2, v3
                v_cvt_pknorm_i16_f32 v44, v1, v9
                v_cvt_pknorm_u16_f32 v45, v1, -v9
                v_cvt_pknorm_i16_f16 v46, v26, v27
                v_cvt_pknorm_u16_f16 v47, v26, v27 op_sel:[1,0,0]
                v_cvt_norm_i16_f16 v48, v26
                v_cvt_norm_u16_f16_e64 v48, -v27
                v_sat_pk_u8_i16 v49, v3
                v_sat_pk_u8_i16_e64 v50, v7
                v_fma_mix_f32 v51, v1, v26, v2 op_sel_hi:[0,1,0]
                v_fma_mix_f32 v52, -v26, |v27|, v27 op_sel:[1,0,1] op_sel_hi:[1,1,1] clamp
                v_fma_mixlo_f16 v53, v1, v2, v26 op_sel_hi:[0,0,1]
                v_fma_mixhi_f16 v53, v8, v26, 1.0 op_sel_hi:[0,1,0]
                v_dot4c_i32_i8 v54, v3, v7
                v_mov_b32 v55, v3
                v_dot4c_i32_i8_dpp v55, v3, v7 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
                v_mov_b32 v56, v26
                v_pk_fmac_f16 v56, v27, v26
                v_cubeid_f32 v57, v1, v2, v9
                v_cubema_f32 v58, v1, -v2, v9
                v_cubesc_f32 v59, v2, v1, v9
                v_cubetc_f32 v60, v9, v1, -v2
                v_pk_add_u16 v61, v3, -1
                v_pk_sub_i16 v62, v3, 5 op_sel:[0,1] op_sel_hi:[1,1]
                v_pk_add_f16 v63, v26, 1.0 op_sel_hi:[1,0]
                s_mov_b32 m0, 0x20003
                v_swaprel_b32 v1, v2
                """);
        // the lanes whose f32 quotient rounds to zero (pairs 3, 16, 22, 29, 33 and those lanes + 36) are left out
        // of the stand-alone div_scale: see the_rounded_f32_quotient_decides_div_scale
        long keep = ~(1L << 3 | 1L << 16 | 1L << 22 | 1L << 29 | 1L << 33 | 1L << 39 | 1L << 52 | 1L << 58);
        String disputed = String.format("0x%x", keep & 0xffffffffL);
        if (wave == 64) {
            disputed = "s[42:43]";
            b.insert(0, "s_mov_b32 s42, " + String.format("0x%x", keep & 0xffffffffL) + "\ns_mov_b32 s43, "
                    + String.format("0x%x", keep >>> 32) + "\n");
        }
        String out = b.toString().replace("VCC", vcc).replace("MASK", mask).replace("DISPUTED", disputed);
        if (wave == 32) {
            out = out.replace("s_mov_b64 s[40:41], exec", "s_mov_b32 s40, exec_lo")
                    .replace("s_mov_b64 exec, s[40:41]", "s_mov_b32 exec_lo, s40")
                    .replace("s_mov_b64 exec, " + disputed, "s_mov_b32 exec_lo, " + disputed);
        }
        return out + "s_endpgm\n";
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void the_former_refusals_agree_with_the_host_model_on_their_special_cases(int wave) throws Exception {
        VectorRig rig = new VectorRig(dir, wave, 64);
        var b = rig.build("div" + wave, program(wave));
        assertTrue(b.translation().ok(), () -> b.translation().coverageReport());
        var d = rig.writeTranslation("div" + wave, b);
        VectorRig.await(VectorRig.compile(d), d);
        assertEquals(List.of(), VectorRig.diff(rig.host(b), rig.device(d), wave));
    }

    /**
     * v_div_scale_f32 where the numerator is tiny and the f32 quotient rounds to zero (2^-149 / 3, 2^-126 /
     * 2^126, 2^-104 / 2^108). The ISA's pseudocode tests "S2.f32 / S1.f32 == DENORM.f32", an f32 quotient,
     * which is zero here, not a denormal; the next case, "exponent(S2.f32) <= 23" (a tiny numerator), scales
     * S0 by 2^64 without VCC. The translation does that: S0 = S1 = 3 gives 3 * 2^64, 2^126 and 2^108 overflow
     * to infinity. The host model tested the unrounded quotient (took the denormal-quotient case, set VCC and
     * left S0 as it was: 0x40400000, 0x7e800000, 0x75800000) until this test found it; it follows the ISA now and
     * agrees register for register.
     */
    @org.junit.jupiter.api.Test
    void the_rounded_f32_quotient_decides_div_scale() throws Exception {
        VectorRig rig = new VectorRig(dir, 32, 24);
        var b = rig.build("q", """
                v_mov_b32 v1, 1
                v_mov_b32 v2, 3.0
                v_writelane_b32 v1, 0x00800000, 1
                v_writelane_b32 v2, 0x7e800000, 1
                v_writelane_b32 v1, 0x0b800000, 2
                v_writelane_b32 v2, 0x75800000, 2
                v_div_scale_f32 v3, s20, v2, v2, v1
                v_div_scale_f32 v4, s21, v1, v2, v1
                s_endpgm
                """);
        var d = rig.writeTranslation("q", b);
        VectorRig.await(VectorRig.compile(d), d);
        VectorRig.State dev = rig.device(d);
        assertEquals(0x60400000, dev.vgpr()[3][0]);
        assertEquals(0x7f800000, dev.vgpr()[3][1]);
        assertEquals(0x7f800000, dev.vgpr()[3][2]);
        assertEquals(0x15000000, dev.vgpr()[4][0]); // 2^-149 * 2^64
        assertEquals(0x20800000, dev.vgpr()[4][1]); // 2^-126 * 2^64
        assertEquals(0x2b800000, dev.vgpr()[4][2]); // 2^-104 * 2^64
        assertEquals(0, dev.sgpr()[20] & 7);
        assertEquals(0, dev.sgpr()[21] & 7);
        assertEquals(List.of(), VectorRig.diff(rig.host(b), dev, 32), "the host model as the ISA and the translation");
    }
}
