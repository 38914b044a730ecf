package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.bvh.BvhBuilder;
import org.replayfarm.model.bvh.BvhDescriptor;

/**
 * image_bvh_intersect_ray and image_bvh64_intersect_ray, assembled by llvm-mc-19 in their plain, a16 and
 * NSA forms, on a BVH the builder made from a random scene. Box results are checked against a double
 * precision slab test and triangle results against a double precision Möller–Trumbore written here from
 * the node bytes; a lane whose ray is within 1e-4 of a decision boundary (an entry equal to an exit, two
 * equal entries, a barycentric at an edge) is ambiguous between float32 and double and is skipped, and
 * counted so that the check cannot pass vacuously.
 */
@Tag("unit")
class BvhUnitTest {
    @TempDir
    Path dir;

    private static final int WAVE = 64;
    private static final float[] SCENE = scene();

    private static float[] scene() {
        Random r = new Random(3);
        float[] t = new float[9 * 300];
        for (int i = 0; i < 300; i++) {
            float cx = r.nextFloat() * 20;
            float cy = r.nextFloat() * 20;
            float cz = r.nextFloat() * 20;
            for (int k = 0; k < 3; k++) {
                t[9 * i + 3 * k] = cx + 2 * r.nextFloat() - 1;
                t[9 * i + 3 * k + 1] = cy + 2 * r.nextFloat() - 1;
                t[9 * i + 3 * k + 2] = cz + 2 * r.nextFloat() - 1;
            }
        }
        return t;
    }

    private static final BvhBuilder.Bvh BVH = BvhBuilder.build(SCENE, 2);

