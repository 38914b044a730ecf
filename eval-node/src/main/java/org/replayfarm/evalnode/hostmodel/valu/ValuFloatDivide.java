package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.model.fp.Format.F16;
import static org.replayfarm.model.fp.Format.F32;
import static org.replayfarm.model.fp.Format.F64;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import org.replayfarm.evalnode.hostmodel.LaneKernel;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.fp.Exact;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.fp.Rounding;

/**
 * The division helpers v_div_scale, v_div_fmas, v_div_fixup (f32, f64; fixup also f16) and the
 * Payne-Hanek helper v_trig_preop_f64, following the ISA guide's pseudocode (EXACT):
 * <ul>
 * <li>div_scale (S0 the value to scale, S1 the denominator, S2 the numerator): NaN when S1 or S2 is zero;
 * when the quotient is near overflow (exponent(S2) - exponent(S1) >= 96 / 768) VCC is set and the
 * denominator is scaled by 2^64 / 2^128; a denormal denominator scales by 2^64; a quotient that would be
 * denormal (rounded to the format: one that rounds to zero is not) sets VCC and scales the numerator by 2^64; a tiny numerator (exponent <= 23 / 53) scales by
 * 2^64; otherwise S0 unchanged. VCC (the sdst mask) gets the lane's flag.</li>
 * <li>div_fmas: fma(S0, S1, S2), and when the lane's VCC bit is set, scaled by 2^64 (2^128 for f64) when
 * exponent(S2) is above the bias, else by 2^-64 (2^-128): one rounding.</li>
 * <li>div_fixup (S0 the quotient, S1 the denominator, S2 the numerator): NaN sources (S2 first) quieted;
 * 0/0 and inf/inf give the negative quiet NaN; x/0 and inf/y infinity, x/inf and 0/y zero, of the
 * quotient's sign; a NaN quotient from finite non-zero operands (the Newton steps overflowed) the signed
 * infinity; otherwise |S0| with the quotient's sign.</li>
 * </ul>
 */
public final class ValuFloatDivide {
    private ValuFloatDivide() {
    }

    /** 2/pi to 1201 fraction bits: bit 1200 of this integer is the first fraction bit. */
    static final BigInteger TWO_OVER_PI_1201 = twoOverPi();

    public static void register(SemanticsTable.Builder b) {
        divScale(b, "v_div_scale_f32", F32, 96, 64, 23);
        divScale(b, "v_div_scale_f64", F64, 768, 128, 53);
        divFmas(b, "v_div_fmas_f32", F32, 64);
        divFmas(b, "v_div_fmas_f64", F64, 128);
        ValuFloat.ternary(b, "v_div_fixup_f16", F16, Fidelity.EXACT, (m, a, c, d) -> fixup(F16, m, a, c, d));
        ValuFloat.ternary(b, "v_div_fixup_f32", F32, Fidelity.EXACT, (m, a, c, d) -> fixup(F32, m, a, c, d));
        ValuFloat.ternary(b, "v_div_fixup_f64", F64, Fidelity.EXACT, (m, a, c, d) -> fixup(F64, m, a, c, d));
        trigPreop(b);
    }

    private static boolean denormalValue(Format f, double v) {
        // the smallest normal of the format (constants for f32 and f64: Math.scalb per lane was a hot spot)
        double min = f == F32 ? 0x1p-126 : f == F64 ? Double.MIN_NORMAL : Math.scalb(1.0, f.minExponent);
        return v != 0 && Math.abs(v) < min;
    }

    private static long scale(Format f, long a, int exp) {
        FpMode exact = new FpMode(0xF0); // scaling keeps denormals, rounds to nearest
        return FloatOps.ldexp(f, exact, a, exp);
    }

