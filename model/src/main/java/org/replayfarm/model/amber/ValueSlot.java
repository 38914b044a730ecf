package org.replayfarm.model.amber;

import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.Half;
import org.replayfarm.model.fp.Rounding;

/**
 * One value of an element as it lies in memory: {@code bits} bits starting {@code bitShift} bits above byte
 * {@code offset} of the element (little-endian), read as {@code kind}. A DATA/FILL/EXPECT value list walks an
 * element's slots in order, skipping padding (padding has no slot).
 */
public record ValueSlot(int offset, int bitShift, int bits, Kind kind) {
    /** How a slot's bits are read. */
    public enum Kind {
        /** Two's complement integer. */
        SINT,
        /** Unsigned integer. */
        UINT,
        /** IEEE float of 16, 32 or 64 bits. */
        FLOAT,
        /** Unsigned normalized (a FORMAT component; DATA and EXPECT values give its raw integer). */
        UNORM,
        /** Signed normalized (a FORMAT component; DATA and EXPECT values give its raw integer). */
        SNORM,
        /** Unsigned 10- or 11-bit float of a packed format (B10G11R11). */
        UFLOAT
    }

    /** Whether values of this slot are written and compared as numbers with a fraction. */
    public boolean isFloat() {
        return kind == Kind.FLOAT || kind == Kind.UFLOAT;
    }

    /** Whether the slot's integer is signed. */
    public boolean signed() {
        return kind == Kind.SINT || kind == Kind.SNORM;
    }

    /** The slot's raw bits at {@code base} (the element's first byte), zero-extended. */
    public long rawBits(byte[] data, int base) {
        int first = base + offset;
        int span = (bitShift + bits + 7) / 8;
        long v = 0;
        for (int i = 0; i < span; i++) {
            v |= (data[first + i] & 0xFFL) << (8 * i);
        }
        v >>>= bitShift;
        return bits == 64 ? v : v & ((1L << bits) - 1);
    }

    /** Writes the low {@code bits} bits of {@code raw} into the slot at {@code base}. */
    public void writeBits(byte[] data, int base, long raw) {
        int first = base + offset;
        int span = (bitShift + bits + 7) / 8;
        long mask = (bits == 64 ? -1L : (1L << bits) - 1) << bitShift;
        long old = 0;
        for (int i = 0; i < span; i++) {
            old |= (data[first + i] & 0xFFL) << (8 * i);
        }
        long v = (old & ~mask) | ((raw << bitShift) & mask);
        for (int i = 0; i < span; i++) {
            data[first + i] = (byte) (v >>> (8 * i));
        }
    }

    /** The slot's integer value (sign-extended for signed kinds); for float kinds the raw bits. */
    public long integer(byte[] data, int base) {
        long raw = rawBits(data, base);
        if (signed() && bits < 64) {
            return raw << (64 - bits) >> (64 - bits);
        }
        return raw;
    }

    /**
     * The slot's value as a double: floats decoded, integers (and the raw integers of UNORM/SNORM) as
     * numbers; a u64 above 2^63 as its unsigned value.
     */
    public double number(byte[] data, int base) {
        long raw = rawBits(data, base);
        if (kind == Kind.FLOAT) {
            return switch (bits) {
                case 16 -> Half.toDouble((int) raw);
                case 32 -> Float.intBitsToFloat((int) raw);
                default -> Double.longBitsToDouble(raw);
            };
        }
        if (kind == Kind.UFLOAT) {
            return AmberFormat.decodeUnsignedFloat(raw, bits);
        }
        long v = integer(data, base);
        if (!signed() && bits == 64 && v < 0) {
            return Double.parseDouble(Long.toUnsignedString(v));
        }
        return v;
    }

    /** Writes a float value, rounded to nearest even at the slot's width. */
    public void writeFloat(byte[] data, int base, double value) {
        writeBits(data, base, floatBits(value, bits));
    }

    /** A value rounded to nearest even at a float width of 16, 32 or 64 bits, as that width's bit pattern. */
    static long floatBits(double value, int bits) {
        return switch (bits) {
            case 16 -> Rounding.round(value, Format.F16, Rounding.NEAREST_EVEN);
            case 32 -> Integer.toUnsignedLong(Float.floatToRawIntBits((float) value));
            default -> Double.doubleToRawLongBits(value);
        };
    }

    /** A value rounded to the slot's float width and back (what the slot would hold if written). */
    double roundToSlot(double value) {
        return switch (bits) {
            case 16 -> Half.toDouble((int) floatBits(value, 16));
            case 32 -> (float) value;
            default -> value;
        };
    }
}