    private static ByteBuffer nodes() {
        return ByteBuffer.wrap(BVH.nodes()).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Every node pointer reachable from the root, read from the child words of box nodes. */
    private static List<Long> pointers() {
        List<Long> out = new ArrayList<>();
        out.add(5L);
        ByteBuffer b = nodes();
        for (int i = 0; i < out.size(); i++) {
            long p = out.get(i);
            if ((p & 7) >= 4) {
                for (int k = 0; k < 4; k++) {
                    int c = b.getInt((int) ((p >>> 3) << 6) + 4 * k);
                    if (c != -1) {
                        out.add(Integer.toUnsignedLong(c));
                    }
                }
            }
        }
        return out;
    }

    /** The ray of one lane: origin inside the scene's cube, direction components in (-1, 1) at multiples of 1/64 (exact in f16). */
    private record LaneRay(long node, float extent, float[] o, float[] d, float[] inv) {
    }

    private static LaneRay[] rays(long seed, List<Long> pointers, boolean halfExact) {
        Random r = new Random(seed);
        LaneRay[] out = new LaneRay[WAVE];
        for (int l = 0; l < WAVE; l++) {
            float[] o = {r.nextFloat() * 20, r.nextFloat() * 20, r.nextFloat() * 20};
            float[] d = new float[3];
            float[] inv = new float[3];
            for (int a = 0; a < 3; a++) {
                int q = r.nextInt(127) - 63;
                d[a] = (q == 0 ? 1 : q) / 64f;
                // inv as a guest computes it; in the a16 case a power of two so the f16 rounding is exact
                inv[a] = halfExact ? Math.signum(d[a]) * (float) Math.pow(2, Math.round(-Math.log(Math.abs(d[a])) / Math.log(2)))
                        : 1f / d[a];
                if (halfExact) {
                    d[a] = 1f / inv[a];
                }
            }
            out[l] = new LaneRay(pointers.get(r.nextInt(pointers.size())), l % 3 == 0 ? 8f : 1000f, o, d, inv);
        }
        return out;
    }

    private static int half(float v) {
        // exact for the normal values used here (powers of two, multiples of 1/64 with a short mantissa)
        int bits = Float.floatToRawIntBits(v);
        int exponent = Math.getExponent(v);
        if (exponent < -14 || exponent > 15 || (bits & 0x1FFF) != 0) {
            throw new IllegalArgumentException(v + " is not an exact normal half");
        }
        return (bits >>> 16 & 0x8000) | (exponent + 15) << 10 | (bits >>> 13 & 0x3FF);
    }

    /** The float32 values and their f16 pairs a lane's address registers hold. */
    private static int[] addressDwords(LaneRay ray, boolean wide, boolean a16, long highPointer) {
        List<Integer> a = new ArrayList<>();
        a.add((int) ray.node());
        if (wide) {
            a.add((int) highPointer);
        }
        a.add(Float.floatToRawIntBits(ray.extent()));
        for (float v : ray.o()) {
            a.add(Float.floatToRawIntBits(v));
        }
        if (a16) {
            a.add(half(ray.d()[0]) | half(ray.d()[1]) << 16);
            a.add(half(ray.d()[2]) | half(ray.inv()[0]) << 16);
            a.add(half(ray.inv()[1]) | half(ray.inv()[2]) << 16);
        } else {
            for (float v : ray.d()) {
                a.add(Float.floatToRawIntBits(v));
            }
            for (float v : ray.inv()) {
                a.add(Float.floatToRawIntBits(v));
            }
        }
        return a.stream().mapToInt(Integer::intValue).toArray();
    }

    private GuestAsm.Outcome run(String asm, LaneRay[] rays, int[] registers, boolean wide, boolean a16,
                                      boolean radvStyle) throws Exception {
        return new GuestAsm(dir).wave64().buffer(BVH.nodes()).setup(w -> {
            long base = w.sgpr64(0);
            BvhDescriptor d = BvhDescriptor.of(radvStyle ? 0 : base, radvStyle ? 1L << 40 : BVH.nodes().length, true);
            int[] words = d.encode();
            for (int k = 0; k < 4; k++) {
                w.setSgpr(4 + k, words[k]);
            }
            for (int l = 0; l < WAVE; l++) {
                LaneRay ray = rays[l];
                // radv style: the descriptor's base is 0 and the 64-bit pointer carries the address / 8
                long pointer = radvStyle ? (base >>> 3) + ray.node() : ray.node();
                LaneRay r = new LaneRay(pointer, ray.extent(), ray.o(), ray.d(), ray.inv());
                int[] a = addressDwords(r, wide, a16, pointer >>> 32);
                for (int k = 0; k < a.length; k++) {
                    w.setVgpr(registers[k], l, a[k]);
                }
                for (int k = 0; k < 4; k++) {
                    w.setVgpr(60 + k, l, 0xDEAD0000 + k);
                }
            }
        }).run(asm).ok();
    }

    /** Checks every lane's four results; returns the number of unambiguous lanes checked. */
    private static int check(GuestAsm.Outcome out, LaneRay[] rays) {
        Wave w = out.wave(0);
        int checked = 0;
        for (int l = 0; l < WAVE; l++) {
            int[] got = new int[4];
            for (int k = 0; k < 4; k++) {
                got[k] = w.vgpr(60 + k, l);
            }
            LaneRay ray = rays[l];
            boolean ok = (ray.node() & 7) >= 4 ? checkBox(ray, got, l) : checkTriangle(ray, got, l);
            checked += ok ? 1 : 0;
        }
        return checked;
    }

    private static float halfToFloat(int h) {
        int e = h >>> 10 & 0x1F;
        int m = h & 0x3FF;
        double v = e == 0 ? Math.scalb((double) m, -24) : Math.scalb(1 + m / 1024.0, e - 15);
        if (e == 0x1F) {
            v = m == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        }
        return (float) ((h & 0x8000) != 0 ? -v : v);
    }

    private static boolean checkBox(LaneRay ray, int[] got, int lane) {
        ByteBuffer b = nodes();
        int at = (int) ((ray.node() >>> 3) << 6);
        boolean half = (ray.node() & 7) == 4;
        List<double[]> hits = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            int child = b.getInt(at + 4 * k);
            if (child == -1) {
                continue;
            }
            double[] lo = new double[3];
            double[] hi = new double[3];
            for (int a = 0; a < 3; a++) {
                if (half) {
                    int base = at + 16 + 12 * k;
                    int[] h = new int[6];
                    for (int j = 0; j < 6; j++) {
                        h[j] = b.getShort(base + 2 * j) & 0xFFFF;
                    }
                    lo[a] = halfToFloat(h[a]);
                    hi[a] = halfToFloat(h[a + 3]);
                } else {
                    lo[a] = b.getFloat(at + 16 + 24 * k + 4 * a);
                    hi[a] = b.getFloat(at + 16 + 24 * k + 12 + 4 * a);
                }
            }
            double near = 0;
            double far = ray.extent();
            for (int a = 0; a < 3; a++) {
                double t1 = (lo[a] - ray.o()[a]) * ray.inv()[a];
                double t2 = (hi[a] - ray.o()[a]) * ray.inv()[a];
                near = Math.max(near, Math.min(t1, t2));
                far = Math.min(far, Math.max(t1, t2));
            }
            if (Math.abs(near - far) < 1e-4) {
                return false;
            }
            if (near <= far) {
                hits.add(new double[] {near, Integer.toUnsignedLong(child)});
            }
        }
        hits.sort((x, y) -> Double.compare(x[0], y[0]));
        for (int k = 1; k < hits.size(); k++) {
            if (hits.get(k)[0] - hits.get(k - 1)[0] < 1e-4) {
                return false;
            }
        }
        for (int k = 0; k < 4; k++) {
            int expected = k < hits.size() ? (int) (long) hits.get(k)[1] : -1;
            assertEquals(expected, got[k], "lane " + lane + " result " + k);
        }
        return true;
    }

