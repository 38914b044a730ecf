package org.replayfarm.evalnode.hostmodel.valu;

import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.ValuFacts;
import org.replayfarm.model.isa.ValuFacts.CompareType;
import org.replayfarm.model.isa.ValuFacts.Condition;
import org.replayfarm.model.isa.ValuVariant;

/**
 * Every VOPC compare (and its VOP3 form): integer compares (16, 32, 64 bits, signed and unsigned),
 * float compares (f16, f32, f64; the "n" forms are the negations, true for unordered operands) and the
 * class tests. The result is a lane mask with one bit per active lane and 0 for every inactive lane;
 * v_cmp writes it to VCC (VOPC), to SDWA's SDST when SD is set, or to the VOP3 form's scalar
 * destination; v_cmpx writes it to EXEC only (RDNA: no SGPR copy). Float compares read their inputs
 * with the ABS/NEG modifiers and flush denormal inputs to zero when MODE.FP_DENORM says to (bit 0 of
 * the field clear: [4] for f32, [6] for f16/f64); the class tests see the operand's true class.
 * Class mask bits (S1): 0 signaling NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
 * 7 +denormal, 8 +normal, 9 +inf. RDNA 2 ISA guide, VOPC opcodes.
 */
public final class ValuCompareUnit {
    private ValuCompareUnit() {
    }

    private interface LaneTest {
        boolean test(Wave w, Instruction insn, int lane);
    }

    public static void register(SemanticsTable.Builder b) {
        for (Opcode op : b.table().rows(Encoding.VOPC)) {
            ValuFacts.Compare c = op.valu().compare(); // relation, type and EXEC, read once when the table loaded
            LaneTest test = c.condition() == Condition.CLASS ? classTest(c.type())
                    : c.type().isFloat() ? floatTest(c.condition(), c.type()) : integerTest(c.condition(), c.type());
            Valu.register(b, op.mnemonic(), Fidelity.EXACT, (w, insn) -> compare(w, insn, test, c.toExec()));
        }
    }

    private static void compare(Wave w, Instruction insn, LaneTest test, boolean exec) {
        long[] mask = {0};
        Valu.forActiveLanes(w, insn, lane -> {
            if (test.test(w, insn, lane)) {
                mask[0] |= 1L << lane;
            }
        });
        if (exec) {
            w.setExec(mask[0]);
        } else {
            w.setLaneMask(destination(insn), mask[0]);
        }
    }

    /** VCC, SDWA's SDST (when SD is set) or the VOP3 form's destination field. */
    private static int destination(Instruction insn) {
        if (insn.fields() instanceof Fields.Vop3 v) {
            return v.vdst();
        }
        if (Valu.variant(insn) instanceof ValuVariant.Sdwa s && s.sd()) {
            return s.sdst();
        }
        return Wave.VCC_LO;
    }

    // ---------------------------------------------------------------- integers

    private static LaneTest integerTest(Condition condition, CompareType type) {
        boolean signed = type.signed();
        int bits = type.bits();
        return (w, insn, lane) -> {
            long a;
            long b;
            if (bits == 64) {
                a = Valu.source64(w, insn, 0, lane, false);
                b = Valu.source64(w, insn, 1, lane, false);
            } else if (bits == 32) {
                a = Valu.source32(w, insn, 0, lane);
                b = Valu.source32(w, insn, 1, lane);
                if (!signed) {
                    a &= 0xFFFF_FFFFL;
                    b &= 0xFFFF_FFFFL;
                }
            } else {
                a = Valu.source16(w, insn, 0, lane);
                b = Valu.source16(w, insn, 1, lane);
                if (signed) {
                    a = (short) a;
                    b = (short) b;
                }
            }
            int c = signed || bits < 64 ? Long.compare(a, b) : Long.compareUnsigned(a, b);
            return switch (condition) {
                case F -> false;
                case LT -> c < 0;
                case EQ -> c == 0;
                case LE -> c <= 0;
                case GT -> c > 0;
                case NE -> c != 0;
                case GE -> c >= 0;
                case T -> true;
                default -> throw new IllegalStateException("integer compare " + condition);
            };
        };
    }

    // ---------------------------------------------------------------- floats

    private static LaneTest floatTest(Condition condition, CompareType type) {
        return (w, insn, lane) -> floatRelation(condition, floatOperand(w, insn, 0, lane, type),
                floatOperand(w, insn, 1, lane, type));
    }

