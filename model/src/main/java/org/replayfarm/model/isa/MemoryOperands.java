package org.replayfarm.model.isa;

import java.util.OptionalInt;

/**
 * Spellings the memory encodings need beyond {@link Operands}, as llvm-objdump-19 prints them for gfx1030:
 * the ds_swizzle_b32 pattern, the MTBUF unified format, the buffer SOFFSET scalar source (with its literal),
 * the 64-bit GLOBAL SADDR and the table's operand types.
 */
final class MemoryOperands {
    /** The SADDR code meaning "no scalar address" in FLAT, GLOBAL and SCRATCH. */
    static final int SADDR_OFF = 0x7D;

    /** What llvm-objdump-19 prints for SOFFSET = 254 (it decodes it, with this complaint inline). */
    static final String LDS_DIRECT_SOFFSET = "src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/";

    /** The gfx10.3 unified buffer formats 0..77 (BUF_FMT_ + name); 1 is the default and is not printed. */
    private static final String[] FORMATS = {"INVALID", "8_UNORM", "8_SNORM", "8_USCALED", "8_SSCALED", "8_UINT",
        "8_SINT", "16_UNORM", "16_SNORM", "16_USCALED", "16_SSCALED", "16_UINT", "16_SINT", "16_FLOAT", "8_8_UNORM",
        "8_8_SNORM", "8_8_USCALED", "8_8_SSCALED", "8_8_UINT", "8_8_SINT", "32_UINT", "32_SINT", "32_FLOAT",
        "16_16_UNORM", "16_16_SNORM", "16_16_USCALED", "16_16_SSCALED", "16_16_UINT", "16_16_SINT", "16_16_FLOAT",
        "10_11_11_UNORM", "10_11_11_SNORM", "10_11_11_USCALED", "10_11_11_SSCALED", "10_11_11_UINT", "10_11_11_SINT",
        "10_11_11_FLOAT", "11_11_10_UNORM", "11_11_10_SNORM", "11_11_10_USCALED", "11_11_10_SSCALED", "11_11_10_UINT",
        "11_11_10_SINT", "11_11_10_FLOAT", "10_10_10_2_UNORM", "10_10_10_2_SNORM", "10_10_10_2_USCALED",
        "10_10_10_2_SSCALED", "10_10_10_2_UINT", "10_10_10_2_SINT", "2_10_10_10_UNORM", "2_10_10_10_SNORM",
        "2_10_10_10_USCALED", "2_10_10_10_SSCALED", "2_10_10_10_UINT", "2_10_10_10_SINT", "8_8_8_8_UNORM",
        "8_8_8_8_SNORM", "8_8_8_8_USCALED", "8_8_8_8_SSCALED", "8_8_8_8_UINT", "8_8_8_8_SINT", "32_32_UINT",
        "32_32_SINT", "32_32_FLOAT", "16_16_16_16_UNORM", "16_16_16_16_SNORM", "16_16_16_16_USCALED",
        "16_16_16_16_SSCALED", "16_16_16_16_UINT", "16_16_16_16_SINT", "16_16_16_16_FLOAT", "32_32_32_UINT",
        "32_32_32_SINT", "32_32_32_FLOAT", "32_32_32_32_UINT", "32_32_32_32_SINT", "32_32_32_32_FLOAT"};

    /** The default format, which llvm leaves out. */
    static final int DEFAULT_FORMAT = 1;


    private MemoryOperands() {
    }

    /** The name of a unified format (e.g. "BUF_FMT_32_FLOAT"), or null when the number has none. */
    static String formatName(int format) {
        return format >= 0 && format < FORMATS.length ? "BUF_FMT_" + FORMATS[format] : null;
    }

    /** The MTBUF format modifier with its leading space, or "" for the default format. */
    static String format(int format) {
        if (format == DEFAULT_FORMAT) {
            return "";
        }
        String name = formatName(format);
        return name != null ? " format:[" + name + "]" : " format:" + format;
    }

    /** The number of dwords of a {@code vN} table type, or -1 when the type is not {@code vN}. */
    static int vgprDwords(String type) {
        if (type.length() == 2 && type.charAt(0) == 'v' && Character.isDigit(type.charAt(1))) {
            return type.charAt(1) - '0';
        }
        return -1;
    }

    /** VGPRs {@code first..first+dwords-1}; a range past v255 is not a valid operand. */
    static String vgprs(int first, int dwords, String what) {
        if (first < 0 || first + dwords - 1 > 255) {
            throw new IllegalArgumentException(what + " v" + first + " with " + dwords + " dwords runs past v255");
        }
        return Operands.vgpr(first, dwords);
    }

    /** The name part of a {@code name:type} table operand. */
    static String name(String operand) {
        int colon = operand.indexOf(':');
        return colon < 0 ? operand : operand.substring(0, colon);
    }

