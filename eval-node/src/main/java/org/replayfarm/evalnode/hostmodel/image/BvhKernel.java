package org.replayfarm.evalnode.hostmodel.image;

import org.replayfarm.model.bvh.NodeTest;
import org.replayfarm.model.fp.Half;

/**
 * The fast tier's node tests: {@link org.replayfarm.model.bvh.NodeTest}'s arithmetic restated over a node's
 * dwords read as one block (box32: the 28 dwords of bytes 0-111; box16 and triangles: the 16 dwords of bytes
 * 0-63) and the ray as ten floats, writing the four result dwords into an array: no allocation per lane. Each
 * float operation is the one {@code NodeTest} performs, in the same order (Java float arithmetic is IEEE
 * binary32, rounded once per operation), so the results are bit for bit the same; {@code BvhKernelTest} and
 * the tier differential tests compare them.
 */
final class BvhKernel {
    private BvhKernel() {
    }

    /** The largest block a node test reads, in dwords. */
    static final int BLOCK_DWORDS = 28;

    private static final int MISS = 0xFFFFFFFF;
    private static final int INF = Float.floatToRawIntBits(Float.POSITIVE_INFINITY);
    private static final int ONE = Float.floatToRawIntBits(1f);

    /** A box node's four children (box16: float16 bounds), sorted by entry when {@code sorting}. */
    static void box(int[] block, boolean box16, float grow, boolean sorting, float extent, float ox, float oy, float oz,
                    float ix, float iy, float iz, int[] out) {
        float k0 = 0;
        float k1 = 0;
        float k2 = 0;
        float k3 = 0;
        for (int i = 0; i < 4; i++) {
            float minX;
            float minY;
            float minZ;
            float maxX;
            float maxY;
            float maxZ;
            if (box16) {
                int w0 = block[4 + 3 * i];
                int w1 = block[5 + 3 * i];
                int w2 = block[6 + 3 * i];
                minX = half(w0 & 0xFFFF);
                minY = half(w0 >>> 16);
                minZ = half(w1 & 0xFFFF);
                maxX = half(w1 >>> 16);
                maxY = half(w2 & 0xFFFF);
                maxZ = half(w2 >>> 16);
            } else {
                int b = 4 + 6 * i;
                minX = Float.intBitsToFloat(block[b]);
                minY = Float.intBitsToFloat(block[b + 1]);
                minZ = Float.intBitsToFloat(block[b + 2]);
                maxX = Float.intBitsToFloat(block[b + 3]);
                maxY = Float.intBitsToFloat(block[b + 4]);
                maxZ = Float.intBitsToFloat(block[b + 5]);
            }
            float loX = (minX - ox) * ix;
            float hiX = (maxX - ox) * ix;
            float loY = (minY - oy) * iy;
            float hiY = (maxY - oy) * iy;
            float loZ = (minZ - oz) * iz;
            float hiZ = (maxZ - oz) * iz;
            float nearX = ix >= 0f ? loX : hiX;
            float farX = ix >= 0f ? hiX : loX;
            float nearY = iy >= 0f ? loY : hiY;
            float farY = iy >= 0f ? hiY : loY;
            float nearZ = iz >= 0f ? loZ : hiZ;
            float farZ = iz >= 0f ? hiZ : loZ;
            float key;
            float limit;
            if (nearX == nearX & nearY == nearY & nearZ == nearZ & farX == farX & farY == farY & farZ == farZ) {
                // no NaN among the six (the usual case): maxNum and minNum are Math.max and Math.min, entry and
                // exit are not NaN, and so is not the key
                key = Math.max(Math.max(Math.max(nearX, nearY), nearZ), 0f);
                limit = NodeTest.minNum(Math.min(Math.min(farX, farY), farZ), extent);
            } else {
                float entry = NodeTest.maxNum(NodeTest.maxNum(nearX, nearY), nearZ);
                float exit = NodeTest.minNum(NodeTest.minNum(farX, farY), farZ);
                if (Float.isNaN(entry) || Float.isNaN(exit)) {
                    key = Float.POSITIVE_INFINITY;
                    limit = Float.NEGATIVE_INFINITY;
                } else {
                    key = NodeTest.maxNum(entry, 0f);
                    limit = NodeTest.minNum(exit, extent);
                }
            }
            int child = block[i];
            if (!(key <= limit * grow)) {
                child = MISS;
            }
            out[i] = child;
            switch (i) {
                case 0 -> k0 = key;
                case 1 -> k1 = key;
                case 2 -> k2 = key;
                default -> k3 = key;
            }
        }
        if (!sorting) {
            return;
        }
        float[] key = {k0, k1, k2, k3};
        NodeTest.sortPair(out, key, 0, 2);
        NodeTest.sortPair(out, key, 1, 3);
        NodeTest.sortPair(out, key, 0, 1);
        NodeTest.sortPair(out, key, 2, 3);
        NodeTest.sortPair(out, key, 1, 2);
    }

