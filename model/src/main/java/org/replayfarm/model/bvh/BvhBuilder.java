package org.replayfarm.model.bvh;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.replayfarm.model.fp.Half;
import org.replayfarm.model.fp.Rounding;

/**
 * Builds a BVH in RDNA 2 node layout ({@link NodeLayout}) from a triangle soup: a binary tree split by
 * binned surface-area heuristic (16 bins on each axis, one triangle a leaf), collapsed to four-wide box
 * nodes by opening the child of largest area until four are held. Box nodes at depth {@code box16Depth}
 * and below are box16 (bounds rounded outward to float16, so they only grow) when every bound fits a
 * float16; the others box32. A box node's triangle children that share an edge with consistent winding go
 * into one triangle node as types 0 and 1, the rest into a node of their own (type 0). Every triangle's
 * I and J are its own vertex 1's and vertex 2's barycentrics, whatever rotation the node stores it in.
 * The root is a box32 node at offset 0.
 */
public final class BvhBuilder {
    private static final int BINS = 16;
    private static final float HALF_MAX = 65504f;

    /** The node bytes and what they hold. */
    public record Bvh(byte[] nodes, int box32Nodes, int box16Nodes, int triangleNodes, int pairedTriangles) {
        public long rootPointer() {
            return NodeType.BOX32.pointerAt(0);
        }
    }

    private final float[] tris;
    private final int box16Depth;

    private BvhBuilder(float[] tris, int box16Depth) {
        this.tris = tris;
        this.box16Depth = box16Depth;
    }

    /**
     * Builds from {@code triangles}: nine floats a triangle (vertex 0, 1, 2 as x, y, z).
     *
     * @param box16Depth the depth from which box nodes may be box16 (the root is depth 0 and always box32)
     */
    public static Bvh build(float[] triangles, int box16Depth) {
        if (triangles.length == 0 || triangles.length % 9 != 0) {
            throw new IllegalArgumentException("a triangle soup needs nine floats a triangle, at least one triangle; got "
                    + triangles.length + " floats");
        }
        for (int i = 0; i < triangles.length; i++) {
            if (!Float.isFinite(triangles[i])) {
                throw new IllegalArgumentException("triangle " + i / 9 + " has a coordinate that is not finite: "
                        + triangles[i]);
            }
        }
        return new BvhBuilder(triangles, Math.max(1, box16Depth)).run();
    }

    /** A binary tree node: bounds, and either two children or one triangle. */
    private static final class Binary {
        final float[] bounds;
        Binary left;
        Binary right;
        int triangle = -1;

        Binary(float[] bounds) {
            this.bounds = bounds;
        }

        boolean leaf() {
            return triangle >= 0;
        }
    }

    private Bvh run() {
        int n = tris.length / 9;
        int[] order = new int[n];
        float[] centroids = new float[3 * n];
        for (int t = 0; t < n; t++) {
            order[t] = t;
            for (int a = 0; a < 3; a++) {
                centroids[3 * t + a] = (tris[9 * t + a] + tris[9 * t + 3 + a] + tris[9 * t + 6 + a]) / 3f;
            }
        }
        Binary root = split(order, 0, n, centroids);
        return new Layout().write(root);
    }

    private float[] boundsOf(int[] order, int from, int to) {
        float[] b = empty();
        for (int i = from; i < to; i++) {
            for (int k = 0; k < 3; k++) {
                grow(b, tris, 9 * order[i] + 3 * k);
            }
        }
        return b;
    }

    private static float[] empty() {
        return new float[] {Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY,
                Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY};
    }

    private static void grow(float[] b, float[] p, int at) {
        for (int a = 0; a < 3; a++) {
            b[a] = Math.min(b[a], p[at + a]);
            b[a + 3] = Math.max(b[a + 3], p[at + a]);
        }
    }

