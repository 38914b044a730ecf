package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/**
 * Conversions and integer-valued rounding. Float-to-integer truncates toward zero and saturates, NaN
 * gives 0 (ISA guide); float-to-float and integer-to-float round per the destination's round mode
 * (expected values from the C library under fesetround where noted).
 */
@Tag("unit")
class ValuFloatConvertTest {
    @TempDir
    Path dir;

    static int f(float v) {
        return Float.floatToRawIntBits(v);
    }

    private static String hex(int v) {
        return Integer.toHexString(v);
    }

    @Test
    void float_to_int_truncates_saturates_and_maps_nan_to_zero() throws Exception {
        Wave w = new GuestAsm(dir).sgpr(0, 0x7fc00000).sgpr(1, 0x7f800000).sgpr(2, 0xff800000).f32(3, -1.5f)
                .f32(4, 3e9f).f32(5, 5e9f).f64(6, -2.75).f64(8, 1e300).runWave(String.join("\n",
                        "v_cvt_i32_f32_e32 v1, s0", "v_cvt_i32_f32_e32 v2, s1", "v_cvt_i32_f32_e32 v3, s2",
                        "v_cvt_i32_f32_e32 v4, s3", "v_cvt_i32_f32_e32 v5, s4", "v_cvt_u32_f32_e32 v6, s3",
                        "v_cvt_u32_f32_e32 v7, s4", "v_cvt_u32_f32_e32 v8, s5", "v_cvt_u32_f32_e32 v9, s0",
                        "v_cvt_i32_f64_e32 v10, s[6:7]", "v_cvt_u32_f64_e32 v11, s[8:9]",
                        "v_cvt_u32_f64_e32 v12, s[6:7]"));
        assertEquals(0, w.vgpr(1, 0));
        assertEquals(Integer.MAX_VALUE, w.vgpr(2, 0));
        assertEquals(Integer.MIN_VALUE, w.vgpr(3, 0));
        assertEquals(-1, w.vgpr(4, 0));
        assertEquals(Integer.MAX_VALUE, w.vgpr(5, 0));
        assertEquals(0, w.vgpr(6, 0));
        assertEquals((int) 3_000_000_000L, w.vgpr(7, 0));
        assertEquals(-1, w.vgpr(8, 0), "saturated at 0xffffffff");
        assertEquals(0, w.vgpr(9, 0));
        assertEquals(-2, w.vgpr(10, 0));
        assertEquals(-1, w.vgpr(11, 0));
        assertEquals(0, w.vgpr(12, 0));
    }