    /** The node type's triangle (0..3) of a triangle node's 16 dwords, reported as the return mode says. */
    static void triangle(int[] block, int type, boolean barycentrics, float ox, float oy, float oz, float dx,
                         float dy, float dz, int[] out) {
        int[] which = org.replayfarm.model.bvh.NodeLayout.TRIANGLE_VERTICES[type];
        int p = 3 * which[0];
        int q = 3 * which[1];
        int r = 3 * which[2];
        float v0x = Float.intBitsToFloat(block[p]);
        float v0y = Float.intBitsToFloat(block[p + 1]);
        float v0z = Float.intBitsToFloat(block[p + 2]);
        float v1x = Float.intBitsToFloat(block[q]);
        float v1y = Float.intBitsToFloat(block[q + 1]);
        float v1z = Float.intBitsToFloat(block[q + 2]);
        float v2x = Float.intBitsToFloat(block[r]);
        float v2y = Float.intBitsToFloat(block[r + 1]);
        float v2z = Float.intBitsToFloat(block[r + 2]);
        int idWord = block[15];
        float e1x = v1x - v0x;
        float e1y = v1y - v0y;
        float e1z = v1z - v0z;
        float e2x = v2x - v0x;
        float e2y = v2y - v0y;
        float e2z = v2z - v0z;
        float e3x = ox - v0x;
        float e3y = oy - v0y;
        float e3z = oz - v0z;
        // s1 = dir x e2, s2 = e3 x e1
        float s1x = dy * e2z - dz * e2y;
        float s1y = dz * e2x - dx * e2z;
        float s1z = dx * e2y - dy * e2x;
        float s2x = e3y * e1z - e3z * e1y;
        float s2y = e3z * e1x - e3x * e1z;
        float s2z = e3x * e1y - e3y * e1x;
        float denom = s1x * e1x + s1y * e1y + s1z * e1z;
        float tNum = e2x * s2x + e2y * s2y + e2z * s2z;
        float u = e3x * s1x + e3y * s1y + e3z * s1z;
        float w = dx * s2x + dy * s2y + dz * s2z;
        float t = tNum / denom;
        float b1 = u / denom;
        float b2 = w / denom;
        boolean hit = !(b1 < 0f || b1 > 1f || b2 < 0f || b1 + b2 > 1f || t < 0f);
        if (!barycentrics) {
            out[0] = hit ? Float.floatToRawIntBits(tNum) : INF;
            out[1] = hit ? Float.floatToRawIntBits(denom) : ONE;
            out[2] = idWord;
            out[3] = hit ? 1 : 0;
            return;
        }
        if (!hit) {
            out[0] = INF;
            out[1] = ONE;
            out[2] = 0;
            out[3] = 0;
            return;
        }
        int order = idWord >>> (8 * type) & 0xFF;
        out[0] = Float.floatToRawIntBits(tNum);
        out[1] = Float.floatToRawIntBits(denom);
        out[2] = Float.floatToRawIntBits(numerator(denom, u, w, order & 3));
        out[3] = Float.floatToRawIntBits(numerator(denom, u, w, order >>> 2 & 3));
    }

    /** Tested vertex {@code source}'s barycentric numerator: 0 is t_denom - u - v, 1 u, 2 v; 3 names none (0). */
    private static float numerator(float denom, float u, float w, int source) {
        return switch (source) {
            case 0 -> denom - u - w;
            case 1 -> u;
            case 2 -> w;
            default -> 0f;
        };
    }

    private static float half(int bits) {
        return Float.intBitsToFloat(Half.toFloatBits(bits));
    }
}