    private static boolean checkTriangle(LaneRay ray, int[] got, int lane) {
        ByteBuffer b = nodes();
        int at = (int) ((ray.node() >>> 3) << 6);
        int type = (int) (ray.node() & 7);
        int[][] which = {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {2, 4, 0}};
        double[][] v = new double[3][3];
        for (int k = 0; k < 3; k++) {
            for (int c = 0; c < 3; c++) {
                v[k][c] = b.getFloat(at + 12 * which[type][k] + 4 * c);
            }
        }
        int order = b.getInt(at + 60) >>> (8 * type) & 0xFF;
        double[] o = {ray.o()[0], ray.o()[1], ray.o()[2]};
        double[] d = {ray.d()[0], ray.d()[1], ray.d()[2]};
        // Möller–Trumbore in double: t and the barycentrics (b0, b1, b2) of the tested vertices
        double[] e1 = minus(v[1], v[0]);
        double[] e2 = minus(v[2], v[0]);
        double[] p = cross(d, e2);
        double det = dot(e1, p);
        double[] s = minus(o, v[0]);
        double u = dot(s, p) / det;
        double[] q = cross(s, e1);
        double w = dot(d, q) / det;
        double t = dot(e2, q) / det;
        double[] bary = {1 - u - w, u, w};
        double margin = Math.min(Math.min(Math.abs(u), Math.abs(w)), Math.abs(1 - u - w));
        if (margin < 1e-4 || Math.abs(t) < 1e-4) {
            return false;
        }
        // the extent is the box test's only: a triangle past it is returned, the guest compares t
        boolean hit = u > 0 && w > 0 && u + w < 1 && t > 0;
        float tNum = Float.intBitsToFloat(got[0]);
        float tDen = Float.intBitsToFloat(got[1]);
        if (!hit) {
            assertEquals(Float.POSITIVE_INFINITY, tNum, "lane " + lane);
            assertEquals(1f, tDen, "lane " + lane);
            assertEquals(0, got[2] | got[3], "lane " + lane);
            return true;
        }
        assertEquals(t, tNum / tDen, 1e-4 * Math.max(1, t), "lane " + lane + " t");
        assertEquals(bary[order & 3], Float.intBitsToFloat(got[2]) / tDen, 1e-4, "lane " + lane + " I");
        assertEquals(bary[order >>> 2 & 3], Float.intBitsToFloat(got[3]) / tDen, 1e-4, "lane " + lane + " J");
        return true;
    }

    private static double[] minus(double[] a, double[] b) {
        return new double[] {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    }

    private static double[] cross(double[] a, double[] b) {
        return new double[] {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    }

    private static double dot(double[] a, double[] b) {
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    }

    private static int[] consecutive(int first, int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = first + i;
        }
        return r;
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "a16", "bvh64", "bvh64_a16", "nsa"})
    void every_form_returns_what_an_independent_slab_and_triangle_test_says(String form) throws Exception {
        boolean wide = form.startsWith("bvh64");
        boolean a16 = form.endsWith("a16");
        int n = (wide ? 12 : 11) - (a16 ? 3 : 0);
        String mnemonic = wide ? "image_bvh64_intersect_ray" : "image_bvh_intersect_ray";
        int[] registers;
        String asm;
        if (form.equals("nsa")) {
            // addresses in reverse register order: v40, v39, ..., v30
            registers = new int[n];
            StringBuilder list = new StringBuilder();
            for (int i = 0; i < n; i++) {
                registers[i] = 40 - i;
                list.append(i == 0 ? "" : ", ").append('v').append(40 - i);
            }
            asm = mnemonic + " v[60:63], [" + list + "], s[4:7]";
        } else {
            registers = consecutive(0, n);
            asm = mnemonic + " v[60:63], v[0:" + (n - 1) + "], s[4:7]" + (a16 ? " a16" : "");
        }
        int checked = 0;
        int boxes = 0;
        for (long seed = 1; seed <= 4; seed++) {
            LaneRay[] rays = rays(seed * 31 + form.hashCode(), pointers(), a16);
            checked += check(run(asm, rays, registers, wide, a16, false), rays);
            for (LaneRay r : rays) {
                boxes += (r.node() & 7) >= 4 ? 1 : 0;
            }
        }
        assertTrue(checked > 200, "unambiguous lanes " + checked + " of 256");
        assertTrue(boxes > 10 && boxes < 246, "boxes and triangles both tested: " + boxes);
    }

