package org.replayfarm.model.isa;

/**
 * What a vector ALU row does beyond its operand list, read off the mnemonic once when the table loads (the
 * only place a VALU mnemonic is parsed for what it does; {@link Opcode#valu()}), and checked against the row's
 * own operand types, so a handler keys on these facts instead of the name.
 *
 * @param compare           for v_cmp / v_cmpx rows (VOPC and their VOP3 forms): the relation, the operand type
 *                          and whether EXEC is written; null for every other row
 * @param scalarDestination the row has an {@code sdst} operand (the VOP3b form: carries, v_div_scale; such a
 *                          VOP3 row has no ABS field)
 * @param byteIndex         v_cvt_f32_ubyteN: N, the byte converted; -1 for every other row
 * @param shift64           v_lshlrev_b64 / v_lshrrev_b64 / v_ashrrev_i64: the shift; null for every other row
 */
public record ValuFacts(Compare compare, boolean scalarDestination, int byteIndex, Shift64 shift64) {
    /** The relation of a compare: integer {@code f lt eq le gt ne ge t}, float adds the unordered and negated ones, or the class test. */
    public enum Condition {
        F, LT, EQ, LE, GT, NE, GE, T, LG, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, TRU, CLASS;

        static Condition of(String text) {
            for (Condition c : values()) {
                if (c.name().equalsIgnoreCase(text)) {
                    return c;
                }
            }
            return null;
        }
    }

    /** The operand type a compare reads: signed or unsigned integers of 16, 32, 64 bits, or a float format. */
    public enum CompareType {
        I16(16, true, false), U16(16, false, false), I32(32, true, false), U32(32, false, false),
        I64(64, true, false), U64(64, false, false), F16(16, true, true), F32(32, true, true), F64(64, true, true);

        private final int bits;
        private final boolean signed;
        private final boolean isFloat;

        CompareType(int bits, boolean signed, boolean isFloat) {
            this.bits = bits;
            this.signed = signed;
            this.isFloat = isFloat;
        }

        public int bits() {
            return bits;
        }

        /** Signed integer order (floats: true). */
        public boolean signed() {
            return signed;
        }

        public boolean isFloat() {
            return isFloat;
        }

        /** The type of source 0 the table writes for this compare type (16-bit integers: i16; 32/64: bN). */
        String operandType() {
            if (isFloat) {
                return name().toLowerCase(java.util.Locale.ROOT);
            }
            return bits == 16 ? "i16" : "b" + bits;
        }
    }

    /** A compare: v_cmp (a lane mask to VCC / SDST) or v_cmpx (to EXEC). */
    public record Compare(boolean toExec, Condition condition, CompareType type) {
    }

    public enum Shift64 {
        LEFT, RIGHT_LOGICAL, RIGHT_ARITHMETIC
    }

    static boolean isValu(Encoding e) {
        return switch (e) {
            case VOP1, VOP2, VOP3, VOP3P, VOPC -> true;
            default -> false;
        };
    }

    /**
     * The facts of a VALU row, or null for other encodings; a row whose name claims a compare, a byte or a
     * shift its operands do not fit is refused (an {@link IllegalArgumentException} naming the disagreement).
     */
    static ValuFacts derive(Encoding e, String m, java.util.List<OperandSpec> operands) {
        if (!isValu(e)) {
            return null;
        }
        Compare compare = null;
        if (m.startsWith("v_cmp_") || m.startsWith("v_cmpx_")) {
            String[] parts = m.split("_");
            Condition c = parts.length == 4 ? Condition.of(parts[2]) : null;
            CompareType t = null;
            if (parts.length == 4) {
                for (CompareType x : CompareType.values()) {
                    if (x.name().equalsIgnoreCase(parts[3])) {
                        t = x;
                    }
                }
            }
            if (c == null || t == null) {
                throw new IllegalArgumentException("cannot read the compare of " + m + " (v_cmp[x]_CONDITION_TYPE)");
            }
            boolean integerOnly = c == Condition.NE || c == Condition.T;
            boolean floatOnly = c.ordinal() >= Condition.LG.ordinal();
            if (t.isFloat() ? integerOnly : floatOnly) {
                throw new IllegalArgumentException("compare " + m + ": condition " + parts[2] + " does not apply to " + parts[3]);
            }
            compare = new Compare(parts[1].equals("cmpx"), c, t);
            String src0 = baseType(operands, "src0");
            if (!t.operandType().equals(src0)) {
                throw new IllegalArgumentException("compare " + m + ": src0 is " + src0 + " but the name says " + t.operandType());
            }
            String src1 = baseType(operands, e == Encoding.VOPC ? "vsrc1" : "src1");
            String expected1 = c == Condition.CLASS ? "b32" : t.operandType();
            if (!expected1.equals(src1)) {
                throw new IllegalArgumentException("compare " + m + ": source 1 is " + src1 + " but the name says " + expected1);
            }
        }
        int byteIndex = -1;
        if (m.startsWith("v_cvt_f32_ubyte")) {
            String n = m.substring("v_cvt_f32_ubyte".length());
            if (n.length() != 1 || n.charAt(0) < '0' || n.charAt(0) > '3') {
                throw new IllegalArgumentException("cannot read the byte of " + m);
            }
            byteIndex = n.charAt(0) - '0';
        }
        Shift64 shift = switch (m) {
            case "v_lshlrev_b64" -> Shift64.LEFT;
            case "v_lshrrev_b64" -> Shift64.RIGHT_LOGICAL;
            case "v_ashrrev_i64" -> Shift64.RIGHT_ARITHMETIC;
            default -> null;
        };
        if (shift != null && (!"b32".equals(baseType(operands, "src0")) || !"b64".equals(baseType(operands, "src1"))
                || !"b64".equals(baseType(operands, "vdst")))) {
            throw new IllegalArgumentException("64-bit shift " + m + " without a b32 amount, a b64 value and a b64 result");
        }
        boolean sdst = false;
        for (OperandSpec o : operands) {
            sdst |= o.name().equals("sdst");
        }
        return new ValuFacts(compare, sdst, byteIndex, shift);
    }

    /** A named operand's type without its {@code +modifier} suffixes, or null when the row lacks it. */
    private static String baseType(java.util.List<OperandSpec> operands, String name) {
        for (OperandSpec o : operands) {
            if (o.name().equals(name)) {
                int plus = o.type().indexOf('+');
                return plus < 0 ? o.type() : o.type().substring(0, plus);
            }
        }
        return null;
    }
}
