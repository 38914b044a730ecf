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

/**
 * The VALU's float arithmetic: add, subtract, multiply, fused multiply-add (one rounding), the DX9
 * "legacy" multiplies, min/max (IEEE mode and legacy), min3/max3/med3, ldexp, for f16, f32 and f64 as the
 * tables hold them. All EXACT: every result is the correctly rounded one under MODE's round and denormal
 * modes (see {@link FloatOps}).
 */
public final class ValuFloatArith {
    private ValuFloatArith() {
    }

    public static void register(SemanticsTable.Builder b) {
        Fidelity x = Fidelity.EXACT;
        for (Format f : new Format[] {F16, F32, F64}) {
            String t = suffix(f);
            ValuFloat.binary(b, "v_add" + t, f, x, (m, a, c) -> FloatOps.add(f, m, a, c));
            ValuFloat.binary(b, "v_mul" + t, f, x, (m, a, c) -> FloatOps.mul(f, m, a, c));
            ValuFloat.binary(b, "v_min" + t, f, x, (m, a, c) -> FloatOps.min(f, m, a, c));
            ValuFloat.binary(b, "v_max" + t, f, x, (m, a, c) -> FloatOps.max(f, m, a, c));
            ValuFloat.ternary(b, "v_fma" + t, f, x, (m, a, c, d) -> FloatOps.fma(f, m, a, c, d));
            ldexp(b, "v_ldexp" + t, f);
            if (f != F64) {
                ValuFloat.binary(b, "v_sub" + t, f, x, (m, a, c) -> FloatOps.sub(f, m, a, c));
                ValuFloat.binary(b, "v_subrev" + t, f, x, (m, a, c) -> FloatOps.sub(f, m, c, a));
                ValuFloat.ternary(b, "v_min3" + t, f, x, (m, a, c, d) -> FloatOps.min3(f, m, a, c, d));
                ValuFloat.ternary(b, "v_max3" + t, f, x, (m, a, c, d) -> FloatOps.max3(f, m, a, c, d));
                ValuFloat.ternary(b, "v_med3" + t, f, x, (m, a, c, d) -> FloatOps.med3(f, m, a, c, d));
                fmac(b, "v_fmac" + t, f, false);
                fmak(b, "v_fmamk" + t, f, true);
                fmak(b, "v_fmaak" + t, f, false);
            }
        }
        ValuFloat.binary(b, "v_mul_legacy_f32", F32, x, (m, a, c) -> FloatOps.mulLegacy(F32, m, a, c));
        ValuFloat.ternary(b, "v_fma_legacy_f32", F32, x, (m, a, c, d) -> FloatOps.fmaLegacy(F32, m, a, c, d));
        fmac(b, "v_fmac_legacy_f32", F32, true);
    }

    static String suffix(Format f) {
        return switch (f) {
            case F16 -> "_f16";
            case F32 -> "_f32";
            case F64 -> "_f64";
        };
    }

    /** v_fmac_*: D = S0 * S1 + D, one rounding (legacy: a zero factor gives a +0 product). */
    private static void fmac(SemanticsTable.Builder b, String mnemonic, Format f, boolean legacy) {
        b.laneKernel(mnemonic, new LaneKernel.Accumulate(f, legacy ? (m, a, c, d) -> FloatOps.fmaLegacy(f, m, a, c, d)
                : (m, a, c, d) -> FloatOps.fma(f, m, a, c, d), !legacy));
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long s0 = ValuFloat.source(w, insn, 0, lane, f);
                long s1 = ValuFloat.source(w, insn, 1, lane, f);
                long d = ValuFloat.destination(w, insn, lane, f);
                long r = legacy ? FloatOps.fmaLegacy(f, m, s0, s1, d) : FloatOps.fma(f, m, s0, s1, d);
                ValuFloat.write(w, insn, lane, m, f, r);
            });
        });
    }

    /** v_fmamk_* (D = S0 * K + S1) and v_fmaak_* (D = S0 * S1 + K), K the literal. */
    private static void fmak(SemanticsTable.Builder b, String mnemonic, Format f, boolean kMultiplies) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            long k = ValuFloat.literal(insn, f);
            Valu.forActiveLanes(w, insn, lane -> {
                long s0 = ValuFloat.source(w, insn, 0, lane, f);
                long s1 = ValuFloat.source(w, insn, 1, lane, f);
                long r = kMultiplies ? FloatOps.fma(f, m, s0, k, s1) : FloatOps.fma(f, m, s0, s1, k);
                ValuFloat.write(w, insn, lane, m, f, r);
            });
        });
    }

    /** v_ldexp_*: S0 * 2^S1, S1 a signed 32-bit integer (f16: a signed 16-bit one), one rounding. */
    private static void ldexp(SemanticsTable.Builder b, String mnemonic, Format f) {
        b.laneKernel(mnemonic, new LaneKernel.Ldexp(f));
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            FpMode m = ValuFloat.mode(w);
            Valu.forActiveLanes(w, insn, lane -> {
                long s0 = ValuFloat.source(w, insn, 0, lane, f);
                int e = f == F16 ? (short) Valu.source16(w, insn, 1, lane) : Valu.source32(w, insn, 1, lane);
                ValuFloat.write(w, insn, lane, m, f, FloatOps.ldexp(f, m, s0, e));
            });
        });
    }
}
