package org.replayfarm.model.fp;

import java.math.BigDecimal;

/**
 * RDNA 2 floating-point arithmetic on bit patterns, as the VALU does it under a MODE: inputs flushed
 * when the denormal mode says so, one correctly rounded result in the mode's round mode, NaN inputs
 * propagated quieted (the first NaN source in operand order), invalid operations giving the default
 * quiet NaN (positive, quiet bit only), results flushed when the mode says so.
 */
public final class FloatOps {
    private FloatOps() {
    }

    /** The first NaN among the sources, quieted, or -1 when there is none. */
    public static long firstNaN(Format f, long... sources) {
        for (long s : sources) {
            if (f.isNaN(s)) {
                return f.quiet(s);
            }
        }
        return -1;
    }

    public static long add(Format f, FpMode m, long a, long b) {
        a = m.input(f, a);
        b = m.input(f, b);
        if (f.isNaN(a) || f.isNaN(b)) {
            return firstNaN(f, a, b);
        }
        if (f == Format.F32 && m.round(f) == Rounding.NEAREST_EVEN) {
            // fast path: Java's float addition is IEEE round-to-nearest-even
            float s = Float.intBitsToFloat((int) a) + Float.intBitsToFloat((int) b);
            return Float.isNaN(s) ? f.defaultNaN() : finish(f, m, Integer.toUnsignedLong(Float.floatToRawIntBits(s)));
        }
        double x = f.toDouble(a);
        double y = f.toDouble(b);
        int mode = m.round(f);
        long r;
        if (x + y == 0 && (x != 0 || y != 0 || f.isNegative(a) != f.isNegative(b))) {
            // an exact zero from nonzero or mixed-sign operands: +0, or -0 rounding toward -inf
            r = mode == Rounding.MINUS_INFINITY ? f.signBit() : 0;
        } else if (f == Format.F64) {
            // inf + -inf is invalid: the default NaN (Java's x86 sum would carry the sign bit)
            double d = sum64(x, y, mode);
            r = Double.isNaN(d) ? f.defaultNaN() : Double.doubleToRawLongBits(d);
        } else {
            r = Rounding.round(Exact.oddSum(x, y), f, mode);
        }
        return finish(f, m, r);
    }

    private static double sum64(double x, double y, int mode) {
        double s = x + y;
        if (mode == Rounding.NEAREST_EVEN || Double.isNaN(s) || Double.isInfinite(x) || Double.isInfinite(y)
                || x == 0 && y == 0) {
            // two zeros of one sign sum to that zero in every mode (BigDecimal would lose the sign of -0)
            return s;
        }
        return Rounding.toDouble(Exact.big(x).add(Exact.big(y)), mode);
    }

    public static long sub(Format f, FpMode m, long a, long b) {
        return add(f, m, a, f.negate(b));
    }

    public static long mul(Format f, FpMode m, long a, long b) {
        a = m.input(f, a);
        b = m.input(f, b);
        if (f.isNaN(a) || f.isNaN(b)) {
            return firstNaN(f, a, b);
        }
        double x = f.toDouble(a);
        double y = f.toDouble(b);
        double p = x * y;
        if (Double.isNaN(p)) {
            return f.defaultNaN();
        }
        int mode = m.round(f);
        if (f == Format.F32 && mode == Rounding.NEAREST_EVEN) {
            float q = Float.intBitsToFloat((int) a) * Float.intBitsToFloat((int) b);
            return finish(f, m, Integer.toUnsignedLong(Float.floatToRawIntBits(q)));
        }
        long r;
        if (f != Format.F64) {
            r = Rounding.round(p, f, mode);
        } else if (mode == Rounding.NEAREST_EVEN || x == 0 || y == 0 || Double.isInfinite(x) || Double.isInfinite(y)) {
            r = Double.doubleToRawLongBits(p);
        } else {
            double d = Rounding.toDouble(Exact.big(x).multiply(Exact.big(y)), mode);
            r = Double.doubleToRawLongBits(d == 0 ? Math.copySign(0.0, p) : d);
        }
        return finish(f, m, r);
    }

