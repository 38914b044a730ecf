package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.model.fp.Format.F16;
import static org.replayfarm.model.fp.Format.F32;
import static org.replayfarm.model.fp.Format.F64;

import org.replayfarm.evalnode.hostmodel.LaneKernel;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.fp.Rounding;

/**
 * Float conversions and integer-valued rounding of the VALU (all EXACT):
 * <ul>
 * <li>float to integer (v_cvt_i32/u32/i16/u16_*): truncation toward zero, saturating at the integer's
 * range, NaN gives 0; v_cvt_flr_i32_f32 floors, v_cvt_rpi_i32_f32 floors x + 0.5;</li>
 * <li>integer to float and float to narrower float: rounded per the destination format's round mode;
 * NaN keeps sign and payload top bits, quieted;</li>
 * <li>v_cvt_norm_*: the f16 limited to [-1, 1] ([0, 1]) times 32767 (65535), rounded to nearest even;</li>
 * <li>v_trunc/ceil/floor/rndne/fract, v_frexp_mant/exp.</li>
 * </ul>
 * Denormal inputs are flushed per the source format's mode, results per the destination's.
 */
public final class ValuFloatConvert {
    private ValuFloatConvert() {
    }

    interface ToInt {
        long apply(double x);
    }

    public static void register(SemanticsTable.Builder b) {
        Fidelity x = Fidelity.EXACT;
        // float -> integer
        toInt(b, "v_cvt_i32_f32", F32, 32, v -> saturate(trunc(v), Integer.MIN_VALUE, Integer.MAX_VALUE));
        toInt(b, "v_cvt_u32_f32", F32, 32, v -> saturate(trunc(v), 0, 0xFFFF_FFFFL));
        toInt(b, "v_cvt_i32_f64", F64, 32, v -> saturate(trunc(v), Integer.MIN_VALUE, Integer.MAX_VALUE));
        toInt(b, "v_cvt_u32_f64", F64, 32, v -> saturate(trunc(v), 0, 0xFFFF_FFFFL));
        toInt(b, "v_cvt_flr_i32_f32", F32, 32, v -> saturate(Math.floor(v), Integer.MIN_VALUE, Integer.MAX_VALUE));
        toInt(b, "v_cvt_rpi_i32_f32", F32, 32,
                v -> saturate(Math.floor(v + 0.5), Integer.MIN_VALUE, Integer.MAX_VALUE));
        toInt(b, "v_cvt_i16_f16", F16, 16, v -> saturate(trunc(v), Short.MIN_VALUE, Short.MAX_VALUE));
        toInt(b, "v_cvt_u16_f16", F16, 16, v -> saturate(trunc(v), 0, 0xFFFF));
        toInt(b, "v_cvt_norm_i16_f16", F16, 16, v -> saturate(Math.rint(Math.max(-1, Math.min(1, v)) * 32767),
                Short.MIN_VALUE, Short.MAX_VALUE));
        toInt(b, "v_cvt_norm_u16_f16", F16, 16, v -> saturate(Math.rint(Math.max(0, Math.min(1, v)) * 65535),
                0, 0xFFFF));
        // integer -> float
        fromInt(b, "v_cvt_f32_i32", F32, false, v -> v);
        fromInt(b, "v_cvt_f32_u32", F32, false, v -> v & 0xFFFF_FFFFL);
        fromInt(b, "v_cvt_f64_i32", F64, false, v -> v);
        fromInt(b, "v_cvt_f64_u32", F64, false, v -> v & 0xFFFF_FFFFL);
        fromInt(b, "v_cvt_f16_i16", F16, true, v -> (short) v);
        fromInt(b, "v_cvt_f16_u16", F16, true, v -> v & 0xFFFF);
        for (int i = 0; i < 4; i++) {
            int shift = 8 * i;
            fromInt(b, "v_cvt_f32_ubyte" + i, F32, false, v -> v >>> shift & 0xFF);
        }
        // v_cvt_off_f32_i4: the signed 4-bit S0[3:0] / 16
        fromIntScaled(b);
        // float -> float
        convert(b, "v_cvt_f32_f16", F16, F32);
        convert(b, "v_cvt_f16_f32", F32, F16);
        convert(b, "v_cvt_f32_f64", F64, F32);
        convert(b, "v_cvt_f64_f32", F32, F64);
        // integer-valued rounding, fract, frexp
        for (Format f : new Format[] {F16, F32, F64}) {
            String t = ValuFloatArith.suffix(f);
            ValuFloat.unary(b, "v_trunc" + t, f, x, (m, a) -> integral(f, m, a, ValuFloatConvert::trunc));
            ValuFloat.unary(b, "v_ceil" + t, f, x, (m, a) -> integral(f, m, a, Math::ceil));
            ValuFloat.unary(b, "v_floor" + t, f, x, (m, a) -> integral(f, m, a, Math::floor));
            ValuFloat.unary(b, "v_rndne" + t, f, x, (m, a) -> integral(f, m, a, Math::rint));
            ValuFloat.unary(b, "v_fract" + t, f, x, (m, a) -> fract(f, m, a));
            ValuFloat.unary(b, "v_frexp_mant" + t, f, x, (m, a) -> frexpMant(f, m, a));
            frexpExp(b, f == F16 ? "v_frexp_exp_i16_f16" : "v_frexp_exp_i32" + t, f);
        }
    }

