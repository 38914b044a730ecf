package org.replayfarm.gpunode.translate.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.bvh.BvhBuilder;
import org.replayfarm.model.bvh.BvhDescriptor;
import org.replayfarm.model.bvh.NodeTest;
import org.replayfarm.model.bvh.NodeType;
import org.replayfarm.model.bvh.Ray;
import org.replayfarm.model.fp.Half;
import org.replayfarm.model.fp.Rounding;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.model.isa.AtomicOp;

/**
 * rt_image.h, built with g++ into a driver, against independent oracles: the model's texel codec
 * (TexelCodec, which the host model reads and writes texels through) for every format the host model
 * knows, the model's BVH node test (NodeTest) for box32, box16 and triangle nodes in both return modes,
 * Java's own arithmetic for the image atomics and half conversions; and the header compiled by nvcc for sm_90.
 */
@Tag("corpus")
class RtImageHeaderTest {
    private static Path driver;

    @BeforeAll
    static void build() throws Exception {
        driver = RtImageBuild.gpp("rt_image_driver.cpp");
    }

    private static String hex(int v) {
        return Integer.toHexString(v);
    }

    private static List<ImageFormat> formats() {
        List<ImageFormat> out = new ArrayList<>();
        for (String n : ImageFormat.names()) {
            out.add(ImageFormat.parse(n));
        }
        return out;
    }

    @Test
    void every_format_number_decodes_like_the_model() throws Exception {
        Random r = new Random(13);
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (ImageFormat f : formats()) {
            List<byte[]> texels = new ArrayList<>();
            for (int k = 0; k < 256; k++) {
                byte[] b = new byte[16];
                java.util.Arrays.fill(b, (byte) k); // every byte value in every channel position
                texels.add(b);
            }
            for (int k = 0; k < 600; k++) {
                byte[] b = new byte[16];
                r.nextBytes(b);
                texels.add(b);
            }
            for (int k = 0; k < 64; k++) { // half and small-float specials: exponent all ones / zero
                byte[] b = new byte[16];
                r.nextBytes(b);
                for (int i = 0; i < 16; i += 2) {
                    b[i + 1] = (byte) ((k & 1) == 0 ? b[i + 1] | 0x7C : b[i + 1] & 0x83);
                }
                texels.add(b);
            }
            for (byte[] b : texels) {
                StringBuilder s = new StringBuilder("D " + hex(f.number()));
                for (byte x : b) {
                    s.append(' ').append(hex(x & 0xFF));
                }
                cmds.add(s.toString());
                int[] d = TexelCodec.decode(f, b, 0);
                want.add(String.format("%08x %08x %08x %08x", d[0], d[1], d[2], d[3]));
            }
        }
        compare(cmds, want, "decode");
    }

    private static int[] interesting(Random r, ImageFormat f) {
        int[] special = {0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001,
                0xFFC00123, 0x00000001, 0x807FFFFF, 0x3F000000, 0x477FE000, 0x477FF000, 0x477FEFFF, 0x38800000,
                0x33800000, 0x33000000, 0x33000001, 0x387FC000, 0x4F800000, 0xCF000000, 0x7F7FFFFF, 0x46FFFE00,
                0x47000000, 0xC7000100, 0x437F0000, 0x477FFF00};
        int pick = r.nextInt(8);
        if (pick == 0) {
            return new int[] {special[r.nextInt(special.length)]};
        }
        if (pick == 1) {
            return new int[] {r.nextInt()};
        }
        if (pick <= 3) { // near a UNORM / SNORM / sRGB rounding boundary of an 8/10/16-bit channel
            int bits = new int[] {2, 8, 10, 11, 16}[r.nextInt(5)];
            double max = (1 << bits) - 1;
            double x = (r.nextInt((int) max + 1) + 0.5) / max;
            if (f.numeric() == org.replayfarm.proto.NumericFormat.NUM_SRGB) {
                x = TexelCodec.srgbToLinear(x);
            }
            int b = Float.floatToRawIntBits((float) (r.nextBoolean() ? x : -x));
            return new int[] {b + r.nextInt(3) - 1};
        }
        if (pick == 4) { // integers and their halves
            float v = r.nextInt(70000) - 35000 + (r.nextInt(4) / 2f);
            return new int[] {Float.floatToRawIntBits(v)};
        }
        if (pick == 5) { // a half / small float mantissa boundary
            int e = r.nextInt(40) - 25;
            int m = r.nextInt(1 << 23);
            return new int[] {(r.nextBoolean() ? 0 : 0x80000000) | (127 + e) << 23 | (m & ~0x1FFF) | 0x1000 * r.nextInt(2)
                    | r.nextInt(2)};
        }
        return new int[] {Float.floatToRawIntBits((float) (r.nextGaussian() * Math.pow(10, r.nextInt(12) - 6)))};
    }