    /** Whether a float relation holds for two operands (exact values; NaN unordered). */
    public static boolean floatRelation(Condition condition, double a, double b) {
        return switch (condition) {
            case F -> false;
            case LT -> a < b;
            case EQ -> a == b;
            case LE -> a <= b;
            case GT -> a > b;
            case LG -> a < b || a > b;
            case GE -> a >= b;
            case O -> !Double.isNaN(a) && !Double.isNaN(b);
            case U -> Double.isNaN(a) || Double.isNaN(b);
            case NGE -> !(a >= b);
            case NLG -> !(a < b || a > b);
            case NGT -> !(a > b);
            case NLE -> !(a <= b);
            case NEQ -> !(a == b);
            case NLT -> !(a < b);
            case TRU -> true;
            default -> throw new IllegalStateException("float compare " + condition);
        };
    }

    /** A float source (modifiers applied, denormal flushed if MODE says so) as an exactly equal double. */
    private static double floatOperand(Wave w, Instruction insn, int n, int lane, CompareType type) {
        switch (type) {
            case F32 -> {
                int bits = Valu.floatSource(w, insn, n, lane);
                if ((w.mode() >>> 4 & 1) == 0 && (bits & 0x7F80_0000) == 0) {
                    bits &= 0x8000_0000;
                }
                return Float.intBitsToFloat(bits);
            }
            case F64 -> {
                long bits = Valu.floatSource64(w, insn, n, lane);
                if ((w.mode() >>> 6 & 1) == 0 && (bits & 0x7FF0_0000_0000_0000L) == 0) {
                    bits &= 0x8000_0000_0000_0000L;
                }
                return Double.longBitsToDouble(bits);
            }
            case F16 -> {
                int bits = Valu.floatSource16(w, insn, n, lane);
                if ((w.mode() >>> 6 & 1) == 0 && (bits & 0x7C00) == 0) {
                    bits &= 0x8000;
                }
                return half(bits);
            }
            default -> throw new IllegalStateException("float type " + type);
        }
    }

    /** An IEEE half's exact value. */
    static double half(int h) {
        int exponent = h >>> 10 & 0x1F;
        int mantissa = h & 0x3FF;
        double magnitude;
        if (exponent == 0x1F) {
            magnitude = mantissa != 0 ? Double.NaN : Double.POSITIVE_INFINITY;
        } else if (exponent == 0) {
            magnitude = Math.scalb((double) mantissa, -24);
        } else {
            magnitude = Math.scalb((double) (mantissa | 0x400), exponent - 25);
        }
        return (h & 0x8000) != 0 ? -magnitude : magnitude;
    }

    // ---------------------------------------------------------------- class

    private static LaneTest classTest(CompareType type) {
        return (w, insn, lane) -> {
            int mask = Valu.source32(w, insn, 1, lane);
            int cls = switch (type) {
                case F32 -> {
                    int bits = Valu.floatSource(w, insn, 0, lane);
                    yield classOf(bits < 0, bits >>> 23 & 0xFF, 0xFF, bits & 0x7FFFFF, 1 << 22);
                }
                case F64 -> {
                    long bits = Valu.floatSource64(w, insn, 0, lane);
                    yield classOf(bits < 0, (int) (bits >>> 52 & 0x7FF), 0x7FF, bits & 0xF_FFFF_FFFF_FFFFL, 1L << 51);
                }
                default -> {
                    int bits = Valu.floatSource16(w, insn, 0, lane);
                    yield classOf((bits & 0x8000) != 0, bits >>> 10 & 0x1F, 0x1F, bits & 0x3FF, 1 << 9);
                }
            };
            return (mask >>> cls & 1) != 0;
        };
    }

    /** The class bit number of a float given its fields. */
    static int classOf(boolean negative, int exponent, int maxExponent, long mantissa, long quietBit) {
        if (exponent == maxExponent) {
            if (mantissa == 0) {
                return negative ? 2 : 9;
            }
            return (mantissa & quietBit) != 0 ? 1 : 0;
        }
        if (exponent == 0) {
            if (mantissa == 0) {
                return negative ? 5 : 6;
            }
            return negative ? 4 : 7;
        }
        return negative ? 3 : 8;
    }
}
