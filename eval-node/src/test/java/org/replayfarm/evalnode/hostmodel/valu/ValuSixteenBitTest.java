package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.a;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.b;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.c;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.low16;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.op;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * 16-bit integer VOP3 instructions with OPSEL, packed VOP3P integer instructions with OP_SEL / OP_SEL_HI
 * and CLAMP, and the integer dot products (RDNA 2 ISA, VOP3 and VOP3P). Halves are taken apart with
 * shifts in the test and the arithmetic is done on Java ints.
 */
@Tag("unit")
class ValuSixteenBitTest {
    @TempDir
    Path dir;

    private static int lo(int x) {
        return x & 0xFFFF;
    }

    private static int hi(int x) {
        return x >>> 16;
    }

    private static int sLo(int x) {
        return (short) x;
    }

    private static int sHi(int x) {
        return x >> 16;
    }

    private static int satU16(int v) {
        return Math.max(0, Math.min(0xFFFF, v));
    }

    private static int satI16(int v) {
        return Math.max(-32768, Math.min(32767, v)) & 0xFFFF;
    }

    private static int pack(int low, int high) {
        return (low & 0xFFFF) | high << 16;
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void sixteen_bit_ops_take_halves_by_opsel_and_clamp_saturates(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                low16("v_add_nc_u16 vD, v1, v2", l -> lo(a(l)) + lo(b(l))),
                low16("v_add_nc_u16 vD, v1, v2 op_sel:[1,0,0]", l -> hi(a(l)) + lo(b(l))),
                low16("v_add_nc_u16 vD, v1, v2 clamp", l -> satU16(lo(a(l)) + lo(b(l)))),
                low16("v_sub_nc_u16 vD, v1, v2 op_sel:[0,1,0] clamp", l -> satU16(lo(a(l)) - hi(b(l)))),
                low16("v_add_nc_i16 vD, v1, v2 clamp", l -> satI16(sLo(a(l)) + sLo(b(l)))),
                low16("v_sub_nc_i16 vD, v1, v2 op_sel:[1,1,0] clamp", l -> satI16(sHi(a(l)) - sHi(b(l)))),
                low16("v_mul_lo_u16 vD, v1, v2", l -> lo(a(l)) * lo(b(l))),
                low16("v_lshlrev_b16 vD, v2, v1", l -> lo(a(l)) << (b(l) % 16 + 16) % 16),
                low16("v_lshrrev_b16 vD, v2, v1", l -> lo(a(l)) >> (b(l) & 15)),
                low16("v_ashrrev_i16 vD, v2, v1", l -> sLo(a(l)) >> (b(l) & 15)),
                low16("v_lshrrev_b16 vD, 17, v1", l -> lo(a(l)) >> 1),
                low16("v_max_u16 vD, v1, v2", l -> Math.max(lo(a(l)), lo(b(l)))),
                low16("v_min_u16 vD, v1, v2", l -> Math.min(lo(a(l)), lo(b(l)))),
                low16("v_max_i16 vD, v1, v2", l -> Math.max(sLo(a(l)), sLo(b(l)))),
                low16("v_min_i16 vD, v1, v2", l -> Math.min(sLo(a(l)), sLo(b(l)))),
                low16("v_mad_u16 vD, v1, v2, v3", l -> lo(a(l)) * lo(b(l)) + lo(c(l))),
                low16("v_mad_u16 vD, v1, v2, v3 clamp", l -> (int) Math.min(0xFFFF, (long) lo(a(l)) * lo(b(l)) + lo(c(l)))),
                low16("v_mad_i16 vD, v1, v2, v3 clamp", l -> satI16(sLo(a(l)) * sLo(b(l)) + sLo(c(l)))),
                low16("v_med3_i16 vD, v1, v2, v3", l -> med(sLo(a(l)), sLo(b(l)), sLo(c(l)))),
                low16("v_med3_u16 vD, v1, v2, v3 op_sel:[1,1,1,0]", l -> med(hi(a(l)), hi(b(l)), hi(c(l)))),
                low16("v_min3_i16 vD, v1, v2, v3", l -> Math.min(sLo(a(l)), Math.min(sLo(b(l)), sLo(c(l))))),
                low16("v_max3_u16 vD, v1, v2, v3", l -> Math.max(lo(a(l)), Math.max(lo(b(l)), lo(c(l))))),
                op("v_mad_u32_u16 vD, v1, v2, v3 op_sel:[1,0,0,0]", l -> (int) ((long) hi(a(l)) * lo(b(l)) + c(l))),
                op("v_mad_i32_i16 vD, v1, v2, v3", l -> sLo(a(l)) * sLo(b(l)) + c(l)),
                op("v_mad_u32_u16 vD, v1, v2, v3 clamp",
                        l -> (int) Math.min(0xFFFFFFFFL, (long) lo(a(l)) * lo(b(l)) + (c(l) & 0xFFFFFFFFL))));
    }