    @Test
    void every_format_number_encodes_like_the_model() throws Exception {
        Random r = new Random(31);
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (ImageFormat f : formats()) {
            for (int k = 0; k < 700; k++) {
                int[] regs = new int[4];
                for (int c = 0; c < 4; c++) {
                    regs[c] = interesting(r, f)[0];
                }
                cmds.add(String.format("E %x %x %x %x %x", f.number(), regs[0], regs[1], regs[2], regs[3]));
                byte[] b = TexelCodec.encode(f, regs);
                StringBuilder s = new StringBuilder();
                for (int i = 0; i < b.length; i++) {
                    s.append(i == 0 ? "" : " ").append(String.format("%02x", b[i] & 0xFF));
                }
                want.add(s.toString());
            }
        }
        compare(cmds, want, "encode");
    }

    @Test
    void d16_narrowing_and_widening() throws Exception {
        Random r = new Random(7);
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (ImageFormat f : formats()) {
            for (int k = 0; k < 200; k++) {
                int reg = interesting(r, f)[0];
                cmds.add(String.format("H %x %x", f.number(), reg));
                want.add(String.format("%08x", f.integer() ? reg & 0xFFFF : Half.fromFloatBits(reg, Rounding.NEAREST_EVEN) & 0xFFFF));
                int h = r.nextInt(0x10000);
                cmds.add(String.format("W %x %x", f.number(), h));
                int widened = !f.integer() ? Half.toFloatBits(h)
                        : f.numeric() == org.replayfarm.proto.NumericFormat.NUM_SINT ? (short) h : h;
                want.add(String.format("%08x", widened));
            }
        }
        compare(cmds, want, "d16");
    }