    private static double area(float[] b) {
        double x = Math.max(0, b[3] - b[0]);
        double y = Math.max(0, b[4] - b[1]);
        double z = Math.max(0, b[5] - b[2]);
        return x * y + y * z + z * x;
    }

    private Binary split(int[] order, int from, int to, float[] c) {
        Binary node = new Binary(boundsOf(order, from, to));
        if (to - from == 1) {
            node.triangle = order[from];
            return node;
        }
        float[] cb = empty();
        for (int i = from; i < to; i++) {
            grow(cb, c, 3 * order[i]);
        }
        int bestAxis = -1;
        int bestBin = -1;
        double bestCost = Double.POSITIVE_INFINITY;
        for (int a = 0; a < 3; a++) {
            float extent = cb[a + 3] - cb[a];
            if (!(extent > 0)) {
                continue;
            }
            int[] counts = new int[BINS];
            float[][] bins = new float[BINS][];
            for (int i = 0; i < BINS; i++) {
                bins[i] = empty();
            }
            for (int i = from; i < to; i++) {
                int bin = binOf(c[3 * order[i] + a], cb[a], extent);
                counts[bin]++;
                for (int k = 0; k < 3; k++) {
                    grow(bins[bin], tris, 9 * order[i] + 3 * k);
                }
            }
            double[] leftArea = new double[BINS];
            int[] leftCount = new int[BINS];
            float[] acc = empty();
            int count = 0;
            for (int i = 0; i < BINS - 1; i++) {
                union(acc, bins[i]);
                count += counts[i];
                leftArea[i] = area(acc);
                leftCount[i] = count;
            }
            acc = empty();
            count = 0;
            for (int i = BINS - 1; i > 0; i--) {
                union(acc, bins[i]);
                count += counts[i];
                if (leftCount[i - 1] == 0 || count == 0) {
                    continue;
                }
                double cost = leftArea[i - 1] * leftCount[i - 1] + area(acc) * count;
                if (cost < bestCost) {
                    bestCost = cost;
                    bestAxis = a;
                    bestBin = i;
                }
            }
        }
        int mid;
        if (bestAxis < 0) {
            mid = (from + to) / 2; // every centroid the same: split the list in half
        } else {
            int lo = from;
            int hi = to - 1;
            float extent = cb[bestAxis + 3] - cb[bestAxis];
            while (lo <= hi) {
                if (binOf(c[3 * order[lo] + bestAxis], cb[bestAxis], extent) < bestBin) {
                    lo++;
                } else {
                    int t = order[lo];
                    order[lo] = order[hi];
                    order[hi--] = t;
                }
            }
            mid = lo;
        }
        node.left = split(order, from, mid, c);
        node.right = split(order, mid, to, c);
        return node;
    }

    private static int binOf(float value, float min, float extent) {
        return Math.min(BINS - 1, (int) ((value - min) / extent * BINS));
    }

    private static void union(float[] acc, float[] b) {
        for (int a = 0; a < 3; a++) {
            acc[a] = Math.min(acc[a], b[a]);
            acc[a + 3] = Math.max(acc[a + 3], b[a + 3]);
        }
    }

    /** Up to four binary nodes a box node holds: opens the internal child of largest area until four. */
    private static List<Binary> collapse(Binary node) {
        List<Binary> children = new ArrayList<>();
        if (node.leaf()) {
            children.add(node);
            return children;
        }
        children.add(node.left);
        children.add(node.right);
        while (children.size() < 4) {
            int best = -1;
            for (int i = 0; i < children.size(); i++) {
                if (!children.get(i).leaf() && (best < 0 || area(children.get(i).bounds) > area(children.get(best).bounds))) {
                    best = i;
                }
            }
            if (best < 0) {
                break;
            }
            Binary open = children.remove(best);
            children.add(best, open.right);
            children.add(best, open.left);
        }
        return children;
    }

    /** Places and writes the nodes breadth first from the root. */
    private final class Layout {
        private record Box(Binary node, int depth, long offset, boolean half) {
        }

