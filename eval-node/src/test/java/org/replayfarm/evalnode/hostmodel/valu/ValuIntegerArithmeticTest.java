package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.a;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.b;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.c;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.op;

import java.math.BigInteger;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * Integer adds, subtracts and multiplies (RDNA 2 ISA, VOP2/VOP3): wrapping results, CLAMP saturation,
 * carries and borrows through VCC and SGPR lane masks, 24-bit and 64-bit multiplies. Expected values
 * come from BigInteger or long arithmetic on the lanes' corner operands.
 */
@Tag("unit")
class ValuIntegerArithmeticTest {
    @TempDir
    Path dir;

    private static final BigInteger TWO32 = BigInteger.ONE.shiftLeft(32);

    private static BigInteger ub(int x) {
        return BigInteger.valueOf(x & 0xFFFFFFFFL);
    }

    private static BigInteger sb(int x) {
        return BigInteger.valueOf(x);
    }

    private static int clampU32(BigInteger v) {
        if (v.signum() < 0) {
            return 0;
        }
        return v.compareTo(TWO32) >= 0 ? -1 : v.intValue();
    }

    private static int clampI32(BigInteger v) {
        return v.max(sb(Integer.MIN_VALUE)).min(sb(Integer.MAX_VALUE)).intValue();
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void adds_and_subtracts_wrap_and_clamp_saturates_unsigned_and_signed(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases(GuestAsm.scalar("s4", 0x7654321, 9),
                op("v_add_nc_u32 vD, v1, v2", l -> a(l) + b(l)),
                op("v_add_nc_u32_e64 vD, v1, v2 clamp", l -> clampU32(ub(a(l)).add(ub(b(l))))),
                op("v_sub_nc_u32 vD, v1, v2", l -> a(l) - b(l)),
                op("v_sub_nc_u32_e64 vD, v1, v2 clamp", l -> clampU32(ub(a(l)).subtract(ub(b(l))))),
                op("v_subrev_nc_u32 vD, v1, v2", l -> b(l) - a(l)),
                op("v_subrev_nc_u32_e64 vD, v1, v2 clamp", l -> clampU32(ub(b(l)).subtract(ub(a(l))))),
                op("v_add_nc_i32 vD, v1, v2", l -> a(l) + b(l)),
                op("v_add_nc_i32 vD, v1, v2 clamp", l -> clampI32(sb(a(l)).add(sb(b(l))))),
                op("v_sub_nc_i32 vD, v1, v2 clamp", l -> clampI32(sb(a(l)).subtract(sb(b(l))))),
                op("v_add3_u32 vD, v1, v2, v3", l -> a(l) + b(l) + c(l)),
                op("v_add_nc_u32_e32 vD, 0x12345678, v2", l -> 0x12345678 + b(l)),
                op("v_add_nc_u32_e32 vD, -16, v2", l -> -16 + b(l)),
                op("v_sub_nc_u32_e32 vD, s4, v2", l -> 0x7654321 - b(l)));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void carry_out_and_borrow_go_to_vcc_or_an_sgpr_mask_with_zero_for_inactive_lanes(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long active = wave == 32 ? 0xF7FF_FFFEL : 0xFFFF_FFFE_7FFF_FFFEL;
        String program = t.lanes(1, GuestAsm::a) + t.lanes(2, GuestAsm::b)
                + t.mask(10, t.allLanes(), 9) + t.mask(12, t.allLanes(), 9) + t.exec(active, 8)
                + "v_add_co_u32 v20, " + t.maskOperand(10) + ", v1, v2\n"
                + "v_sub_co_u32 v21, " + t.maskOperand(12) + ", v1, v2\n"
                + "v_subrev_co_u32 v22, " + t.vcc() + ", v1, v2\n";
        var out = t.run(program);
        long carry = 0;
        long borrow = 0;
        long borrowRev = 0;
        for (int l = 0; l < wave; l++) {
            if ((active >>> l & 1) == 0) {
                assertEquals(0, out.wave(0).vgpr(20, l), "inactive lane " + l + " keeps its old value");
                continue;
            }
            assertEquals(a(l) + b(l), out.wave(0).vgpr(20, l));
            assertEquals(a(l) - b(l), out.wave(0).vgpr(21, l));
            assertEquals(b(l) - a(l), out.wave(0).vgpr(22, l));
            if (ub(a(l)).add(ub(b(l))).compareTo(TWO32) >= 0) {
                carry |= 1L << l;
            }
            if (ub(a(l)).compareTo(ub(b(l))) < 0) {
                borrow |= 1L << l;
            }
            if (ub(b(l)).compareTo(ub(a(l))) < 0) {
                borrowRev |= 1L << l;
            }
        }
        assertEquals(carry, t.laneMask(out, 10), "carry mask");
        assertEquals(borrow, t.laneMask(out, 12), "borrow mask");
        assertEquals(borrowRev, out.wave(0).vcc(), "subrev borrow in VCC");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void carry_chains_add_and_subtract_64_bit_values(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        // x = {v2, v1}, y = {v4, v3}
        String program = t.lanes(1, GuestAsm::a) + t.lanes(2, GuestAsm::b)
                + t.lanes(3, GuestAsm::c) + t.lanes(4, l -> a(l + 5))
                + "v_add_co_u32 v20, " + t.vcc() + ", v1, v3\n"
                + "v_add_co_ci_u32_e32 v21, " + t.vcc() + ", v2, v4, " + t.vcc() + "\n"
                + "v_sub_co_u32 v22, " + t.maskOperand(10) + ", v1, v3\n"
                + "v_sub_co_ci_u32_e64 v23, " + t.maskOperand(12) + ", v2, v4, " + t.maskOperand(10) + "\n"
                + "v_subrev_co_u32 v24, " + t.vcc() + ", v3, v1\n"
                + "v_subrev_co_ci_u32_e32 v25, " + t.vcc() + ", v4, v2, " + t.vcc() + "\n"
                + "v_add_co_ci_u32_e64 v26, " + t.maskOperand(14) + ", v1, v3, " + t.maskOperand(10) + " clamp\n";
        var out = t.run(program);
        long carryOut = 0;
        long borrowOut = 0;
        for (int l = 0; l < wave; l++) {
            BigInteger x = ub(b(l)).shiftLeft(32).or(ub(a(l)));
            BigInteger y = ub(a(l + 5)).shiftLeft(32).or(ub(c(l)));
            BigInteger sum = x.add(y);
            BigInteger diff = x.subtract(y);
            assertEquals(sum.longValue(), out.wave(0).vgpr64(20, l), "64-bit sum lane " + l);
            assertEquals(diff.longValue(), out.wave(0).vgpr64(22, l), "64-bit difference lane " + l);
            assertEquals(diff.longValue(), out.wave(0).vgpr64(24, l), "subrev difference lane " + l);
            if (sum.bitLength() > 64) {
                carryOut |= 1L << l;
            }
            if (diff.signum() < 0) {
                borrowOut |= 1L << l;
            }
            long borrowLow = ub(a(l)).compareTo(ub(c(l))) < 0 ? 1 : 0;
            assertEquals(clampU32(ub(a(l)).add(ub(c(l))).add(BigInteger.valueOf(borrowLow))),
                    out.wave(0).vgpr(26, l), "clamped add with carry-in lane " + l);
        }
        assertEquals(borrowOut, t.laneMask(out, 12), "borrow out of the high word");
        assertEquals(borrowOut, out.wave(0).vcc(), "subrev chain borrow");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void multiplies_give_low_and_high_words_and_24_bit_forms_use_the_low_24_bits(int wave) throws Exception {
        new GuestAsm(dir).waveSize(wave).cases("",
                op("v_mul_lo_u32 vD, v1, v2", l -> ub(a(l)).multiply(ub(b(l))).intValue()),
                op("v_mul_hi_u32 vD, v1, v2", l -> ub(a(l)).multiply(ub(b(l))).shiftRight(32).intValue()),
                op("v_mul_hi_i32 vD, v1, v2", l -> sb(a(l)).multiply(sb(b(l))).shiftRight(32).intValue()),
                op("v_mul_u32_u24 vD, v1, v2", l -> (int) ((a(l) & 0xFFFFFFL) * (b(l) & 0xFFFFFFL))),
                op("v_mul_hi_u32_u24 vD, v1, v2", l -> (int) ((a(l) & 0xFFFFFFL) * (b(l) & 0xFFFFFFL) >>> 32)),
                op("v_mul_i32_i24 vD, v1, v2", l -> s24(a(l)).multiply(s24(b(l))).intValue()),
                op("v_mul_hi_i32_i24 vD, v1, v2", l -> s24(a(l)).multiply(s24(b(l))).shiftRight(32).intValue()),
                op("v_mul_i32_i24_e64 vD, v1, v2 clamp", l -> clampI32(s24(a(l)).multiply(s24(b(l))))),
                op("v_mul_u32_u24_e64 vD, v1, v2 clamp",
                        l -> clampU32(BigInteger.valueOf(a(l) & 0xFFFFFF).multiply(BigInteger.valueOf(b(l) & 0xFFFFFF)))),
                op("v_mad_u32_u24 vD, v1, v2, v3", l -> (int) ((a(l) & 0xFFFFFFL) * (b(l) & 0xFFFFFFL)) + c(l)),
                op("v_mad_i32_i24 vD, v1, v2, v3", l -> s24(a(l)).multiply(s24(b(l))).add(sb(c(l))).intValue()),
                op("v_mad_u32_u24 vD, v1, v2, v3 clamp", l -> clampU32(BigInteger.valueOf(a(l) & 0xFFFFFF)
                        .multiply(BigInteger.valueOf(b(l) & 0xFFFFFF)).add(ub(c(l))))),
                op("v_mad_i32_i24 vD, v1, v2, v3 clamp", l -> clampI32(s24(a(l)).multiply(s24(b(l))).add(sb(c(l))))));
    }

    private static BigInteger s24(int x) {
        int v = x & 0xFFFFFF;
        return BigInteger.valueOf(v >= 0x800000 ? v - 0x1000000 : v);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void mad_64_bit_forms_report_carry_and_signed_overflow_in_the_sgpr_mask(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        String program = t.lanes(1, GuestAsm::a) + t.lanes(2, GuestAsm::b)
                + t.lanes(3, GuestAsm::c) + t.lanes(4, l -> b(l + 9))
                + "v_mad_u64_u32 v[20:21], " + t.maskOperand(10) + ", v1, v2, v[3:4]\n"
                + "v_mad_i64_i32 v[22:23], " + t.maskOperand(12) + ", v1, v2, v[3:4]\n"
                + "v_mad_u64_u32 v[24:25], " + t.maskOperand(14) + ", v1, v2, v[3:4] clamp\n";
        var out = t.run(program);
        long carry = 0;
        long overflow = 0;
        BigInteger two64 = BigInteger.ONE.shiftLeft(64);
        for (int l = 0; l < wave; l++) {
            BigInteger addU = ub(b(l + 9)).shiftLeft(32).or(ub(c(l)));
            BigInteger addS = sb(b(l + 9)).shiftLeft(32).or(ub(c(l)));
            BigInteger u = ub(a(l)).multiply(ub(b(l))).add(addU);
            BigInteger s = sb(a(l)).multiply(sb(b(l))).add(addS);
            assertEquals(u.longValue(), out.wave(0).vgpr64(20, l), "u64 lane " + l);
            assertEquals(s.longValue(), out.wave(0).vgpr64(22, l), "i64 lane " + l);
            assertEquals(u.compareTo(two64) >= 0 ? -1L : u.longValue(), out.wave(0).vgpr64(24, l), "clamped u64");
            if (u.compareTo(two64) >= 0) {
                carry |= 1L << l;
            }
            if (s.bitLength() > 63) {
                overflow |= 1L << l;
            }
        }
        assertEquals(carry, t.laneMask(out, 10));
        assertEquals(overflow, t.laneMask(out, 12));
    }
}