    @Test
    void unknown_format_numbers_are_refused() throws Exception {
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (int n : new int[] {0, 78, 100, 127, 131, 511}) {
            cmds.add("D " + hex(n) + " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
            want.add("unknown");
        }
        compare(cmds, want, "unknown format");
    }

    /** The image atomics' new values against Java's arithmetic (ISA: the op's definition per opcode). */
    @Test
    void atomic_operations() throws Exception {
        Random r = new Random(3);
        String[] ops = {"swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax", "and", "or", "xor", "inc", "dec",
                "fcmpswap", "fmin", "fmax"};
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        long[] special = {0, 1, -1, 0x7FFFFFFFL, 0x80000000L, Float.floatToRawIntBits(-0f) & 0xFFFFFFFFL,
                Float.floatToRawIntBits(Float.NaN), Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(1.5),
                Double.doubleToRawLongBits(Double.NaN), 0x3F800000L};
        for (int k = 0; k < 4000; k++) {
            int op = r.nextInt(ops.length);
            boolean wide = r.nextBoolean();
            long old = r.nextInt(4) == 0 ? special[r.nextInt(special.length)] : r.nextLong();
            long data = r.nextInt(4) == 0 ? special[r.nextInt(special.length)] : r.nextInt(3) == 0 ? old + r.nextInt(3) - 1
                    : r.nextLong();
            long cmp = r.nextBoolean() ? old : r.nextLong();
            if (!wide) {
                old &= 0xFFFFFFFFL;
                data &= 0xFFFFFFFFL;
                cmp &= 0xFFFFFFFFL;
            }
            int code = AtomicOp.valueOf(ops[op].toUpperCase(java.util.Locale.ROOT)).ordinal(); // rt_atomic.h's RT_AOP_*
            cmds.add(String.format("A %x %x %x %x %x", code, wide ? 1 : 0, old, data, cmp));
            want.add(String.format("%016x", atomic(ops[op], old, data, cmp, wide)));
        }
        compare(cmds, want, "atomic");
    }

    private static long atomic(String op, long old, long data, long cmp, boolean wide) {
        long mask = wide ? -1L : 0xFFFFFFFFL;
        long so = wide ? old : (int) old;
        long sd = wide ? data : (int) data;
        double x = wide ? Double.longBitsToDouble(old) : Float.intBitsToFloat((int) old);
        double y = wide ? Double.longBitsToDouble(data) : Float.intBitsToFloat((int) data);
        double c = wide ? Double.longBitsToDouble(cmp) : Float.intBitsToFloat((int) cmp);
        long r = switch (op) {
            case "swap" -> data;
            case "cmpswap" -> old == cmp ? data : old;
            case "add" -> old + data;
            case "sub" -> old - data;
            case "smin" -> Math.min(so, sd);
            case "smax" -> Math.max(so, sd);
            case "umin" -> Long.compareUnsigned(old, data) < 0 ? old : data;
            case "umax" -> Long.compareUnsigned(old, data) > 0 ? old : data;
            case "and" -> old & data;
            case "or" -> old | data;
            case "xor" -> old ^ data;
            case "inc" -> Long.compareUnsigned(old, data) >= 0 ? 0 : old + 1;
            case "dec" -> old == 0 || Long.compareUnsigned(old, data) > 0 ? data : old - 1;
            case "fcmpswap" -> x == c ? data : old;
            // IEEE minNum / maxNum with -0 below +0: Java's Math.min/max once NaNs are handled
            case "fmin" -> Double.isNaN(x) ? data : Double.isNaN(y) ? old : Math.min(x, y) == x
                    && (x != y || Math.copySign(1, x) <= Math.copySign(1, y)) ? old : data;
            case "fmax" -> Double.isNaN(x) ? data : Double.isNaN(y) ? old : Math.max(x, y) == x
                    && (x != y || Math.copySign(1, x) >= Math.copySign(1, y)) ? old : data;
            default -> throw new IllegalArgumentException(op);
        };
        return r & mask;
    }

    /** Box32, box16, triangle (types 0..3, both return modes), instance and procedural nodes against NodeTest. */
    @Test
    void bvh_node_tests_match_the_model() throws Exception {
        Random r = new Random(230);
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        floats.clear();
        // realistic nodes from the model's builder, plus random ones
        float[] soup = new float[9 * 40];
        for (int i = 0; i < soup.length; i++) {
            soup[i] = (float) (r.nextGaussian() * 4);
        }
        BvhBuilder.Bvh built = BvhBuilder.build(soup, 2);
        byte[] nodes = built.nodes();
        for (int k = 0; k < 6000; k++) {
            int[] nd = new int[32];
            int type;
            if (k % 2 == 0 && nodes.length >= 128) {
                int unit = r.nextInt(nodes.length / 64 - 1);
                for (int i = 0; i < 32; i++) {
                    int at = unit * 64 + 4 * i;
                    nd[i] = at + 4 <= nodes.length ? java.nio.ByteBuffer.wrap(nodes, at, 4)
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt() : 0;
                }
                type = r.nextInt(8);
            } else {
                type = r.nextInt(8);
                for (int i = 0; i < 32; i++) {
                    nd[i] = r.nextInt(5) == 0 ? r.nextInt() : Float.floatToRawIntBits((float) (r.nextGaussian() * 3));
                }
                if (type == 4) {
                    for (int i = 4; i < 16; i++) {
                        nd[i] = Half.fromFloatBits(Float.floatToRawIntBits((float) r.nextGaussian() * 3), 0)
                                | Half.fromFloatBits(Float.floatToRawIntBits((float) r.nextGaussian() * 3), 0) << 16;
                    }
                }
                if (r.nextInt(4) == 0) {
                    nd[r.nextInt(4)] = -1;
                }
                nd[15] = type < 4 && r.nextBoolean() ? r.nextInt() & 0x0F0F0F0F : nd[15];
            }
            float[] o = {(float) r.nextGaussian() * 6, (float) r.nextGaussian() * 6, (float) r.nextGaussian() * 6};
            float[] d = {(float) r.nextGaussian(), (float) r.nextGaussian(), (float) r.nextGaussian()};
            if (r.nextInt(6) == 0) {
                d[r.nextInt(3)] = r.nextBoolean() ? 0f : -0f; // axis-parallel: an infinite inverse
            }
            if (r.nextInt(10) == 0) {
                o[r.nextInt(3)] = Float.intBitsToFloat(nd[4 + r.nextInt(24)]); // origin on a box plane
            }
            float extent = r.nextInt(5) == 0 ? Float.POSITIVE_INFINITY : (float) Math.abs(r.nextGaussian() * 20);
            Ray ray = Ray.of(extent, o[0], o[1], o[2], d[0], d[1], d[2]);
            long sizeUnits = r.nextInt(8) == 0 ? r.nextInt(3) : 1000;
            long node = (long) r.nextInt(1 << 20) << 3 | type;
            if (r.nextInt(8) == 0) {
                node = (sizeUnits - r.nextInt(2)) << 3 | type;
            }
            node &= 0xFFFFFFFFL;
            BvhDescriptor desc = new BvhDescriptor(0x100000L * r.nextInt(64), r.nextInt(4) == 0 ? r.nextInt(256) : 0,
                    r.nextInt(5) != 0, sizeUnits, r.nextBoolean(), r.nextInt(4), r.nextBoolean(), 8);
            int[] w = desc.encode();
            StringBuilder s = new StringBuilder("B");
            for (int x : w) {
                s.append(' ').append(hex(x));
            }
            s.append(' ').append(Long.toHexString(node & 0xFFFFFFFFL)).append(' ').append(Long.toHexString(node >>> 32));
            float[] rv = {ray.extent(), ray.ox(), ray.oy(), ray.oz(), ray.dx(), ray.dy(), ray.dz(), ray.ix(), ray.iy(),
                    ray.iz()};
            for (float f : rv) {
                s.append(' ').append(hex(Float.floatToRawIntBits(f)));
            }
            for (int x : nd) {
                s.append(' ').append(hex(x));
            }
            cmds.add(s.toString());
            long base = desc.nodeAddress(node);
            int[] res = NodeTest.intersect(desc, node, ray, a -> nd[(int) ((a - base) >>> 2)]);
            want.add(String.format("%d %08x %08x %08x %08x", desc.holds(node) ? 1 : 0, res[0], res[1], res[2], res[3]));
            // a triangle's computed floats: a NaN's payload is not defined (IEEE 754 leaves it open, g++ may
            // commute a product's operands, a GPU gives its canonical NaN), so NaNs compare as NaNs
            floats.add(type < 4 ? (desc.returnBarycentrics() ? 0b1111 : 0b0011) : 0);
        }
        compare(cmds, want, "bvh");
        assertTrue(NodeType.of(5) == NodeType.BOX32);
    }

    /** Per command, which result words (bit i: word i after the first field) compare NaN-insensitively. */
    private static final List<Integer> floats = new ArrayList<>();

    private static String nanless(String line, int mask) {
        String[] f = line.split(" ");
        for (int i = 1; i < f.length; i++) {
            if ((mask >>> (i - 1) & 1) != 0 && Float.isNaN(Float.intBitsToFloat((int) Long.parseLong(f[i], 16)))) {
                f[i] = "nan";
            }
        }
        return String.join(" ", f);
    }

    private static void compare(List<String> cmds, List<String> want, String what) throws Exception {
        List<String> got = RtImageBuild.answer(driver, cmds);
        if (what.equals("bvh")) {
            for (int i = 0; i < cmds.size(); i++) {
                want.set(i, nanless(want.get(i), floats.get(i)));
                got.set(i, nanless(got.get(i), floats.get(i)));
            }
        }
        int bad = 0;
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < cmds.size(); i++) {
            if (!got.get(i).equals(want.get(i))) {
                if (bad++ < 8) {
                    first.append("\n  ").append(cmds.get(i), 0, Math.min(200, cmds.get(i).length())).append("\n    want ")
                            .append(want.get(i)).append("\n    got  ").append(got.get(i));
                }
            }
        }
        assertEquals(0, bad, what + ": " + bad + " of " + cmds.size() + " differ:" + first);
    }