    @Test
    void flr_and_rpi_round_down_and_half_up() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, -2.5f).f32(1, 2.5f).sgpr(2, 0x7fc00000).runWave(String.join("\n",
                "v_cvt_flr_i32_f32_e32 v1, s0", "v_cvt_rpi_i32_f32_e32 v2, s0", "v_cvt_rpi_i32_f32_e32 v3, s1",
                "v_cvt_flr_i32_f32_e32 v4, s2"));
        assertEquals(-3, w.vgpr(1, 0));
        assertEquals(-2, w.vgpr(2, 0));
        assertEquals(3, w.vgpr(3, 0));
        assertEquals(0, w.vgpr(4, 0));
    }

    @Test
    void f32_to_f16_rounds_per_the_f16_mode_overflows_and_keeps_nan() throws Exception {
        // C under fesetround: (_Float16)(1.0f/3) = 3555 3556 3555 3555; (_Float16)1e6f = 7c00 7c00 7bff 7bff
        int[] third = {0x3555, 0x3556, 0x3555, 0x3555};
        int[] big = {0x7c00, 0x7c00, 0x7bff, 0x7bff};
        for (int round = 0; round < 4; round++) {
            Wave w = new GuestAsm(dir).mode(GuestAsm.mode(0, round, 3, 3, true, true)).f32(0, 1f / 3)
                    .f32(1, 1e6f).sgpr(2, 0xffc00000).f32(3, -1e6f)
                    .runWave("v_cvt_f16_f32_e32 v1, s0\nv_cvt_f16_f32_e32 v2, s1\nv_cvt_f16_f32_e32 v3, s2\n"
                            + "v_cvt_f16_f32_e32 v4, s3");
            assertEquals(hex(third[round]), hex(w.vgpr(1, 0)), "mode " + round);
            assertEquals(hex(big[round]), hex(w.vgpr(2, 0)), "mode " + round);
            assertEquals(hex(0xfe00), hex(w.vgpr(3, 0)));
            assertEquals(hex(round == 1 || round == 3 ? 0xfbff : 0xfc00), hex(w.vgpr(4, 0)), "-1e6, mode " + round);
        }
    }

    @Test
    void int_to_f32_rounds_per_the_f32_mode() throws Exception {
        // C under fesetround: (float)16777217 = 4b800000 4b800001 4b800000 4b800000
        int[] want = {0x4b800000, 0x4b800001, 0x4b800000, 0x4b800000};
        for (int round = 0; round < 4; round++) {
            Wave w = new GuestAsm(dir).mode(GuestAsm.mode(round, 0, 3, 3, true, true)).sgpr(0, 16777217)
                    .sgpr(1, -1).runWave("v_cvt_f32_i32_e32 v1, s0\nv_cvt_f32_u32_e32 v2, s0\nv_cvt_f32_u32_e32 v3, s1");
            assertEquals(hex(want[round]), hex(w.vgpr(1, 0)));
            assertEquals(hex(want[round]), hex(w.vgpr(2, 0)));
            assertEquals(hex(round == 0 || round == 1 ? 0x4f800000 : 0x4f7fffff), hex(w.vgpr(3, 0)), "2^32 - 1");
        }
    }

    @Test
    void f16_conversions_of_denormals_follow_the_f16_denorm_mode() throws Exception {
        for (int denorm : new int[] {0, 3}) {
            Wave w = new GuestAsm(dir).mode(GuestAsm.mode(0, 0, 3, denorm, true, true)).sgpr(0, 0x8001)
                    .f32(1, 0x1p-20f).runWave("v_cvt_f32_f16_e32 v1, s0\nv_cvt_f16_f32_e32 v2, s1");
            assertEquals(hex(denorm == 3 ? f(-0x1p-24f) : 0x80000000), hex(w.vgpr(1, 0)));
            assertEquals(hex(denorm == 3 ? 0x0010 : 0), hex(w.vgpr(2, 0)), "2^-20 is a half denormal");
        }
    }

    @Test
    void f16_integer_conversions_and_norm() throws Exception {
        Wave w = new GuestAsm(dir).sgpr(0, 0xFFFF).sgpr(1, 0x8000).sgpr(2, 0xC500).sgpr(3, 0x7C00)
                .sgpr(4, 0x3800).sgpr(5, 0x7E00).runWave(String.join("\n",
                        "v_cvt_f16_u16_e32 v1, s0", "v_cvt_f16_i16_e32 v2, s1", "v_cvt_i16_f16_e32 v3, s2",
                        "v_cvt_u16_f16_e32 v4, s3", "v_cvt_u16_f16_e32 v5, s2", "v_cvt_norm_i16_f16_e32 v6, s4",
                        "v_cvt_norm_u16_f16_e32 v7, s4", "v_cvt_norm_i16_f16_e32 v8, s2",
                        "v_cvt_norm_u16_f16_e32 v9, s5"));
        assertEquals(0x7C00, w.vgpr(1, 0), "65535 rounds to infinity");
        assertEquals(0xF800, w.vgpr(2, 0), "-32768");
        assertEquals(0xFFFB, w.vgpr(3, 0), "-5.0 -> -5");
        assertEquals(0xFFFF, w.vgpr(4, 0), "inf saturates");
        assertEquals(0, w.vgpr(5, 0), "negative saturates at 0");
        assertEquals(16384, w.vgpr(6, 0), "0.5 * 32767 = 16383.5 -> 16384 (nearest even)");
        assertEquals(32768, w.vgpr(7, 0), "0.5 * 65535 = 32767.5 -> 32768");
        assertEquals(0x8001, w.vgpr(8, 0), "-5 limited to -1 -> -32767");
        assertEquals(0, w.vgpr(9, 0), "NaN -> 0");
    }

    @Test
    void f64_f32_conversions_bytes_and_nibbles() throws Exception {
        Wave w = new GuestAsm(dir).f64(0, 0.1).f32(2, 0.1f).sgpr(3, 0x11223344).sgpr(4, 0x8).sgpr(5, 0x7)
                .sgpr(6, -7).runWave(String.join("\n",
                        "v_cvt_f32_f64_e32 v1, s[0:1]", "v_cvt_f64_f32_e32 v[2:3], s2",
                        "v_cvt_f32_ubyte0_e32 v4, s3", "v_cvt_f32_ubyte1_e32 v5, s3", "v_cvt_f32_ubyte2_e32 v6, s3",
                        "v_cvt_f32_ubyte3_e32 v7, s3", "v_cvt_off_f32_i4_e32 v8, s4", "v_cvt_off_f32_i4_e32 v9, s5",
                        "v_cvt_f64_i32_e32 v[10:11], s6", "v_cvt_f64_u32_e32 v[12:13], s6"));
        assertEquals(hex(f((float) 0.1)), hex(w.vgpr(1, 0)));
        assertEquals(Double.doubleToRawLongBits(0.1f), w.vgpr64(2, 0));
        assertEquals(hex(f(0x44)), hex(w.vgpr(4, 0)));
        assertEquals(hex(f(0x33)), hex(w.vgpr(5, 0)));
        assertEquals(hex(f(0x22)), hex(w.vgpr(6, 0)));
        assertEquals(hex(f(0x11)), hex(w.vgpr(7, 0)));
        assertEquals(hex(f(-0.5f)), hex(w.vgpr(8, 0)));
        assertEquals(hex(f(0.4375f)), hex(w.vgpr(9, 0)));
        assertEquals(Double.doubleToRawLongBits(-7.0), w.vgpr64(10, 0));
        assertEquals(Double.doubleToRawLongBits(4294967289.0), w.vgpr64(12, 0));
    }

    @Test
    void trunc_ceil_floor_rndne_fract_keep_signed_zeros() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, 2.5f).f32(1, -0.5f).sgpr(2, 0xb3800000).sgpr(3, 0x7f800000)
                .f64(4, -3.5).runWave(String.join("\n",
                        "v_rndne_f32_e32 v1, s0", "v_rndne_f32_e32 v2, s1", "v_trunc_f32_e32 v3, s1",
                        "v_ceil_f32_e32 v4, s1", "v_floor_f32_e32 v5, s1", "v_fract_f32_e32 v6, s1",
                        "v_fract_f32_e32 v7, s2", "v_fract_f32_e32 v8, s3", "v_floor_f64_e32 v[10:11], s[4:5]",
                        "v_fract_f64_e32 v[12:13], s[4:5]", "v_rndne_f16_e32 v14, 0x4100", "v_fract_f16_e32 v15, 0xb800",
                        "v_trunc_f64_e32 v[16:17], s[4:5]", "v_ceil_f16_e32 v18, 0x3c01"));
        assertEquals(hex(f(2f)), hex(w.vgpr(1, 0)), "ties to even");
        assertEquals(hex(0x80000000), hex(w.vgpr(2, 0)), "-0.5 -> -0");
        assertEquals(hex(0x80000000), hex(w.vgpr(3, 0)));
        assertEquals(hex(0x80000000), hex(w.vgpr(4, 0)));
        assertEquals(hex(f(-1f)), hex(w.vgpr(5, 0)));
        assertEquals(hex(f(0.5f)), hex(w.vgpr(6, 0)));
        assertEquals(hex(0x3f7fffff), hex(w.vgpr(7, 0)), "fract(-2^-24) = 1 - 2^-24 rounds to 1: limited below 1");
        assertEquals(hex(0x7fc00000), hex(w.vgpr(8, 0)), "fract(inf) = NaN");
        assertEquals(Double.doubleToRawLongBits(-4.0), w.vgpr64(10, 0));
        assertEquals(Double.doubleToRawLongBits(0.5), w.vgpr64(12, 0));
        assertEquals(0x4000, w.vgpr(14, 0), "rndne(2.5) = 2");
        assertEquals(0x3800, w.vgpr(15, 0), "fract(-0.5) = 0.5");
        assertEquals(Double.doubleToRawLongBits(-3.0), w.vgpr64(16, 0));
        assertEquals(0x4000, w.vgpr(18, 0));
    }

    @Test
    void frexp_splits_mantissa_and_exponent_including_denormals() throws Exception {
        Wave w = new GuestAsm(dir).f32(0, -12f).sgpr(1, 1).sgpr(2, 0x7f800000).f64(4, 1e-310).runWave(String.join("\n",
                "v_frexp_mant_f32_e32 v1, s0", "v_frexp_exp_i32_f32_e32 v2, s0", "v_frexp_mant_f32_e32 v3, s1",
                "v_frexp_exp_i32_f32_e32 v4, s1", "v_frexp_exp_i32_f32_e32 v5, s2", "v_frexp_mant_f32_e32 v6, s2",
                "v_frexp_exp_i32_f64_e32 v7, s[4:5]", "v_frexp_mant_f16_e32 v8, 0x4a00",
                "v_frexp_exp_i16_f16_e32 v9, 0x4a00", "v_frexp_mant_f64_e32 v[10:11], s[4:5]"));
        assertEquals(hex(f(-0.75f)), hex(w.vgpr(1, 0)));
        assertEquals(4, w.vgpr(2, 0));
        assertEquals(hex(f(0.5f)), hex(w.vgpr(3, 0)));
        assertEquals(-148, w.vgpr(4, 0));
        assertEquals(0, w.vgpr(5, 0));
        assertEquals(0x7f800000, w.vgpr(6, 0));
        // C's frexp(1e-310) (glibc): 0x3fe2688b70e62b00 (0.5752618...), -1029
        assertEquals(-1029, w.vgpr(7, 0), "f64 denormal");
        assertEquals(0x3A00, w.vgpr(8, 0), "12.0 = 0.75 * 2^4");
        assertEquals(4, w.vgpr(9, 0));
        assertEquals(Long.toHexString(0x3fe2688b70e62b00L), Long.toHexString(w.vgpr64(10, 0)));
    }

    @Test
    void frexp_of_f64_denormals_normalizes_the_mantissa() throws Exception {
        // C's frexp (glibc): -4.9e-324 (0x8000000000000001) = -0.5 * 2^-1073;
        // 0x000fffffffffffff = 0x3feffffffffffffe * 2^-1022
        Wave w = new GuestAsm(dir).sgpr(0, 1).sgpr(1, 0x80000000).sgpr(2, -1).sgpr(3, 0x000fffff).runWave(String.join("\n",
                "v_frexp_mant_f64_e32 v[1:2], s[0:1]", "v_frexp_exp_i32_f64_e32 v3, s[0:1]",
                "v_frexp_mant_f64_e32 v[4:5], s[2:3]", "v_frexp_exp_i32_f64_e32 v6, s[2:3]"));
        assertEquals(Long.toHexString(0xbfe0000000000000L), Long.toHexString(w.vgpr64(1, 0)));
        assertEquals(-1073, w.vgpr(3, 0));
        assertEquals(Long.toHexString(0x3feffffffffffffeL), Long.toHexString(w.vgpr64(4, 0)));
        assertEquals(-1022, w.vgpr(6, 0));
    }
}
