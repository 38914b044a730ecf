package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * VOPC compares (RDNA 2 ISA, "VOPC Instructions"): every integer and float condition of every type,
 * NaN operands (ordered conditions false, the "n" negations true), the class masks, results only for
 * active lanes with inactive lanes 0, v_cmpx writing EXEC, e64 forms writing any SGPR mask and SDWA
 * forms writing SDST. Expected relations come from BigDecimal / BigInteger comparisons of the operand
 * values decoded in the test.
 */
@Tag("unit")
class ValuCompareTest {
    @TempDir
    Path dir;

    private enum Rel { LT, EQ, GT, UN }

    /** The relations each float condition is true for (the ISA's condition table). */
    private static final Map<String, Set<Rel>> FLOAT = Map.ofEntries(
            Map.entry("f", Set.of()), Map.entry("lt", Set.of(Rel.LT)), Map.entry("eq", Set.of(Rel.EQ)),
            Map.entry("le", Set.of(Rel.LT, Rel.EQ)), Map.entry("gt", Set.of(Rel.GT)),
            Map.entry("lg", Set.of(Rel.LT, Rel.GT)), Map.entry("ge", Set.of(Rel.GT, Rel.EQ)),
            Map.entry("o", Set.of(Rel.LT, Rel.EQ, Rel.GT)), Map.entry("u", Set.of(Rel.UN)),
            Map.entry("nge", Set.of(Rel.LT, Rel.UN)), Map.entry("nlg", Set.of(Rel.EQ, Rel.UN)),
            Map.entry("ngt", Set.of(Rel.LT, Rel.EQ, Rel.UN)), Map.entry("nle", Set.of(Rel.GT, Rel.UN)),
            Map.entry("neq", Set.of(Rel.LT, Rel.GT, Rel.UN)), Map.entry("nlt", Set.of(Rel.GT, Rel.EQ, Rel.UN)),
            Map.entry("tru", Set.of(Rel.LT, Rel.EQ, Rel.GT, Rel.UN)));

    private static final Map<String, Set<Rel>> INTEGER = Map.of(
            "f", Set.of(), "lt", Set.of(Rel.LT), "eq", Set.of(Rel.EQ), "le", Set.of(Rel.LT, Rel.EQ),
            "gt", Set.of(Rel.GT), "ne", Set.of(Rel.LT, Rel.GT), "ge", Set.of(Rel.GT, Rel.EQ),
            "t", Set.of(Rel.LT, Rel.EQ, Rel.GT));

    /** gfx10 has no v_cmp_f / v_cmp_t for 16-bit integers. */
    private static final Map<String, Set<Rel>> INTEGER16 = Map.of(
            "lt", Set.of(Rel.LT), "eq", Set.of(Rel.EQ), "le", Set.of(Rel.LT, Rel.EQ),
            "gt", Set.of(Rel.GT), "ne", Set.of(Rel.LT, Rel.GT), "ge", Set.of(Rel.GT, Rel.EQ));

