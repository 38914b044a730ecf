package org.replayfarm.model.amber;

import java.math.BigInteger;
import java.util.regex.Pattern;

/** Number literals of AmberScript: decimal or {@code 0x} hex integers, decimal floats (no inf or nan). */
final class Numbers {
    private static final Pattern DECIMAL = Pattern.compile("[+-]?[0-9]+");
    private static final Pattern HEX = Pattern.compile("0[xX][0-9a-fA-F]{1,16}");
    private static final Pattern FLOAT = Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
    private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private Numbers() {
    }

    static boolean isInteger(String s) {
        return DECIMAL.matcher(s).matches() || HEX.matcher(s).matches();
    }

    static boolean isHex(String s) {
        return HEX.matcher(s).matches();
    }

    static boolean isFloat(String s) {
        return FLOAT.matcher(s).matches();
    }

    /**
     * An integer literal's 64 bits (two's complement for negatives, unsigned above 2^63 - 1), or an error
     * naming {@code what} at {@code line}.
     */
    static long integer(String s, String what, int line) throws AmberException {
        if (HEX.matcher(s).matches()) {
            return Long.parseUnsignedLong(s.substring(2), 16);
        }
        if (!DECIMAL.matcher(s).matches()) {
            throw AmberException.error("malformed integer '" + s + "' for " + what, line);
        }
        BigInteger v = new BigInteger(s.startsWith("+") ? s.substring(1) : s);
        if (v.compareTo(MIN) < 0 || v.compareTo(MAX) > 0) {
            throw AmberException.error("integer " + s + " for " + what + " is out of range", line);
        }
        return v.longValue();
    }

    /** A non-negative integer below 2^31 (a count, size, index or id). */
    static int count(String s, String what, int line) throws AmberException {
        long v = integer(s, what, line);
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw AmberException.error(what + " " + s + " is out of range", line);
        }
        return (int) v;
    }

    /** A float literal's value (an integer literal is its value). */
    static double decimal(String s, String what, int line) throws AmberException {
        if (!FLOAT.matcher(s).matches()) {
            throw AmberException.error("malformed number '" + s + "' for " + what, line);
        }
        return Double.parseDouble(s);
    }

    /**
     * Whether a literal's bits fit a {@code bits}-wide integer read either way (so -1 fits uint8 as 255 and
     * 255 fits int8 as -1, as Amber's casts take them, but 256 fits neither).
     */
    static boolean fits(long v, int bits, boolean negativeLiteral) {
        if (bits == 64) {
            return true;
        }
        if (negativeLiteral) {
            return v >= -(1L << (bits - 1));
        }
        return Long.compareUnsigned(v, (1L << bits) - 1) <= 0;
    }

    /** The low {@code bits} bits of {@code v}, sign-extended when {@code signed}. */
    static long truncate(long v, int bits, boolean signed) {
        if (bits == 64) {
            return v;
        }
        long low = v & ((1L << bits) - 1);
        return signed ? low << (64 - bits) >> (64 - bits) : low;
    }

    static double asDouble(long v, boolean signed) {
        if (signed || v >= 0) {
            return v;
        }
        return Double.parseDouble(Long.toUnsignedString(v));
    }

    static String show(long v, boolean signed) {
        return signed ? Long.toString(v) : Long.toUnsignedString(v);
    }

    /** A float for a message: shortest text of the value at its width (16 and 32 bits print as float). */
    static String show(double v, int bits) {
        return bits == 64 ? Double.toString(v) : Float.toString((float) v);
    }
}