    /** {@code a * b + c} rounded once (v_fma_*, v_fmac_*). */
    public static long fma(Format f, FpMode m, long a, long b, long c) {
        a = m.input(f, a);
        b = m.input(f, b);
        c = m.input(f, c);
        if (f.isNaN(a) || f.isNaN(b) || f.isNaN(c)) {
            return firstNaN(f, a, b, c);
        }
        double x = f.toDouble(a);
        double y = f.toDouble(b);
        double z = f.toDouble(c);
        int mode = m.round(f);
        long r;
        if (f == Format.F32 && mode == Rounding.NEAREST_EVEN) {
            float v = Math.fma((float) x, (float) y, (float) z);
            if (Float.isNaN(v)) {
                return f.defaultNaN();
            }
            r = Integer.toUnsignedLong(Float.floatToRawIntBits(v));
        } else if (f == Format.F64) {
            double v = Math.fma(x, y, z);
            if (Double.isNaN(v)) {
                return f.defaultNaN();
            }
            if (mode != Rounding.NEAREST_EVEN && !Double.isInfinite(x) && !Double.isInfinite(y)
                    && !Double.isInfinite(z)) {
                BigDecimal exact = Exact.big(x).multiply(Exact.big(y)).add(Exact.big(z));
                v = exact.signum() == 0 ? zeroSum(x * y, z, mode) : Rounding.toDouble(exact, mode);
            }
            r = Double.doubleToRawLongBits(v);
        } else {
            double p = x * y;
            double v = Exact.oddFma(x, y, z);
            if (Double.isNaN(v)) {
                return f.defaultNaN();
            }
            if (v == 0) {
                v = zeroSum(p, z, mode);
            }
            r = Rounding.round(v, f, mode);
        }
        return finish(f, m, r);
    }

    /** The sign of an exact zero sum p + z: both zeros of one sign keep it; otherwise +0 (-0 toward -inf). */
    private static double zeroSum(double p, double z, int mode) {
        if (p == 0 && z == 0 && (Double.doubleToRawLongBits(p) < 0) == (Double.doubleToRawLongBits(z) < 0)) {
            return p;
        }
        return mode == Rounding.MINUS_INFINITY ? -0.0 : 0.0;
    }

    /** DX9 multiply (v_mul_legacy_f32): +0 when either source is +-0, even against infinity or NaN. */
    public static long mulLegacy(Format f, FpMode m, long a, long b) {
        if (f.isZero(m.input(f, a)) || f.isZero(m.input(f, b))) {
            return 0;
        }
        return mul(f, m, a, b);
    }

    /** v_fma_legacy_f32: a fused multiply-add whose product is +0 when either factor is +-0. */
    public static long fmaLegacy(Format f, FpMode m, long a, long b, long c) {
        if (f.isZero(m.input(f, a)) || f.isZero(m.input(f, b))) {
            return add(f, m, 0, c);
        }
        return fma(f, m, a, b, c);
    }

    /**
     * v_max_*: IEEE mode quiets a signalling NaN source and returns it; otherwise a NaN source gives the
     * other source; +0 is above -0; ties keep source 0 (IEEE) or source 1 (legacy). RDNA 2 ISA pseudocode.
     */
    public static long max(Format f, FpMode m, long a, long b) {
        return minMax(f, m, a, b, true);
    }

    /** v_min_*: as {@link #max} with the order reversed (-0 below +0). */
    public static long min(Format f, FpMode m, long a, long b) {
        return minMax(f, m, a, b, false);
    }

    private static long minMax(Format f, FpMode m, long a, long b, boolean max) {
        a = m.input(f, a);
        b = m.input(f, b);
        boolean ieee = m.ieee();
        if (ieee && f.isSignalling(a)) {
            return f.quiet(a);
        }
        if (ieee && f.isSignalling(b)) {
            return f.quiet(b);
        }
        if (f.isNaN(a)) {
            return b;
        }
        if (f.isNaN(b)) {
            return a;
        }
        if (f.isZero(a) && f.isZero(b)) {
            return f.isNegative(a) == max ? b : a;
        }
        double x = f.toDouble(a);
        double y = f.toDouble(b);
        boolean keepA = max ? (ieee ? x >= y : x > y) : (ieee ? x <= y : x < y);
        return keepA ? a : b;
    }

    public static long max3(Format f, FpMode m, long a, long b, long c) {
        return max(f, m, max(f, m, a, b), c);
    }

    public static long min3(Format f, FpMode m, long a, long b, long c) {
        return min(f, m, min(f, m, a, b), c);
    }

    /**
     * v_med3_*: with any NaN source, min3 of the sources; otherwise the middle value (the max of the two
     * sources other than the one max3 returned). RDNA 2 ISA pseudocode.
     */
    public static long med3(Format f, FpMode m, long a, long b, long c) {
        a = m.input(f, a);
        b = m.input(f, b);
        c = m.input(f, c);
        if (f.isNaN(a) || f.isNaN(b) || f.isNaN(c)) {
            return min3(f, m, a, b, c);
        }
        long hi = max3(f, m, a, b, c);
        if (hi == a) {
            return max(f, m, b, c);
        }
        if (hi == b) {
            return max(f, m, a, c);
        }
        return max(f, m, a, b);
    }