    /** The type part of a {@code name:type} table operand. */
    static String type(String operand) {
        int colon = operand.indexOf(':');
        return colon < 0 ? "" : operand.substring(colon + 1);
    }

    /**
     * The buffer SOFFSET operand: an SGPR or special register, an inline constant, or the literal (code 255).
     * Codes that name no scalar source are refused.
     */
    static String soffset(int code, OptionalInt literal) {
        if (code == Operands.LITERAL) {
            if (literal.isEmpty()) {
                throw new IllegalArgumentException("SOFFSET names a literal but no literal dword follows");
            }
            return Operands.literal(literal.getAsInt(), Operands.Type.B32);
        }
        if (code == 254) {
            return LDS_DIRECT_SOFFSET;
        }
        OptionalInt integer = Operands.inlineInteger(code);
        if (integer.isPresent()) {
            return Integer.toString(integer.getAsInt());
        }
        if (code >= 240 && code <= 248) {
            return Operands.floatConstant(code, Operands.Type.B32);
        }
        String register = Operands.scalarRegister(code, 1);
        if (register == null) {
            throw new IllegalArgumentException("SOFFSET code " + code + " names no scalar source");
        }
        return register;
    }

    /** The buffer resource: four SGPRs from an SGPR number (a multiple of 4), s[n:n+3] or ttmp[n:n+3]. */
    static String resource(int sgpr) {
        String r = Operands.scalarRegister(sgpr, 4);
        if (r == null || !(r.startsWith("s[") || r.startsWith("ttmp["))) {
            throw new IllegalArgumentException("SRSRC " + sgpr + " names no four SGPRs");
        }
        return r;
    }

    /**
     * A 64-bit GLOBAL SADDR (not off): an SGPR pair (llvm reads an odd number as the pair below it), vcc, a
     * trap temporary pair or exec.
     */
    static String scalarPair(int code) {
        if (code <= 105 || code >= 108 && code <= 123) {
            return Operands.scalarRegister(code, 2);
        }
        if (code == Operands.VCC_LO || code == Operands.EXEC_LO) {
            return Operands.scalarRegister(code, 2);
        }
        throw new IllegalArgumentException("SADDR code " + code + " names no 64-bit scalar register");
    }

    /** A 32-bit SCRATCH SADDR (not off): any scalar register; llvm prints code 0x7f as off. */
    static String scalarSingle(int code) {
        if (code == 0x7F) {
            return "off";
        }
        String r = Operands.scalarRegister(code, 1);
        if (r == null) {
            throw new IllegalArgumentException("SADDR code " + code + " names no scalar register");
        }
        return r;
    }

    /**
     * The ds_swizzle_b32 offset as llvm prints it after "offset:": QUAD_PERM when bit 15 is set and bits 14..8
     * are clear; otherwise with bit 15 set the plain number; with bit 15 clear the bit-mask mode
     * (and = [4:0], or = [9:5], xor = [14:10]) as SWAP, REVERSE, BROADCAST or BITMASK_PERM.
     */
    static String swizzle(int offset) {
        if ((offset & 0x8000) != 0) {
            if ((offset & 0x7F00) != 0) {
                return Integer.toString(offset);
            }
            StringBuilder s = new StringBuilder("swizzle(QUAD_PERM");
            for (int lane = 0; lane < 4; lane++) {
                s.append(',').append((offset >>> (2 * lane)) & 3);
            }
            return s.append(')').toString();
        }
        int and = offset & 0x1F;
        int or = (offset >>> 5) & 0x1F;
        int xor = (offset >>> 10) & 0x1F;
        if (and == 0x1F && or == 0 && Integer.bitCount(xor) == 1) {
            return "swizzle(SWAP," + xor + ")";
        }
        if (and == 0x1F && or == 0 && xor != 0 && Integer.bitCount(xor + 1) == 1) {
            return "swizzle(REVERSE," + (xor + 1) + ")";
        }
        if (xor == 0) {
            int size = 32 - and;
            if (Integer.bitCount(size) == 1 && size >= 2 && (and & (size - 1)) == 0 && or < size) {
                return "swizzle(BROADCAST," + size + "," + or + ")";
            }
        }
        StringBuilder mask = new StringBuilder("swizzle(BITMASK_PERM,\"");
        for (int bit = 4; bit >= 0; bit--) {
            boolean a = ((and >>> bit) & 1) != 0;
            boolean o = ((or >>> bit) & 1) != 0;
            boolean x = ((xor >>> bit) & 1) != 0;
            char c;
            if (!a) {
                c = o ^ x ? '1' : '0';
            } else if (o) {
                c = x ? '0' : '1';
            } else {
                c = x ? 'i' : 'p';
            }
            mask.append(c);
        }
        return mask.append("\")").toString();
    }
}
