package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * Every format issue 5 lists, through the image unit: image_load of known texels (DMASK 0xf, and 0xa: y and w
 * packed, and D16), image_store of register values, and image_load again through the group's own stores, on a
 * 4x4 image whose T# orders the channels Y, X, W, Z. The expected texel bytes and register values come from a
 * conversion written here from the format rules — AMD's names list channels from the most significant bits
 * down (2_10_10_10 is R10G10B10A2, x in [9:0]); UNORM u / (2^n - 1) and SNORM s / (2^(n-1) - 1) as float
 * divisions; the sRGB curve; halves and the unsigned 11/10-bit floats decoded from their fields; stores
 * clamping, scaling and rounding to nearest even — not from the model's texel codec.
 */
@Tag("unit")
class ImageFormatRoundTripTest {
    @TempDir
    Path dir;

    /** A format: its name, its channels' (shift, bits) in a packed dword, or byte-aligned (shift -1), and its numeric kind. */
    record Format(String name, int[][] channels, String kind) {
        int bytes() {
            int bits = 0;
            for (int[] c : channels) {
                bits += c[1];
            }
            return bits / 8;
        }

        boolean packed() {
            return channels[0][0] >= 0;
        }

        boolean integer() {
            return kind.equals("UINT") || kind.equals("SINT");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Format> formats() {
        List<Format> out = new ArrayList<>();
        String[] normalised = {"UNORM", "SNORM", "UINT", "SINT", "SRGB"};
        for (String size : new String[] {"8", "8_8", "8_8_8_8"}) {
            for (String kind : normalised) {
                out.add(aligned(size, kind));
            }
        }
        for (String size : new String[] {"16", "16_16", "16_16_16_16"}) {
            for (String kind : new String[] {"FLOAT", "UNORM", "UINT", "SINT"}) {
                out.add(aligned(size, kind));
            }
        }
        for (String size : new String[] {"32", "32_32", "32_32_32_32"}) {
            for (String kind : new String[] {"FLOAT", "UINT", "SINT"}) {
                out.add(aligned(size, kind));
            }
        }
        // packed: fields named from the most significant bits down, so the last name is channel x at bit 0
        for (String kind : new String[] {"UNORM", "SNORM", "UINT", "SINT"}) {
            out.add(new Format("10_10_10_2_" + kind, new int[][] {{0, 2}, {2, 10}, {12, 10}, {22, 10}}, kind));
            out.add(new Format("2_10_10_10_" + kind, new int[][] {{0, 10}, {10, 10}, {20, 10}, {30, 2}}, kind));
        }
        out.add(new Format("11_11_10_FLOAT", new int[][] {{0, 10}, {10, 11}, {21, 11}}, "FLOAT"));
        out.add(new Format("10_11_11_FLOAT", new int[][] {{0, 11}, {11, 11}, {22, 10}}, "FLOAT"));
        return out.stream();
    }

    private static Format aligned(String size, String kind) {
        String[] parts = size.split("_");
        int[][] channels = new int[parts.length][];
        for (int c = 0; c < parts.length; c++) {
            channels[c] = new int[] {-1, Integer.parseInt(parts[c])};
        }
        return new Format(size + "_" + kind, channels, kind);
    }

    // ---------------------------------------------------------------- the oracle

    private static int f(float v) {
        return Float.floatToRawIntBits(v);
    }

    /** The raw channel fields of one texel. */
    static long[] fields(Format fmt, byte[] texel) {
        long[] raw = new long[fmt.channels().length];
        if (fmt.packed()) {
            long word = ByteBuffer.wrap(texel).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
            for (int c = 0; c < raw.length; c++) {
                raw[c] = word >>> fmt.channels()[c][0] & ((1L << fmt.channels()[c][1]) - 1);
            }
            return raw;
        }
        int at = 0;
        for (int c = 0; c < raw.length; c++) {
            int bytes = fmt.channels()[c][1] / 8;
            for (int b = 0; b < bytes; b++) {
                raw[c] |= (long) (texel[at + b] & 0xFF) << (8 * b);
            }
            at += bytes;
        }
        return raw;
    }

    static byte[] texel(Format fmt, long[] raw) {
        byte[] out = new byte[fmt.bytes()];
        if (fmt.packed()) {
            long word = 0;
            for (int c = 0; c < raw.length; c++) {
                word |= (raw[c] & ((1L << fmt.channels()[c][1]) - 1)) << fmt.channels()[c][0];
            }
            ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).putInt((int) word);
            return out;
        }
        int at = 0;
        for (int c = 0; c < raw.length; c++) {
            for (int b = 0; b < fmt.channels()[c][1] / 8; b++) {
                out[at++] = (byte) (raw[c] >>> (8 * b));
            }
        }
        return out;
    }

