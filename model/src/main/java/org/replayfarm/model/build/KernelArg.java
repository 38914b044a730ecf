package org.replayfarm.model.build;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One kernel argument as {@code replay capture build --arg} takes it. {@code buffer:} and {@code zeros:}
 * create a memory range and pass its guest address (64 bits); the others pass a value.
 */
public sealed interface KernelArg {
    /** Bytes the argument takes in the kernarg segment when no metadata says otherwise. */
    int size();

    /** A memory range initialised from a file. */
    record Buffer(Path path, byte[] contents) implements KernelArg {
        public int size() {
            return 8;
        }
    }

    /** A zero-filled memory range. */
    record Zeros(long bytes) implements KernelArg {
        public int size() {
            return 8;
        }
    }

    /**
     * A BVH: a file of nodes in RDNA 2 layout, root at offset 0, placed in a range; its 128-bit descriptor
     * ({@link org.replayfarm.model.bvh.BvhDescriptor}, boxes sorted, the triangle return mode given) goes in
     * a range of its own, whose address is passed. Both ranges follow every buffer:/zeros: range.
     */
    record Bvh(Path path, byte[] nodes, boolean returnBarycentrics) implements KernelArg {
        public int size() {
            return 8;
        }
    }

    /** A 32-bit value: u32, i32 or f32 (its bits). */
    record Word(String kind, int bits) implements KernelArg {
        public int size() {
            return 4;
        }
    }

    /** A 64-bit value. */
    record DoubleWord(long bits) implements KernelArg {
        public int size() {
            return 8;
        }
    }

    /**
     * An image: its texels (every level, mip-major, in the format's layout), a captured image numbered in
     * argument order among the images; its 256-bit T# goes into a descriptor range whose address is passed.
     */
    /** An image argument; {@code depth} above 1 makes it a 3D image, {@code layers} above 1 an arrayed one. */
    record ImageArg(Path path, String kind, org.replayfarm.model.image.ImageFormat format, int width, int height,
                    int depth, int layers, int mips, org.replayfarm.proto.ChannelSelect[] order, byte[] texels,
                    int samples) implements KernelArg {
        public int size() {
            return 8;
        }
    }

    /** A sampler: its 128-bit S# goes into a descriptor range whose address is passed. */
    record SamplerArg(String text, org.replayfarm.model.image.SamplerDescriptor sampler) implements KernelArg {
        public int size() {
            return 8;
        }
    }

    /**
     * A {@code __local T *} argument (metadata value kind {@code dynamic_shared_pointer}): {@code bytes} of
     * dynamic LDS per workgroup, placed after the kernel's static LDS; the kernarg slot holds its 32-bit LDS
     * address.
     */
    record Local(int bytes) implements KernelArg {
        public int size() {
            return 4;
        }
    }

    /**
     * A by-value argument of any size, little-endian: a scalar ({@code i8 u8 i16 u16 f16 i64 f64}), a vector
     * {@code KINDxN} (N of 2, 3, 4, 8 or 16; a 3-vector takes the room of a 4-vector, as in OpenCL C), or
     * {@code bytes:HEX} (a struct by value; {@code cType} is the C type the native build needs, else empty).
     * {@code text} is the value as given.
     */
    record Value(String kind, String text, byte[] bytes, String cType) implements KernelArg {
        public int size() {
            return bytes.length;
        }

        /** The element kind: {@code f32} for {@code f32x4}, the kind itself for a scalar, {@code bytes} for bytes. */
        public String elementKind() {
            int x = kind.indexOf('x');
            return x < 0 ? kind : kind.substring(0, x);
        }

        /** Elements given: 1 for a scalar, N for {@code KINDxN}, 0 for bytes. */
        public int count() {
            int x = kind.indexOf('x');
            return kind.equals("bytes") ? 0 : x < 0 ? 1 : Integer.parseInt(kind.substring(x + 1));
        }
    }

    /** Bytes of one element of a by-value kind, or 0 when the kind is not one. */
    static int elementBytes(String kind) {
        return switch (kind) {
            case "i8", "u8" -> 1;
            case "i16", "u16", "f16" -> 2;
            case "i32", "u32", "f32" -> 4;
            case "i64", "u64", "f64" -> 8;
            default -> 0;
        };
    }

    default boolean createsRange() {
        return this instanceof Buffer || this instanceof Zeros || this instanceof Bvh;
    }

    /** Whether the argument passes the guest address of something the builder lays out (a range or a descriptor). */
    default boolean passesAddress() {
        return createsRange() || this instanceof ImageArg || this instanceof SamplerArg;
    }

