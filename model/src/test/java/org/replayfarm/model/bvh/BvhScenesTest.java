package org.replayfarm.model.bvh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Tag;

/**
 * Scenes the builder and the node test have not met elsewhere — random soups, slivers and degenerate
 * triangles, duplicates, axis-aligned geometry (boxes of zero extent), huge and tiny coordinates, a deep tree,
 * meshes of one to three triangles — each built into RDNA 2 nodes and walked through the node test, against
 * a brute-force double-precision Möller–Trumbore over every triangle written here (sharing nothing with the
 * code under test). Rays: random ones starting inside the scene, rays aimed at a point inside a triangle, and
 * rays parallel to an axis whose other direction components are +0.0 or -0.0 (inverse ±infinity).
 *
 * <p>The oracle flags a ray as ambiguous when float32 and double may decide it differently: a barycentric, t
 * or the extent lies within a bound of the float32 evaluation's rounding of a decision (the bound computed
 * per triangle from the magnitudes of the products the test forms), or two hits are that close in t. Those
 * are counted and printed, and must stay a small share. Everything else must agree: hit or miss, nearest t,
 * and for a unique nearest hit the barycentrics of the triangle's own vertices 1 and 2 (I and J through
 * the triangle id word, whichever rotation and node type the builder stored it as).
 *
 * <p>Also checked per scene: every input triangle sits in exactly one triangle node slot reachable from the
 * root, and every box16 node's bounds (decoded here from the half bits) contain the triangles below it.
 */
@Tag("unit")
class BvhScenesTest {
    private static final long BASE = 0x3_0000_0000L;
    private static final double ULP = 0x1p-24;

    // ---------------------------------------------------------------- scenes

    record Scene(String name, float[] tris, float[] lo, float[] hi) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Scene scene(String name, float[] tris) {
        float[] lo = {Float.MAX_VALUE, Float.MAX_VALUE, Float.MAX_VALUE};
        float[] hi = {-Float.MAX_VALUE, -Float.MAX_VALUE, -Float.MAX_VALUE};
        for (int i = 0; i < tris.length; i++) {
            lo[i % 3] = Math.min(lo[i % 3], tris[i]);
            hi[i % 3] = Math.max(hi[i % 3], tris[i]);
        }
        return new Scene(name, tris, lo, hi);
    }

    /** {@code n} triangles of sizes up to {@code size} around centres in [0, extent)^3, scaled by {@code scale} and moved by {@code shift}. */
    private static float[] soup(long seed, int n, float extent, float size, double scale, double shift) {
        Random r = new Random(seed);
        float[] t = new float[9 * n];
        for (int i = 0; i < n; i++) {
            double[] c = {r.nextDouble() * extent, r.nextDouble() * extent, r.nextDouble() * extent};
            double s = size * (0.05 + r.nextDouble());
            for (int k = 0; k < 9; k++) {
                t[9 * i + k] = (float) ((c[k % 3] + s * (r.nextDouble() - 0.5)) * scale + shift);
            }
        }
        return t;
    }

    /** Slivers (third vertex 1e-2 .. 1e-5 off the first two's line), zero-area and repeated triangles. */
    private static float[] slivers(long seed) {
        Random r = new Random(seed);
        List<float[]> out = new ArrayList<>();
        for (int i = 0; i < 240; i++) {
            float[] a = {r.nextFloat() * 10, r.nextFloat() * 10, r.nextFloat() * 10};
            float[] b = {a[0] + r.nextFloat() * 4 - 2, a[1] + r.nextFloat() * 4 - 2, a[2] + r.nextFloat() * 4 - 2};
            float f = r.nextFloat();
            double off = Math.pow(10, -2 - 3 * r.nextDouble());
            float[] c = new float[3];
            for (int k = 0; k < 3; k++) {
                c[k] = (float) (a[k] + f * (b[k] - a[k]) + (k == i % 3 ? off : 0));
            }
            switch (i % 8) {
                case 0 -> out.add(concat(a, b, a)); // two equal vertices
                case 1 -> out.add(concat(a, b, new float[] {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2})); // collinear
                case 2 -> {
                    // the same triangle twice, and rotated
                    out.add(concat(a, b, c));
                    out.add(concat(a, b, c));
                    out.add(concat(b, c, a));
                }
                default -> out.add(concat(a, b, c));
            }
        }
        // a few ordinary triangles among them, so that hits exist beside the slivers
        for (int i = 0; i < 60; i++) {
            float[] a = {r.nextFloat() * 10, r.nextFloat() * 10, r.nextFloat() * 10};
            out.add(concat(a, new float[] {a[0] + 1.5f, a[1] + r.nextFloat(), a[2]}, new float[] {a[0], a[1] + 1.5f, a[2] + r.nextFloat()}));
        }
        return flatten(out);
    }

