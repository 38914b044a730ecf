package org.replayfarm.model.amber;

import java.util.ArrayList;
import java.util.List;

/**
 * The Vulkan formats an AmberScript {@code FORMAT} may name here, with their {@code VkFormat} value (the
 * Vulkan specification's enum value), texel size and components. Components are listed in memory order: for
 * the byte-aligned formats the order of the name (B8G8R8A8 puts B in byte 0), for the {@code _PACK32}
 * formats from the least significant bit of the little-endian word up (A2B10G10R10 puts R in bits 0..9,
 * B10G11R11 puts R in bits 0..10), as the Vulkan specification defines packed formats.
 *
 * <p>As in Amber, the values a DATA, FILL or EXPECT gives for a FORMAT buffer are the components' raw
 * integers for UNORM/SNORM/UINT/SINT components (a UNORM byte is given as 0..255, not as 0.0..1.0) and floats
 * for SFLOAT components; a packed format takes one raw integer per texel (Amber gives a packed format a
 * single segment of the pack's width). {@link #encode}/{@link #decode} convert one component between its
 * value (normalized for UNORM/SNORM) and its raw bits, for a runner or an image probe.
 */
public enum AmberFormat {
    R8_UNORM(9, 0, "R8", Encoding.UNORM),
    R8_SNORM(10, 0, "R8", Encoding.SNORM),
    R8_UINT(13, 0, "R8", Encoding.UINT),
    R8_SINT(14, 0, "R8", Encoding.SINT),
    R8G8_UNORM(16, 0, "R8 G8", Encoding.UNORM),
    R8G8_SNORM(17, 0, "R8 G8", Encoding.SNORM),
    R8G8_UINT(20, 0, "R8 G8", Encoding.UINT),
    R8G8_SINT(21, 0, "R8 G8", Encoding.SINT),
    R8G8B8A8_UNORM(37, 0, "R8 G8 B8 A8", Encoding.UNORM),
    R8G8B8A8_SNORM(38, 0, "R8 G8 B8 A8", Encoding.SNORM),
    R8G8B8A8_UINT(41, 0, "R8 G8 B8 A8", Encoding.UINT),
    R8G8B8A8_SINT(42, 0, "R8 G8 B8 A8", Encoding.SINT),
    B8G8R8A8_UNORM(44, 0, "B8 G8 R8 A8", Encoding.UNORM),
    B8G8R8A8_UINT(48, 0, "B8 G8 R8 A8", Encoding.UINT),
    A2B10G10R10_UNORM_PACK32(64, 32, "R10 G10 B10 A2", Encoding.UNORM),
    A2B10G10R10_UINT_PACK32(68, 32, "R10 G10 B10 A2", Encoding.UINT),
    R16_UNORM(70, 0, "R16", Encoding.UNORM),
    R16_UINT(74, 0, "R16", Encoding.UINT),
    R16_SINT(75, 0, "R16", Encoding.SINT),
    R16_SFLOAT(76, 0, "R16", Encoding.SFLOAT),
    R16G16_UNORM(77, 0, "R16 G16", Encoding.UNORM),
    R16G16_UINT(81, 0, "R16 G16", Encoding.UINT),
    R16G16_SINT(82, 0, "R16 G16", Encoding.SINT),
    R16G16_SFLOAT(83, 0, "R16 G16", Encoding.SFLOAT),
    R16G16B16A16_UNORM(91, 0, "R16 G16 B16 A16", Encoding.UNORM),
    R16G16B16A16_SNORM(92, 0, "R16 G16 B16 A16", Encoding.SNORM),
    R16G16B16A16_UINT(95, 0, "R16 G16 B16 A16", Encoding.UINT),
    R16G16B16A16_SINT(96, 0, "R16 G16 B16 A16", Encoding.SINT),
    R16G16B16A16_SFLOAT(97, 0, "R16 G16 B16 A16", Encoding.SFLOAT),
    R32_UINT(98, 0, "R32", Encoding.UINT),
    R32_SINT(99, 0, "R32", Encoding.SINT),
    R32_SFLOAT(100, 0, "R32", Encoding.SFLOAT),
    R32G32_UINT(101, 0, "R32 G32", Encoding.UINT),
    R32G32_SINT(102, 0, "R32 G32", Encoding.SINT),
    R32G32_SFLOAT(103, 0, "R32 G32", Encoding.SFLOAT),
    R32G32B32A32_UINT(107, 0, "R32 G32 B32 A32", Encoding.UINT),
    R32G32B32A32_SINT(108, 0, "R32 G32 B32 A32", Encoding.SINT),
    R32G32B32A32_SFLOAT(109, 0, "R32 G32 B32 A32", Encoding.SFLOAT),
    B10G11R11_UFLOAT_PACK32(122, 32, "R11 G11 B10", Encoding.UFLOAT),
    /** A depth format: known so that it is refused by name ({@link #depth()}). */
    D32_SFLOAT(126, 0, "D32", Encoding.SFLOAT);

