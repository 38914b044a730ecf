package org.replayfarm.evalnode.hostmodel;

import org.replayfarm.evalnode.hostmodel.valu.ValuFloat;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatConvert;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;

/**
 * The per-lane pieces the compiled tier's generated code calls ({@link CompiledEmitter}): one small static method
 * per operation that the fast tier runs through a loop of its own ({@link LaneLoop}, {@link FastLanes}), each the
 * same expression for one lane, so the JIT inlines it into the generated block. The f32 ones take the lane kernel
 * for any lane whose operand or result is a denormal, infinity or NaN, or when MODE does not round to nearest even,
 * exactly as the fast tier's loops; everything else the generated code calls the lane kernel for directly.
 */
final class CompiledLanes {
    private CompiledLanes() {
    }

    // ---------------------------------------------------------------- one 32-bit source

    static int NOT(int a) {
        return ~a;
    }

    // ---------------------------------------------------------------- two 32-bit sources

    static int AND(int a, int b) {
        return a & b;
    }

    static int OR(int a, int b) {
        return a | b;
    }

    static int XOR(int a, int b) {
        return a ^ b;
    }

    static int XNOR(int a, int b) {
        return ~(a ^ b);
    }

    static int LSHLREV(int a, int b) {
        return b << (a & 31);
    }

    static int LSHRREV(int a, int b) {
        return b >>> (a & 31);
    }

    static int ASHRREV(int a, int b) {
        return b >> (a & 31);
    }

    static int MIN_I32(int a, int b) {
        return Math.min(a, b);
    }

    static int MAX_I32(int a, int b) {
        return Math.max(a, b);
    }

    static int MIN_U32(int a, int b) {
        return Integer.compareUnsigned(a, b) <= 0 ? a : b;
    }

    static int MAX_U32(int a, int b) {
        return Integer.compareUnsigned(a, b) >= 0 ? a : b;
    }

    static int MUL_LO(int a, int b) {
        return a * b;
    }

    static int ADD(int a, int b) {
        return a + b;
    }

    static int SUB(int a, int b) {
        return a - b;
    }

    static int SUBREV(int a, int b) {
        return b - a;
    }

    static int MUL_HI_U32(int a, int b) {
        return (int) (Integer.toUnsignedLong(a) * Integer.toUnsignedLong(b) >>> 32);
    }

    static int BCNT(int a, int b) {
        return Integer.bitCount(a) + b;
    }

    // ---------------------------------------------------------------- three 32-bit sources

    static int XAD(int a, int b, int c) {
        return (a ^ b) + c;
    }

    static int LSHL_ADD(int a, int b, int c) {
        return (a << (b & 31)) + c;
    }

    static int AND_OR(int a, int b, int c) {
        return (a & b) | c;
    }

    static int LSHL_OR(int a, int b, int c) {
        return (a << (b & 31)) | c;
    }

    static int ADD3(int a, int b, int c) {
        return a + b + c;
    }

    static int XOR3(int a, int b, int c) {
        return a ^ b ^ c;
    }

    static int OR3(int a, int b, int c) {
        return a | b | c;
    }

    static int ADD_LSHL(int a, int b, int c) {
        return (a + b) << (c & 31);
    }

    static int BFE_U32(int a, int b, int c) {
        int width = c & 31;
        return width == 0 ? 0 : (int) (Integer.toUnsignedLong(a) >>> (b & 31) & ((1L << width) - 1));
    }

    static int BFI(int a, int b, int c) {
        return (a & b) | (~a & c);
    }

    // ---------------------------------------------------------------- v_cndmask_b32

    /** S1 where the lane's mask bit is set, else S0 (both with their ABS/NEG already applied). */
    static int select(long mask, int lane, int a, int b) {
        return (mask >>> lane & 1) != 0 ? b : a;
    }

    // ---------------------------------------------------------------- f32

    /** OMOD, then CLAMP, of an f32 result, as the reference applies them ({@code ValuFloat.modifiers}). */
    static long modifiers(long r, FpMode m, int omod, boolean clamp) {
        if (omod != 0) {
            r = FloatOps.omod(Format.F32, m, omod, r);
        }
        return clamp ? FloatOps.clamp(Format.F32, m, r) : r;
    }

    static int F_ADD(int a, int b, boolean rne, FpMode m, ValuFloat.Op2 k) {
        if (rne) {
            int r = Float.floatToRawIntBits(Float.intBitsToFloat(a) + Float.intBitsToFloat(b));
            if ((FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(r)) == 0) {
                return r;
            }
        }
        return (int) k.apply(m, Integer.toUnsignedLong(a), Integer.toUnsignedLong(b));
    }

    static int F_SUB(int a, int b, boolean rne, FpMode m, ValuFloat.Op2 k) {
        if (rne) {
            int r = Float.floatToRawIntBits(Float.intBitsToFloat(a) + Float.intBitsToFloat(b ^ 0x8000_0000));
            if ((FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(r)) == 0) {
                return r;
            }
        }
        return (int) k.apply(m, Integer.toUnsignedLong(a), Integer.toUnsignedLong(b));
    }