    /** The four register values a read gives, channel x first; channels the format lacks read 0, 0, 0, 1. */
    static int[] read(Format fmt, byte[] texel) {
        long[] raw = fields(fmt, texel);
        int[] out = {0, 0, 0, fmt.integer() ? 1 : f(1f)};
        for (int c = 0; c < raw.length; c++) {
            int n = fmt.channels()[c][1];
            long max = (1L << n) - 1;
            long signed = raw[c] << (64 - n) >> (64 - n);
            out[c] = switch (fmt.kind()) {
                case "UNORM" -> f((float) raw[c] / (float) max);
                case "SNORM" -> f(Math.max(-1f, (float) signed / (float) ((1L << (n - 1)) - 1)));
                case "SRGB" -> {
                    double v = raw[c] / 255.0;
                    yield c == 3 ? f((float) raw[c] / 255f)
                            : f((float) (v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4)));
                }
                case "UINT" -> (int) raw[c];
                case "SINT" -> (int) signed;
                default -> n == 32 ? (int) raw[c] : f((float) smallFloat(raw[c], n == 16 ? 5 : 5, n - (n == 16 ? 6 : 5),
                        n == 16));
            };
        }
        return out;
    }

    /** A float of a 5-bit exponent (bias 15) and {@code mantissa} bits; signed only for halves. */
    static double smallFloat(long bits, int exponentBits, int mantissa, boolean signed) {
        long e = bits >>> mantissa & 0x1F;
        long m = bits & ((1L << mantissa) - 1);
        double v = e == 31 ? (m == 0 ? Double.POSITIVE_INFINITY : Double.NaN)
                : e == 0 ? m * Math.pow(2, -14 - mantissa) : (1 + m / Math.pow(2, mantissa)) * Math.pow(2, e - 15);
        return signed && (bits >>> 15 & 1) != 0 ? -v : v;
    }

    /** The nearest pattern of a 5-bit-exponent float with {@code mantissa} bits (ties to even); unsigned ones clamp at 0. */
    static long toSmallFloat(float x, int mantissa, boolean signed) {
        long sign = signed && (f(x) < 0) ? 1L << 15 : 0;
        if (Float.isNaN(x)) {
            return sign | 31L << mantissa | 1L << (mantissa - 1);
        }
        double a = signed ? Math.abs((double) x) : Math.max(0, x);
        if (Double.isInfinite(a)) {
            return sign | 31L << mantissa;
        }
        // units of the binade's quantum (the lowest binade's for subnormals), rounded to even; the pattern is
        // the binade's exponent field then the units past the leading one, and a carry moves to the next binade
        int e = a == 0 ? -14 : Math.max(Math.getExponent(a), -14);
        long units = (long) Math.rint(a / Math.scalb(1.0, e - mantissa));
        long best = e == -14 && units < 1L << mantissa ? units : ((long) (e + 15) << mantissa) + units - (1L << mantissa);
        if (best > 31L << mantissa) {
            best = 31L << mantissa;
        }
        return sign | best;
    }

    /** The texel a store of four register values (channel x first) writes. */
    static byte[] write(Format fmt, int[] regs) {
        long[] raw = new long[fmt.channels().length];
        for (int c = 0; c < raw.length; c++) {
            int n = fmt.channels()[c][1];
            long mask = n == 32 ? 0xFFFFFFFFL : (1L << n) - 1;
            float x = Float.intBitsToFloat(regs[c]);
            double clamped01 = Float.isNaN(x) ? 0 : Math.min(1, Math.max(0, x));
            raw[c] = switch (fmt.kind()) {
                case "UNORM" -> (long) Math.rint(clamped01 * mask);
                case "SNORM" -> (long) Math.rint((Float.isNaN(x) ? 0 : Math.min(1, Math.max(-1, x))) * ((1L << (n - 1)) - 1))
                        & mask;
                case "SRGB" -> c == 3 ? (long) Math.rint(clamped01 * 255) : (long) Math.rint(255 * (clamped01 <= 0.0031308
                        ? 12.92 * clamped01 : 1.055 * Math.pow(clamped01, 1 / 2.4) - 0.055));
                case "UINT", "SINT" -> regs[c] & mask;
                default -> n == 32 ? regs[c] & mask : toSmallFloat(x, n == 16 ? 10 : n - 5, n == 16);
            };
        }
        return texel(fmt, raw);
    }