    private static void divScale(SemanticsTable.Builder b, String mnemonic, Format f, int nearMax, int by, int tiny) {
        LaneKernel.DivScale k = new LaneKernel.DivScale(f, nearMax, by, tiny);
        b.laneKernel(mnemonic, k);
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            long[] vcc = {0};
            Valu.forActiveLanes(w, insn, lane -> {
                long d = scaleLane(k, m, ValuFloat.source(w, insn, 0, lane, f), ValuFloat.source(w, insn, 1, lane, f),
                        ValuFloat.source(w, insn, 2, lane, f), vcc, lane);
                ValuFloat.write(w, insn, lane, m, f, d);
            });
            w.setLaneMask(ValuFloat.scalarDestination(insn), vcc[0]);
        });
    }

    /**
     * One lane of v_div_scale (both tiers): the result from the lane's sources (ABS/NEG applied), finished for
     * MODE (OMOD and CLAMP still to apply); sets bit {@code lane} of {@code vcc[0]} when the lane's flag is set.
     */
    public static long scaleLane(LaneKernel.DivScale k, FpMode m, long a0, long a1, long a2, long[] vcc, int lane) {
        Format f = k.f();
        int by = k.by();
        long s0 = m.input(f, a0);
        long s1 = m.input(f, a1);
        long s2 = m.input(f, a2);
        boolean flag = false;
        long d = s0;
        double x0 = f.toDouble(s0);
        double x1 = f.toDouble(s1);
        double x2 = f.toDouble(s2);
        // the ISA's "S2.f32 / S1.f32 == DENORM.f32": the quotient rounded to the format (2^-149 / 3 is zero,
        // not a denormal, and takes the tiny-numerator case); f64's is the double division itself
        double q = f == F32 ? (double) (float) (x2 / x1) : x2 / x1;
        if (f.isNaN(s0) || f.isNaN(s1) || f.isNaN(s2)) {
            d = FloatOps.firstNaN(f, s0, s1, s2);
        } else if (x2 == 0 || x1 == 0) {
            d = f.defaultNaN();
        } else if (f.exponentField(s2) - f.exponentField(s1) >= k.nearMax()) {
            flag = true;
            if (x0 == x1) {
                d = scale(f, s0, by);
            }
        } else if (f.isDenormal(s1)) {
            d = scale(f, s0, by);
        } else if (denormalValue(F64, 1 / x1) && denormalValue(f, q)) {
            flag = true;
            if (x0 == x1) {
                d = scale(f, s0, by);
            }
        } else if (denormalValue(F64, 1 / x1)) {
            d = scale(f, s0, -by);
        } else if (denormalValue(f, q)) {
            flag = true;
            if (x0 == x2) {
                d = scale(f, s0, by);
            }
        } else if (f.exponentField(s2) <= k.tiny()) {
            d = scale(f, s0, by);
        }
        if (flag) {
            vcc[0] |= 1L << lane;
        }
        return FloatOps.finish(f, m, d);
    }

    private static void divFmas(SemanticsTable.Builder b, String mnemonic, Format f, int by) {
        LaneKernel.DivFmas k = new LaneKernel.DivFmas(f, by);
        b.laneKernel(mnemonic, k);
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            long vcc = w.vcc();
            Valu.forActiveLanes(w, insn, lane -> ValuFloat.write(w, insn, lane, m, f, fmasLane(k, m,
                    ValuFloat.source(w, insn, 0, lane, f), ValuFloat.source(w, insn, 1, lane, f),
                    ValuFloat.source(w, insn, 2, lane, f), (vcc >>> lane & 1) != 0)));
        });
    }

    /**
     * One lane of v_div_fmas (both tiers): fma(S0, S1, S2) from the lane's sources (ABS/NEG applied), scaled when
     * the lane's VCC bit is set (OMOD and CLAMP still to apply).
     */
    public static long fmasLane(LaneKernel.DivFmas k, FpMode m, long s0, long s1, long s2, boolean vccBit) {
        Format f = k.f();
        long r = FloatOps.fma(f, m, s0, s1, s2);
        if (vccBit && !f.isNaN(r) && !f.isInfinite(r) && !f.isZero(r)) {
            int exp = f.exponentField(m.input(f, s2)) > f.bias() ? k.by() : -k.by();
            r = scaledFma(f, m, m.input(f, s0), m.input(f, s1), m.input(f, s2), exp);
        }
        return r;
    }

    /** (a * b + c) * 2^exp with one rounding, for a finite nonzero result. */
    private static long scaledFma(Format f, FpMode m, long a, long b, long c, int exp) {
        double x = f.toDouble(a);
        double y = f.toDouble(b);
        double z = f.toDouble(c);
        if (f == F64) {
            BigDecimal exact = Exact.big(x).multiply(Exact.big(y)).add(Exact.big(z));
            BigDecimal factor = new BigDecimal(BigInteger.TWO.pow(Math.abs(exp)));
            exact = exp >= 0 ? exact.multiply(factor) : exact.divide(factor);
            return FloatOps.finish(f, m, Double.doubleToRawLongBits(Rounding.toDouble(exact, m.round(f))));
        }
        double odd = Exact.oddFma(x, y, z);
        return FloatOps.finish(f, m, Rounding.round(Math.scalb(odd, exp), f, m.round(f)));
    }

    static long fixup(Format f, FpMode m, long s0, long s1, long s2) {
        s0 = m.input(f, s0);
        s1 = m.input(f, s1);
        s2 = m.input(f, s2);
        boolean negative = f.isNegative(s1) != f.isNegative(s2);
        long sign = negative ? f.signBit() : 0;
        long negativeNaN = f.defaultNaN() | f.signBit();
        if (f.isNaN(s2)) {
            return f.quiet(s2);
        }
        if (f.isNaN(s1)) {
            return f.quiet(s1);
        }
        if (f.isZero(s1) && f.isZero(s2) || f.isInfinite(s1) && f.isInfinite(s2)) {
            return negativeNaN;
        }
        if (f.isZero(s1) || f.isInfinite(s2)) {
            return sign | f.positiveInfinity();
        }
        if (f.isInfinite(s1) || f.isZero(s2)) {
            return sign;
        }
        int underflow = f == F16 ? -25 : f == F32 ? -150 : -1075;
        if (f.exponentField(s2) - f.exponentField(s1) < underflow) {
            return sign;
        }
        if (f.isNaN(s0)) {
            // finite / finite whose quotient overflowed: the scaled Newton steps meet inf - inf and hand
            // over a NaN; the hardware's overflow case answers the signed infinity (what IEEE division gives)
            return sign | f.positiveInfinity();
        }
        return sign | f.abs(s0);
    }

    /**
     * v_trig_preop_f64: 53 bits of 2/pi starting S1[4:0] * 53 bits into its fraction (further when S0's
     * biased exponent is above 1077), scaled so that the segments add up to 2/pi; an S0 exponent of 1968
     * or more scales the result by 2^128.
     */
    private static void trigPreop(SemanticsTable.Builder b) {
        Valu.register(b, "v_trig_preop_f64", Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long s0 = ValuFloat.source(w, insn, 0, lane, F64);
                int segment = Valu.source32(w, insn, 1, lane) & 31;
                ValuFloat.write(w, insn, lane, m, F64, trigPreop(s0, segment));
            });
        });
    }

    static long trigPreop(long s0, int segment) {
        int exponent = F64.exponentField(s0);
        int shift = segment * 53 + Math.max(0, exponent - 1077);
        int low = 1148 - shift;
        BigInteger bits = low >= 0 ? TWO_OVER_PI_1201.shiftRight(low) : TWO_OVER_PI_1201.shiftLeft(-low);
        long result = bits.and(BigInteger.ONE.shiftLeft(53).subtract(BigInteger.ONE)).longValueExact();
        int scale = -53 - shift + (exponent >= 1968 ? 128 : 0);
        return Double.doubleToRawLongBits(Math.scalb((double) result, scale));
    }

    /** floor(2/pi * 2^1201), from pi by Machin's formula at 420 decimal digits (about 1395 bits). */
    private static BigInteger twoOverPi() {
        MathContext mc = new MathContext(420);
        BigDecimal pi = arctanInverse(5, mc).multiply(BigDecimal.valueOf(16))
                .subtract(arctanInverse(239, mc).multiply(BigDecimal.valueOf(4)), mc);
        BigDecimal scaled = new BigDecimal(BigInteger.TWO.pow(1202)).divide(pi, mc);
        return scaled.toBigInteger();
    }

    /** arctan(1/n) by its series. */
    private static BigDecimal arctanInverse(int n, MathContext mc) {
        BigDecimal x = BigDecimal.ONE.divide(BigDecimal.valueOf(n), mc);
        BigDecimal x2 = x.multiply(x, mc);
        BigDecimal term = x;
        BigDecimal sum = x;
        BigDecimal epsilon = BigDecimal.ONE.movePointLeft(mc.getPrecision() + 5);
        for (int k = 1; term.abs().compareTo(epsilon) > 0; k++) {
            term = term.multiply(x2, mc).negate();
            sum = sum.add(term.divide(BigDecimal.valueOf(2L * k + 1), mc), mc);
        }
        return sum;
    }
}