    /** {@code a * 2^exp}, rounded once (v_ldexp_*). */
    public static long ldexp(Format f, FpMode m, long a, int exp) {
        a = m.input(f, a);
        if (f.isNaN(a)) {
            return f.quiet(a);
        }
        if (f.isInfinite(a) || f.isZero(a)) {
            return a;
        }
        double x = f.toDouble(a);
        int mode = m.round(f);
        long r;
        if (f == Format.F64) {
            int e = Math.max(-2200, Math.min(2200, exp));
            BigDecimal exact = e >= 0 ? Exact.big(x).multiply(new BigDecimal(java.math.BigInteger.TWO.pow(e)))
                    : Exact.big(x).divide(new BigDecimal(java.math.BigInteger.TWO.pow(-e)));
            double d = Rounding.toDouble(exact, mode);
            r = Double.doubleToRawLongBits(d == 0 ? Math.copySign(0.0, x) : d);
        } else {
            int e = Math.max(-400, Math.min(400, exp)); // beyond this every f32/f16 result is the same
            r = Rounding.round(Math.scalb(x, e), f, mode);
        }
        return finish(f, m, r);
    }

    /** Converts between float formats, rounding per the destination's round mode. */
    public static long convert(Format from, Format to, FpMode m, long a) {
        a = m.input(from, a);
        if (from.isNaN(a)) {
            return convertNaN(from, to, a);
        }
        double x = from.toDouble(a);
        long r = Rounding.round(x, to, m.round(to));
        if (to == Format.F64) {
            r = Double.doubleToRawLongBits(x);
        }
        return finish(to, m, r);
    }

    /** A NaN in another format: quieted, sign and the payload's top bits kept. */
    public static long convertNaN(Format from, Format to, long a) {
        long sign = from.isNegative(a) ? to.signBit() : 0;
        long payload = a & from.mantissaMask();
        int shift = to.mantissaBits - from.mantissaBits;
        payload = shift >= 0 ? payload << shift : payload >>> -shift;
        return sign | to.exponentMask() | to.quietBit() | payload;
    }

    /** Rounds a finite exact double to a format under the mode, then flushes / applies FP16_OVFL. */
    public static long fromDouble(Format f, FpMode m, double v) {
        long r = f == Format.F64 ? Double.doubleToRawLongBits(v) : Rounding.round(v, f, m.round(f));
        return finish(f, m, r);
    }

    /** A result's last step: output denormal flushing, and FP16_OVFL for an f16 that overflowed. */
    public static long finish(Format f, FpMode m, long r) {
        r = m.output(f, r);
        if (f == Format.F16 && m.fp16OverflowClamp() && f.isInfinite(r)) {
            return r & f.signBit() | f.maxFinite();
        }
        return r;
    }

    /**
     * The output modifier: 1 multiplies by 2, 2 by 4, 3 by 0.5 (rounded per the mode, denormals per the
     * mode). Ignored in IEEE mode (the hardware ignores OMOD when MODE.IEEE is set).
     */
    public static long omod(Format f, FpMode m, int omod, long r) {
        if (omod == 0 || m.ieee() || f.isNaN(r)) {
            return r;
        }
        int exp = omod == 1 ? 1 : omod == 2 ? 2 : -1;
        if (f.isInfinite(r) || f.isZero(r)) {
            return r;
        }
        double x = f.toDouble(r);
        long out;
        if (f == Format.F64) {
            out = Double.doubleToRawLongBits(Rounding.toDouble(Exact.big(x).multiply(BigDecimal.valueOf(
                    exp == -1 ? 0.5 : 1 << exp)), m.round(f)));
            if (Double.longBitsToDouble(out) == 0) {
                out = Double.doubleToRawLongBits(Math.copySign(0.0, x));
            }
        } else {
            out = Rounding.round(Math.scalb(x, exp), f, m.round(f));
        }
        return finish(f, m, out);
    }

    /**
     * The clamp modifier: the result limited to [0, 1] (negative values, -0 included, become +0); a NaN
     * becomes +0 with DX10_CLAMP and passes through without it.
     */
    public static long clamp(Format f, FpMode m, long r) {
        if (f.isNaN(r)) {
            return m.dx10Clamp() ? 0 : r;
        }
        if (f.isNegative(r)) {
            return 0;
        }
        if (f.toDouble(r) > 1) {
            return f.one();
        }
        return r;
    }
}