    /** How one component's bits encode its value. */
    public enum Encoding {
        UNORM, SNORM, UINT, SINT, SFLOAT, UFLOAT
    }

    /** One component: its channel letter (R, G, B, A or D), width, encoding and place in the texel. */
    public record Component(char channel, int bits, Encoding encoding, int bitOffset) {
    }

    private final int vkFormat;
    private final int packBits;
    private final List<Component> components;
    private final int bytesPerTexel;

    AmberFormat(int vkFormat, int packBits, String layout, Encoding encoding) {
        this.vkFormat = vkFormat;
        this.packBits = packBits;
        List<Component> list = new ArrayList<>();
        int bit = 0;
        for (String part : layout.split(" ")) {
            int bits = Integer.parseInt(part.substring(1));
            list.add(new Component(part.charAt(0), bits, encoding, bit));
            bit += bits;
        }
        this.components = List.copyOf(list);
        this.bytesPerTexel = bit / 8;
    }

    /** The format named by an AmberScript FORMAT (with or without the {@code VK_FORMAT_} prefix), or null. */
    public static AmberFormat byName(String name) {
        String n = name.startsWith("VK_FORMAT_") ? name.substring("VK_FORMAT_".length()) : name;
        for (AmberFormat f : values()) {
            if (f.name().equals(n)) {
                return f;
            }
        }
        return null;
    }

    /** The {@code VkFormat} enum value. */
    public int vkFormat() {
        return vkFormat;
    }

    /** Bytes one texel takes. */
    public int bytesPerTexel() {
        return bytesPerTexel;
    }

    /** The number of components. */
    public int componentCount() {
        return components.size();
    }

    /** The components in memory order. */
    public List<Component> components() {
        return components;
    }

    /** Whether the components share one packed word ({@code _PACK32}). */
    public boolean packed() {
        return packBits != 0;
    }

    /** Whether this is a depth (or stencil) format, which this package refuses. */
    public boolean depth() {
        return components.get(0).channel() == 'D';
    }

    /** Whether every component is UNORM or SNORM (a probe scales such texels to 0..1 or -1..1). */
    public boolean normalized() {
        return components.stream().allMatch(c -> c.encoding() == Encoding.UNORM || c.encoding() == Encoding.SNORM);
    }

    /**
     * The slots a DATA/FILL/EXPECT value list walks per texel: one per component, or one raw integer of the
     * pack's width for a packed format (as Amber does).
     */
    public List<ValueSlot> dataSlots() {
        if (packed()) {
            return List.of(new ValueSlot(0, 0, packBits, ValueSlot.Kind.UINT));
        }
        return channelSlots();
    }

    /** One slot per component, at its bit position, read by its encoding (for probes and conversions). */
    public List<ValueSlot> channelSlots() {
        List<ValueSlot> slots = new ArrayList<>();
        for (Component c : components) {
            int offset = packed() ? 0 : c.bitOffset() / 8;
            int shift = packed() ? c.bitOffset() : 0;
            slots.add(new ValueSlot(offset, shift, c.bits(), switch (c.encoding()) {
                case UNORM -> ValueSlot.Kind.UNORM;
                case SNORM -> ValueSlot.Kind.SNORM;
                case UINT -> ValueSlot.Kind.UINT;
                case SINT -> ValueSlot.Kind.SINT;
                case SFLOAT -> ValueSlot.Kind.FLOAT;
                case UFLOAT -> ValueSlot.Kind.UFLOAT;
            }));
        }
        return List.copyOf(slots);
    }

