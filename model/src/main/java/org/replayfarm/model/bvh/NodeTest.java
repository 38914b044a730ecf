package org.replayfarm.model.bvh;

/**
 * What image_bvh_intersect_ray returns for one node (reference §5.5), shared by the host model and the
 * translator: four dwords. Written from GPURT's emulation of the instruction ({@code IntersectCommon.hlsl}:
 * {@code fast_intersect_bbox}, {@code IntersectNode}, {@code fast_intersect_triangle}, {@code
 * SwizzleBarycentrics}), each operation rounded once to float32, with min and max that ignore a NaN operand
 * (IEEE minNum/maxNum, as HLSL's min/max and the hardware's v_min/v_max_f32 do).
 *
 * <p><b>Box nodes</b> (box32 and box16, whose float16 bounds widen exactly to float32): per child and axis the
 * plane distances {@code (bound - origin) * inv_dir}; the near one is the min plane's when {@code inv_dir >=
 * 0} (so +0.0 and -0.0 both count as positive, as GPURT compares), else the max plane's. Entry = max(near x,
 * y, z) and exit = min(far x, y, z), a NaN distance (origin on a plane of an axis the ray is parallel to: 0 *
 * inf) dropped by the min/max, so a ray running along a box's face enters it; only when every axis is NaN is
 * the child missed. Then entry is clamped below by 0 and exit above by the extent, and the child is hit when
 * entry &lt;= exit * (1 + BOX_GROW_ULP * 2^-24) (the factor rounded to float as GPURT forms it). An invalid
 * child pointer (0xFFFFFFFF) stays invalid. The results are the children sorted by entry distance, by GPURT's
 * network (0,2),(1,3),(0,1),(2,3),(1,2), where a pair swaps when the second is hit and strictly nearer or the
 * first is a miss, so misses (0xFFFFFFFF) end up after every hit. With BOX_SORT_EN clear, hits stay in node
 * order and misses read 0xFFFFFFFF in place.
 *
 * <p><b>Triangle nodes</b>: the triangle the node type selects ({@link NodeLayout#TRIANGLE_VERTICES}), tested
 * by GPURT's Möller–Trumbore formulation: e1 = v1 - v0, e2 = v2 - v0, e3 = origin - v0, s1 = dir x e2, s2 = e3 x
 * e1; t_num = e2 . s2, t_denom = s1 . e1, u = e3 . s1 (vertex 1's barycentric numerator), v = dir . s2 (vertex
 * 2's), vertex 0's being t_denom - u - v. The hit test divides as GPURT does: with t = t_num / t_denom, b1 = u /
 * t_denom and b2 = v / t_denom, a miss is b1 &lt; 0, b1 &gt; 1, b2 &lt; 0, b1 + b2 &gt; 1 or t &lt; 0 (edges
 * inclusive; a NaN quotient, from a t_denom of 0 with a numerator of 0, misses none of these, as in GPURT).
 * The ray extent does not take part: neither GPURT's nor radv's emulation compares t with it, the guest
 * does. Return mode 1: {t_num, t_denom, I_num, J_num}, I and J the numerators of the tested vertices the
 * node type's triangle id byte names (I_SRC, J_SRC); a miss {+inf, 1.0, 0, 0} (radv's miss value: GPURT's
 * swizzles leftover numerators into I and J, which no consumer reads). Return mode 0: {t_num, t_denom,
 * triangle id word, hit status 1 or 0}, a miss with t_num +inf and t_denom 1.0.
 *
 * <p><b>Instance and procedural nodes</b>: 0xFFFFFFFF in all four (GPURT: "HW returns -1").
 *
 * <p><b>Why GPURT's and not radv's.</b> radv emulates the triangle with the watertight test (Woop et al.)
 * and sorts by (0,1),(2,3),(0,2),(1,3),(1,2); GPURT is AMD's own emulation of the instruction and returns
 * the hardware's result fields by their names (t_num, t_denom, I, J from the same dot products), so its
 * numerators are what a guest divides. Neither is documented as bit-exact against the hardware, so the
 * instruction is <em>approximate</em>. The bound argued: every result is a sum of at most six products of
 * node-relative differences, each operation rounded once to float32 here; a fused or reordered evaluation
 * on the hardware changes t_num, t_denom, I and J by at most a few units in the last place of the largest
 * term (not of the result), so t = t_num / t_denom and the barycentrics agree to that relative error; a hit
 * decision can differ only for a ray whose barycentric lies within that bound of an edge (grazing), and a
 * box decision or order only for a ray whose entry and exit (or two children's entries) agree to within one
 * rounding. The networks differ only in the order of children with equal entries.
 */