    private static final int[] F32 = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
        0x7fc00000, 0x7f800001, 0xffc00001, 0x00000001, 0x807fffff, 0x7f7fffff, 0x3f800001, 0x40490fdb};
    private static final int[] F16 = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01,
        0x0001, 0x83ff, 0x7bff, 0x3c01, 0x4248};
    private static final long[] F64 = {0L, 0x8000000000000000L, 0x3ff0000000000000L, 0xbff0000000000000L,
        0x7ff0000000000000L, 0xfff0000000000000L, 0x7ff8000000000000L, 0x7ff0000000000001L, 0xfff8000000000001L,
        1L, 0x800fffffffffffffL, 0x7fefffffffffffffL, 0x3ff0000000000001L, 0x400921fb54442d18L};

    private static int ia(int lane) {
        return lane % 14;
    }

    private static int ib(int lane) {
        return (lane * 5 + lane / 14) % 14;
    }

    /** An IEEE value with {@code e} exponent bits and {@code m} mantissa bits, or null for NaN. */
    private static BigDecimal decode(long bits, int e, int m) {
        long exponent = bits >>> m & ((1L << e) - 1);
        long mantissa = bits & ((1L << m) - 1);
        boolean negative = (bits >>> (e + m) & 1) != 0;
        long max = (1L << e) - 1;
        if (exponent == max) {
            if (mantissa != 0) {
                return null;
            }
            // infinities: a value beyond every finite one
            BigDecimal inf = BigDecimal.TEN.pow(400);
            return negative ? inf.negate() : inf;
        }
        long bias = (1L << (e - 1)) - 1;
        BigDecimal significand = exponent == 0 ? BigDecimal.valueOf(mantissa)
                : BigDecimal.valueOf(mantissa + (1L << m));
        long power = (exponent == 0 ? 1 - bias : exponent - bias) - m;
        BigDecimal scale = new BigDecimal(BigInteger.TWO.pow((int) Math.abs(power)));
        BigDecimal v = power >= 0 ? significand.multiply(scale) : significand.divide(scale);
        return negative ? v.negate() : v;
    }

    private static Rel relation(BigDecimal x, BigDecimal y) {
        if (x == null || y == null) {
            return Rel.UN;
        }
        int c = x.compareTo(y);
        return c < 0 ? Rel.LT : c == 0 ? Rel.EQ : Rel.GT;
    }

    /** Runs every condition of a type as e64 compares into s20, s22, ... and checks each mask. */
    private void checkAll(int wave, String type, Map<String, Set<Rel>> conditions, String operands, String setup,
                          IntUnaryOperator relationOfLane, long active) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        List<String> names = new ArrayList<>(conditions.keySet());
        StringBuilder p = new StringBuilder(setup).append(t.exec(active, 30));
        for (int i = 0; i < names.size(); i++) {
            p.append("v_cmp_").append(names.get(i)).append('_').append(type).append("_e64 ")
                    .append(t.maskOperand(20 + 2 * i)).append(", ").append(operands).append('\n');
        }
        var out = t.run(p.toString());
        for (int i = 0; i < names.size(); i++) {
            long expected = 0;
            for (int l = 0; l < wave; l++) {
                Rel r = Rel.values()[relationOfLane.applyAsInt(l)];
                if ((active >>> l & 1) != 0 && conditions.get(names.get(i)).contains(r)) {
                    expected |= 1L << l;
                }
            }
            assertEquals(expected, t.laneMask(out, 20 + 2 * i), "v_cmp_" + names.get(i) + "_" + type + " wave" + wave);
        }
    }

    private static long someInactive(int wave) {
        return wave == 32 ? 0xFFFF_7FFEL : 0xFFFE_FFFF_7FFF_FFFFL;
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void f32_conditions_order_values_and_treat_nan_as_unordered(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        checkAll(wave, "f32", FLOAT, "v1, v2", t.lanes(1, l -> F32[ia(l)]) + t.lanes(2, l -> F32[ib(l)]),
                l -> relation(decode(F32[ia(l)] & 0xFFFFFFFFL, 8, 23), decode(F32[ib(l)] & 0xFFFFFFFFL, 8, 23)).ordinal(),
                someInactive(wave));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void f64_conditions(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        checkAll(wave, "f64", FLOAT, "v[1:2], v[3:4]", t.lanes(1, l -> (int) F64[ia(l)])
                        + t.lanes(2, l -> (int) (F64[ia(l)] >>> 32)) + t.lanes(3, l -> (int) F64[ib(l)])
                        + t.lanes(4, l -> (int) (F64[ib(l)] >>> 32)),
                l -> relation(decode(F64[ia(l)], 11, 52), decode(F64[ib(l)], 11, 52)).ordinal(), someInactive(wave));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void f16_conditions_read_the_low_half(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        checkAll(wave, "f16", FLOAT, "v1, v2", t.lanes(1, l -> F16[ia(l)] | 0x7e000000)
                        + t.lanes(2, l -> F16[ib(l)] | 0x12340000),
                l -> relation(decode(F16[ia(l)], 5, 10), decode(F16[ib(l)], 5, 10)).ordinal(), someInactive(wave));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void f32_modifiers_apply_before_comparing(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        checkAll(wave, "f32", FLOAT, "-|v1|, v2", t.lanes(1, l -> F32[ia(l)]) + t.lanes(2, l -> F32[ib(l)]),
                l -> relation(decode((F32[ia(l)] | 0x80000000) & 0xFFFFFFFFL, 8, 23),
                        decode(F32[ib(l)] & 0xFFFFFFFFL, 8, 23)).ordinal(), t.allLanes());
    }

    private static final int[] INTS = {0, 1, -1, 0x7FFFFFFF, 0x80000000, 0x8000, 0x7FFF, 0xFFFF, 2, -2};

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void integer_conditions_signed_and_unsigned_at_16_32_and_64_bits(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        IntUnaryOperator x = l -> INTS[l % 10];
        IntUnaryOperator y = l -> INTS[(l * 3 + l / 10) % 10];
        IntUnaryOperator hi = l -> INTS[(l * 7 + 1) % 10];
        String setup = t.lanes(1, x) + t.lanes(2, hi) + t.lanes(3, y) + t.lanes(4, l -> l % 3 == 0 ? hi.applyAsInt(l) : ~l);
        long active = someInactive(wave);
        checkAll(wave, "i32", INTEGER, "v1, v3", setup,
                l -> cmp(BigInteger.valueOf(x.applyAsInt(l)), BigInteger.valueOf(y.applyAsInt(l))), active);
        checkAll(wave, "u32", INTEGER, "v1, v3", setup,
                l -> cmp(u32(x.applyAsInt(l)), u32(y.applyAsInt(l))), active);
        checkAll(wave, "i16", INTEGER16, "v1, v3", setup,
                l -> cmp(BigInteger.valueOf((short) x.applyAsInt(l)), BigInteger.valueOf((short) y.applyAsInt(l))), active);
        checkAll(wave, "u16", INTEGER16, "v1, v3", setup,
                l -> cmp(BigInteger.valueOf(x.applyAsInt(l) & 0xFFFF), BigInteger.valueOf(y.applyAsInt(l) & 0xFFFF)), active);
        IntUnaryOperator y64hi = l -> l % 3 == 0 ? hi.applyAsInt(l) : ~l;
        checkAll(wave, "i64", INTEGER, "v[1:2], v[3:4]", setup,
                l -> cmp(BigInteger.valueOf(hi.applyAsInt(l)).shiftLeft(32).or(u32(x.applyAsInt(l))),
                        BigInteger.valueOf(y64hi.applyAsInt(l)).shiftLeft(32).or(u32(y.applyAsInt(l)))), active);
        checkAll(wave, "u64", INTEGER, "v[1:2], v[3:4]", setup,
                l -> cmp(u32(hi.applyAsInt(l)).shiftLeft(32).or(u32(x.applyAsInt(l))),
                        u32(y64hi.applyAsInt(l)).shiftLeft(32).or(u32(y.applyAsInt(l)))), active);
    }

    private static BigInteger u32(int v) {
        return BigInteger.valueOf(v & 0xFFFFFFFFL);
    }

    private static int cmp(BigInteger a, BigInteger b) {
        int c = a.compareTo(b);
        return (c < 0 ? Rel.LT : c == 0 ? Rel.EQ : Rel.GT).ordinal();
    }

    /** The class bit of each F32 / F16 / F64 corner (same order in each table). */
    private static final int[] CLASS = {6, 5, 8, 3, 9, 2, 1, 0, 1, 7, 4, 8, 8, 8};

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void class_tests_report_membership_in_the_mask_for_every_class(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        // lane l tests corner l % 14 against mask bit (l / 14 + l) % 10 plus a mask of every class
        IntUnaryOperator maskOf = l -> 1 << ((l / 14 + l) % 10);
        String p = t.lanes(1, l -> F32[ia(l)]) + t.lanes(2, l -> F16[ia(l)]) + t.lanes(3, l -> (int) F64[ia(l)])
                + t.lanes(4, l -> (int) (F64[ia(l)] >>> 32)) + t.lanes(5, maskOf)
                + "v_cmp_class_f32_e64 " + t.maskOperand(20) + ", v1, v5\n"
                + "v_cmp_class_f16_e64 " + t.maskOperand(22) + ", v2, v5\n"
                + "v_cmp_class_f64_e64 " + t.maskOperand(24) + ", v[3:4], v5\n"
                + "v_cmp_class_f32_e64 " + t.maskOperand(26) + ", v1, 0x3ff\n"
                + "v_cmp_class_f32_e64 " + t.maskOperand(28) + ", -v1, v5\n"
                + "v_cmp_class_f32_e32 " + t.vcc() + ", v1, v5\n";
        var out = t.run(p);
        long expected = 0;
        long negated = 0;
        int[] negClass = {5, 6, 3, 8, 2, 9, 1, 0, 1, 4, 7, 3, 3, 3};
        for (int l = 0; l < wave; l++) {
            if ((maskOf.applyAsInt(l) >>> CLASS[ia(l)] & 1) != 0) {
                expected |= 1L << l;
            }
            if ((maskOf.applyAsInt(l) >>> negClass[ia(l)] & 1) != 0) {
                negated |= 1L << l;
            }
        }
        assertEquals(expected, t.laneMask(out, 20), "f32");
        assertEquals(expected, t.laneMask(out, 22), "f16");
        assertEquals(expected, t.laneMask(out, 24), "f64");
        assertEquals(t.allLanes(), t.laneMask(out, 26), "every class");
        assertEquals(negated, t.laneMask(out, 28), "neg flips the sign before classifying");
        assertEquals(expected, out.wave(0).vcc(), "e32 into VCC");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void cmpx_writes_exec_with_inactive_lanes_staying_off_and_e32_writes_vcc(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long active = someInactive(wave);
        String p = t.lanes(1, l -> l) + t.mask(20, 0x5555_5555_5555_5555L & t.allLanes(), 9) + t.exec(active, 9)
                + "v_cmp_lt_u32_e32 " + t.vcc() + ", 10, v1\n"
                + "v_cmp_gt_i32_e64 " + t.maskOperand(20) + ", 20, v1\n"
                + "v_cmpx_le_u32_e32 5, v1\n"
                + "v_mov_b32 v2, 1\n";
        var out = t.run(p);
        long above10 = 0;
        long below20 = 0;
        long atLeast5 = 0;
        for (int l = 0; l < wave; l++) {
            if ((active >>> l & 1) == 0) {
                continue;
            }
            above10 |= l > 10 ? 1L << l : 0;
            below20 |= l < 20 ? 1L << l : 0;
            atLeast5 |= l >= 5 ? 1L << l : 0;
        }
        assertEquals(above10, out.wave(0).vcc());
        assertEquals(below20, t.laneMask(out, 20), "inactive lanes' bits written 0");
        assertEquals(atLeast5, out.wave(0).exec());
        long exec = atLeast5;
        t.expect(out, 2, l -> (exec >>> l & 1) != 0 ? 1 : 0, "only lanes the compare left on run");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void sdwa_compares_select_operand_parts_and_write_sdst_or_vcc(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        String p = t.lanes(1, l -> l << 16 | 0xFFFF) + t.lanes(2, l -> 0xFF00 | (l * 3 & 0xFF))
                + "v_cmp_lt_u32_sdwa " + t.maskOperand(20) + ", v1, v2 src0_sel:WORD_1 src1_sel:BYTE_0\n"
                + "v_cmp_lt_i32_sdwa " + t.vcc() + ", sext(v1), v2 src0_sel:WORD_0 src1_sel:DWORD\n"
                + "v_cmp_eq_f16_sdwa " + t.maskOperand(22) + ", v1, v2 src0_sel:WORD_1 src1_sel:WORD_1\n";
        var out = t.run(p);
        long lt = 0;
        long eq = 0;
        for (int l = 0; l < wave; l++) {
            lt |= l < (l * 3 & 0xFF) ? 1L << l : 0;
            eq |= l == 0 ? 1L << l : 0; // half l == half 0 only for lane 0 (0x0000 vs 0x0000)
        }
        assertEquals(lt, t.laneMask(out, 20), "word 1 against byte 0");
        assertEquals(t.allLanes(), out.wave(0).vcc(), "sext(0xffff) = -1 is below every positive value");
        assertEquals(eq, t.laneMask(out, 22), "f16 halves");
    }
}
