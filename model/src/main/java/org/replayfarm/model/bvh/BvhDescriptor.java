package org.replayfarm.model.bvh;

/**
 * The 128-bit BVH resource (T#) of image_bvh_intersect_ray, as RDNA 2 lays it out (reference §5.2):
 * BASE_ADDRESS = address / 256 in [39:0], BOX_GROW_ULP [62:55], BOX_SORT_EN [63], SIZE (node count - 1, in
 * 64-byte units) [105:64], TRIANGLE_RETURN_MODE [120], LLC_NOALLOC [122:121], BIG_PAGE [123], TYPE [127:124]
 * (8 for a BVH).
 *
 * @param baseAddress       byte address of node offset 0 (a multiple of 256)
 * @param boxGrowUlp        ULPs by which a box test widens the exit distance
 * @param boxSorting        box results sorted by entry distance (else in node order)
 * @param sizeUnits         64-byte units the BVH spans, minus one
 * @param returnBarycentrics triangle return mode 1: {t_num, t_denom, I_num, J_num}; mode 0: {t_num, t_denom,
 *                          triangle id, hit status}
 * @param llcNoAlloc        cache policy bits (no effect on results)
 * @param bigPage           page-size hint (no effect on results)
 * @param type              the resource type field
 */
public record BvhDescriptor(long baseAddress, int boxGrowUlp, boolean boxSorting, long sizeUnits,
                            boolean returnBarycentrics, int llcNoAlloc, boolean bigPage, int type) {
    public static final int TYPE_BVH = 8;

    public BvhDescriptor {
        if ((baseAddress & 0xFF) != 0 || baseAddress >>> 48 != 0) {
            throw new IllegalArgumentException(String.format(
                    "BVH base address 0x%x is not a 256-byte aligned 48-bit address", baseAddress));
        }
        if (boxGrowUlp < 0 || boxGrowUlp > 0xFF || sizeUnits < 0 || sizeUnits >>> 42 != 0) {
            throw new IllegalArgumentException("BVH descriptor field out of range: grow " + boxGrowUlp
                    + ", size " + sizeUnits);
        }
    }

    /** A descriptor for {@code bytes} of nodes at {@code baseAddress}, sorting boxes, as a driver writes one. */
    public static BvhDescriptor of(long baseAddress, long bytes, boolean returnBarycentrics) {
        return new BvhDescriptor(baseAddress, 0, true, Math.max(0, (bytes + 63) / 64 - 1), returnBarycentrics, 0,
                false, TYPE_BVH);
    }

    /** Reads the four little-endian dwords of the resource. */
    public static BvhDescriptor decode(int w0, int w1, int w2, int w3) {
        long lo = Integer.toUnsignedLong(w0) | (long) w1 << 32;
        long hi = Integer.toUnsignedLong(w2) | (long) w3 << 32;
        return new BvhDescriptor((lo & ((1L << 40) - 1)) << 8, (int) (lo >>> 55 & 0xFF), lo < 0,
                hi & ((1L << 42) - 1), (hi >>> 56 & 1) != 0, (int) (hi >>> 57 & 3), (hi >>> 59 & 1) != 0,
                (int) (hi >>> 60 & 0xF));
    }

    /** The four dwords of the resource. */
    public int[] encode() {
        long lo = baseAddress >>> 8 | (long) boxGrowUlp << 55 | (boxSorting ? 1L << 63 : 0);
        long hi = sizeUnits | (returnBarycentrics ? 1L << 56 : 0) | (long) llcNoAlloc << 57 | (bigPage ? 1L << 59 : 0)
                | (long) type << 60;
        return new int[] {(int) lo, (int) (lo >>> 32), (int) hi, (int) (hi >>> 32)};
    }

    /** The 16 bytes of the resource, little-endian. */
    public byte[] bytes() {
        byte[] out = new byte[16];
        int[] w = encode();
        for (int i = 0; i < 16; i++) {
            out[i] = (byte) (w[i / 4] >>> (8 * (i % 4)));
        }
        return out;
    }

    /**
     * Whether the node a pointer names lies inside the BVH the descriptor spans: its 64-byte units (two for a
     * box32 node; none for instance and procedural nodes, which the test does not read) at or below SIZE.
     */
    public boolean holds(long nodePointer) {
        NodeType type = NodeType.of(nodePointer);
        int units = switch (type) {
            case BOX32 -> NodeLayout.BOX32_BYTES / 64;
            case INSTANCE, PROCEDURAL -> 0;
            default -> 1;
        };
        long first = nodePointer >>> 3;
        return units == 0 || first + units - 1 <= sizeUnits;
    }

    /**
     * The byte address of the node a pointer names: BASE + node_pointer[63:3] * 64 (GPURT's
     * "fetch_addr0 = T#.base_address*256 + node_addr*64"); the low three bits are the node type.
     */
    public long nodeAddress(long nodePointer) {
        return baseAddress + ((nodePointer >>> 3) << 6);
    }
}
