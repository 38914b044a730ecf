package org.replayfarm.model.isa;

import java.util.OptionalInt;

/**
 * Operand codes and how llvm-objdump-19 spells them. Scalar and 9-bit source codes: 0-105 SGPRs,
 * 106/107 vcc_lo/hi, 108-123 trap temporaries, 124 m0, 125 null, 126/127 exec_lo/hi, 128-192 the
 * integers 0..64, 193-208 -1..-16, 235-239 apertures and the POPS id, 240-248 the float constants
 * (±0.5, ±1, ±2, ±4, 1/(2π)), 251 vccz, 252 execz, 253 scc, 254 lds_direct, 255 a literal,
 * 256-511 v0..v255.
 */
public final class Operands {
    public static final int VCC_LO = 106;
    public static final int M0 = 124;
    public static final int NULL = 125;
    public static final int EXEC_LO = 126;
    public static final int LITERAL = 255;
    public static final int FIRST_VGPR = 256;

    /** How a value operand is typed, which decides how inline constants and literals print. */
    public enum Type {
        B16(1, false, true), I16(1, false, true), F16(1, true, true),
        B32(1, false, false), F32(1, true, false),
        B64(2, false, false), F64(2, true, false),
        /** packed pairs of 16-bit values */
        V2F16(1, true, true), V2I16(1, false, true);

        public final int dwords;
        public final boolean floating;
        public final boolean sixteen;

        Type(int dwords, boolean floating, boolean sixteen) {
            this.dwords = dwords;
            this.floating = floating;
            this.sixteen = sixteen;
        }

        /** Parses a table type name (b16, i16, f16, b32, f32, b64, f64, v2f16, v2i16). */
        public static Type of(String name) {
            return Type.valueOf(name.toUpperCase(java.util.Locale.ROOT));
        }
    }

    private static final String[] FLOAT_NAMES = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"};
    private static final String[] HALF_BITS = {"0x3800", "0xb800", "0x3c00", "0xbc00", "0x4000", "0xc000", "0x4400",
            "0xc400", "0x3118"};

    private Operands() {
    }

    public static boolean isVgpr(int code9) {
        return code9 >= FIRST_VGPR;
    }

    public static boolean isInlineConstant(int code) {
        return code >= 128 && code <= 208 || code >= 240 && code <= 248;
    }

    /** The integer an inline constant code stands for (128-208), else empty. */
    public static OptionalInt inlineInteger(int code) {
        if (code >= 128 && code <= 192) {
            return OptionalInt.of(code - 128);
        }
        if (code >= 193 && code <= 208) {
            return OptionalInt.of(192 - code);
        }
        return OptionalInt.empty();
    }

    /** A VGPR or VGPR range: {@code v5}, {@code v[4:7]}. */
    public static String vgpr(int first, int dwords) {
        return dwords == 1 ? "v" + first : "v[" + first + ":" + (first + dwords - 1) + "]";
    }

    /** An SGPR range by number: {@code s5}, {@code s[4:7]}. */
    public static String sgpr(int first, int dwords) {
        return dwords == 1 ? "s" + first : "s[" + first + ":" + (first + dwords - 1) + "]";
    }

    /**
     * A register-like scalar operand code (no constants): SGPRs, vcc, ttmp, m0, null, exec and the
     * special sources, spelled for {@code dwords} consecutive registers. Returns null for a code that
     * names no register.
     */
    public static String scalarRegister(int code, int dwords) {
        if (code <= 105) {
            return code + dwords - 1 <= 105 ? sgpr(code, dwords) : null;
        }
        if (code >= 108 && code <= 123) {
            int t = code - 108;
            if (t + dwords - 1 > 15) {
                return null;
            }
            return dwords == 1 ? "ttmp" + t : "ttmp[" + t + ":" + (t + dwords - 1) + "]";
        }
        return switch (code) {
            case VCC_LO -> dwords == 1 ? "vcc_lo" : dwords == 2 ? "vcc" : null;
            case 107 -> dwords == 1 ? "vcc_hi" : null;
            case M0 -> dwords == 1 ? "m0" : null;
            case NULL -> "null";
            case EXEC_LO -> dwords == 1 ? "exec_lo" : dwords == 2 ? "exec" : null;
            case 127 -> dwords == 1 ? "exec_hi" : null;
            case 235 -> "src_shared_base";
            case 236 -> "src_shared_limit";
            case 237 -> "src_private_base";
            case 238 -> "src_private_limit";
            case 239 -> "src_pops_exiting_wave_id";
            case 251 -> "src_vccz";
            case 252 -> "src_execz";
            case 253 -> "src_scc";
            case 254 -> "src_lds_direct";
            default -> null;
        };
    }

    /**
     * A source operand (8-bit scalar or 9-bit vector source code) of the given type: a register, an
     * inline constant or the literal. Returns null for a code that is not a valid source.
     */
    public static String source(int code, Type type, OptionalInt literal) {
        if (code >= FIRST_VGPR) {
            return vgpr(code - FIRST_VGPR, type.dwords);
        }
        OptionalInt integer = inlineInteger(code);
        if (integer.isPresent()) {
            return Integer.toString(integer.getAsInt());
        }
        if (code >= 240 && code <= 248) {
            return floatConstant(code, type);
        }
        if (code == LITERAL) {
            return literal.isPresent() ? literal(literal.getAsInt(), type) : null;
        }
        return scalarRegister(code, type.dwords);
    }

    /** An inline float constant (codes 240-248) as llvm prints it for an operand of this type. */
    public static String floatConstant(int code, Type type) {
        if (type.sixteen && !type.floating) {
            return HALF_BITS[code - 240];
        }
        if (code == 248) {
            return type == Type.F64 || type == Type.B64 ? "0.15915494309189532" : "0.15915494";
        }
        return FLOAT_NAMES[code - 240];
    }

    /** A 32-bit literal: hexadecimal. */
    public static String literal(int value, Type type) {
        return "0x" + Integer.toHexString(value);
    }
}
