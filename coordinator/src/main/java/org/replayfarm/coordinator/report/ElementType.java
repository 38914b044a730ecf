package org.replayfarm.coordinator.report;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Map;
import org.replayfarm.model.compare.Ulps;

/**
 * The type of one element of a typed memory range: a scalar kind and a vector width ({@code float4}: f32
 * x 4). Parsed from the kernel metadata's {@code .type_name} of a pointer argument ({@code float*},
 * {@code int2*}, {@code half*}, {@code uint*}, ...) or from a {@code --view} spelling ({@code f32},
 * {@code i32x2}, {@code f16}, ...). Floats compare in ulps, integers exactly.
 */
public record ElementType(Scalar scalar, int lanes) {
    /** A scalar kind: its bytes, whether it is a float, and whether it is signed. */
    public enum Scalar {
        I8(1, false, true), U8(1, false, false), I16(2, false, true), U16(2, false, false), I32(4, false, true),
        U32(4, false, false), I64(8, false, true), U64(8, false, false), F16(2, true, true), F32(4, true, true),
        F64(8, true, true);

        final int bytes;
        final boolean floating;
        final boolean signed;

        Scalar(int bytes, boolean floating, boolean signed) {
            this.bytes = bytes;
            this.floating = floating;
            this.signed = signed;
        }

        public int bytes() {
            return bytes;
        }

        public boolean floating() {
            return floating;
        }

        public String spelling() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Map<String, Scalar> C_TYPES = Map.ofEntries(Map.entry("char", Scalar.I8),
            Map.entry("uchar", Scalar.U8), Map.entry("unsigned char", Scalar.U8), Map.entry("signed char", Scalar.I8),
            Map.entry("bool", Scalar.U8), Map.entry("short", Scalar.I16), Map.entry("ushort", Scalar.U16),
            Map.entry("unsigned short", Scalar.U16), Map.entry("int", Scalar.I32), Map.entry("uint", Scalar.U32),
            Map.entry("unsigned int", Scalar.U32), Map.entry("unsigned", Scalar.U32), Map.entry("long", Scalar.I64),
            Map.entry("ulong", Scalar.U64), Map.entry("unsigned long", Scalar.U64), Map.entry("size_t", Scalar.U64),
            Map.entry("half", Scalar.F16), Map.entry("float", Scalar.F32), Map.entry("double", Scalar.F64),
            Map.entry("int8_t", Scalar.I8), Map.entry("uint8_t", Scalar.U8), Map.entry("int16_t", Scalar.I16),
            Map.entry("uint16_t", Scalar.U16), Map.entry("int32_t", Scalar.I32), Map.entry("uint32_t", Scalar.U32),
            Map.entry("int64_t", Scalar.I64), Map.entry("uint64_t", Scalar.U64));

    public ElementType {
        if (lanes != 1 && lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16) {
            throw new IllegalArgumentException("a vector has 2, 3, 4, 8 or 16 lanes, not " + lanes);
        }
    }

    /** Bytes one element takes (a 3-vector takes a 4-vector's room, as in OpenCL C). */
    public int bytes() {
        return scalar.bytes * (lanes == 3 ? 4 : lanes);
    }

    public boolean floating() {
        return scalar.floating;
    }

    /** {@code f32}, {@code i32x2}: the spelling {@link #parseView} reads. */
    public String spelling() {
        return scalar.spelling() + (lanes == 1 ? "" : "x" + lanes);
    }