        private final List<byte[]> chunks = new ArrayList<>();
        private long next = 0;
        private int box32;
        private int box16;
        private int triangleNodes;
        private int paired;

        private final java.util.Map<Long, byte[]> byOffset = new java.util.HashMap<>();

        private long allocate(byte[] node) {
            long at = next;
            chunks.add(node);
            byOffset.put(at, node);
            next += node.length;
            return at;
        }

        Bvh write(Binary root) {
            Deque<Box> queue = new ArrayDeque<>();
            byte[] rootBytes = new byte[NodeLayout.BOX32_BYTES];
            queue.add(new Box(root, 0, allocate(rootBytes), false));
            while (!queue.isEmpty()) {
                Box box = queue.poll();
                List<Binary> children = collapse(box.node());
                byte[] bytes = byOffset.get(box.offset());
                long[] pointers = new long[children.size()];
                List<Integer> triangles = new ArrayList<>();
                for (int i = 0; i < children.size(); i++) {
                    Binary c = children.get(i);
                    if (c.leaf()) {
                        triangles.add(i);
                    } else {
                        boolean half = box.depth() + 1 >= box16Depth && fitsHalf(collapse(c));
                        long at = allocate(new byte[half ? NodeLayout.BOX16_BYTES : NodeLayout.BOX32_BYTES]);
                        pointers[i] = (half ? NodeType.BOX16 : NodeType.BOX32).pointerAt(at);
                        queue.add(new Box(c, box.depth() + 1, at, half));
                    }
                }
                placeTriangles(children, triangles, pointers);
                if (box.half()) {
                    box16++;
                    writeBox16(bytes, children, pointers);
                } else {
                    box32++;
                    writeBox32(bytes, children, pointers);
                }
            }
            ByteBuffer out = ByteBuffer.allocate((int) next);
            chunks.forEach(out::put);
            return new Bvh(out.array(), box32, box16, triangleNodes, paired);
        }

        /** Triangle nodes for the box's triangle children: pairs sharing an edge together, the rest alone. */
        private void placeTriangles(List<Binary> children, List<Integer> slots, long[] pointers) {
            boolean[] done = new boolean[children.size()];
            for (int x = 0; x < slots.size(); x++) {
                int a = slots.get(x);
                if (done[a]) {
                    continue;
                }
                done[a] = true;
                int ta = children.get(a).triangle;
                byte[] node = new byte[NodeLayout.TRIANGLE_BYTES];
                ByteBuffer bb = ByteBuffer.wrap(node).order(ByteOrder.LITTLE_ENDIAN);
                int partner = -1;
                int[] share = null;
                for (int y = x + 1; y < slots.size() && partner < 0; y++) {
                    int b = slots.get(y);
                    if (!done[b]) {
                        share = sharedEdge(ta, children.get(b).triangle);
                        if (share != null) {
                            partner = b;
                        }
                    }
                }
                long at = allocate(node);
                triangleNodes++;
                if (partner < 0) {
                    putVertex(bb, 0, ta, 0);
                    putVertex(bb, 1, ta, 1);
                    putVertex(bb, 2, ta, 2);
                    bb.putInt(NodeLayout.TRIANGLE_ID, NodeLayout.IDENTITY_ORDER);
                    pointers[a] = NodeType.TRIANGLE_0.pointerAt(at);
                    continue;
                }
                done[partner] = true;
                paired += 2;
                int tb = children.get(partner).triangle;
                int r = share[0];
                int e = share[1];
                // type 0 tests (V0, V1, V2) = A rotated by r; type 1 tests (V1, V3, V2) = B from its vertex e + 1
                putVertex(bb, 0, ta, r);
                putVertex(bb, 1, ta, (r + 1) % 3);
                putVertex(bb, 2, ta, (r + 2) % 3);
                putVertex(bb, 3, tb, (e + 2) % 3);
                int id = NodeLayout.barycentricOrder(0, (1 - r + 3) % 3, (2 - r + 3) % 3)
                        | NodeLayout.barycentricOrder(1, (1 - e - 1 + 6) % 3, (2 - e - 1 + 6) % 3);
                bb.putInt(NodeLayout.TRIANGLE_ID, id);
                pointers[a] = NodeType.TRIANGLE_0.pointerAt(at);
                pointers[partner] = NodeType.TRIANGLE_1.pointerAt(at);
            }
        }