    /** How the argument is written on a command line, with a file named by its name only. */
    default String describe() {
        if (this instanceof Buffer b) {
            return "buffer:" + b.path().getFileName();
        } else if (this instanceof Zeros z) {
            return "zeros:" + z.bytes();
        } else if (this instanceof Bvh v) {
            return "bvh:" + v.path().getFileName() + (v.returnBarycentrics() ? "" : ",return=id");
        } else if (this instanceof ImageArg i) {
            StringBuilder o = new StringBuilder();
            for (org.replayfarm.proto.ChannelSelect c : i.order()) {
                o.append(c.name().substring(4));
            }
            return "image:" + (i.kind().equals("raw") ? "raw:" + i.path().getFileName() + "," + i.width() + "x" + i.height()
                    : String.valueOf(i.path().getFileName())) + (i.layers() > 1 ? ",layers=" + i.layers() : "")
                    + ",format=" + i.format() + ",order=" + o + ",mips=" + i.mips();
        } else if (this instanceof SamplerArg s) {
            return "sampler:" + s.text();
        } else if (this instanceof Local l) {
            return "local:" + l.bytes();
        } else if (this instanceof Value v) {
            return v.kind() + ":" + v.text() + (v.cType().isEmpty() ? "" : ",type=" + v.cType());
        } else if (this instanceof Word w) {
            return w.kind() + ":" + switch (w.kind()) {
                case "f32" -> Float.toString(Float.intBitsToFloat(w.bits()));
                case "i32" -> Integer.toString(w.bits());
                default -> Integer.toUnsignedString(w.bits());
            };
        } else {
            return "u64:" + Long.toUnsignedString(((DoubleWord) this).bits());
        }
    }