    private static int med(int x, int y, int z) {
        int[] v = {x, y, z};
        java.util.Arrays.sort(v);
        return v[1];
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void a_sixteen_bit_result_goes_to_the_high_half_with_opsel_3_keeping_the_low_half(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        var out = t.run(t.lanes(1, GuestAsm::a) + t.lanes(2, GuestAsm::b)
                + "v_mov_b32 v20, 0x12345678\n"
                + "v_add_nc_u16 v20, v1, v2 op_sel:[0,1,1]\n");
        t.expect(out, 20, l -> pack(0x5678, lo(a(l)) + hi(b(l))), "high half written");
    }

    /**
     * gfx10 keeps the high half of a VGPR that a 16-bit VOP1/VOP2/VOP3 result goes to (gfx8/gfx9 zeroed it for
     * most opcodes): LLVM's GCNSubtarget::zeroesHigh16BitsOfDest, a list its authors found by experiment,
     * answers false for every such opcode on gfx10, and review D106023 notes the change.
     */
    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void a_sixteen_bit_result_in_the_low_half_keeps_the_high_half(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        String[] ops = {"v_add_nc_u16 vD, v1, v2", "v_mul_lo_u16 vD, v1, v2", "v_mad_u16 vD, v1, v2, v3",
            "v_add_f16_e32 vD, v1, v2", "v_fma_f16 vD, v1, v2, v3", "v_cvt_f16_f32_e32 vD, v1",
            "v_cvt_u16_f16_e32 vD, v1", "v_ldexp_f16_e32 vD, v1, v2", "v_lshlrev_b16 vD, v2, v1", "v_sub_f16_e64 vD, v1, v2"};
        StringBuilder p = new StringBuilder(t.lanes(1, GuestAsm::a) + t.lanes(2, GuestAsm::b)
                + t.lanes(3, GuestAsm::c));
        for (int k = 0; k < ops.length; k++) {
            p.append("v_mov_b32 v").append(20 + k).append(", 0xabcd0000\n");
            p.append(ops[k].replace("vD", "v" + (20 + k))).append('\n');
        }
        var out = t.run(p.toString());
        for (int k = 0; k < ops.length; k++) {
            int v = 20 + k;
            t.expect(out, v, l -> 0xabcd, l -> out.wave(0).vgpr(v, l) >>> 16, ops[k] + ": high half kept");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void packed_ops_pick_each_result_half_by_op_sel_and_op_sel_hi(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_pk_add_u16 vD, v1, v2", l -> pack(lo(a(l)) + lo(b(l)), hi(a(l)) + hi(b(l)))),
                op("v_pk_add_u16 vD, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]",
                        l -> pack(hi(a(l)) + lo(b(l)), lo(a(l)) + hi(b(l)))),
                op("v_pk_add_u16 vD, v1, v2 clamp", l -> pack(satU16(lo(a(l)) + lo(b(l))), satU16(hi(a(l)) + hi(b(l))))),
                op("v_pk_sub_u16 vD, v1, v2 clamp", l -> pack(satU16(lo(a(l)) - lo(b(l))), satU16(hi(a(l)) - hi(b(l))))),
                op("v_pk_add_i16 vD, v1, v2 clamp", l -> pack(satI16(sLo(a(l)) + sLo(b(l))), satI16(sHi(a(l)) + sHi(b(l))))),
                op("v_pk_sub_i16 vD, v1, v2", l -> pack(sLo(a(l)) - sLo(b(l)), sHi(a(l)) - sHi(b(l)))),
                op("v_pk_mul_lo_u16 vD, v1, v2", l -> pack(lo(a(l)) * lo(b(l)), hi(a(l)) * hi(b(l)))),
                op("v_pk_lshlrev_b16 vD, v2, v1", l -> pack(lo(a(l)) << (lo(b(l)) % 16), hi(a(l)) << (hi(b(l)) % 16))),
                op("v_pk_lshrrev_b16 vD, v2, v1", l -> pack(lo(a(l)) >> (lo(b(l)) % 16), hi(a(l)) >> (hi(b(l)) % 16))),
                op("v_pk_ashrrev_i16 vD, v2, v1", l -> pack(sLo(a(l)) >> (lo(b(l)) % 16), sHi(a(l)) >> (hi(b(l)) % 16))),
                op("v_pk_max_i16 vD, v1, v2", l -> pack(Math.max(sLo(a(l)), sLo(b(l))), Math.max(sHi(a(l)), sHi(b(l))))),
                op("v_pk_min_i16 vD, v1, v2", l -> pack(Math.min(sLo(a(l)), sLo(b(l))), Math.min(sHi(a(l)), sHi(b(l))))),
                op("v_pk_max_u16 vD, v1, v2", l -> pack(Math.max(lo(a(l)), lo(b(l))), Math.max(hi(a(l)), hi(b(l))))),
                op("v_pk_min_u16 vD, v1, v2 op_sel_hi:[0,0]",
                        l -> pack(Math.min(lo(a(l)), lo(b(l))), Math.min(lo(a(l)), lo(b(l))))),
                op("v_pk_mad_u16 vD, v1, v2, v3", l -> pack(lo(a(l)) * lo(b(l)) + lo(c(l)), hi(a(l)) * hi(b(l)) + hi(c(l)))),
                op("v_pk_mad_i16 vD, v1, v2, v3 clamp", l -> pack(satI16(sLo(a(l)) * sLo(b(l)) + sLo(c(l))),
                        satI16(sHi(a(l)) * sHi(b(l)) + sHi(c(l))))),
                op("v_pk_add_u16 vD, v1, 1 op_sel_hi:[1,0]", l -> pack(lo(a(l)) + 1, hi(a(l)) + 1)),
                op("v_pk_add_u16 vD, v1, -1", l -> pack(lo(a(l)) + 0xFFFF, hi(a(l)) + 0xFFFF)));
    }

    /** Σ over fields of width w, read one field at a time with shifts. */
    private static long dot(int x, int y, int w, boolean signed) {
        long sum = 0;
        for (int i = 0; i < 32 / w; i++) {
            long p = (x & 0xFFFFFFFFL) >>> (w * i) & ((1L << w) - 1);
            long q = (y & 0xFFFFFFFFL) >>> (w * i) & ((1L << w) - 1);
            if (signed) {
                p = p >= 1L << (w - 1) ? p - (1L << w) : p;
                q = q >= 1L << (w - 1) ? q - (1L << w) : q;
            }
            sum += p * q;
        }
        return sum;
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void dot_products_sum_the_field_products_with_the_accumulator_and_clamp_saturates(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("v_mov_b32 v20, v3\nv_mov_b32 v22, v3\n",
                op("v_dot4c_i32_i8 vD, v1, v2", l -> (int) (dot(a(l), b(l), 8, true) + c(l))),
                op("v_dot4c_i32_i8 vD, v2, v2", l -> (int) (dot(b(l), b(l), 8, true) + c(l))),
                op("v_dot4_i32_i8 vD, v1, v2, v3", l -> (int) (dot(a(l), b(l), 8, true) + c(l))),
                op("v_dot4_u32_u8 vD, v1, v2, v3", l -> (int) (dot(a(l), b(l), 8, false) + (c(l) & 0xFFFFFFFFL))),
                op("v_dot8_i32_i4 vD, v1, v2, v3", l -> (int) (dot(a(l), b(l), 4, true) + c(l))),
                op("v_dot8_u32_u4 vD, v1, v2, v3", l -> (int) (dot(a(l), b(l), 4, false) + (c(l) & 0xFFFFFFFFL))),
                op("v_dot2_i32_i16 vD, v1, v2, v3", l -> (int) (dot(a(l), b(l), 16, true) + c(l))),
                op("v_dot2_u32_u16 vD, v1, v2, v3", l -> (int) (dot(a(l), b(l), 16, false) + (c(l) & 0xFFFFFFFFL))),
                op("v_dot4_i32_i8 vD, v1, v2, v3 clamp", l -> (int) Math.max(Integer.MIN_VALUE,
                        Math.min(Integer.MAX_VALUE, dot(a(l), b(l), 8, true) + c(l)))),
                op("v_dot4_u32_u8 vD, v1, v2, v3 clamp",
                        l -> (int) Math.min(0xFFFFFFFFL, dot(a(l), b(l), 8, false) + (c(l) & 0xFFFFFFFFL))),
                op("v_dot4_u32_u8 vD, -1, -1, -1 clamp", l -> -1));
    }
}