    /**
     * The element type of a pointer argument's C type name ({@code float*}, {@code const int2 *},
     * {@code __global half*}), or null when it is no pointer to a scalar or vector this knows (a struct,
     * {@code void*}): such a range is compared as bytes.
     */
    public static ElementType fromPointerTypeName(String typeName) {
        String t = typeName.trim();
        if (!t.endsWith("*")) {
            return null;
        }
        t = t.substring(0, t.length() - 1).trim();
        if (t.contains("*")) {
            return null; // a pointer to pointers holds addresses: compared as bytes
        }
        for (String q : new String[] {"__global", "global", "const", "volatile", "restrict", "__restrict"}) {
            t = t.replaceAll("\\b" + q + "\\b", " ");
        }
        t = t.trim().replaceAll("\\s+", " ");
        Scalar s = C_TYPES.get(t);
        if (s != null) {
            return new ElementType(s, 1);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([a-z]+)(2|3|4|8|16)").matcher(t);
        if (m.matches() && C_TYPES.containsKey(m.group(1))) {
            return new ElementType(C_TYPES.get(m.group(1)), Integer.parseInt(m.group(2)));
        }
        return null;
    }

    /** A {@code --view} element spelling: {@code f32}, {@code u8}, {@code i32x4}, or a C name ({@code float4}). */
    public static ElementType parseView(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([iuf])(8|16|32|64)(?:x(\\d+))?").matcher(s);
        if (m.matches()) {
            String name = m.group(1) + m.group(2);
            Scalar scalar = switch (name) {
                case "i8" -> Scalar.I8;
                case "u8" -> Scalar.U8;
                case "i16" -> Scalar.I16;
                case "u16" -> Scalar.U16;
                case "i32" -> Scalar.I32;
                case "u32" -> Scalar.U32;
                case "i64" -> Scalar.I64;
                case "u64" -> Scalar.U64;
                case "f16" -> Scalar.F16;
                case "f32" -> Scalar.F32;
                case "f64" -> Scalar.F64;
                default -> throw new IllegalArgumentException("element type '" + spec + "': no " + name
                        + " (f16, f32, f64, i8..i64, u8..u64)");
            };
            return new ElementType(scalar, m.group(3) == null ? 1 : Integer.parseInt(m.group(3)));
        }
        ElementType c = fromPointerTypeName(s + "*");
        if (c == null) {
            throw new IllegalArgumentException("element type '" + spec + "': expected f16, f32, f64, i8, u8, i16, u16, "
                    + "i32, u32, i64 or u64 (optionally xN: f32x4), or an OpenCL C type (float4)");
        }
        return c;
    }

    /** Component {@code c} of the element at byte {@code at}: its raw bits (zero-extended). */
    public long bits(byte[] data, int at, int c) {
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        int p = at + c * scalar.bytes;
        return switch (scalar.bytes) {
            case 1 -> b.get(p) & 0xFFL;
            case 2 -> b.getShort(p) & 0xFFFFL;
            case 4 -> b.getInt(p) & 0xFFFF_FFFFL;
            default -> b.getLong(p);
        };
    }

    /** How many components are compared (a 3-vector's padding lane is not). */
    public int components() {
        return lanes;
    }

    /** A component's value in words: {@code 1.5}, {@code -3}, {@code NaN}. */
    public String value(long bits) {
        return switch (scalar) {
            case F16 -> floatText(Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits((int) bits)));
            case F32 -> floatText(Float.intBitsToFloat((int) bits));
            case F64 -> doubleText(Double.longBitsToDouble(bits));
            case I8 -> Long.toString((byte) bits);
            case I16 -> Long.toString((short) bits);
            case I32 -> Long.toString((int) bits);
            case I64 -> Long.toString(bits);
            case U64 -> Long.toUnsignedString(bits);
            default -> Long.toString(bits);
        };
    }

    /** A float component's value (NaN for an integer type: only floats are compared by value). */
    public double toDouble(long bits) {
        return switch (scalar) {
            case F16 -> Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits((int) bits));
            case F32 -> Float.intBitsToFloat((int) bits);
            case F64 -> Double.longBitsToDouble(bits);
            default -> Double.NaN;
        };
    }

    /** A component's bits as hex of its width: {@code 0x3fc00000}. */
    public String hex(long bits) {
        return String.format("0x%0" + (2 * scalar.bytes) + "x", bits);
    }

    /**
     * Distance in units in the last place of two components of a float element (0 for equal numbers, +0
     * and -0 too; {@link Long#MAX_VALUE} for an infinity or NaN against anything but itself); for integers
     * the absolute difference of their values.
     */
    public long ulps(long a, long b) {
        if (!scalar.floating) {
            if (scalar == Scalar.U64) {
                return Long.compareUnsigned(a, b) >= 0 ? a - b : b - a;
            }
            long x = signExtend(a);
            long y = signExtend(b);
            return Math.abs(x - y);
        }
        return Ulps.between(scalar.bytes * 8, a, b);
    }

    private long signExtend(long v) {
        if (!scalar.signed) {
            return v;
        }
        int shift = 64 - 8 * scalar.bytes;
        return v << shift >> shift;
    }

    private static String floatText(float f) {
        return Float.toString(f);
    }

    private static String doubleText(double d) {
        return Double.toString(d);
    }
}