    // ---------------------------------------------------------------- the test

    private static final String PROGRAM = ImageUnitTest.PROLOGUE + """
            image_load v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
            image_load v[8:9], v[1:2], s[8:15] dmask:0xa dim:SQ_RSRC_IMG_2D unorm
            image_load v[10:11], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm d16
            s_waitcnt vmcnt(0)
            global_store_dwordx4 v3, v[4:7], s[2:3]
            global_store_dwordx4 v3, v[8:11], s[2:3] offset:256
            global_load_dwordx4 v[4:7], v3, s[6:7]
            s_waitcnt vmcnt(0)
            image_store v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
            image_load v[12:15], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
            s_waitcnt vmcnt(0)
            global_store_dwordx4 v3, v[12:15], s[2:3] offset:512
            """;

    /** Register values to store: in range for the format, with zeros, ones and halfway points among them. */
    private static int[] values(Format fmt, Random r) {
        int[] v = new int[4];
        for (int c = 0; c < 4; c++) {
            int n = c < fmt.channels().length ? fmt.channels()[c][1] : 8;
            v[c] = switch (fmt.kind()) {
                case "UINT" -> (int) (r.nextLong() & ((1L << Math.min(n, 31)) - 1));
                case "SINT" -> (int) (r.nextLong() % (1L << (Math.min(n, 32) - 1)));
                case "FLOAT" -> {
                    float[] special = {0f, -0f, 1f, -2.5f, 65504f, 1e-6f, 70000f, Float.POSITIVE_INFINITY};
                    yield f(r.nextInt(4) == 0 ? special[r.nextInt(special.length)] : (float) ((r.nextDouble() - 0.3) * 100));
                }
                default -> {
                    float[] special = {0f, 1f, -1f, 0.5f, 2f, -0.25f, 0.5f / 255, 127.5f / 255};
                    yield f(r.nextInt(3) == 0 ? special[r.nextInt(special.length)] : (float) (r.nextDouble() * 2.4 - 1.2));
                }
            };
        }
        return v;
    }

    /** Initial texel bytes: random, with float fields kept finite (no NaN payloads to argue about). */
    private static byte[] initial(Format fmt, Random r) {
        byte[] t = new byte[fmt.bytes()];
        do {
            r.nextBytes(t);
        } while (fmt.kind().equals("FLOAT") && !finite(read(fmt, t)));
        return t;
    }

    private static boolean finite(int[] regs) {
        for (int x : regs) {
            if (!Float.isFinite(Float.intBitsToFloat(x))) {
                return false;
            }
        }
        return true;
    }

    /** DST_SEL Y, X, W, Z applied to storage-order values: every channel shows, present or defaulted. */
    private static int[] yxwz(int[] v) {
        return new int[] {v[1], v[0], v[3], v[2]};
    }

