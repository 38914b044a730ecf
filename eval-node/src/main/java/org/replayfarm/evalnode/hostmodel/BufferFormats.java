package org.replayfarm.evalnode.hostmodel;

/**
 * The gfx10.3 unified buffer formats (the 7-bit FORMAT of MTBUF and of V# word 3 [18:12]; numbers as
 * llvm-mc-19 names them for gfx1030: 1 8_UNORM ... 77 32_32_32_32_FLOAT) and the conversions between a
 * format's components and 32-bit (or 16-bit, for D16) register values. Supported: every format of 1 to 4
 * equal components of 8, 16 or 32 bits (UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT where the
 * format exists). The packed formats (10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10) and INVALID fault as
 * unsupported.
 */
final class BufferFormats {
    private BufferFormats() {
    }

    enum Kind { UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT }

    /** A format: {@code components} components of {@code bits} bits each, of one kind. */
    record Format(int number, int components, int bits, Kind kind) {
        int bytes() {
            return components * bits / 8;
        }

        boolean floatResult() {
            return kind != Kind.UINT && kind != Kind.SINT;
        }
    }

    private static final Kind[] SIX = {Kind.UNORM, Kind.SNORM, Kind.USCALED, Kind.SSCALED, Kind.UINT, Kind.SINT};
    private static final Kind[] SEVEN = {Kind.UNORM, Kind.SNORM, Kind.USCALED, Kind.SSCALED, Kind.UINT, Kind.SINT,
            Kind.FLOAT};
    private static final Kind[] THREE = {Kind.UINT, Kind.SINT, Kind.FLOAT};

    /** The format numbered {@code number}, or a fault naming it as unsupported. */
    static Format of(int number) {
        Format f = lookup(number);
        if (f == null) {
            throw new GuestFault("buffer format " + number + " is not supported by the host model (invalid, or a "
                    + "packed 10/11-bit format)");
        }
        return f;
    }

    private static Format lookup(int n) {
        if (n >= 1 && n <= 6) {
            return new Format(n, 1, 8, SIX[n - 1]);
        }
        if (n >= 7 && n <= 13) {
            return new Format(n, 1, 16, SEVEN[n - 7]);
        }
        if (n >= 14 && n <= 19) {
            return new Format(n, 2, 8, SIX[n - 14]);
        }
        if (n >= 20 && n <= 22) {
            return new Format(n, 1, 32, THREE[n - 20]);
        }
        if (n >= 23 && n <= 29) {
            return new Format(n, 2, 16, SEVEN[n - 23]);
        }
        if (n >= 56 && n <= 61) {
            return new Format(n, 4, 8, SIX[n - 56]);
        }
        if (n >= 62 && n <= 64) {
            return new Format(n, 2, 32, THREE[n - 62]);
        }
        if (n >= 65 && n <= 71) {
            return new Format(n, 4, 16, SEVEN[n - 65]);
        }
        if (n >= 72 && n <= 74) {
            return new Format(n, 3, 32, THREE[n - 72]);
        }
        if (n >= 75 && n <= 77) {
            return new Format(n, 4, 32, THREE[n - 75]);
        }
        return null;
    }

    /**
     * A raw component (zero-extended) as a 32-bit register value: UNORM u / (2^n - 1), SNORM max(s /
     * (2^(n-1) - 1), -1), USCALED/SSCALED the integer as a float, UINT zero-, SINT sign-extended, FLOAT
     * 16-bit widened, 32-bit as is.
     */
    static int toRegister(Format f, long raw) {
        int n = f.bits();
        long signed = n == 32 ? (int) raw : raw << (64 - n) >> (64 - n);
        return switch (f.kind()) {
            case UNORM -> Float.floatToRawIntBits((float) ((double) raw / ((1L << n) - 1)));
            case SNORM -> Float.floatToRawIntBits((float) Math.max((double) signed / ((1L << (n - 1)) - 1), -1.0));
            case USCALED -> Float.floatToRawIntBits((float) raw);
            case SSCALED -> Float.floatToRawIntBits((float) signed);
            case UINT -> (int) raw;
            case SINT -> (int) signed;
            case FLOAT -> n == 16 ? Float.floatToRawIntBits(halfToFloat((int) raw)) : (int) raw;
        };
    }

