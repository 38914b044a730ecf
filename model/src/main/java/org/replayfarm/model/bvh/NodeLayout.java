package org.replayfarm.model.bvh;

/**
 * Byte offsets of the RDNA 2 node formats (reference §5.4; GPURT's rayTracingDefs.h and radv's bvh.h agree
 * on the fields the hardware reads).
 *
 * <ul>
 * <li>box32 (128 bytes): four child pointers at 0, 4, 8, 12; child i's bounds at 16 + 24i: min x, y, z then
 * max x, y, z as float32. Bytes 112-127 are not read by the test.
 * <li>box16 (64 bytes): four child pointers at 0..15; child i's bounds at 16 + 12i as three dwords of packed
 * float16 pairs (low half first): {min x | min y}, {min z | max x}, {max y | max z}.
 * <li>triangle (64 bytes): vertices V0..V4 as float32 x, y, z at 0, 12, 24, 36, 48; the triangle id word at
 * 60, one byte per node type 0..3: I_SRC [1:0] and J_SRC [3:2], the tested vertex whose barycentric is
 * returned as I and J. Node type t tests {@link #TRIANGLE_VERTICES}[t].
 * </ul>
 */
public final class NodeLayout {
    private NodeLayout() {
    }

    public static final int BOX32_BYTES = 128;
    public static final int BOX16_BYTES = 64;
    public static final int TRIANGLE_BYTES = 64;
    public static final int CHILDREN = 0;
    public static final int BOX32_BOUNDS = 16;
    public static final int BOX32_BOUNDS_STRIDE = 24;
    public static final int BOX16_BOUNDS = 16;
    public static final int BOX16_BOUNDS_STRIDE = 12;
    public static final int VERTEX_STRIDE = 12;
    public static final int TRIANGLE_ID = 60;
    /** The child pointer of an empty slot: the test reports it as a miss. */
    public static final int INVALID_CHILD = 0xFFFFFFFF;

    /** The vertices (0..4) each triangle node type tests, in test order (GPURT's compressed pairs). */
    public static final int[][] TRIANGLE_VERTICES = {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {2, 4, 0}};

    /** The triangle id byte for node type {@code type} whose I and J are the barycentrics of tested vertices i and j. */
    public static int barycentricOrder(int type, int iSource, int jSource) {
        if (iSource < 0 || iSource > 2 || jSource < 0 || jSource > 2) {
            throw new IllegalArgumentException("barycentric sources are tested vertices 0..2");
        }
        return (iSource | jSource << 2) << (8 * type);
    }

    /** The id byte a single-triangle node holds for type 0: I is vertex 1's barycentric, J vertex 2's (GPURT's 9). */
    public static final int IDENTITY_ORDER = 1 | 2 << 2;
}