    @Test
    void a_64_bit_pointer_carries_the_whole_address_when_the_descriptor_base_is_zero() throws Exception {
        LaneRay[] rays = rays(99, pointers(), false);
        var out = run("image_bvh64_intersect_ray v[60:63], v[0:11], s[4:7]", rays, consecutive(0, 12), true, false, true);
        assertTrue(check(out, rays) > 50);
    }

    @Test
    void a_node_outside_every_range_faults_and_inactive_lanes_keep_their_registers() throws Exception {
        var out = new GuestAsm(dir).wave64().buffer(BVH.nodes()).setup(w -> {
            int[] words = BvhDescriptor.of(w.sgpr64(0), BVH.nodes().length, true).encode();
            for (int k = 0; k < 4; k++) {
                w.setSgpr(4 + k, words[k]);
            }
            w.setExec(1L << 5);
            w.setVgpr(0, 5, (1 << 26) | 5); // 4 GiB past the base
        }).runToFault("image_bvh_intersect_ray v[60:63], v[0:10], s[4:7]");
        assertNotNull(out.fault());
        assertTrue(out.fault().message().contains("lane 5") || out.fault().message().contains("0x"),
                out.fault().message());
    }

    @Test
    void a_resource_that_is_not_a_bvh_faults_naming_its_registers_and_type() throws Exception {
        var out = new GuestAsm(dir).wave64().buffer(BVH.nodes()).setup(w -> {
            int[] words = BvhDescriptor.of(w.sgpr64(0), BVH.nodes().length, true).encode();
            words[3] = words[3] & 0x0FFF_FFFF | 0x9 << 28; // TYPE 9: an image resource, not a BVH
            for (int k = 0; k < 4; k++) {
                w.setSgpr(4 + k, words[k]);
            }
            w.setExec(1);
        }).runToFault("image_bvh_intersect_ray v[60:63], v[0:10], s[4:7]");
        assertNotNull(out.fault());
        assertTrue(out.fault().message().contains("s[4:7] is not a BVH resource")
                && out.fault().message().contains("is 9"), out.fault().message());
    }

    /** Runs one lane on the node at byte offset {@code offset} (type {@code type}) with a descriptor of {@code sizeUnits}. */
    private GuestAsm.Outcome oneLane(String asm, long offset, int type, long sizeUnits) throws Exception {
        return new GuestAsm(dir).wave64().buffer(BVH.nodes()).setup(w -> {
            int[] words = new BvhDescriptor(w.sgpr64(0), 0, true, sizeUnits, true, 0, false, BvhDescriptor.TYPE_BVH).encode();
            for (int k = 0; k < 4; k++) {
                w.setSgpr(4 + k, words[k]);
            }
            w.setExec(1L << 9);
            LaneRay ray = rays(5, pointers(), false)[0];
            int[] a = addressDwords(new LaneRay(offset >>> 3 | type, 1000f, ray.o(), ray.d(), ray.inv()), false, false, 0);
            for (int k = 0; k < a.length; k++) {
                w.setVgpr(k, 9, a[k]);
            }
        }).execute(asm);
    }

    @Test
    void a_node_past_the_descriptors_size_faults_naming_lane_pointer_and_size() throws Exception {
        String asm = "image_bvh_intersect_ray v[60:63], v[0:10], s[4:7]";
        long units = BVH.nodes().length / 64;
        // the last 64 bytes hold a triangle node (the builder writes them breadth first, triangles last)
        long last = (units - 1) * 64;
        oneLane(asm, last, 0, units - 1).ok();
        var out = oneLane(asm, last, 0, units - 2);
        assertNotNull(out.fault(), "one unit past SIZE");
        String m = out.fault().message();
        assertTrue(m.contains("image_bvh_intersect_ray: lane 9's node pointer 0x" + Long.toHexString(last >>> 3))
                && m.contains("past the BVH descriptor's SIZE of " + (units - 1) + " units") && m.contains("s[4:7]"), m);
        assertEquals(9, out.fault().lane());
        // a box32 node is two units: its second unit past SIZE faults too (the root, offset 0, with SIZE 1 unit)
        assertNotNull(oneLane(asm, 0, 5, 0).fault(), "a box32 node needs two units");
        oneLane(asm, 0, 5, 1).ok();
        // instance and procedural nodes are not read: no check, all ones
        var instance = oneLane(asm, units * 64 * 4, 6, 0).ok();
        for (int k = 0; k < 4; k++) {
            assertEquals(-1, instance.wave(0).vgpr(60 + k, 9));
        }
    }