    static double trunc(double v) {
        return v < 0 ? Math.ceil(v) : Math.floor(v);
    }

    /** NaN gives 0; otherwise the integral value limited to [lo, hi]. */
    static long saturate(double v, long lo, long hi) {
        if (Double.isNaN(v)) {
            return 0;
        }
        if (v <= lo) {
            return lo;
        }
        if (v >= hi) {
            return hi;
        }
        return (long) v;
    }

    private static void toInt(SemanticsTable.Builder b, String mnemonic, Format f, int width, ToInt op) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long a = m.input(f, ValuFloat.source(w, insn, 0, lane, f));
                long r = op.apply(f.isNaN(a) ? Double.NaN : f.toDouble(a));
                if (width == 16) {
                    Valu.writeResult16(w, insn, lane, (int) r & 0xFFFF);
                } else {
                    Valu.writeResult32(w, insn, lane, (int) r);
                }
            });
        });
    }

    public interface IntSource {
        long apply(long bits);
    }

    private static void fromInt(SemanticsTable.Builder b, String mnemonic, Format f, boolean source16, IntSource op) {
        if (!source16) {
            b.laneKernel(mnemonic, new LaneKernel.IntToFloat(f, op));
        }
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long bits = source16 ? Valu.source16(w, insn, 0, lane) : Valu.source32(w, insn, 0, lane);
                double v = op.apply(bits);
                ValuFloat.write(w, insn, lane, m, f, FloatOps.fromDouble(f, m, v));
            });
        });
    }

    private static void fromIntScaled(SemanticsTable.Builder b) {
        Valu.register(b, "v_cvt_off_f32_i4", Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                int nibble = Valu.source32(w, insn, 0, lane) << 28 >> 28;
                ValuFloat.write(w, insn, lane, m, F32, FloatOps.fromDouble(F32, m, nibble / 16.0));
            });
        });
    }

    private static void convert(SemanticsTable.Builder b, String mnemonic, Format from, Format to) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> ValuFloat.write(w, insn, lane, m, to,
                    FloatOps.convert(from, to, m, ValuFloat.source(w, insn, 0, lane, from))));
        });
    }

    interface Integral {
        double apply(double v);
    }

    /** trunc/ceil/floor/rndne: exact, sign of zero kept, NaN quieted, infinities unchanged. */
    static long integral(Format f, FpMode m, long a, Integral op) {
        a = m.input(f, a);
        if (f.isNaN(a)) {
            return f.quiet(a);
        }
        double v = f.toDouble(a);
        double r = op.apply(v);
        if (r == 0) {
            r = Math.copySign(0.0, v);
        }
        return FloatOps.finish(f, m, Rounding.round(r, f, Rounding.NEAREST_EVEN));
    }

    /** v_fract_*: S0 - floor(S0), limited to the largest value below 1; infinity gives NaN. */
    static long fract(Format f, FpMode m, long a) {
        a = m.input(f, a);
        if (f.isNaN(a)) {
            return f.quiet(a);
        }
        if (f.isInfinite(a)) {
            return f.defaultNaN();
        }
        long floor = integral(f, m, a, Math::floor);
        long r = FloatOps.add(f, m, a, f.negate(floor));
        long belowOne = f.one() - 1;
        if (!f.isNegative(r) && r > belowOne) {
            return belowOne;
        }
        return r;
    }

    /** v_frexp_mant_*: the mantissa in [0.5, 1) with the sign; zero, infinity and NaN (quieted) as they are. */
    static long frexpMant(Format f, FpMode m, long a) {
        a = m.input(f, a);
        if (f.isNaN(a)) {
            return f.quiet(a);
        }
        if (f.isInfinite(a) || f.isZero(a)) {
            return a;
        }
        double v = f.toDouble(a);
        double mant = Math.scalb(v, -frexpExponent(v));
        return Rounding.round(mant, f, Rounding.NEAREST_EVEN);
    }

    /**
     * e with |v| = m * 2^e, m in [0.5, 1), for a finite non-zero v. Math.getExponent answers -1023 for every
     * double denormal; an f64 denormal source (kept when MODE.FP_DENORM allows) has its own exponent.
     */
    public static int frexpExponent(double v) {
        if (Math.abs(v) < Double.MIN_NORMAL) {
            return Math.getExponent(Math.scalb(v, 64)) - 64 + 1;
        }
        return Math.getExponent(v) + 1;
    }

    /** v_frexp_exp_*: the exponent e with S0 = mant * 2^e, mant in [0.5, 1); 0 for zero, infinity, NaN. */
    private static void frexpExp(SemanticsTable.Builder b, String mnemonic, Format f) {
        b.laneKernel(mnemonic, new LaneKernel.FrexpExp(f));
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long a = m.input(f, ValuFloat.source(w, insn, 0, lane, f));
                int e = f.isNaN(a) || f.isInfinite(a) || f.isZero(a) ? 0 : frexpExponent(f.toDouble(a));
                if (f == F16) {
                    Valu.writeResult16(w, insn, lane, e & 0xFFFF);
                } else {
                    Valu.writeResult32(w, insn, lane, e);
                }
            });
        });
    }
}