public final class NodeTest {
    private NodeTest() {
    }

    private static final int MISS = 0xFFFFFFFF;
    private static final int INF = Float.floatToRawIntBits(Float.POSITIVE_INFINITY);
    private static final int ONE = Float.floatToRawIntBits(1f);

    /** The four result dwords for the node {@code nodePointer} names. */
    public static int[] intersect(BvhDescriptor d, long nodePointer, Ray ray, NodeMemory memory) {
        long address = d.nodeAddress(nodePointer);
        NodeType type = NodeType.of(nodePointer);
        return switch (type) {
            case BOX32, BOX16 -> box(d, type == NodeType.BOX16, address, ray, memory);
            case INSTANCE, PROCEDURAL -> new int[] {MISS, MISS, MISS, MISS};
            default -> triangle(d, type.code(), address, ray, memory);
        };
    }

    /** A box node's four children, ordered as the descriptor says. */
    static int[] box(BvhDescriptor d, boolean half, long address, Ray ray, NodeMemory memory) {
        int[] child = new int[4];
        float[] key = new float[4];
        float grow = 1f + d.boxGrowUlp() * 0x1p-24f;
        for (int i = 0; i < 4; i++) {
            child[i] = memory.dword(address + NodeLayout.CHILDREN + 4L * i);
            float[] b = half ? box16Bounds(memory, address, i) : box32Bounds(memory, address, i);
            float[] interval = interval(b, ray);
            key[i] = interval[0];
            if (!(interval[0] <= interval[1] * grow)) {
                child[i] = MISS;
            }
        }
        if (d.boxSorting()) {
            sortPair(child, key, 0, 2);
            sortPair(child, key, 1, 3);
            sortPair(child, key, 0, 1);
            sortPair(child, key, 2, 3);
            sortPair(child, key, 1, 2);
        }
        return child;
    }

    /**
     * GPURT's SORT: swap when the second is hit and strictly nearer, or the first is a miss. Public with maxNum and
     * minNum so that the host model's allocation-free box test uses these very definitions.
     */
    public static void sortPair(int[] child, float[] key, int a, int b) {
        if (child[b] != MISS && key[b] < key[a] || child[a] == MISS) {
            float k = key[a];
            key[a] = key[b];
            key[b] = k;
            int c = child[a];
            child[a] = child[b];
            child[b] = c;
        }
    }

    /**
     * {entry, exit} of the ray through bounds {min x, y, z, max x, y, z}: entry clamped below by 0, exit above by
     * the extent; {+inf, -inf} when the unclamped entry or exit is NaN.
     */
    static float[] interval(float[] b, Ray ray) {
        float[] o = {ray.ox(), ray.oy(), ray.oz()};
        float[] inv = {ray.ix(), ray.iy(), ray.iz()};
        float[] near = new float[3];
        float[] far = new float[3];
        for (int a = 0; a < 3; a++) {
            float lo = (b[a] - o[a]) * inv[a];
            float hi = (b[a + 3] - o[a]) * inv[a];
            near[a] = inv[a] >= 0f ? lo : hi;
            far[a] = inv[a] >= 0f ? hi : lo;
        }
        float entry = maxNum(maxNum(near[0], near[1]), near[2]);
        float exit = minNum(minNum(far[0], far[1]), far[2]);
        if (Float.isNaN(entry) || Float.isNaN(exit)) {
            return new float[] {Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY};
        }
        return new float[] {maxNum(entry, 0f), minNum(exit, ray.extent())};
    }