    /** A register value as D16 narrows it: floats to the nearest half, integers to their low 16 bits. */
    private static int d16(Format fmt, int reg) {
        return fmt.integer() ? reg & 0xFFFF : (int) toSmallFloat(Float.intBitsToFloat(reg), 10, true);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("formats")
    void loads_and_stores_convert_as_the_format_rules_say(Format fmt) throws Exception {
        Random r = new Random(fmt.name().hashCode());
        ByteBuffer image = ByteBuffer.allocate(16 * fmt.bytes());
        ByteBuffer stores = ByteBuffer.allocate(16 * 16).order(ByteOrder.LITTLE_ENDIAN);
        byte[][] texels = new byte[16][];
        int[][] values = new int[16][];
        for (int i = 0; i < 16; i++) {
            texels[i] = initial(fmt, r);
            image.put(texels[i]);
            values[i] = values(fmt, r);
            for (int v : values[i]) {
                stores.putInt(v);
            }
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(16);
        Path raw = runner.file("t.raw", image.array());
        Path in = runner.file("v.bin", stores.array());
        var out = runner.arg("zeros:768").arg("image:raw:" + raw + ",4x4,format=" + fmt.name() + ",order=YXWZ")
                .arg("buffer:" + in).run(PROGRAM).ok();
        ByteBuffer b = out.bufferView(0);
        List<TexelStore> stored = out.result().texels();
        assertEquals(16, stored.size());
        for (int i = 0; i < 16; i++) {
            String where = fmt + " texel " + i;
            int[] want = yxwz(read(fmt, texels[i]));
            for (int c = 0; c < 4; c++) {
                assertEquals(want[c], b.getInt(16 * i + 4 * c), where + ": load channel " + c + " of " + hex(texels[i]));
            }
            assertEquals(want[1], b.getInt(256 + 16 * i), where + ": DMASK 0xa, first register is y");
            assertEquals(want[3], b.getInt(256 + 16 * i + 4), where + ": DMASK 0xa, second register is w");
            assertEquals(d16(fmt, want[0]) | d16(fmt, want[1]) << 16, b.getInt(256 + 16 * i + 8), where + ": D16 x, y");
            assertEquals(d16(fmt, want[2]) | d16(fmt, want[3]) << 16, b.getInt(256 + 16 * i + 12), where + ": D16 z, w");
            byte[] written = write(fmt, values[i]);
            TexelStore s = stored.get(i);
            assertEquals(i, s.texel());
            assertEquals(hex(written), hex(s.value()), where + ": store of " + hexWords(values[i]));
            int[] back = yxwz(read(fmt, written));
            for (int c = 0; c < 4; c++) {
                assertEquals(back[c], b.getInt(512 + 16 * i + 4 * c), where + ": load after the store, channel " + c);
            }
        }
    }

    /** The gfx10 buffer FORMAT numbers llvm-mc-19 gives these formats (its BUF_FMT_* names; sRGB is image-only). */
    private static int bufferFormat(String name) {
        String[] kinds7 = {"UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "FLOAT"};
        String[] kinds6 = {"UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT"};
        String[] kinds3 = {"UINT", "SINT", "FLOAT"};
        Object[][] blocks = {{"8", 1, kinds6}, {"16", 7, kinds7}, {"8_8", 14, kinds6}, {"32", 20, kinds3},
            {"16_16", 23, kinds7}, {"10_11_11", 30, kinds7}, {"11_11_10", 37, kinds7}, {"10_10_10_2", 44, kinds6},
            {"2_10_10_10", 50, kinds6}, {"8_8_8_8", 56, kinds6}, {"32_32", 62, kinds3}, {"16_16_16_16", 65, kinds7},
            {"32_32_32_32", 75, kinds3}};
        for (Object[] b : blocks) {
            String[] kinds = (String[]) b[2];
            for (int k = 0; k < kinds.length; k++) {
                if (name.equals(b[0] + "_" + kinds[k])) {
                    return (int) b[1] + k;
                }
            }
        }
        throw new IllegalArgumentException(name);
    }

    static Stream<Format> bufferFormats() {
        return formats().filter(fmt -> !fmt.kind().equals("SRGB"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bufferFormats")
    void buffer_format_loads_and_stores_convert_as_the_format_rules_say(Format fmt) throws Exception {
        // buffer 0: 16 elements to load, then 16 to store into; buffer 1: results (48 bytes a lane); buffer 2:
        // the values to store. The V# (s[8:11]) views buffer 0 raw (OOB_SELECT 3), its DST_SEL Y, X, W, Z.
        Random r = new Random(fmt.name().hashCode() + 1);
        int bytes = fmt.bytes();
        ByteBuffer elements = ByteBuffer.allocate(32 * bytes);
        ByteBuffer stores = ByteBuffer.allocate(16 * 16).order(ByteOrder.LITTLE_ENDIAN);
        byte[][] texels = new byte[16][];
        int[][] values = new int[16][];
        for (int i = 0; i < 16; i++) {
            texels[i] = initial(fmt, r);
            elements.put(texels[i]);
            values[i] = values(fmt, r);
            for (int v : values[i]) {
                stores.putInt(v);
            }
        }
        int number = bufferFormat(fmt.name());
        int yxwz = 5 | 4 << 3 | 7 << 6 | 6 << 9;
        var out = new GuestAsm(dir).buffer(elements.array()).buffer(new byte[48 * 16]).buffer(stores.array())
                .setup(w -> {
                    long base = w.sgpr64(0);
                    w.setSgpr(8, (int) base);
                    w.setSgpr(9, (int) (base >>> 32 & 0xFFFF));
                    w.setSgpr(10, 32 * bytes);
                    w.setSgpr(11, yxwz | number << 12 | 3 << 28);
                    w.setExec(0xFFFF);
                }).run("""
                        v_mul_u32_u24 v1, %d, v0
                        buffer_load_format_xyzw v[4:7], v1, s[8:11], 0 offen
                        v_lshlrev_b32 v2, 4, v0
                        global_load_dwordx4 v[12:15], v2, s[4:5]
                        v_mul_u32_u24 v3, 48, v0
                        s_waitcnt vmcnt(0)
                        global_store_dwordx4 v3, v[4:7], s[2:3]
                        v_add_nc_u32 v1, %d, v1
                        buffer_store_format_xyzw v[12:15], v1, s[8:11], 0 offen
                        buffer_load_format_xyzw v[4:7], v1, s[8:11], 0 offen
                        buffer_load_format_d16_xyzw v[8:9], v1, s[8:11], 0 offen
                        s_waitcnt vmcnt(0)
                        global_store_dwordx4 v3, v[4:7], s[2:3] offset:16
                        global_store_dwordx2 v3, v[8:9], s[2:3] offset:32
                        """.formatted(bytes, 16 * bytes)).ok();
        ByteBuffer results = ByteBuffer.wrap(out.buffer(1)).order(ByteOrder.LITTLE_ENDIAN);
        byte[] memory = out.buffer(0);
        for (int i = 0; i < 16; i++) {
            String where = fmt + " element " + i;
            int[] want = yxwz(read(fmt, texels[i]));
            for (int c = 0; c < 4; c++) {
                assertEquals(want[c], results.getInt(48 * i + 4 * c), where + ": load channel " + c + " of " + hex(texels[i]));
            }
            byte[] written = write(fmt, values[i]);
            byte[] got = java.util.Arrays.copyOfRange(memory, (16 + i) * bytes, (17 + i) * bytes);
            assertEquals(hex(written), hex(got), where + ": store of " + hexWords(values[i]));
            int[] back = yxwz(read(fmt, written));
            for (int c = 0; c < 4; c++) {
                assertEquals(back[c], results.getInt(48 * i + 16 + 4 * c), where + ": load after the store, channel " + c);
            }
            assertEquals(d16(fmt, back[0]) | d16(fmt, back[1]) << 16, results.getInt(48 * i + 32), where + ": D16 x, y");
            assertEquals(d16(fmt, back[2]) | d16(fmt, back[3]) << 16, results.getInt(48 * i + 36), where + ": D16 z, w");
        }
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xFF));
        }
        return s.toString();
    }

    private static String hexWords(int[] v) {
        StringBuilder s = new StringBuilder();
        for (int x : v) {
            s.append(String.format("%08x ", x));
        }
        return s.toString().trim();
    }

    @org.junit.jupiter.api.Test
    void the_oracle_decodes_known_patterns() {
        // half 0x3c00 = 1, 0xc000 = -2, 0x0001 = 2^-24; f11 0x3c0 (exponent 15) = 1; f10 0x1f0 (exponent 15, mantissa 16) = 1.5
        assertEquals(1.0, smallFloat(0x3C00, 5, 10, true));
        assertEquals(-2.0, smallFloat(0xC000, 5, 10, true));
        assertEquals(Math.pow(2, -24), smallFloat(1, 5, 10, true));
        assertEquals(1.0, smallFloat(0x3C0, 5, 6, false));
        assertEquals(1.5, smallFloat(0x1F0, 5, 5, false));
        assertEquals(0x3C00, toSmallFloat(1f, 10, true));
        assertEquals(0x7C00, toSmallFloat(65520f, 10, true), "halfway past the largest half rounds to infinity");
        assertEquals(0x7BFF, toSmallFloat(65519f, 10, true));
        assertEquals(46, formats().count(), "every format issue 5 lists");
    }
}
