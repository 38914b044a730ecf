package org.replayfarm.model.isa;

import java.util.OptionalInt;

/**
 * How llvm-objdump-19 spells the operands of VOP1, VOP2 and VOPC instructions where {@link Operands} does not
 * cover it: 64-bit scalar sources (an odd SGPR or trap temporary is printed as the aligned pair below it),
 * literals by operand type, lane masks, and sources that must be VGPRs but are not.
 */
final class ValuShortOperands {
    private static final String[] F32_NAMES = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"};
    private static final int[] F32_BITS = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000,
            0x40800000, 0xc0800000};
    private static final int[] F16_BITS = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400};
    /** The high dwords of the doubles 0.5, -0.5, 1, -1, 2, -2, 4, -4 (their low dwords are zero). */
    private static final int[] F64_HIGH = {0x3fe00000, 0xbfe00000, 0x3ff00000, 0xbff00000, 0x40000000, 0xc0000000,
            0x40100000, 0xc0100000};
    private static final int INV_2PI_F32 = 0x3e22f983;
    private static final int INV_2PI_F16 = 0x3118;

    private ValuShortOperands() {
    }

    /** The value type of a named operand (b16, i16, f16, b32, f32, b64, f64, v2f16). */
    static Operands.Type type(Opcode op, String name) {
        String t = op.operandType(name);
        if (t == null) {
            throw new IllegalArgumentException(op.mnemonic() + " has no operand " + name);
        }
        return Operands.Type.of(t);
    }

    /** vcc_lo in wave32, vcc in wave64. */
    static String laneMask(Syntax syntax) {
        return syntax.waveSize() == 32 ? "vcc_lo" : "vcc";
    }

    /** A VGPR or VGPR range that must fit v0..v255. */
    static String vgpr(int first, int dwords) {
        if (first + dwords - 1 > 255) {
            throw new IllegalArgumentException("VGPR range v" + first + " + " + dwords + " dwords runs past v255");
        }
        return Operands.vgpr(first, dwords);
    }

    /** A 9-bit source code of the given type; {@code literal} is the instruction's literal, if any. */
    static String source(int code, Operands.Type type, OptionalInt literal) {
        if (code >= Operands.FIRST_VGPR) {
            return vgpr(code - Operands.FIRST_VGPR, type.dwords);
        }
        OptionalInt integer = Operands.inlineInteger(code);
        if (integer.isPresent()) {
            return Integer.toString(integer.getAsInt());
        }
        if (code >= 240 && code <= 248) {
            return Operands.floatConstant(code, type);
        }
        if (code == Operands.LITERAL) {
            if (literal.isEmpty()) {
                throw new IllegalArgumentException("source 255 names a literal, but none follows");
            }
            return literal(literal.getAsInt(), type);
        }
        return scalar(code, type.dwords);
    }

    /** A scalar register operand of one or two dwords; an odd register of a pair prints as the pair below it. */
    static String scalar(int code, int dwords) {
        String name;
        if (dwords == 1) {
            name = Operands.scalarRegister(code, 1);
        } else if (code <= 105) {
            name = Operands.sgpr(code & ~1, 2);
        } else if (code >= 108 && code <= 123) {
            name = Operands.scalarRegister(108 + ((code - 108) & ~1), 2);
        } else if (code == Operands.VCC_LO || code == Operands.EXEC_LO || code == Operands.NULL
                || code >= 235 && code <= 239 || code >= 251 && code <= 253) {
            name = Operands.scalarRegister(code, 2);
        } else {
            name = null;
        }
        if (name == null) {
            throw new IllegalArgumentException("operand code " + code + " names no " + (32 * dwords) + "-bit source");
        }
        return name;
    }

    /** A 32-bit literal as llvm prints it for an operand of this type. */
    static String literal(int value, Operands.Type type) {
        switch (type) {
            case F16:
                return literalF16(value);
            case I16:
            case B16:
                return literalI16(value);
            case F64:
                return literalF64(value);
            case B64:
                return Integer.compareUnsigned(value, 64) <= 0 ? Integer.toString(value) : hex(value);
            case V2F16:
                if (isInlineInt(value)) {
                    return Integer.toString(value);
                }
                if ((value & 0xFFFF0000) == 0) {
                    String h = halfName(value);
                    if (h != null) {
                        return h;
                    }
                }
                return hex(value);
            case V2I16:
            default:
                if (isInlineInt(value)) {
                    return Integer.toString(value);
                }
                String f = floatName(value);
                return f != null ? f : hex(value);
        }
    }

    private static String literalF16(int value) {
        short h = (short) value;
        if (isInlineInt(h)) {
            return Integer.toString(h);
        }
        String name = halfName(value & 0xFFFF);
        return name != null ? name : hex(value & 0xFFFF);
    }

    private static String literalI16(int value) {
        if (isInlineInt(value)) {
            return Integer.toString(value);
        }
        String f = floatName(value);
        return f != null ? f : hex(value & 0xFFFF);
    }

    private static String literalF64(int high) {
        if (high == 0) {
            return "0";
        }
        for (int i = 0; i < F64_HIGH.length; i++) {
            if (F64_HIGH[i] == high) {
                return F32_NAMES[i];
            }
        }
        return hex(high);
    }

    private static boolean isInlineInt(int v) {
        return v >= -16 && v <= 64;
    }

    private static String floatName(int bits) {
        for (int i = 0; i < F32_BITS.length; i++) {
            if (F32_BITS[i] == bits) {
                return F32_NAMES[i];
            }
        }
        return bits == INV_2PI_F32 ? "0.15915494" : null;
    }

    private static String halfName(int bits) {
        for (int i = 0; i < F16_BITS.length; i++) {
            if (F16_BITS[i] == bits) {
                return F32_NAMES[i];
            }
        }
        return bits == INV_2PI_F16 ? "0.15915494" : null;
    }

    static String hex(int value) {
        return "0x" + Integer.toHexString(value);
    }
}