    /** The faces of unit cubes at integer positions (a voxel scene): every triangle in a plane x, y or z = integer. */
    private static float[] voxels(long seed) {
        Random r = new Random(seed);
        List<float[]> out = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int x = r.nextInt(8);
            int y = r.nextInt(8);
            int z = r.nextInt(8);
            for (int axis = 0; axis < 3; axis++) {
                for (int side = 0; side < 2; side++) {
                    float[][] q = new float[4][3];
                    int u = (axis + 1) % 3;
                    int v = (axis + 2) % 3;
                    int[][] corners = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
                    for (int k = 0; k < 4; k++) {
                        q[k][axis] = new int[] {x, y, z}[axis] + side;
                        q[k][u] = new int[] {x, y, z}[u] + corners[side == 0 ? k : 3 - k][0];
                        q[k][v] = new int[] {x, y, z}[v] + corners[side == 0 ? k : 3 - k][1];
                    }
                    out.add(concat(q[0], q[1], q[2]));
                    out.add(concat(q[0], q[2], q[3]));
                }
            }
        }
        return flatten(out);
    }

    /** Triangles along x at exponentially growing spacing: a binned SAH tree gets deep over the dense end. */
    private static float[] deep() {
        List<float[]> out = new ArrayList<>();
        for (int i = 0; i < 1200; i++) {
            float x = (float) Math.pow(1.01, i);
            float w = x * 0.01f;
            float h = 1 + x * 0.02f;
            out.add(concat(new float[] {x, 0, 0}, new float[] {x + w, h, 0}, new float[] {x, 0, h}));
        }
        return flatten(out);
    }

    private static float[] concat(float[]... v) {
        float[] out = new float[3 * v.length];
        for (int i = 0; i < v.length; i++) {
            System.arraycopy(v[i], 0, out, 3 * i, 3);
        }
        return out;
    }

    private static float[] flatten(List<float[]> list) {
        float[] out = new float[9 * list.size()];
        for (int i = 0; i < list.size(); i++) {
            System.arraycopy(list.get(i), 0, out, 9 * i, 9);
        }
        return out;
    }

    static Stream<Arguments> scenes() {
        float[] tri = {0, 0, 5, 2, 0, 5, 0, 2, 5};
        float[] two = {0, 0, 5, 2, 0, 5, 0, 2, 5, 2, 0, 5, 2, 2, 5, 0, 2, 5};
        float[] three = {0, 0, 5, 2, 0, 5, 0, 2, 5, 2, 0, 5, 2, 2, 5, 0, 2, 5, 0, 0, 7, 0, 2, 7, 0, 0, 9};
        float[] same = new float[27];
        for (int i = 0; i < 3; i++) {
            System.arraycopy(tri, 0, same, 9 * i, 9);
        }
        return Stream.of(
                Arguments.of(scene("random soup", soup(1, 500, 20, 3, 1, 0)), 2, 2),
                Arguments.of(scene("random soup, all box32", soup(2, 300, 20, 3, 1, 0)), 64, 2),
                Arguments.of(scene("slivers, zero-area and repeated triangles", slivers(3)), 2, 20),
                Arguments.of(scene("axis-aligned voxel faces", voxels(4)), 1, 2),
                Arguments.of(scene("huge coordinates (1e9 scale, moved by 3e10)", soup(5, 300, 20, 3, 1e9, 3e10)), 2, 2),
                Arguments.of(scene("tiny coordinates (1e-8 scale)", soup(6, 300, 20, 3, 1e-8, 0)), 1, 2),
                Arguments.of(scene("deep tree", deep()), 3, 5),
                Arguments.of(scene("one triangle", tri), 1, 2),
                Arguments.of(scene("two triangles sharing an edge", two), 1, 2),
                Arguments.of(scene("three triangles", three), 1, 2),
                Arguments.of(scene("one triangle three times", same), 1, 2));
    }

    // ---------------------------------------------------------------- the oracle

    /** One triangle's crossing in double: t, the barycentrics of vertices 1 and 2, and how far off float32 may be. */
    record Crossing(double t, double b1, double b2, double baryError, double tError) {
        double margin() {
            return Math.min(Math.min(b1, b2), 1 - b1 - b2);
        }
    }

    /** The crossing of the ray's line with triangle {@code k}'s plane, or null when the ray is parallel to it. */
    static Crossing crossing(float[] tris, int k, float[] o, float[] d) {
        double[] v0 = {tris[9 * k], tris[9 * k + 1], tris[9 * k + 2]};
        double[] e1 = new double[3];
        double[] e2 = new double[3];
        double[] s = new double[3];
        for (int a = 0; a < 3; a++) {
            e1[a] = tris[9 * k + 3 + a] - v0[a];
            e2[a] = tris[9 * k + 6 + a] - v0[a];
            s[a] = o[a] - v0[a];
        }
        double[] dd = {d[0], d[1], d[2]};
        double[] p = cross(dd, e2);
        double[] q = cross(s, e1);
        double det = dot(e1, p);
        // the float32 test rounds each of its operations once: each of its dot products of cross products is off
        // by at most a few ulps of the product of its operands' lengths (e3 included: o - v0 is rounded too)
        double c = 16 * ULP;
        double nd = norm(dd);
        double n1 = norm(e1);
        double n2 = norm(e2);
        double ns = norm(s);
        double errDet = c * nd * n2 * n1;
        if (!(Math.abs(det) > 8 * errDet)) {
            return null; // parallel, degenerate, or too close to either for float32 to say
        }
        double b1 = dot(s, p) / det;
        double b2 = dot(dd, q) / det;
        double t = dot(e2, q) / det;
        double err1 = (c * ns * nd * n2 + Math.abs(b1) * errDet) / Math.abs(det);
        double err2 = (c * nd * ns * n1 + Math.abs(b2) * errDet) / Math.abs(det);
        double baryError = err1 + err2;
        double tError = (c * n2 * ns * n1 + Math.abs(t) * errDet) / Math.abs(det);
        return new Crossing(t, b1, b2, baryError, tError);
    }

    /**
     * The nearest hit with t in [0, tMax], or null; {@code ambiguous[0]} set when float32 may decide otherwise,
     * {@code ambiguous[1]} when another hit is too close in t to tell which is nearest (its own rounding bound then
     * widens the returned hit's).
     */
    static Hit nearest(float[] tris, float[] o, float[] d, double tMax, boolean[] ambiguous) {
        List<Hit> hits = new ArrayList<>();
        for (int k = 0; k < tris.length / 9; k++) {
            Crossing c = crossing(tris, k, o, d);
            if (c == null) {
                if (onPlane(tris, k, o, d)) {
                    ambiguous[0] = true;
                }
                continue;
            }
            boolean near = c.margin() > -c.baryError() && c.t() > -c.tError() && c.t() < tMax + c.tError();
            if (near && (Math.abs(c.margin()) <= c.baryError() || Math.abs(c.t()) <= c.tError()
                    || Math.abs(c.t() - tMax) <= c.tError())) {
                ambiguous[0] = true;
            }
            if (c.margin() >= 0 && c.t() >= 0 && c.t() <= tMax) {
                hits.add(new Hit(c.t(), k, c.b1(), c.b2(), c.tError(), c.baryError()));
            }
        }
        if (hits.isEmpty()) {
            return null;
        }
        hits.sort((x, y) -> Double.compare(x.t(), y.t()));
        Hit best = hits.get(0);
        double tError = best.tError();
        for (Hit h : hits.subList(1, hits.size())) {
            if (h.t() - h.tError() <= best.t() + best.tError()) {
                ambiguous[1] = true; // a shared edge, a duplicate: either may come out nearest
                tError = Math.max(tError, h.tError() + (h.t() - best.t()));
            }
        }
        return new Hit(best.t(), best.triangle(), best.b1(), best.b2(), tError, best.baryError());
    }

    record Hit(double t, int triangle, double b1, double b2, double tError, double baryError) {
    }

    /**
     * Whether a ray the double test calls parallel to triangle {@code k} (or the triangle degenerate) passes
     * close enough to it that float32 may still see a crossing: its line within a rounding distance (plus the
     * width of the triangle seen edge-on) of one of the triangle's edges.
     */
    private static boolean onPlane(float[] tris, int k, float[] o, float[] d) {
        double[][] v = new double[3][3];
        double[] dd = {d[0], d[1], d[2]};
        double nd = norm(dd);
        for (int i = 0; i < 3; i++) {
            for (int a = 0; a < 3; a++) {
                v[i][a] = tris[9 * k + 3 * i + a] - o[a];
            }
        }
        double far = Math.max(norm(v[0]), Math.max(norm(v[1]), norm(v[2])));
        double[] e1 = minus(v[1], v[0]);
        double[] e2 = minus(v[2], v[0]);
        double longest = Math.max(Math.max(norm(e1), norm(e2)), norm(minus(v[2], v[1])));
        double width = longest == 0 ? 0 : 2 * Math.abs(dot(dd, cross(e1, e2))) / (nd * longest);
        double tol = 1e-4 * far + width;
        for (int i = 0; i < 3; i++) {
            if (lineToSegment(dd, v[i], v[(i + 1) % 3]) <= tol) {
                return true;
            }
        }
        return false;
    }

    /** Distance from the line through 0 along {@code d} to the segment [a, b], in the plane across d. */
    private static double lineToSegment(double[] d, double[] a, double[] b) {
        double[] pa = across(d, a);
        double[] pb = across(d, b);
        double[] ab = minus(pb, pa);
        double len = dot(ab, ab);
        double f = len == 0 ? 0 : Math.max(0, Math.min(1, -dot(pa, ab) / len));
        return norm(new double[] {pa[0] + f * ab[0], pa[1] + f * ab[1], pa[2] + f * ab[2]});
    }

    private static double[] across(double[] d, double[] p) {
        double f = dot(p, d) / dot(d, d);
        return new double[] {p[0] - f * d[0], p[1] - f * d[1], p[2] - f * d[2]};
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

    private static double norm(double[] a) {
        return Math.sqrt(dot(a, a));
    }

    // ---------------------------------------------------------------- the walk (test harness, not the oracle)

    /** What a walk through the node test found: nearest t (or +inf), the I and J of that hit over t_denom. */
    record Walk(double t, double i, double j, int depth) {
    }

    static Walk walk(BvhBuilder.Bvh bvh, BvhDescriptor desc, Ray ray) {
        ByteBuffer b = ByteBuffer.wrap(bvh.nodes()).order(ByteOrder.LITTLE_ENDIAN);
        NodeMemory memory = address -> b.getInt(Math.toIntExact(address - BASE));
        long[] stack = new long[256];
        int top = 0;
        stack[top++] = bvh.rootPointer();
        double best = Double.POSITIVE_INFINITY;
        double bi = 0;
        double bj = 0;
        int depth = 0;
        while (top > 0) {
            long node = stack[--top];
            int[] r = NodeTest.intersect(desc, node, ray, memory);
            if (NodeType.of(node).triangle()) {
                float tNum = Float.intBitsToFloat(r[0]);
                float tDen = Float.intBitsToFloat(r[1]);
                double t = (double) tNum / tDen;
                if (t >= 0 && t <= ray.extent() && t < best) {
                    best = t;
                    if (desc.returnBarycentrics()) {
                        bi = Float.intBitsToFloat(r[2]) / (double) tDen;
                        bj = Float.intBitsToFloat(r[3]) / (double) tDen;
                    } else {
                        assertEquals(1, r[3], "return mode 0: hit status of a hit");
                    }
                } else if (!desc.returnBarycentrics() && Float.isInfinite(tNum)) {
                    assertEquals(0, r[3], "return mode 0: hit status of a miss");
                }
            } else {
                for (int k = 3; k >= 0; k--) {
                    if (r[k] != NodeLayout.INVALID_CHILD) {
                        stack[top++] = Integer.toUnsignedLong(r[k]);
                    }
                }
                depth = Math.max(depth, top);
            }
        }
        return new Walk(best, bi, bj, depth);
    }

    // ---------------------------------------------------------------- rays

    /** Rays of the three kinds; extent +inf unless a kind says otherwise. */
    private static List<float[]> rays(Scene s, long seed, int count) {
        Random r = new Random(seed);
        List<float[]> out = new ArrayList<>();
        int n = s.tris().length / 9;
        for (int i = 0; i < count; i++) {
            float[] o = new float[3];
            double largest = Math.max(s.hi()[0] - s.lo()[0], Math.max(s.hi()[1] - s.lo()[1], s.hi()[2] - s.lo()[2]));
            for (int a = 0; a < 3; a++) {
                double pad = largest * 0.1;
                o[a] = (float) (s.lo()[a] - pad + r.nextDouble() * (s.hi()[a] - s.lo()[a] + 2 * pad));
            }
            float[] d = new float[3];
            float extent = Float.POSITIVE_INFINITY;
            switch (i % 4) {
                case 0 -> {
                    // aimed at a point inside a random triangle
                    int k = r.nextInt(n);
                    double u = 0.05 + 0.6 * r.nextDouble();
                    double v = (0.9 - u) * r.nextDouble() + 0.02;
                    double[] target = new double[3];
                    double size = 0;
                    for (int a = 0; a < 3; a++) {
                        target[a] = s.tris()[9 * k + a] * (1 - u - v) + s.tris()[9 * k + 3 + a] * u + s.tris()[9 * k + 6 + a] * v;
                        size = Math.max(size, Math.abs(s.tris()[9 * k + 3 + a] - s.tris()[9 * k + a]));
                    }
                    // from a few triangle sizes away, so that float32 resolves the barycentrics well
                    for (int a = 0; a < 3; a++) {
                        o[a] = (float) (target[a] + (r.nextDouble() - 0.5) * 8 * Math.max(size, largest * 1e-3));
                    }
                    double len = 0;
                    for (int a = 0; a < 3; a++) {
                        len += (target[a] - o[a]) * (target[a] - o[a]);
                    }
                    len = Math.sqrt(len);
                    for (int a = 0; a < 3; a++) {
                        d[a] = (float) ((target[a] - o[a]) / len);
                    }
                    if (r.nextBoolean()) {
                        extent = (float) (len * (0.5 + r.nextDouble())); // some end before their target
                    }
                }
                case 1 -> {
                    // parallel to an axis; the other components +0.0 or -0.0 (inverse +inf or -inf)
                    int axis = r.nextInt(3);
                    for (int a = 0; a < 3; a++) {
                        d[a] = a == axis ? (r.nextBoolean() ? 1f : -1f) : (r.nextBoolean() ? 0f : -0f);
                    }
                }
                default -> {
                    double len;
                    double[] g = new double[3];
                    do {
                        for (int a = 0; a < 3; a++) {
                            g[a] = r.nextGaussian();
                        }
                        len = Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
                    } while (len < 1e-3);
                    for (int a = 0; a < 3; a++) {
                        d[a] = (float) (g[a] / len);
                    }
                }
            }
            out.add(new float[] {o[0], o[1], o[2], d[0], d[1], d[2], extent});
        }
        return out;
    }

    // ---------------------------------------------------------------- the checks

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenes")
    void walks_through_the_node_test_find_the_brute_force_nearest_hit(Scene s, int box16Depth, int ambiguousPercent) {
        BvhBuilder.Bvh bvh = BvhBuilder.build(s.tris(), box16Depth);
        everyTriangleOnceAndBox16Conservative(s, bvh);
        List<float[]> rays = rays(s, s.name().hashCode(), 1600);
        BvhDescriptor[] descriptors = {
            BvhDescriptor.of(BASE, bvh.nodes().length, true),
            new BvhDescriptor(BASE, 6, false, bvh.nodes().length / 64 - 1, true, 0, false, BvhDescriptor.TYPE_BVH),
            new BvhDescriptor(BASE, 0, true, bvh.nodes().length / 64 - 1, false, 0, false, BvhDescriptor.TYPE_BVH)};
        int hits = 0;
        int ambiguous = 0;
        int checked = 0;
        int deepest = 0;
        int baryChecked = 0;
        for (int i = 0; i < rays.size(); i++) {
            float[] q = rays.get(i);
            float[] o = {q[0], q[1], q[2]};
            float[] d = {q[3], q[4], q[5]};
            boolean[] flags = new boolean[2];
            Hit want = nearest(s.tris(), o, d, q[6], flags);
            if (flags[0]) {
                ambiguous++;
                continue;
            }
            Ray ray = Ray.of(q[6], o[0], o[1], o[2], d[0], d[1], d[2]);
            for (BvhDescriptor desc : descriptors) {
                Walk got = walk(bvh, desc, ray);
                deepest = Math.max(deepest, got.depth());
                String where = s.name() + ", ray " + i + " o " + Arrays.toString(o) + " d " + Arrays.toString(d)
                        + " extent " + q[6] + ", " + (desc.boxSorting() ? "sorted" : "unsorted") + ", grow "
                        + desc.boxGrowUlp();
                if (want == null) {
                    assertEquals(Double.POSITIVE_INFINITY, got.t(), "a miss: " + where);
                    continue;
                }
                assertEquals(want.t(), got.t(), 2 * want.tError() + 1e-12 * want.t(), "nearest t: " + where);
                if (!flags[1] && desc.returnBarycentrics()) {
                    assertEquals(want.b1(), got.i(), 2 * want.baryError() + 1e-6, "I is the hit triangle's vertex 1 barycentric: " + where);
                    assertEquals(want.b2(), got.j(), 2 * want.baryError() + 1e-6, "J is vertex 2's: " + where);
                    baryChecked++;
                }
            }
            checked++;
            hits += want == null ? 0 : 1;
        }
        System.out.printf("%s: %d triangles, %d box32 / %d box16 / %d triangle nodes; %d rays checked (%d hits, %d with"
                        + " barycentrics), %d ambiguous (grazing within float32's rounding) skipped; deepest stack %d%n",
                s.name(), s.tris().length / 9, bvh.box32Nodes(), bvh.box16Nodes(), bvh.triangleNodes(), checked, hits,
                baryChecked / 2, ambiguous, deepest);
        assertTrue(ambiguous * 100 <= ambiguousPercent * rays.size(), "ambiguous rays are at most " + ambiguousPercent
                + "%: " + ambiguous);
        assertTrue(hits * 8 > checked, "a fair share of the rays hit: " + hits + " of " + checked);
    }

    @org.junit.jupiter.api.Test
    void rays_along_the_faces_and_edges_of_a_closed_cube_do_not_leak_through_it() {
        // the cube [0, 2]^3 as twelve triangles; rays parallel to an axis from 1 before a face, on a grid of
        // 0, 0.5, .., 2 across it: those on x or y = 0 or 2 run along a face (the box test meets 0 * inf = NaN
        // there) and reach the entering face on its edge or corner. Every one must hit it at t = 1 exactly (all
        // the arithmetic is on small integers and halves, exact in float32), whatever the signs of the zeros.
        float[][] c = new float[8][];
        for (int i = 0; i < 8; i++) {
            c[i] = new float[] {(i & 1) * 2, (i >> 1 & 1) * 2, (i >> 2 & 1) * 2};
        }
        int[][] quads = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
        List<float[]> tris = new ArrayList<>();
        for (int[] q : quads) {
            tris.add(concat(c[q[0]], c[q[1]], c[q[2]]));
            tris.add(concat(c[q[0]], c[q[2]], c[q[3]]));
        }
        BvhBuilder.Bvh bvh = BvhBuilder.build(flatten(tris), 1);
        BvhDescriptor desc = BvhDescriptor.of(BASE, bvh.nodes().length, true);
        int rays = 0;
        for (int axis = 0; axis < 3; axis++) {
            for (int sign = -1; sign <= 1; sign += 2) {
                for (int i = 0; i <= 4; i++) {
                    for (int j = 0; j <= 4; j++) {
                        for (int zeros = 0; zeros < 4; zeros++) {
                            float[] o = new float[3];
                            float[] d = new float[3];
                            o[axis] = sign > 0 ? -1 : 3;
                            d[axis] = sign;
                            o[(axis + 1) % 3] = i * 0.5f;
                            o[(axis + 2) % 3] = j * 0.5f;
                            d[(axis + 1) % 3] = (zeros & 1) != 0 ? -0f : 0f;
                            d[(axis + 2) % 3] = (zeros & 2) != 0 ? -0f : 0f;
                            Walk got = walk(bvh, desc, Ray.of(Float.POSITIVE_INFINITY, o[0], o[1], o[2], d[0], d[1], d[2]));
                            assertEquals(1.0, got.t(), "ray from " + Arrays.toString(o) + " along " + Arrays.toString(d));
                            rays++;
                        }
                    }
                }
            }
        }
        assertEquals(600, rays);
    }

    @org.junit.jupiter.api.Test
    void every_node_type_tests_its_triangle_and_returns_the_barycentrics_its_id_byte_names() {
        // a node of five random vertices; for each node type 0..3 (V0 V1 V2, V1 V3 V2, V2 V3 V4, V2 V4 V0) and each
        // I_SRC, J_SRC in 0..2, rays aimed inside that type's triangle: t and the tested vertices' barycentrics
        // from the double test above, I and J the ones the id byte names; return mode 0 gives the word and status 1
        Random r = new Random(17);
        int[][] tested = {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {2, 4, 0}};
        int checked = 0;
        for (int node = 0; node < 40; node++) {
            float[] v = new float[15];
            for (int k = 0; k < 15; k++) {
                v[k] = r.nextFloat() * 8 - 4 + (k % 3 == 2 ? 10 : 0);
            }
            int id = r.nextInt();
            ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            for (int k = 0; k < 15; k++) {
                b.putFloat(4 * k, v[k]);
            }
            int[] orders = new int[4];
            for (int type = 0; type < 4; type++) {
                orders[type] = r.nextInt(3) | r.nextInt(3) << 2;
                id = id & ~(0xFF << (8 * type)) | orders[type] << (8 * type);
            }
            b.putInt(60, id);
            NodeMemory memory = address -> b.getInt(Math.toIntExact(address - BASE));
            for (int type = 0; type < 4; type++) {
                float[] tri = new float[9];
                for (int k = 0; k < 3; k++) {
                    System.arraycopy(v, 3 * tested[type][k], tri, 3 * k, 3);
                }
                double u = 0.1 + 0.6 * r.nextDouble();
                double w = (0.85 - u) * r.nextDouble() + 0.05;
                float[] o = {r.nextFloat() * 8 - 4, r.nextFloat() * 8 - 4, -5};
                double[] d = new double[3];
                double len = 0;
                for (int a = 0; a < 3; a++) {
                    d[a] = tri[a] * (1 - u - w) + tri[3 + a] * u + tri[6 + a] * w - o[a];
                    len += d[a] * d[a];
                }
                float[] df = {(float) (d[0] / Math.sqrt(len)), (float) (d[1] / Math.sqrt(len)), (float) (d[2] / Math.sqrt(len))};
                Crossing c = crossing(tri, 0, o, df);
                if (c == null || Math.abs(c.margin()) <= c.baryError()) {
                    continue;
                }
                double[] bary = {1 - c.b1() - c.b2(), c.b1(), c.b2()};
                Ray ray = Ray.of(100f, o[0], o[1], o[2], df[0], df[1], df[2]);
                long pointer = NodeType.values()[type].pointerAt(0);
                int[] ij = NodeTest.intersect(BvhDescriptor.of(BASE, 64, true), pointer, ray, memory);
                float den = Float.intBitsToFloat(ij[1]);
                String where = "node " + node + " type " + type + " order " + Integer.toHexString(orders[type]);
                assertEquals(c.t(), Float.intBitsToFloat(ij[0]) / den, c.tError() * 2 + 1e-9, where + ": t");
                assertEquals(bary[orders[type] & 3], Float.intBitsToFloat(ij[2]) / den, 2 * c.baryError() + 1e-9, where + ": I");
                assertEquals(bary[orders[type] >>> 2], Float.intBitsToFloat(ij[3]) / den, 2 * c.baryError() + 1e-9, where + ": J");
                int[] status = NodeTest.intersect(BvhDescriptor.of(BASE, 64, false), pointer, ray, memory);
                assertEquals(ij[0], status[0], where);
                assertEquals(ij[1], status[1], where);
                assertEquals(id, status[2], where + ": return mode 0 gives the whole id word");
                assertEquals(1, status[3], where + ": and hit status 1");
                checked++;
            }
        }
        assertTrue(checked > 140, "checked " + checked);
    }

    /** Every input triangle in exactly one reachable triangle slot; box16 bounds contain their subtrees. */
    private static void everyTriangleOnceAndBox16Conservative(Scene s, BvhBuilder.Bvh bvh) {
        ByteBuffer b = ByteBuffer.wrap(bvh.nodes()).order(ByteOrder.LITTLE_ENDIAN);
        Map<String, Integer> wanted = new HashMap<>();
        for (int k = 0; k < s.tris().length / 9; k++) {
            wanted.merge(canonical(Arrays.copyOfRange(s.tris(), 9 * k, 9 * k + 9)), 1, Integer::sum);
        }
        Map<String, Integer> found = new HashMap<>();
        subtree(b, bvh.rootPointer(), found, 0);
        assertEquals(wanted, found, s.name() + ": the triangle slots reachable from the root are the input triangles");
    }

    private static final int[][] TESTED = {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {2, 4, 0}};

    /** Bounds {min xyz, max xyz} of the triangles below {@code pointer}; collects them; checks box16 bounds. */
    private static float[] subtree(ByteBuffer b, long pointer, Map<String, Integer> found, int depth) {
        assertTrue(depth < 200, "the tree has no cycle");
        int at = (int) ((pointer >>> 3) << 6);
        int type = (int) (pointer & 7);
        float[] bounds = {Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY};
        if (type < 4) {
            float[] t = new float[9];
            for (int k = 0; k < 3; k++) {
                for (int a = 0; a < 3; a++) {
                    t[3 * k + a] = b.getFloat(at + 12 * TESTED[type][k] + 4 * a);
                    bounds[a] = Math.min(bounds[a], t[3 * k + a]);
                    bounds[a + 3] = Math.max(bounds[a + 3], t[3 * k + a]);
                }
            }
            found.merge(canonical(t), 1, Integer::sum);
            return bounds;
        }
        assertTrue(type == 4 || type == 5, "the builder writes boxes and triangles only: type " + type);
        for (int c = 0; c < 4; c++) {
            int child = b.getInt(at + 4 * c);
            if (child == -1) {
                continue;
            }
            float[] sub = subtree(b, Integer.toUnsignedLong(child), found, depth + 1);
            float[] stored = new float[6];
            for (int k = 0; k < 6; k++) {
                stored[k] = type == 5 ? b.getFloat(at + 16 + 24 * c + 4 * k)
                        : (float) halfValue(b.getShort(at + 16 + 12 * c + 2 * k) & 0xFFFF);
            }
            for (int a = 0; a < 3; a++) {
                assertTrue(stored[a] <= sub[a] && stored[a + 3] >= sub[a + 3], "box child " + c + " of node 0x"
                        + Long.toHexString(pointer) + " (" + (type == 4 ? "box16" : "box32") + ") holds its triangles on axis "
                        + a + ": stored " + Arrays.toString(stored) + ", needed " + Arrays.toString(sub));
                bounds[a] = Math.min(bounds[a], sub[a]);
                bounds[a + 3] = Math.max(bounds[a + 3], sub[a + 3]);
            }
        }
        return bounds;
    }

    /** IEEE half to double, written here from the format (1 sign, 5 exponent bits biased 15, 10 mantissa bits). */
    static double halfValue(int h) {
        int e = h >>> 10 & 0x1F;
        int m = h & 0x3FF;
        double v = e == 0 ? m * Math.pow(2, -24) : e == 31 ? (m == 0 ? Double.POSITIVE_INFINITY : Double.NaN)
                : (1 + m / 1024.0) * Math.pow(2, e - 15);
        return (h & 0x8000) != 0 ? -v : v;
    }

    /** A triangle's vertices up to rotation (winding kept): the rotation starting at the smallest vertex. */
    private static String canonical(float[] t) {
        String[] v = new String[3];
        for (int k = 0; k < 3; k++) {
            v[k] = Float.floatToRawIntBits(t[3 * k]) + "," + Float.floatToRawIntBits(t[3 * k + 1]) + ","
                    + Float.floatToRawIntBits(t[3 * k + 2]);
        }
        int first = 0;
        for (int k = 1; k < 3; k++) {
            if (v[k].compareTo(v[first]) < 0) {
                first = k;
            }
        }
        return v[first] + "|" + v[(first + 1) % 3] + "|" + v[(first + 2) % 3];
    }
}