    @Test
    void an_encoding_outside_the_isa_restrictions_faults_rather_than_guessing() throws Exception {
        // llvm-mc-19 assembles image_bvh_intersect_ray v[60:63], v[0:10], s[4:7] as 0xf1989f01 0x00013c00; TFE is
        // dword 0 bit 16, and DMASK [11:8] 0x1 instead of 0xf. llvm-objdump-19 prints neither as an instruction.
        for (String words : new String[] {"0xf1999f01, 0x00013c00", "0xf1989101, 0x00013c00"}) {
            var out = oneLane(".long " + words, 0, 5, BVH.nodes().length / 64);
            assertNotNull(out.fault(), words);
            assertTrue(out.fault().message().startsWith("image_bvh_intersect_ray with D16 0, TFE ")
                    && out.fault().message().contains("the ISA restricts it to D16 0, TFE 0, LWE 0, DMASK 0xf"),
                    out.fault().message());
        }
    }

    @Test
    void bvh64_reaches_nodes_at_a_high_address_through_the_pointers_upper_dword() throws Exception {
        // the nodes range moved to 0x4a00_0000_0000 (bit 46): with a radv-style descriptor (base 0, SIZE 2^42
        // units) a pointer is address / 8, so its upper dword is 0x940. Each lane loads its 12 address dwords
        // from range 1 and stores its four results to range 2. The capture is built, then its range 0 moved.
        long high = 0x4A00_0000_0000L;
        LaneRay[] rays = rays(77, pointers(), false);
        ByteBuffer in = ByteBuffer.allocate(48 * WAVE).order(ByteOrder.LITTLE_ENDIAN);
        for (LaneRay ray : rays) {
            long pointer = (high >>> 3) + ray.node();
            for (int a : addressDwords(new LaneRay(pointer, ray.extent(), ray.o(), ray.d(), ray.inv()), true, false,
                    pointer >>> 32)) {
                in.putInt(a);
            }
        }
        BvhDescriptor radv = BvhDescriptor.decode(0, 1 << 31, 0xFFFFFFFF, 0x3FF | 1 << 24 | 1 << 31);
        int[] words = radv.encode();
        // buffers: the nodes (range 0), the lanes' address dwords in s[2:3], their results in s[4:5]; the T# in
        // s[8:11] (over the group ids the layout puts there)
        GuestAsm.Outcome run = new GuestAsm(dir).wave64().buffer(BVH.nodes()).buffer(in.array())
                .buffer(new byte[16 * WAVE]).sgpr(8, words[0]).sgpr(9, words[1]).sgpr(10, words[2]).sgpr(11, words[3])
                .patch(c -> {
                    var moved = c.toBuilder();
                    moved.setRanges(0, moved.getRanges(0).toBuilder().setGuestAddress(high));
                    return moved.build();
                }).budget(100_000).run("""
                v_mul_u32_u24 v1, 48, v0
                global_load_dwordx4 v[10:13], v1, s[2:3]
                global_load_dwordx4 v[14:17], v1, s[2:3] offset:16
                global_load_dwordx4 v[18:21], v1, s[2:3] offset:32
                s_waitcnt vmcnt(0)
                image_bvh64_intersect_ray v[24:27], v[10:21], s[8:11]
                s_waitcnt vmcnt(0)
                v_lshlrev_b32 v1, 4, v0
                global_store_dwordx4 v1, v[24:27], s[4:5]
                s_endpgm
                """);
        assertEquals(high, run.bufferAddress(0), "the nodes range was moved");
        int checked = 0;
        for (int l = 0; l < WAVE; l++) {
            int[] got = new int[4];
            for (int k = 0; k < 4; k++) {
                got[k] = run.bufferDword(2, 16 * l + 4 * k);
            }
            LaneRay ray = rays[l];
            checked += ((ray.node() & 7) >= 4 ? checkBox(ray, got, l) : checkTriangle(ray, got, l)) ? 1 : 0;
        }
        assertTrue(checked > 50, "unambiguous lanes " + checked);
    }
}
