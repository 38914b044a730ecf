package org.replayfarm.model.build;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
    /** An image argument; {@code depth} above 1 makes it a 3D image. */
    record ImageArg(Path path, String kind, org.replayfarm.model.image.ImageFormat format, int width, int height,
                    int depth, int mips, org.replayfarm.proto.ChannelSelect[] order, byte[] texels) implements KernelArg {
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
                    : String.valueOf(i.path().getFileName())) + ",format=" + i.format() + ",order=" + o + ",mips=" + i.mips();
        } else if (this instanceof SamplerArg s) {
            return "sampler:" + s.text();
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
     * {@code u64:N}, {@code image:...} or {@code sampler:...} (see {@link ImageArgs}); integers may be
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
                        throw new IllegalArgumentException("argument '" + text + "': cannot read " + path + ": " + e.getMessage());
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
                default -> throw new IllegalArgumentException("argument '" + text + "': unknown kind '" + kind
                        + "' (expected buffer, zeros, image, sampler, bvh, u32, i32, f32 or u64)");
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("argument '" + text + "': '" + value + "' is not a valid " + kind
                    + " value (" + e.getMessage() + ")");
        }
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
            throw new IllegalArgumentException("argument '" + text + "': cannot read " + path + ": " + e.getMessage());
        }
        if (nodes.length == 0 || nodes.length % 64 != 0) {
            throw new IllegalArgumentException("argument '" + text + "': " + path + " holds " + nodes.length
                    + " bytes; a BVH is a non-empty whole number of 64-byte node units");
        }
        return new Bvh(path, nodes, barycentrics);
    }

    private static long parseUnsigned(String value, int bits) {
        String v = value.trim();
        long parsed = v.startsWith("0x") || v.startsWith("0X")
                ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseUnsignedLong(v);
        if (bits < 64 && Long.compareUnsigned(parsed, (1L << bits) - 1) > 0) {
            throw new NumberFormatException("does not fit in " + bits + " bits");
        }
        return parsed;
    }
}
