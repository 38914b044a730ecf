package org.replayfarm.cli.examples;

import java.util.Arrays;

/**
 * The shadow pass's independent reference: a plain ray tracer over the scene's triangles in double
 * precision, with its own median-split box tree. It shares no code with the RDNA 2 node formats, the BVH
 * builder or the node test.
 *
 * <p>A shadow query reports a graze when some triangle the ray passes within {@link #EDGE_EPSILON}
 * (barycentric) of an edge would decide the answer: float32 on the device and double here may then disagree.
 */
public final class ReferenceTracer {
    /** Barycentric distance from an edge within which a ray counts as grazing it. */
    public static final double EDGE_EPSILON = 1e-5;
    /** Relative distance from a ray's ends within which a hit counts as grazing them. */
    public static final double T_EPSILON = 1e-5;

    private final float[] tris;
    private final int[] order;
    private final double[] bounds; // per tree node: min xyz, max xyz
    private final int[] first;
    private final int[] count; // > 0 for a leaf; children at 2i+1, 2i+2 otherwise

    public ReferenceTracer(float[] triangles) {
        this.tris = triangles;
        int n = triangles.length / 9;
        order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        int size = 4 * Integer.highestOneBit(Math.max(1, n)) * 2;
        bounds = new double[6 * size];
        first = new int[size];
        count = new int[size];
        build(0, 0, n);
    }

    private void build(int node, int from, int to) {
        double[] b = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, -Double.MAX_VALUE,
                -Double.MAX_VALUE};
        for (int i = from; i < to; i++) {
            for (int k = 0; k < 9; k++) {
                double v = tris[9 * order[i] + k];
                b[k % 3] = Math.min(b[k % 3], v);
                b[3 + k % 3] = Math.max(b[3 + k % 3], v);
            }
        }
        System.arraycopy(b, 0, bounds, 6 * node, 6);
        if (to - from <= 4) {
            first[node] = from;
            count[node] = to - from;
            return;
        }
        int axis = b[3] - b[0] >= b[4] - b[1] ? (b[3] - b[0] >= b[5] - b[2] ? 0 : 2) : (b[4] - b[1] >= b[5] - b[2] ? 1 : 2);
        Integer[] sub = new Integer[to - from];
        for (int i = from; i < to; i++) {
            sub[i - from] = order[i];
        }
        Arrays.sort(sub, (x, y) -> Double.compare(centroid(x, axis), centroid(y, axis)));
        for (int i = from; i < to; i++) {
            order[i] = sub[i - from];
        }
        int mid = (from + to) / 2;
        build(2 * node + 1, from, mid);
        build(2 * node + 2, mid, to);
    }

    private double centroid(int t, int axis) {
        return (double) tris[9 * t + axis] + tris[9 * t + 3 + axis] + tris[9 * t + 6 + axis];
    }

    /** What a query found: the nearest hit's distance (+inf when none) and triangle, and whether it grazed. */
    public record Hit(double t, int triangle, boolean graze) {
    }

    /** The nearest hit along o + t d with t in (0, tMax), or +inf. */
    public Hit trace(double[] o, double[] d, double tMax, boolean anyHit) {
        double best = tMax;
        int bestTriangle = -1;
        boolean graze = false;
        int[] stack = new int[128];
        int top = 0;
        stack[top++] = 0;
        while (top > 0) {
            int node = stack[--top];
            if (!slab(node, o, d, best)) {
                continue;
            }
            if (count[node] > 0) {
                for (int i = first[node]; i < first[node] + count[node]; i++) {
                    int t = order[i];
                    double[] r = triangle(t, o, d);
                    if (r == null) {
                        continue;
                    }
                    double margin = r[1];
                    double tt = r[0];
                    boolean inside = margin >= 0 && tt > 0 && tt < best;
                    boolean near = margin > -EDGE_EPSILON && tt > -T_EPSILON * tMax && tt < best + T_EPSILON * tMax;
                    if (near && (Math.abs(margin) < EDGE_EPSILON || Math.abs(tt) < T_EPSILON * tMax
                            || Math.abs(tt - tMax) < T_EPSILON * tMax)) {
                        graze = true;
                    }
                    if (inside) {
                        best = tt;
                        bestTriangle = t;
                        if (anyHit && !graze) {
                            return new Hit(best, bestTriangle, false);
                        }
                    }
                }
            } else {
                stack[top++] = 2 * node + 1;
                stack[top++] = 2 * node + 2;
            }
        }
        return new Hit(bestTriangle < 0 ? Double.POSITIVE_INFINITY : best, bestTriangle, graze);
    }

    private boolean slab(int node, double[] o, double[] d, double tMax) {
        double near = -1e-9;
        double far = tMax * (1 + 1e-9) + 1e-9;
        for (int a = 0; a < 3; a++) {
            double lo = bounds[6 * node + a] - 1e-7;
            double hi = bounds[6 * node + 3 + a] + 1e-7;
            if (d[a] == 0) {
                if (o[a] < lo || o[a] > hi) {
                    return false;
                }
                continue;
            }
            double t1 = (lo - o[a]) / d[a];
            double t2 = (hi - o[a]) / d[a];
            near = Math.max(near, Math.min(t1, t2));
            far = Math.min(far, Math.max(t1, t2));
        }
        return near <= far;
    }

    /** {t, smallest barycentric} of the ray's plane crossing, or null when parallel. */
    private double[] triangle(int t, double[] o, double[] d) {
        double[] a = vertex(t, 0);
        double[] e1 = minus(vertex(t, 1), a);
        double[] e2 = minus(vertex(t, 2), a);
        double[] p = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
        double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
        if (Math.abs(det) < 1e-14) {
            return null;
        }
        double[] s = minus(o, a);
        double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
        double[] q = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
        double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
        double tt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
        return new double[] {tt, Math.min(Math.min(u, v), 1 - u - v)};
    }

    private double[] vertex(int t, int k) {
        return new double[] {tris[9 * t + 3 * k], tris[9 * t + 3 * k + 1], tris[9 * t + 3 * k + 2]};
    }

    private static double[] minus(double[] a, double[] b) {
        return new double[] {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    }
}
