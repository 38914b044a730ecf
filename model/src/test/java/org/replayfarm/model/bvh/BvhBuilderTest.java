package org.replayfarm.model.bvh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * BVHs the builder makes, traversed through the node test, find the same nearest hit as a brute-force
 * double-precision Möller–Trumbore over every triangle (written here, sharing nothing with the code under
 * test). A ray within 1e-6 (barycentric) of an edge of a triangle it may hit is a graze where float32 and
 * double may disagree; those are skipped and counted.
 */
@Tag("unit")
class BvhBuilderTest {
    private static final long BASE = 0x2_0000_0000L;

    /** A heightfield grid of {@code n} x {@code n} quads (two triangles each, shared edges, one winding) plus random triangles. */
    private static float[] scene(int n, int random, long seed) {
        Random r = new Random(seed);
        float[] out = new float[9 * (2 * n * n + random)];
        int at = 0;
        float[][] h = new float[n + 1][n + 1];
        for (float[] row : h) {
            for (int j = 0; j <= n; j++) {
                row[j] = r.nextFloat() * 0.5f;
            }
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float[] a = {i, h[i][j], j};
                float[] b = {i + 1, h[i + 1][j], j};
                float[] c = {i + 1, h[i + 1][j + 1], j + 1};
                float[] d = {i, h[i][j + 1], j + 1};
                for (float[] v : new float[][] {a, c, b, a, d, c}) {
                    System.arraycopy(v, 0, out, at, 3);
                    at += 3;
                }
            }
        }
        for (int t = 0; t < random; t++) {
            float cx = r.nextFloat() * n;
            float cy = 1 + r.nextFloat() * 4;
            float cz = r.nextFloat() * n;
            for (int k = 0; k < 3; k++) {
                out[at++] = cx + r.nextFloat() - 0.5f;
                out[at++] = cy + r.nextFloat() - 0.5f;
                out[at++] = cz + r.nextFloat() - 0.5f;
            }
        }
        return out;
    }

    /** Nearest t by brute force in double, or +inf; NaN when the nearest candidate grazes an edge. */
    private static double bruteForce(float[] tris, double[] o, double[] d) {
        double best = Double.POSITIVE_INFINITY;
        boolean graze = false;
        for (int t = 0; t < tris.length / 9; t++) {
            double[] v0 = {tris[9 * t], tris[9 * t + 1], tris[9 * t + 2]};
            double[] e1 = {tris[9 * t + 3] - v0[0], tris[9 * t + 4] - v0[1], tris[9 * t + 5] - v0[2]};
            double[] e2 = {tris[9 * t + 6] - v0[0], tris[9 * t + 7] - v0[1], tris[9 * t + 8] - v0[2]};
            double[] p = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
            double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
            if (Math.abs(det) < 1e-12) {
                continue;
            }
            double[] s = {o[0] - v0[0], o[1] - v0[1], o[2] - v0[2]};
            double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
            double[] q = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
            double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
            double tt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
            double eps = 1e-6;
            boolean near = u > -eps && v > -eps && u + v < 1 + eps && tt > 0;
            boolean inside = u >= eps && v >= eps && u + v <= 1 - eps;
            if (near && !inside && tt < best + 1e-4) {
                graze = true;
            }
            if (inside && tt > 0 && tt < best) {
                best = tt;
            }
        }
        return graze ? Double.NaN : best;
    }

    /** Nearest t through the BVH: a stack of node pointers, box results pushed, triangle t = t_num / t_denom. */
    static float traverse(BvhBuilder.Bvh bvh, Ray ray) {
        ByteBuffer b = ByteBuffer.wrap(bvh.nodes()).order(ByteOrder.LITTLE_ENDIAN);
        NodeMemory memory = address -> b.getInt((int) (address - BASE));
        BvhDescriptor desc = BvhDescriptor.of(BASE, bvh.nodes().length, true);
        Deque<Long> stack = new ArrayDeque<>();
        stack.push(bvh.rootPointer());
        float best = Float.POSITIVE_INFINITY;
        while (!stack.isEmpty()) {
            long node = stack.pop();
            int[] r = NodeTest.intersect(desc, node, ray, memory);
            if (NodeType.of(node).triangle()) {
                float t = Float.intBitsToFloat(r[0]) / Float.intBitsToFloat(r[1]);
                best = Math.min(best, t);
            } else {
                for (int k = 3; k >= 0; k--) {
                    if (r[k] != -1) {
                        stack.push(Integer.toUnsignedLong(r[k]));
                    }
                }
            }
        }
        return best;
    }

    @Test
    void nearest_hits_through_the_bvh_match_a_brute_force_tracer() {
        float[] tris = scene(12, 400, 7);
        BvhBuilder.Bvh bvh = BvhBuilder.build(tris, 2);
        assertTrue(bvh.box16Nodes() > 0, "box16 nodes below depth 2");
        assertTrue(bvh.box32Nodes() > 0);
        assertTrue(bvh.pairedTriangles() > 100, "grid quads share edges: " + bvh.pairedTriangles());
        assertEquals(tris.length / 9, bvh.pairedTriangles() + (bvh.triangleNodes() - bvh.pairedTriangles() / 2));
        Random r = new Random(11);
        int grazes = 0;
        int hits = 0;
        for (int i = 0; i < 3000; i++) {
            float[] o = {r.nextFloat() * 12, 6 + r.nextFloat() * 2, r.nextFloat() * 12};
            float[] d = {r.nextFloat() - 0.5f, -1, r.nextFloat() - 0.5f};
            double expected = bruteForce(tris, new double[] {o[0], o[1], o[2]}, new double[] {d[0], d[1], d[2]});
            if (Double.isNaN(expected)) {
                grazes++;
                continue;
            }
            float got = traverse(bvh, Ray.of(Float.POSITIVE_INFINITY, o[0], o[1], o[2], d[0], d[1], d[2]));
            if (Double.isInfinite(expected)) {
                assertEquals(Float.POSITIVE_INFINITY, got, "ray " + i);
            } else {
                hits++;
                // t is a ratio of float32 dot products of coordinates below 20: relative error well under 1e-5
                assertEquals(expected, got, 1e-5 * Math.max(1, expected), "ray " + i);
            }
        }
        assertTrue(hits > 2000, "hits " + hits);
        assertTrue(grazes < 10, "grazing rays " + grazes);
    }

    @Test
    void one_triangle_makes_a_root_box_with_one_child() {
        BvhBuilder.Bvh bvh = BvhBuilder.build(new float[] {0, 0, 1, 1, 0, 1, 0, 1, 1}, 1);
        assertEquals(128 + 64, bvh.nodes().length);
        float t = traverse(bvh, Ray.of(Float.POSITIVE_INFINITY, 0.2f, 0.2f, 0, 0, 0, 1));
        assertEquals(1f, t);
    }

    @Test
    void a_soup_that_is_not_whole_triangles_is_refused() {
        assertThrows(IllegalArgumentException.class, () -> BvhBuilder.build(new float[8], 1));
        assertThrows(IllegalArgumentException.class, () -> BvhBuilder.build(new float[] {0, 0, 0, 1, 0, 0, 0, Float.NaN, 0}, 1));
    }
}