    /** IEEE maxNum: a NaN operand is dropped. */
    public static float maxNum(float a, float b) {
        return Float.isNaN(a) ? b : Float.isNaN(b) ? a : Math.max(a, b);
    }

    /** IEEE minNum: a NaN operand is dropped. */
    public static float minNum(float a, float b) {
        return Float.isNaN(a) ? b : Float.isNaN(b) ? a : Math.min(a, b);
    }

    private static float[] box32Bounds(NodeMemory m, long address, int i) {
        float[] b = new float[6];
        long at = address + NodeLayout.BOX32_BOUNDS + (long) NodeLayout.BOX32_BOUNDS_STRIDE * i;
        for (int k = 0; k < 6; k++) {
            b[k] = Float.intBitsToFloat(m.dword(at + 4L * k));
        }
        return b;
    }

    private static float[] box16Bounds(NodeMemory m, long address, int i) {
        float[] b = new float[6];
        long at = address + NodeLayout.BOX16_BOUNDS + (long) NodeLayout.BOX16_BOUNDS_STRIDE * i;
        for (int k = 0; k < 3; k++) {
            int w = m.dword(at + 4L * k);
            b[2 * k] = Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits(w & 0xFFFF));
            b[2 * k + 1] = Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits(w >>> 16));
        }
        return b;
    }

    /** The node type's triangle, tested and reported as the descriptor's return mode says. */
    static int[] triangle(BvhDescriptor d, int type, long address, Ray ray, NodeMemory m) {
        int[] which = NodeLayout.TRIANGLE_VERTICES[type];
        float[][] v = new float[3][3];
        for (int k = 0; k < 3; k++) {
            for (int c = 0; c < 3; c++) {
                v[k][c] = Float.intBitsToFloat(m.dword(address + (long) NodeLayout.VERTEX_STRIDE * which[k] + 4L * c));
            }
        }
        int idWord = m.dword(address + NodeLayout.TRIANGLE_ID);
        float[] dir = {ray.dx(), ray.dy(), ray.dz()};
        float[] e1 = sub(v[1], v[0]);
        float[] e2 = sub(v[2], v[0]);
        float[] e3 = sub(new float[] {ray.ox(), ray.oy(), ray.oz()}, v[0]);
        float[] s1 = cross(dir, e2);
        float[] s2 = cross(e3, e1);
        float denom = dot(s1, e1);
        float tNum = dot(e2, s2);
        float u = dot(e3, s1);
        float w = dot(dir, s2);
        boolean hit = hit(denom, tNum, u, w);
        if (!d.returnBarycentrics()) {
            return new int[] {hit ? Float.floatToRawIntBits(tNum) : INF, hit ? Float.floatToRawIntBits(denom) : ONE,
                    idWord, hit ? 1 : 0};
        }
        if (!hit) {
            return new int[] {INF, ONE, 0, 0};
        }
        float[] numerators = {denom - u - w, u, w};
        int order = idWord >>> (8 * type) & 0xFF;
        int iSource = order & 3;
        int jSource = order >>> 2 & 3;
        return new int[] {Float.floatToRawIntBits(tNum), Float.floatToRawIntBits(denom),
                Float.floatToRawIntBits(numerator(numerators, iSource)),
                Float.floatToRawIntBits(numerator(numerators, jSource))};
    }

    /** I_SRC / J_SRC 3 names no vertex: read as 0 (not documented; no builder writes it). */
    private static float numerator(float[] numerators, int source) {
        return source < 3 ? numerators[source] : 0f;
    }

    /** GPURT's test on the quotients: every comparison false (a NaN) counts as inside. */
    private static boolean hit(float denom, float tNum, float u, float w) {
        float t = tNum / denom;
        float b1 = u / denom;
        float b2 = w / denom;
        boolean missed = b1 < 0f || b1 > 1f || b2 < 0f || b1 + b2 > 1f || t < 0f;
        return !missed;
    }

    private static float[] sub(float[] a, float[] b) {
        return new float[] {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    }

    private static float[] cross(float[] a, float[] b) {
        return new float[] {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    }

    private static float dot(float[] a, float[] b) {
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    }
}