    /**
     * Component {@code index}'s raw bits for {@code value}: UNORM round(v * (2^b - 1)) with v clamped to [0, 1];
     * SNORM round(v * (2^(b-1) - 1)) with v clamped to [-1, 1] (halves away from zero); UINT/SINT the integer
     * clamped to the component's range (fraction dropped); SFLOAT rounded to nearest even at 16 or 32 bits;
     * UFLOAT the 11/10-bit unsigned float rounded to nearest even (negative gives 0).
     */
    public long encode(int index, double value) {
        Component c = components.get(index);
        int b = c.bits();
        long mask = b == 64 ? -1L : (1L << b) - 1;
        return switch (c.encoding()) {
            case UNORM -> roundHalfAway(clamp(value, 0, 1) * mask);
            case SNORM -> {
                long max = (1L << (b - 1)) - 1;
                yield roundHalfAway(clamp(value, -1, 1) * max) & mask;
            }
            case UINT -> (long) clamp(value, 0, mask) & mask;
            case SINT -> (long) clamp(value, -(1L << (b - 1)), (1L << (b - 1)) - 1) & mask;
            case SFLOAT -> ValueSlot.floatBits(value, b);
            case UFLOAT -> encodeUnsignedFloat(value, b);
        };
    }

    /**
     * Component {@code index}'s value for its raw bits: UNORM raw / (2^b - 1); SNORM max(raw / (2^(b-1) - 1), -1)
     * with raw sign-extended; UINT/SINT the integer; SFLOAT/UFLOAT the float's value.
     */
    public double decode(int index, long raw) {
        Component c = components.get(index);
        int b = c.bits();
        long mask = b == 64 ? -1L : (1L << b) - 1;
        long r = raw & mask;
        long signed = b == 64 ? r : r << (64 - b) >> (64 - b);
        return switch (c.encoding()) {
            case UNORM -> r / (double) mask;
            case SNORM -> Math.max(signed / (double) ((1L << (b - 1)) - 1), -1.0);
            case UINT -> r;
            case SINT -> signed;
            case SFLOAT -> b == 16 ? org.replayfarm.model.fp.Half.toDouble((int) r)
                    : b == 32 ? Float.intBitsToFloat((int) r) : Double.longBitsToDouble(r);
            case UFLOAT -> decodeUnsignedFloat(r, b);
        };
    }

    private static double clamp(double v, double lo, double hi) {
        return Double.isNaN(v) ? 0 : Math.max(lo, Math.min(hi, v));
    }

    private static long roundHalfAway(double v) {
        return (long) (Math.signum(v) * Math.floor(Math.abs(v) + 0.5));
    }

    /** The value of an unsigned 11-bit (6-bit mantissa) or 10-bit (5-bit mantissa) float, exponent bias 15. */
    static double decodeUnsignedFloat(long raw, int bits) {
        int m = bits - 5;
        int exp = (int) (raw >>> m) & 0x1F;
        long mant = raw & ((1L << m) - 1);
        if (exp == 0x1F) {
            return mant == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        }
        if (exp == 0) {
            return Math.scalb((double) mant, -14 - m);
        }
        return Math.scalb((double) (mant | 1L << m), exp - 15 - m);
    }

    /** An unsigned 11/10-bit float for {@code v}, rounded to nearest even; negatives and -0 give 0. */
    static long encodeUnsignedFloat(double v, int bits) {
        int m = bits - 5;
        if (Double.isNaN(v)) {
            return 0x1FL << m | 1;
        }
        if (!(v > 0)) {
            return 0;
        }
        if (Double.isInfinite(v)) {
            return 0x1FL << m;
        }
        int e = Math.max(Math.getExponent(v), -14);
        double n = Math.rint(Math.scalb(v, m - e));
        if (n >= 1L << (m + 1)) {
            n /= 2;
            e++;
        }
        if (e > 15) {
            return 0x1FL << m;
        }
        long mant = (long) n;
        if (mant < 1L << m) {
            return mant; // denormal (e == -14)
        }
        return (long) (e + 15) << m | (mant - (1L << m));
    }
}