        private void putVertex(ByteBuffer bb, int slot, int triangle, int vertex) {
            for (int c = 0; c < 3; c++) {
                bb.putFloat(NodeLayout.VERTEX_STRIDE * slot + 4 * c, tris[9 * triangle + 3 * vertex + c]);
            }
        }
    }

    /**
     * {r, e} when A rotated by r has the edge A'1 -> A'2 that B runs the other way, B[e] -> B[e + 1] = A'2 ->
     * A'1 (consistent winding); null when no edge is shared so.
     */
    private int[] sharedEdge(int a, int b) {
        for (int r = 0; r < 3; r++) {
            int p = (r + 1) % 3;
            int q = (r + 2) % 3;
            for (int e = 0; e < 3; e++) {
                if (same(b, e, a, q) && same(b, (e + 1) % 3, a, p)) {
                    return new int[] {r, e};
                }
            }
        }
        return null;
    }

    private boolean same(int t1, int v1, int t2, int v2) {
        for (int c = 0; c < 3; c++) {
            if (Float.floatToRawIntBits(tris[9 * t1 + 3 * v1 + c]) != Float.floatToRawIntBits(tris[9 * t2 + 3 * v2 + c])) {
                return false;
            }
        }
        return true;
    }

    private static boolean fitsHalf(List<Binary> children) {
        for (Binary c : children) {
            for (float v : c.bounds) {
                if (Math.abs(v) > HALF_MAX) {
                    return false;
                }
            }
        }
        return true;
    }

    private static void writeBox32(byte[] bytes, List<Binary> children, long[] pointers) {
        ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 4; i++) {
            bb.putInt(NodeLayout.CHILDREN + 4 * i, i < children.size() ? (int) pointers[i] : NodeLayout.INVALID_CHILD);
            float[] b = i < children.size() ? children.get(i).bounds : emptyBox();
            for (int k = 0; k < 6; k++) {
                bb.putFloat(NodeLayout.BOX32_BOUNDS + NodeLayout.BOX32_BOUNDS_STRIDE * i + 4 * k, b[k]);
            }
        }
    }

    private static void writeBox16(byte[] bytes, List<Binary> children, long[] pointers) {
        ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 4; i++) {
            bb.putInt(NodeLayout.CHILDREN + 4 * i, i < children.size() ? (int) pointers[i] : NodeLayout.INVALID_CHILD);
            float[] b = i < children.size() ? children.get(i).bounds : emptyBox();
            int[] h = new int[6];
            for (int k = 0; k < 6; k++) {
                h[k] = Half.fromFloatBits(Float.floatToRawIntBits(b[k]),
                        k < 3 ? Rounding.MINUS_INFINITY : Rounding.PLUS_INFINITY);
            }
            int at = NodeLayout.BOX16_BOUNDS + NodeLayout.BOX16_BOUNDS_STRIDE * i;
            bb.putInt(at, h[0] | h[1] << 16);
            bb.putInt(at + 4, h[2] | h[3] << 16);
            bb.putInt(at + 8, h[4] | h[5] << 16);
        }
    }

    /** Bounds of an empty slot: min above max, so no ray enters it (the child pointer says invalid too). */
    private static float[] emptyBox() {
        float[] b = new float[6];
        Arrays.fill(b, 0, 3, 1f);
        Arrays.fill(b, 3, 6, -1f);
        return b;
    }
}
