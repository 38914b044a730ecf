package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.model.fp.Format.F16;
import static org.replayfarm.model.fp.Format.F32;
import static org.replayfarm.model.fp.Format.F64;

import java.util.function.DoubleUnaryOperator;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.fp.Rounding;

/**
 * The VALU's approximated functions: v_rcp, v_rcp_iflag, v_rsq, v_sqrt, v_exp (2^x), v_log (log2 x),
 * v_sin / v_cos (of 2*pi*x: the argument is in revolutions), for the formats the tables hold.
 *
 * <p>Fidelity APPROXIMATE. What the model returns: the function evaluated in double precision (Java's
 * Math library, error below 1 ulp of double, and exact argument reduction for sin/cos by subtracting the
 * nearest integer) then rounded once to the format, nearest even: within 1 ulp of the true value
 * (sqrt is correctly rounded). What the hardware guarantees (RDNA 2 ISA): 1 ulp for the f32 and f16
 * functions, except v_sqrt_f32 / v_rsq_f32 (1 ulp) and v_sin/v_cos (absolute error about 2^-21 within
 * [-256, 256] revolutions); the f64 v_rcp/v_rsq/v_sqrt are only accurate to about 2^29 ulp (seeds for
 * Newton-Raphson), so a program can see results that differ from the model's in the low bits.
 * Special values follow IEEE: rcp(+-0) = +-inf, rsq(-0) = -inf, sqrt(-0) = -0, negative arguments of
 * sqrt/rsq/log give the default NaN, log(+-0) = -inf, exp(-inf) = +0. NaN sources come back quieted.
 * Denormal sources and results are flushed per MODE; the round mode does not apply.
 */
public final class ValuFloatTranscendental {
    private ValuFloatTranscendental() {
    }

    private static final double TWO_PI = 2 * Math.PI;

    public static void register(SemanticsTable.Builder b) {
        for (Format f : new Format[] {F16, F32, F64}) {
            String t = ValuFloatArith.suffix(f);
            fn(b, "v_rcp" + t, f, v -> 1 / v);
            fn(b, "v_rsq" + t, f, v -> 1 / Math.sqrt(v));
            fn(b, "v_sqrt" + t, f, Math::sqrt);
            if (f == F64) {
                continue;
            }
            fn(b, "v_exp" + t, f, v -> Math.pow(2, v));
            fn(b, "v_log" + t, f, ValuFloatTranscendental::log2);
            fn(b, "v_sin" + t, f, v -> Double.isInfinite(v) ? Double.NaN : Math.sin(TWO_PI * (v - Math.rint(v))));
            fn(b, "v_cos" + t, f, v -> Double.isInfinite(v) ? Double.NaN : Math.cos(TWO_PI * (v - Math.rint(v))));
        }
        fn(b, "v_rcp_iflag_f32", F32, v -> 1 / v);
    }

    /** log2 with exact results at powers of two. */
    static double log2(double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            return Math.log(v); // NaN, -inf for zero, +inf
        }
        int e = Math.getExponent(v);
        double mant = Math.scalb(v, -e); // [1, 2), v is never a double denormal here
        return e + Math.log(mant) / Math.log(2);
    }

    private static void fn(SemanticsTable.Builder b, String mnemonic, Format f, DoubleUnaryOperator op) {
        ValuFloat.unary(b, mnemonic, f, Fidelity.APPROXIMATE, (m, a) -> apply(f, m, a, op));
    }

    static long apply(Format f, FpMode m, long a, DoubleUnaryOperator op) {
        a = m.input(f, a);
        if (f.isNaN(a)) {
            return f.quiet(a);
        }
        double r = op.applyAsDouble(f.toDouble(a));
        if (Double.isNaN(r)) {
            return f.defaultNaN();
        }
        return FloatOps.finish(f, m, Rounding.round(r, f, Rounding.NEAREST_EVEN));
    }
}
