package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.model.fp.Format.F16;
import static org.replayfarm.model.fp.Format.F32;

import java.math.BigDecimal;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.fp.Exact;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.fp.Rounding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * Packed and mixed-precision float instructions: the VOP3P f16 pairs (v_pk_add/mul/fma/min/max_f16,
 * with OP_SEL choosing the half each source gives the low result, OP_SEL_HI the half for the high result,
 * NEG_LO / NEG_HI negating them), v_pk_fmac_f16, v_dot2_f32_f16 / v_dot2c_f32_f16, v_fma_mix_f32 /
 * mixlo / mixhi (OP_SEL_HI set: the source is the f16 half OP_SEL picks; clear: an f32; NEG_LO negates,
 * NEG_HI takes the absolute value), and the packing conversions v_cvt_pkrtz_f16_f32,
 * v_cvt_pknorm_i16/u16_f32/f16, v_cvt_pk_u8_f32.
 *
 * <p>An inline constant read as a packed source holds its 16-bit value in both halves (a float constant
 * in f16 form); a literal or register gives its 32 bits.
 */
public final class ValuFloatPacked {
    private ValuFloatPacked() {
    }

    public static void register(SemanticsTable.Builder b) {
        packed2(b, "v_pk_add_f16", (m, x, y) -> FloatOps.add(F16, m, x, y));
        packed2(b, "v_pk_mul_f16", (m, x, y) -> FloatOps.mul(F16, m, x, y));
        packed2(b, "v_pk_min_f16", (m, x, y) -> FloatOps.min(F16, m, x, y));
        packed2(b, "v_pk_max_f16", (m, x, y) -> FloatOps.max(F16, m, x, y));
        Valu.register(b, "v_pk_fma_f16", Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                int lo = (int) FloatOps.fma(F16, m, half(w, insn, 0, lane, false), half(w, insn, 1, lane, false),
                        half(w, insn, 2, lane, false));
                int hi = (int) FloatOps.fma(F16, m, half(w, insn, 0, lane, true), half(w, insn, 1, lane, true),
                        half(w, insn, 2, lane, true));
                writePacked(w, insn, lane, m, lo, hi);
            });
        });
        Valu.register(b, "v_pk_fmac_f16", Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                int s0 = packedSource(w, insn, 0, lane);
                int s1 = packedSource(w, insn, 1, lane);
                int d = w.vgpr(Valu.vdst(insn), lane);
                int lo = (int) FloatOps.fma(F16, m, s0 & 0xFFFF, s1 & 0xFFFF, d & 0xFFFF);
                int hi = (int) FloatOps.fma(F16, m, s0 >>> 16, s1 >>> 16, d >>> 16);
                writePacked(w, insn, lane, m, lo, hi);
            });
        });
        dot2(b, "v_dot2_f32_f16", false);
        dot2(b, "v_dot2c_f32_f16", true);
        mix(b, "v_fma_mix_f32", 0);
        mix(b, "v_fma_mixlo_f16", 1);
        mix(b, "v_fma_mixhi_f16", 2);
        conversions(b);
    }

    interface Half2 {
        long apply(FpMode m, long x, long y);
    }

    /** A source's 32 bits for packed use: an inline constant in both halves, anything else as read. */
    static int packedSource(Wave w, Instruction insn, int n, int lane) {
        int code = Valu.sourceCode(insn, n);
        if (code >= 128 && code <= 208 || code >= 240 && code <= 248) {
            int h = w.source16(code, insn) & 0xFFFF;
            return h | h << 16;
        }
        return Valu.source32(w, insn, n, lane);
    }

    /** The f16 a VOP3P source gives the low (hi = false) or high result, OP_SEL(_HI) and NEG_LO/HI applied. */
    static long half(Wave w, Instruction insn, int n, int lane, boolean hi) {
        Fields.Vop3p p = (Fields.Vop3p) insn.fields();
        int bits = packedSource(w, insn, n, lane);
        boolean upper = ((hi ? p.opselHi() : p.opsel()) >>> n & 1) != 0;
        int h = (upper ? bits >>> 16 : bits) & 0xFFFF;
        if (((hi ? p.negHi() : p.negLo()) >>> n & 1) != 0) {
            h ^= 0x8000;
        }
        return h;
    }

    private static void writePacked(Wave w, Instruction insn, int lane, FpMode m, long lo, long hi) {
        if (Valu.clamp(insn)) {
            lo = FloatOps.clamp(F16, m, lo);
            hi = FloatOps.clamp(F16, m, hi);
        }
        Valu.writeResult32(w, insn, lane, (int) (lo & 0xFFFF | (hi & 0xFFFF) << 16));
    }

    private static void packed2(SemanticsTable.Builder b, String mnemonic, Half2 op) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> writePacked(w, insn, lane, m,
                    op.apply(m, half(w, insn, 0, lane, false), half(w, insn, 1, lane, false)),
                    op.apply(m, half(w, insn, 0, lane, true), half(w, insn, 1, lane, true))));
        });
    }

    /**
     * v_dot2_f32_f16: D = S0.lo * S1.lo + S0.hi * S1.hi + S2 (f32); v_dot2c_f32_f16 accumulates into D.
     * APPROXIMATE: the model rounds the exact sum once (f32 round mode); the ISA guide does not say how the
     * hardware rounds the intermediate sum, so results may differ by an ulp of f32.
     */
    private static void dot2(SemanticsTable.Builder b, String mnemonic, boolean accumulate) {
        Valu.register(b, mnemonic, Fidelity.APPROXIMATE, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long a0;
                long a1;
                long b0;
                long b1;
                long c;
                if (insn.fields() instanceof Fields.Vop3p) {
                    a0 = half(w, insn, 0, lane, false);
                    a1 = half(w, insn, 0, lane, true);
                    b0 = half(w, insn, 1, lane, false);
                    b1 = half(w, insn, 1, lane, true);
                    c = Integer.toUnsignedLong(Valu.source32(w, insn, 2, lane));
                } else {
                    int s0 = Valu.floatSource(w, insn, 0, lane);
                    int s1 = Valu.floatSource(w, insn, 1, lane);
                    a0 = s0 & 0xFFFF;
                    a1 = s0 >>> 16;
                    b0 = s1 & 0xFFFF;
                    b1 = s1 >>> 16;
                    c = Integer.toUnsignedLong(w.vgpr(Valu.vdst(insn), lane));
                }
                ValuFloat.write(w, insn, lane, m, F32, dot2(m, a0, a1, b0, b1, c));
            });
        });
    }

    static long dot2(FpMode m, long a0, long a1, long b0, long b1, long c) {
        a0 = m.input(F16, a0);
        a1 = m.input(F16, a1);
        b0 = m.input(F16, b0);
        b1 = m.input(F16, b1);
        c = m.input(F32, c);
        long[] halves = {a0, a1, b0, b1};
        for (long h : halves) {
            if (F16.isNaN(h)) {
                return FloatOps.convertNaN(F16, F32, h);
            }
        }
        if (F32.isNaN(c)) {
            return F32.quiet(c);
        }
        double p0 = F16.toDouble(a0) * F16.toDouble(b0);
        double p1 = F16.toDouble(a1) * F16.toDouble(b1);
        double z = F32.toDouble(c);
        double inexact = p0 + p1 + z;
        if (Double.isNaN(inexact)) {
            return F32.defaultNaN();
        }
        if (Double.isInfinite(p0) || Double.isInfinite(p1) || Double.isInfinite(z)) {
            return F32.fromExactDouble(inexact);
        }
        BigDecimal exact = Exact.big(p0).add(Exact.big(p1)).add(Exact.big(z));
        if (exact.signum() == 0) {
            return FloatOps.add(F32, m, F32.fromExactDouble(p0 + p1), c);
        }
        return FloatOps.finish(F32, m, Rounding.round(Rounding.toOddDouble(exact), F32, m.round(F32)));
    }

    /** A v_fma_mix source as f32 bits: OP_SEL_HI picks f16 (the OP_SEL half) or f32; NEG_HI abs, NEG_LO neg. */
    static long mixSource(Wave w, Instruction insn, int n, int lane, FpMode m) {
        Fields.Vop3p p = (Fields.Vop3p) insn.fields();
        long f;
        if ((p.opselHi() >>> n & 1) != 0) {
            int bits = packedSource(w, insn, n, lane);
            int h = ((p.opsel() >>> n & 1) != 0 ? bits >>> 16 : bits) & 0xFFFF;
            f = FloatOps.convert(F16, F32, new FpMode(m.value() | 0xC0), m.input(F16, h));
        } else {
            f = Integer.toUnsignedLong(Valu.source32(w, insn, n, lane));
        }
        if ((p.negHi() >>> n & 1) != 0) {
            f = F32.abs(f);
        }
        if ((p.negLo() >>> n & 1) != 0) {
            f = F32.negate(f);
        }
        return f;
    }

    /** v_fma_mix*: an f32 fma of mixed sources; mixlo/mixhi convert it to f16 into the low/high half. */
    private static void mix(SemanticsTable.Builder b, String mnemonic, int target) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long r = FloatOps.fma(F32, m, mixSource(w, insn, 0, lane, m), mixSource(w, insn, 1, lane, m),
                        mixSource(w, insn, 2, lane, m));
                if (target == 0) {
                    ValuFloat.write(w, insn, lane, m, F32, r);
                    return;
                }
                long h = FloatOps.convert(F32, F16, m, r);
                if (Valu.clamp(insn)) {
                    h = FloatOps.clamp(F16, m, h);
                }
                int reg = Valu.vdst(insn);
                int old = w.vgpr(reg, lane);
                w.setVgpr(reg, lane, target == 1 ? (old & 0xFFFF0000) | (int) h : (old & 0xFFFF) | (int) h << 16);
            });
        });
    }

    private static void conversions(SemanticsTable.Builder b) {
        // v_cvt_pkrtz_f16_f32: D = {f16(S1), f16(S0)}, both rounded toward zero whatever the mode
        Valu.register(b, "v_cvt_pkrtz_f16_f32", Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            FpMode rtz = new FpMode(m.value() | 0xC);
            Valu.forActiveLanes(w, insn, lane -> {
                long lo = FloatOps.convert(F32, F16, rtz, Integer.toUnsignedLong(Valu.floatSource(w, insn, 0, lane)));
                long hi = FloatOps.convert(F32, F16, rtz, Integer.toUnsignedLong(Valu.floatSource(w, insn, 1, lane)));
                writePacked(w, insn, lane, m, lo, hi);
            });
        });
        pknorm(b, "v_cvt_pknorm_i16_f32", false, true);
        pknorm(b, "v_cvt_pknorm_u16_f32", false, false);
        pknorm(b, "v_cvt_pknorm_i16_f16", true, true);
        pknorm(b, "v_cvt_pknorm_u16_f16", true, false);
        // v_cvt_pk_u8_f32: S2 with byte S1[1:0] replaced by S0 as an unsigned byte (rounded to an integer
        // per the f32 round mode, saturated to [0, 255], NaN 0)
        Valu.register(b, "v_cvt_pk_u8_f32", Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long a = m.input(F32, Integer.toUnsignedLong(Valu.floatSource(w, insn, 0, lane)));
                int shift = 8 * (Valu.source32(w, insn, 1, lane) & 3);
                int old = Valu.source32(w, insn, 2, lane);
                double v = F32.isNaN(a) ? Double.NaN : roundToInteger(F32.toDouble(a), m.round(F32));
                int u8 = (int) ValuFloatConvert.saturate(v, 0, 255);
                Valu.writeResult32(w, insn, lane, old & ~(0xFF << shift) | u8 << shift);
            });
        });
    }

    /** An integer by a MODE round mode: nearest even, up, down, toward zero. */
    static double roundToInteger(double v, int mode) {
        return switch (mode) {
            case Rounding.PLUS_INFINITY -> Math.ceil(v);
            case Rounding.MINUS_INFINITY -> Math.floor(v);
            case Rounding.TOWARD_ZERO -> ValuFloatConvert.trunc(v);
            default -> Math.rint(v);
        };
    }

    /** v_cvt_pknorm_*: D = {norm16(S1), norm16(S0)}: limited to [-1, 1] / [0, 1], scaled, nearest even. */
    private static void pknorm(SemanticsTable.Builder b, String mnemonic, boolean f16, boolean signed) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                int lo = norm(m, f16, signed, f16 ? ValuFloat.source(w, insn, 0, lane, F16)
                        : ValuFloat.source(w, insn, 0, lane, F32));
                int hi = norm(m, f16, signed, f16 ? ValuFloat.source(w, insn, 1, lane, F16)
                        : ValuFloat.source(w, insn, 1, lane, F32));
                Valu.writeResult32(w, insn, lane, lo & 0xFFFF | hi << 16);
            });
        });
    }

    static int norm(FpMode m, boolean f16, boolean signed, long bits) {
        var f = f16 ? F16 : F32;
        bits = m.input(f, bits);
        if (f.isNaN(bits)) {
            return 0;
        }
        double v = f.toDouble(bits);
        if (signed) {
            return (int) ValuFloatConvert.saturate(Math.rint(Math.max(-1, Math.min(1, v)) * 32767), -32768, 32767);
        }
        return (int) ValuFloatConvert.saturate(Math.rint(Math.max(0, Math.min(1, v)) * 65535), 0, 65535);
    }
}