    static int F_SUBREV(int a, int b, boolean rne, FpMode m, ValuFloat.Op2 k) {
        if (rne) {
            int r = Float.floatToRawIntBits(Float.intBitsToFloat(a ^ 0x8000_0000) + Float.intBitsToFloat(b));
            if ((FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(r)) == 0) {
                return r;
            }
        }
        return (int) k.apply(m, Integer.toUnsignedLong(a), Integer.toUnsignedLong(b));
    }

    static int F_MUL(int a, int b, boolean rne, FpMode m, ValuFloat.Op2 k) {
        if (rne) {
            int r = Float.floatToRawIntBits(Float.intBitsToFloat(a) * Float.intBitsToFloat(b));
            if ((FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(r)) == 0) {
                return r;
            }
        }
        return (int) k.apply(m, Integer.toUnsignedLong(a), Integer.toUnsignedLong(b));
    }

    static int F_FMA(int a, int b, int c, boolean rne, FpMode m, ValuFloat.Op3 k) {
        if (rne) {
            int r = Float.floatToRawIntBits(Math.fma(Float.intBitsToFloat(a), Float.intBitsToFloat(b),
                    Float.intBitsToFloat(c)));
            if ((FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(c) | FastLanes.edge(r)) == 0) {
                return r;
            }
        }
        return (int) k.apply(m, Integer.toUnsignedLong(a), Integer.toUnsignedLong(b), Integer.toUnsignedLong(c));
    }

    /** v_frexp_mant_f32 before OMOD/CLAMP: a normal S0's fraction with 0.5's exponent, else the lane kernel. */
    static long F_FREXP_MANT(int bits, FpMode m, ValuFloat.Op1 k) {
        int field = bits >>> 23 & 0xFF;
        if (field != 0 && field != 0xFF) {
            return Integer.toUnsignedLong(bits & 0x807F_FFFF | 0x3F00_0000);
        }
        return k.apply(m, Integer.toUnsignedLong(bits));
    }

    /** v_rcp_f32 before OMOD/CLAMP: a normal S0 below 2^126 in double rounded once, else the lane kernel. */
    static long F_RCP(int bits, FpMode m, ValuFloat.Op1 k) {
        int field = bits >>> 23 & 0xFF;
        if (field != 0 && field <= 252) {
            return Integer.toUnsignedLong(Float.floatToRawIntBits((float) (1 / (double) Float.intBitsToFloat(bits))));
        }
        return k.apply(m, Integer.toUnsignedLong(bits));
    }

    /** v_sqrt_f32 before OMOD/CLAMP: a positive normal S0 in double rounded once, else the lane kernel. */
    static long F_SQRT(int bits, FpMode m, ValuFloat.Op1 k) {
        int field = bits >>> 23 & 0xFF;
        if (field != 0 && field != 0xFF && bits > 0) {
            return Integer.toUnsignedLong(Float.floatToRawIntBits((float) Math.sqrt(Float.intBitsToFloat(bits))));
        }
        return k.apply(m, Integer.toUnsignedLong(bits));
    }

    /** v_rsq_f32 before OMOD/CLAMP: a positive normal S0 in double rounded once, else the lane kernel. */
    static long F_RSQ(int bits, FpMode m, ValuFloat.Op1 k) {
        int field = bits >>> 23 & 0xFF;
        if (field != 0 && field != 0xFF && bits > 0) {
            return Integer.toUnsignedLong(Float.floatToRawIntBits((float) (1 / Math.sqrt(Float.intBitsToFloat(bits)))));
        }
        return k.apply(m, Integer.toUnsignedLong(bits));
    }

    /** An integer converted to f32 (before OMOD/CLAMP), as the fast tier: exact values directly, else rounded by MODE. */
    static long toF32(double value, FpMode m) {
        if ((float) value == value) {
            return Integer.toUnsignedLong(Float.floatToRawIntBits((float) value));
        }
        return FloatOps.fromDouble(Format.F32, m, value);
    }

    /** v_ldexp_f32 before OMOD/CLAMP: the exponent field moved while it stays normal, else {@code FloatOps.ldexp}. */
    static long ldexp(int bits, int by, FpMode m) {
        int field = bits >>> 23 & 0xFF;
        long scaled = (long) field + by;
        if (field != 0 && field != 0xFF && scaled >= 1 && scaled <= 254) {
            return Integer.toUnsignedLong(bits & 0x807F_FFFF | (int) scaled << 23);
        }
        return FloatOps.ldexp(Format.F32, m, Integer.toUnsignedLong(bits), by);
    }

    /** v_frexp_exp_i32_f32: field - 126 for a normal S0; 0 for zero, infinity and NaN; a denormal as MODE says. */
    static int frexpExp(int bits, FpMode m) {
        int field = bits >>> 23 & 0xFF;
        if (field == 0xFF || (bits & 0x7FFF_FFFF) == 0) {
            return 0;
        }
        if (field != 0) {
            return field - 126;
        }
        long in = m.input(Format.F32, Integer.toUnsignedLong(bits));
        return Format.F32.isZero(in) ? 0 : ValuFloatConvert.frexpExponent(Format.F32.toDouble(in));
    }
}