    /**
     * The sRGB decode is computed in double with pow (glibc on the CPU, CUDA's pow, within 2 ulp, on the GPU) and
     * rounded once to float: every one of the 256 8-bit values lies far enough from a float rounding boundary
     * (more than 64 double ulps) that any pow within a few ulps gives the same float on both.
     */
    @Test
    void srgb_decode_rounds_alike_whatever_pow_within_a_few_ulps() {
        for (int raw = 0; raw < 256; raw++) {
            double c = raw / 255.0;
            double v = TexelCodec.srgbToLinear(c);
            float f = (float) v;
            if (v == f) {
                continue;
            }
            float other = v > f ? Math.nextUp(f) : Math.nextDown(f);
            double mid = ((double) f + (double) other) / 2;
            double margin = Math.abs(v - mid) / Math.ulp(v);
            assertTrue(margin > 64, "sRGB " + raw + ": " + margin + " double ulps from a float midpoint");
        }
    }

    /** The header compiles as device code for sm_90 (no GPU needed), every entry point instantiated. */
    @Test
    void header_compiles_with_nvcc_for_sm_90() throws Exception {
        Path nvcc = Path.of("/usr/local/cuda/bin/nvcc");
        Assumptions.assumeTrue(Files.isExecutable(nvcc), "nvcc is not installed at /usr/local/cuda");
        Path dir = RtImageBuild.sources("rt_image_kernel.cu");
        Path obj = dir.resolve("rt_image_kernel.o");
        if (!Files.exists(obj)) {
            RtImageBuild.run(List.of(nvcc.toString(), "-gencode", "arch=compute_90,code=[sm_90,compute_90]",
                    "--fmad=false", "-prec-div=true", "-prec-sqrt=true", "-lineinfo", "-Werror", "all-warnings",
                    "-I", dir.toString(), "-c", dir.resolve("rt_image_kernel.cu").toString(), "-o", obj.toString()), dir);
        }
        assertTrue(Files.size(obj) > 0);
    }
}