    /** The default of a component the format lacks: 0 for x, y, z; 1 (1.0 for float results) for w. */
    static int missing(Format f, int component) {
        if (component < 3) {
            return 0;
        }
        return f.floatResult() ? Float.floatToRawIntBits(1.0f) : 1;
    }

    /**
     * A 32-bit register value as a raw component: UNORM/SNORM clamp to [0, 1] / [-1, 1] (NaN to 0) and
     * scale, rounding to nearest even; USCALED/SSCALED round to nearest even and clamp to the range;
     * UINT/SINT keep the low n bits; FLOAT 16-bit narrows with round to nearest even.
     */
    static long fromRegister(Format f, int value) {
        int n = f.bits();
        long mask = n == 32 ? 0xFFFF_FFFFL : (1L << n) - 1;
        float x = Float.intBitsToFloat(value);
        return switch (f.kind()) {
            case UNORM -> Math.round(Math.rint(clamp(x, 0, 1) * (double) mask));
            case SNORM -> Math.round(Math.rint(clamp(x, -1, 1) * (double) ((1L << (n - 1)) - 1))) & mask;
            case USCALED -> (long) clamp(Math.rint(x), 0, mask);
            case SSCALED -> (long) clamp(Math.rint(x), -(1L << (n - 1)), (1L << (n - 1)) - 1) & mask;
            case UINT, SINT -> value & mask;
            case FLOAT -> n == 16 ? floatToHalf(x) : Integer.toUnsignedLong(value);
        };
    }

    private static double clamp(double x, double lo, double hi) {
        return Double.isNaN(x) ? 0 : Math.max(lo, Math.min(hi, x));
    }

    /** IEEE binary16 bits to float (exact). */
    static float halfToFloat(int h) {
        int sign = h >>> 15 & 1;
        int exp = h >>> 10 & 0x1F;
        int man = h & 0x3FF;
        float v;
        if (exp == 0) {
            v = man * 0x1p-24f;
        } else if (exp == 31) {
            return Float.intBitsToFloat(sign << 31 | 0x7F800000 | man << 13);
        } else {
            v = (1 + man / 1024f) * (float) Math.pow(2, exp - 15);
        }
        return sign == 1 ? -v : v;
    }

    /** Float to IEEE binary16 bits, round to nearest even (NaN stays NaN, overflow to infinity). */
    static int floatToHalf(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = bits >>> 16 & 0x8000;
        if (Float.isNaN(f)) {
            return sign | 0x7E00 | (bits >>> 13 & 0x3FF);
        }
        double a = Math.abs((double) f);
        if (a >= 65520.0) {
            return sign | 0x7C00;
        }
        if (a < 0x1p-14) {
            return sign | (int) Math.rint(a / 0x1p-24);
        }
        int e = Math.getExponent(a);
        double scaled = a / Math.scalb(1.0, e - 10);
        long m = Math.round(Math.rint(scaled));
        if (m == 2048) {
            m = 1024;
            e++;
        }
        return sign | (e + 15) << 10 | (int) (m - 1024);
    }

    /** A register value narrowed for a D16 load: floats as halves, integers truncated to 16 bits. */
    static int toD16(Format f, int register) {
        return f.floatResult() ? floatToHalf(Float.intBitsToFloat(register)) : register & 0xFFFF;
    }

    /** A D16 store's 16-bit value widened to a 32-bit register value (halves to floats, integers extended). */
    static int fromD16(Format f, int half) {
        if (f.floatResult()) {
            return Float.floatToRawIntBits(halfToFloat(half));
        }
        return f.kind() == Kind.SINT ? (short) half : half;
    }
}