    /**
     * Parses {@code buffer:PATH}, {@code zeros:BYTES}, {@code u32:N}, {@code i32:N}, {@code f32:X},
     * {@code u64:N}, {@code image:...} or {@code sampler:...} (see {@link ImageArgs}), {@code local:BYTES},
     * a by-value {@code KIND:V} (KIND {@code i8 u8 i16 u16 f16 i64 f64}), a vector {@code KINDxN:V1,..,VN}
     * (any of those kinds and {@code i32 u32 f32 u64}) or {@code bytes:HEX[,type=C-TYPE]}; integers may be
     * decimal or 0x-prefixed hex.
     */
    static KernelArg parse(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("argument '" + text + "' has no kind: expected buffer:PATH, zeros:BYTES, "
                    + "u32:N, i32:N, f32:X or u64:N");
        }
        String kind = text.substring(0, colon);
        String value = text.substring(colon + 1);
        try {
            return switch (kind) {
                case "buffer" -> {
                    Path path = Path.of(value);
                    try {
                        yield new Buffer(path, Files.readAllBytes(path));
                    } catch (IOException e) {
                        throw new IllegalArgumentException("argument '" + text + "': cannot read " + path + ": " + why(e));
                    }
                }
                case "zeros" -> {
                    long bytes = parseUnsigned(value, 63);
                    if (bytes == 0) {
                        throw new IllegalArgumentException("argument '" + text + "': a range needs at least one byte");
                    }
                    yield new Zeros(bytes);
                }
                case "bvh" -> bvh(text, value);
                case "image" -> ImageArgs.parseImage(text, value);
                case "sampler" -> ImageArgs.parseSampler(text, value);
                case "u32" -> new Word("u32", (int) parseUnsigned(value, 32));
                case "i32" -> {
                    long v = Long.decode(value);
                    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                        throw new NumberFormatException("out of the i32 range");
                    }
                    yield new Word("i32", (int) v);
                }
                case "f32" -> new Word("f32", Float.floatToRawIntBits(Float.parseFloat(value)));
                case "u64" -> new DoubleWord(parseUnsigned(value, 64));
                case "local" -> {
                    long bytes = parseUnsigned(value, 31);
                    if (bytes == 0) {
                        throw new IllegalArgumentException("argument '" + text + "': a local allocation needs at least one byte");
                    }
                    yield new Local((int) bytes);
                }
                case "bytes" -> bytes(text, value);
                default -> {
                    int x = kind.indexOf('x');
                    String element = x < 0 ? kind : kind.substring(0, x);
                    if (elementBytes(element) == 0 || x >= 0 && !List.of("2", "3", "4", "8", "16").contains(kind.substring(x + 1))) {
                        throw new IllegalArgumentException("argument '" + text + "': unknown kind '" + kind
                                + "' (expected buffer, zeros, image, sampler, bvh, local, bytes, a scalar i8 u8 i16 u16 f16 "
                                + "i32 u32 f32 i64 u64 f64, or a vector KINDxN with N 2, 3, 4, 8 or 16)");
                    }
                    yield vector(text, kind, element, x < 0 ? 1 : Integer.parseInt(kind.substring(x + 1)), value);
                }
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("argument '" + text + "': '" + value + "' is not a valid " + kind
                    + " value (" + e.getMessage() + ")");
        }
    }

    /** A scalar or vector by-value argument: {@code count} comma-separated elements. */
    private static Value vector(String text, String kind, String element, int count, String value) {
        String[] parts = value.split(",", -1);
        if (parts.length != count) {
            throw new IllegalArgumentException("argument '" + text + "': " + kind + " takes " + count + " value(s), "
                    + parts.length + " given");
        }
        int width = elementBytes(element);
        // an OpenCL 3-vector has the size and alignment of a 4-vector (OpenCL C 3.0, 6.3.5); the 4th element is 0
        ByteBuffer out = ByteBuffer.allocate(width * (count == 3 ? 4 : count)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            String p = parts[i].trim();
            long bits;
            try {
                bits = switch (element) {
                    case "f16" -> half(Double.parseDouble(p));
                    case "f32" -> Float.floatToRawIntBits(Float.parseFloat(p));
                    case "f64" -> Double.doubleToRawLongBits(Double.parseDouble(p));
                    default -> element.startsWith("u") ? parseUnsigned(p, 8 * width) : parseSigned(p, 8 * width);
                };
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("argument '" + text + "': '" + p + "' is not a valid " + element
                        + " value (" + e.getMessage() + ")");
            }
            for (int k = 0; k < width; k++) {
                out.put(i * width + k, (byte) (bits >>> (8 * k)));
            }
        }
        return new Value(kind, value, out.array(), "");
    }

    /** {@code bytes:HEX[,type=C-TYPE]}: a by-value argument given as its bytes in memory order. */
    private static Value bytes(String text, String value) {
        String hex = value;
        String type = "";
        int comma = value.indexOf(",type=");
        if (comma >= 0) {
            hex = value.substring(0, comma);
            type = value.substring(comma + ",type=".length()).trim();
            if (type.isEmpty()) {
                throw new IllegalArgumentException("argument '" + text + "': type= names no type");
            }
        }
        if (hex.isEmpty() || hex.length() % 2 != 0 || !hex.matches("[0-9a-fA-F]+")) {
            throw new IllegalArgumentException("argument '" + text + "': '" + hex
                    + "' is not a non-empty even number of hex digits (the argument's bytes in memory order)");
        }
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return new Value("bytes", hex.toLowerCase(java.util.Locale.ROOT), b, type);
    }

    /** A value rounded to half, nearest even (a NaN becomes the quiet NaN 0x7e00 with its sign). */
    private static long half(double v) {
        if (Double.isNaN(v)) {
            return (Double.doubleToRawLongBits(v) < 0 ? 0x8000 : 0) | 0x7E00;
        }
        return org.replayfarm.model.fp.Rounding.round(v, org.replayfarm.model.fp.Format.F16,
                org.replayfarm.model.fp.Rounding.NEAREST_EVEN) & 0xFFFF;
    }

    private static long parseSigned(String value, int bits) {
        String v = value.trim();
        boolean negative = v.startsWith("-");
        String digits = negative ? v.substring(1) : v;
        java.math.BigInteger big = magnitude(digits);
        java.math.BigInteger limit = java.math.BigInteger.ONE.shiftLeft(bits - 1); // |min|; max is one less
        if (negative ? big.compareTo(limit) > 0 : big.compareTo(limit) >= 0) {
            throw new NumberFormatException("out of the signed " + bits + "-bit range");
        }
        long magnitude = big.longValue();
        return negative ? -magnitude : magnitude;
    }

    /** {@code bvh:PATH[,return=ij|id]}: the nodes file and the triangle return mode (default ij). */
    private static Bvh bvh(String text, String value) {
        boolean barycentrics = true;
        String file = value;
        int comma = value.lastIndexOf(",return=");
        if (comma >= 0) {
            String mode = value.substring(comma + ",return=".length());
            if (!mode.equals("ij") && !mode.equals("id")) {
                throw new IllegalArgumentException("argument '" + text + "': return=" + mode + " is not ij or id");
            }
            barycentrics = mode.equals("ij");
            file = value.substring(0, comma);
        }
        Path path = Path.of(file);
        byte[] nodes;
        try {
            nodes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new IllegalArgumentException("argument '" + text + "': cannot read " + path + ": " + why(e));
        }
        if (nodes.length == 0 || nodes.length % 64 != 0) {
            throw new IllegalArgumentException("argument '" + text + "': " + path + " holds " + nodes.length
                    + " bytes; a BVH is a non-empty whole number of 64-byte node units");
        }
        return new Bvh(path, nodes, barycentrics);
    }

    private static long parseUnsigned(String value, int bits) {
        java.math.BigInteger parsed = magnitude(value.trim());
        if (parsed.bitLength() > bits) {
            throw new NumberFormatException("does not fit in " + bits + " bits");
        }
        return parsed.longValue();
    }

    /**
     * The digits of a decimal or 0x-hexadecimal number, whatever their size (Long's parser said only "Error at
     * index 18 in: ..." for a number past 64 bits).
     */
    private static java.math.BigInteger magnitude(String digits) {
        boolean hex = digits.startsWith("0x") || digits.startsWith("0X");
        String d = hex ? digits.substring(2) : digits;
        int radix = hex ? 16 : 10;
        if (d.isEmpty() || !d.chars().allMatch(c -> Character.digit(c, radix) >= 0)) {
            throw new NumberFormatException("not a " + (hex ? "hexadecimal" : "decimal") + " number");
        }
        return new java.math.BigInteger(d, radix);
    }

    /** Why a file could not be read, in words (NoSuchFileException's message is the path alone). */
    static String why(java.io.IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
