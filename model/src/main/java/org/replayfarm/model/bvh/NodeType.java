package org.replayfarm.model.bvh;

/**
 * The node type a node pointer carries in its low three bits (reference §5.3): 0-3 a triangle node, the
 * number choosing which of the node's triangles is tested; 4 a box of float16 bounds; 5 a box of float32
 * bounds; 6 an instance and 7 a procedural (AABB) node, which the hardware does not test (all four results
 * 0xFFFFFFFF).
 */
public enum NodeType {
    TRIANGLE_0, TRIANGLE_1, TRIANGLE_2, TRIANGLE_3, BOX16, BOX32, INSTANCE, PROCEDURAL;

    private static final NodeType[] BY_CODE = values();

    public static NodeType of(long nodePointer) {
        return BY_CODE[(int) (nodePointer & 7)];
    }

    public int code() {
        return ordinal();
    }

    public boolean triangle() {
        return ordinal() <= 3;
    }

    /** A node pointer to a node of this type at {@code offset} bytes from the BVH base (a multiple of 64). */
    public long pointerAt(long offset) {
        if ((offset & 63) != 0 || offset < 0) {
            throw new IllegalArgumentException("node offset " + offset + " is not a non-negative multiple of 64");
        }
        return offset >>> 3 | ordinal();
    }
}
