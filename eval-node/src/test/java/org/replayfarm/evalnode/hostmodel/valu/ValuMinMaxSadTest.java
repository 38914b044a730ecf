package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.a;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.b;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.c;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.low16;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.op;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * Integer min / max / median, sums of absolute differences (plain, masked, quad), lerp and the
 * saturating packs (RDNA 2 ISA, VOP2/VOP3/VOP1). Expected values sort, or loop over bytes, in the test.
 */
@Tag("unit")
class ValuMinMaxSadTest {
    @TempDir
    Path dir;

    private static long u(int x) {
        return x & 0xFFFFFFFFL;
    }

    private static int sorted(long[] v, int i) {
        long[] s = v.clone();
        Arrays.sort(s);
        return (int) s[i];
    }

    private static int byteOf(long x, int i) {
        return (int) (x >>> (8 * i) & 0xFF);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void min_max_and_median_signed_and_unsigned(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_min_i32 vD, v1, v2", l -> sorted(new long[] {a(l), b(l)}, 0)),
                op("v_max_i32 vD, v1, v2", l -> sorted(new long[] {a(l), b(l)}, 1)),
                op("v_min_u32 vD, v1, v2", l -> sorted(new long[] {u(a(l)), u(b(l))}, 0)),
                op("v_max_u32 vD, v1, v2", l -> sorted(new long[] {u(a(l)), u(b(l))}, 1)),
                op("v_min3_i32 vD, v1, v2, v3", l -> sorted(new long[] {a(l), b(l), c(l)}, 0)),
                op("v_med3_i32 vD, v1, v2, v3", l -> sorted(new long[] {a(l), b(l), c(l)}, 1)),
                op("v_max3_i32 vD, v1, v2, v3", l -> sorted(new long[] {a(l), b(l), c(l)}, 2)),
                op("v_min3_u32 vD, v1, v2, v3", l -> sorted(new long[] {u(a(l)), u(b(l)), u(c(l))}, 0)),
                op("v_med3_u32 vD, v1, v2, v3", l -> sorted(new long[] {u(a(l)), u(b(l)), u(c(l))}, 1)),
                op("v_max3_u32 vD, v1, v2, v3", l -> sorted(new long[] {u(a(l)), u(b(l)), u(c(l))}, 2)));
    }

    /** Σ |x_i - y_i| over bytes (or halves with {@code w} = 16), skipping y_i = 0 when masked. */
    private static long sad(long x, long y, int w, boolean masked) {
        long sum = 0;
        for (int i = 0; i < 32 / w; i++) {
            long p = x >>> (w * i) & ((1L << w) - 1);
            long q = y >>> (w * i) & ((1L << w) - 1);
            if (!masked || q != 0) {
                sum += Math.abs(p - q);
            }
        }
        return sum;
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void sums_of_absolute_differences_accumulate_and_clamp_saturates(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_sad_u8 vD, v1, v2, v3", l -> (int) (sad(u(a(l)), u(b(l)), 8, false) + u(c(l)))),
                op("v_sad_hi_u8 vD, v1, v2, v3", l -> (int) ((sad(u(a(l)), u(b(l)), 8, false) << 16) + u(c(l)))),
                op("v_sad_u16 vD, v1, v2, v3", l -> (int) (sad(u(a(l)), u(b(l)), 16, false) + u(c(l)))),
                op("v_sad_u32 vD, v1, v2, v3", l -> (int) (Math.abs(u(a(l)) - u(b(l))) + u(c(l)))),
                op("v_msad_u8 vD, v1, v2, v3", l -> (int) (sad(u(a(l)), u(b(l)), 8, true) + u(c(l)))),
                op("v_sad_u32 vD, v1, v2, v3 clamp",
                        l -> (int) Math.min(0xFFFFFFFFL, Math.abs(u(a(l)) - u(b(l))) + u(c(l)))),
                op("v_sad_hi_u8 vD, v1, v2, v3 clamp",
                        l -> (int) Math.min(0xFFFFFFFFL, (sad(u(a(l)), u(b(l)), 8, false) << 16) + u(c(l)))),
                op("v_lerp_u8 vD, v1, v2, v3", l -> {
                    int r = 0;
                    for (int i = 0; i < 4; i++) {
                        r |= ((byteOf(u(a(l)), i) + byteOf(u(b(l)), i) + (byteOf(u(c(l)), i) & 1)) / 2) << (8 * i);
                    }
                    return r;
                }));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void quad_sads_slide_the_reference_over_eight_source_bytes(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        String p = t.lanes(1, GuestAsm::a) + t.lanes(2, GuestAsm::b) + t.lanes(3, l -> b(l + 4) & 0xFF00FFFF)
                + t.lanes(4, GuestAsm::c) + t.lanes(5, l -> a(l + 9)) + t.lanes(6, l -> c(l + 2))
                + t.lanes(7, l -> b(l + 6))
                + "v_qsad_pk_u16_u8 v[20:21], v[1:2], v3, v[4:5]\n"
                + "v_mqsad_pk_u16_u8 v[22:23], v[1:2], v3, v[4:5]\n"
                + "v_qsad_pk_u16_u8 v[24:25], v[1:2], v3, v[4:5] clamp\n"
                + "v_mqsad_u32_u8 v[30:33], v[1:2], v3, v[4:7]\n";
        var out = t.run(p);
        for (int l = 0; l < wave; l++) {
            long src = u(b(l)) << 32 | u(a(l));
            long ref = u(b(l + 4) & 0xFF00FFFF);
            long acc = u(a(l + 9)) << 32 | u(c(l));
            int[] acc32 = {c(l), a(l + 9), c(l + 2), b(l + 6)};
            long q = 0;
            long mq = 0;
            long qc = 0;
            for (int i = 0; i < 4; i++) {
                long window = src >>> (8 * i) & 0xFFFFFFFFL;
                long accI = acc >>> (16 * i) & 0xFFFF;
                q |= ((accI + sad(window, ref, 8, false)) & 0xFFFF) << (16 * i);
                mq |= ((accI + sad(window, ref, 8, true)) & 0xFFFF) << (16 * i);
                qc |= Math.min(0xFFFF, accI + sad(window, ref, 8, false)) << (16 * i);
                assertEquals((int) (u(acc32[i]) + sad(window, ref, 8, true)), out.wave(0).vgpr(30 + i, l),
                        "mqsad_u32 dword " + i + " lane " + l);
            }
            assertEquals(q, out.wave(0).vgpr64(20, l), "qsad lane " + l);
            assertEquals(mq, out.wave(0).vgpr64(22, l), "mqsad lane " + l);
            assertEquals(qc, out.wave(0).vgpr64(24, l), "qsad clamp lane " + l);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void saturating_packs(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_cvt_pk_u16_u32 vD, v1, v2",
                        l -> (int) (Math.min(0xFFFF, u(a(l))) | Math.min(0xFFFF, u(b(l))) << 16)),
                op("v_cvt_pk_i16_i32 vD, v1, v2", l -> (Math.max(-32768, Math.min(32767, a(l))) & 0xFFFF)
                        | Math.max(-32768, Math.min(32767, b(l))) << 16),
                low16("v_sat_pk_u8_i16 vD, v1", l -> Math.max(0, Math.min(255, (short) a(l)))
                        | Math.max(0, Math.min(255, a(l) >> 16)) << 8));
    }
}
