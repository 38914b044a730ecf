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

    private static final String[] FLOAT_NAMES = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0",
            "0.15915494"};
    /** Bit patterns of the inline float constants (codes 240-248) as f32, f16, and the high dword of f64. */
    private static final int[] F32_BITS = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000,
            0x40800000, 0xc0800000, 0x3e22f983};
    private static final int[] F16_BITS = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118};
    private static final int[] F64_HIGH = {0x3fe00000, 0xbfe00000, 0x3ff00000, 0xbff00000, 0x40000000, 0xc0000000,
            0x40100000, 0xc0100000};

    private Operands() {
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
     * special sources, spelled for {@code dwords} consecutive registers. A range of SGPRs or trap
     * temporaries starts where the hardware aligns it: pairs at an even register, longer ranges at a
     * multiple of four (llvm-objdump-19 prints the aligned range, with a warning). Returns null for a
     * code that names no register of that width.
     */
    public static String scalarRegister(int code, int dwords) {
        int align = dwords == 1 ? 1 : dwords == 2 ? 2 : 4;
        if (code <= 105) {
            int first = code / align * align;
            return first + dwords - 1 <= 105 ? sgpr(first, dwords) : null;
        }
        if (code >= 108 && code <= 123) {
            int t = (code - 108) / align * align;
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
        if (type == Type.I16 || type == Type.B16) {
            return "0x" + Integer.toHexString(F16_BITS[code - 240]);
        }
        if (code == 248 && (type == Type.F64 || type == Type.B64)) {
            return "0.15915494309189532";
        }
        return FLOAT_NAMES[code - 240];
    }

    /**
     * A 32-bit literal as llvm-objdump-19 prints it for an operand of this type: a value an inline
     * constant could have held prints as that constant, anything else in hexadecimal. 16-bit operands
     * use the low half (f16 compared as half, i16 as a 32-bit value first); an f64 literal is the high
     * dword of the double; a b64 literal is zero-extended; a packed f16 pair is a constant only when its
     * high half is zero.
     */
    public static String literal(int value, Type type) {
        switch (type) {
            case F16 -> {
                int low = value & 0xFFFF;
                if (isInlineInt((short) low)) {
                    return Integer.toString((short) low);
                }
                String name = named(low, F16_BITS);
                return name != null ? name : hex(low);
            }
            case I16, B16 -> {
                String constant = constant32(value);
                return constant != null ? constant : hex(value & 0xFFFF);
            }
            case F64 -> {
                if (value == 0) {
                    return "0";
                }
                String name = named(value, F64_HIGH);
                return name != null ? name : hex(value);
            }
            case B64 -> {
                return Integer.compareUnsigned(value, 64) <= 0 ? Integer.toString(value) : hex(value);
            }
            case V2F16 -> {
                if (isInlineInt(value)) {
                    return Integer.toString(value);
                }
                String name = (value & 0xFFFF0000) == 0 ? named(value, F16_BITS) : null;
                return name != null ? name : hex(value);
            }
            default -> {
                String constant = constant32(value);
                return constant != null ? constant : hex(value);
            }
        }
    }

    private static String constant32(int value) {
        return isInlineInt(value) ? Integer.toString(value) : named(value, F32_BITS);
    }

    private static String named(int bits, int[] table) {
        for (int i = 0; i < table.length; i++) {
            if (table[i] == bits) {
                return FLOAT_NAMES[i];
            }
        }
        return null;
    }

    private static boolean isInlineInt(int value) {
        return value >= -16 && value <= 64;
    }

    public static String hex(int value) {
        return "0x" + Integer.toHexString(value);
    }
}
