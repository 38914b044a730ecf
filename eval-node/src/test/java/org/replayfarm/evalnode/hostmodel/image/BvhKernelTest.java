package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.memory.GroupMemory;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.model.bvh.BvhDescriptor;
import org.replayfarm.model.bvh.NodeTest;
import org.replayfarm.model.bvh.NodeType;
import org.replayfarm.model.bvh.Ray;

/**
 * The fast tier's node tests ({@link BvhKernel}) against {@link NodeTest}, the reference tier's, bit for bit:
 * random box32, box16 and triangle nodes of every type (bounds and vertices around the ray, some degenerate:
 * equal planes, NaN and infinite coordinates), rays with zero, negative-zero, infinite and NaN direction and
 * inverse components, both return modes, sorting on and off, BOX_GROW_ULP 0 and large; and the block read
 * ({@link GroupMemory#loadDwords}) against per-dword loads (a NaN result of the triangle test compares as any NaN:
 * see the test), including the group's own stores and a block that
 * leaves its range (no read, no fault: the caller then reads as the reference does).
 */
@Tag("unit")
class BvhKernelTest {
    private static final float[] ODD = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1e-40f,
            -1e-40f, Float.MIN_VALUE, 1f, -1f, 0.5f, 3.4e38f};

    private static float value(Random r) {
        return r.nextInt(12) == 0 ? ODD[r.nextInt(ODD.length)] : (float) (r.nextGaussian() * 4);
    }

    @Test
    void node_tests_equal_the_reference_bit_for_bit() {
        Random r = new Random(0xB4B4L);
        int[] block = new int[BvhKernel.BLOCK_DWORDS];
        int[] out = new int[4];
        int compared = 0;
        for (int i = 0; i < 40_000; i++) {
            for (int k = 0; k < block.length; k++) {
                block[k] = Float.floatToRawIntBits(value(r));
            }
            int type = r.nextInt(6); // triangles 0-3, box16, box32
            if (type == 4) {
                for (int k = 4; k < 16; k++) {
                    block[k] = r.nextInt(); // float16 pairs: any bits, NaNs and infinities included
                }
            }
            if (type >= 4) {
                for (int k = 0; k < 4; k++) {
                    block[k] = r.nextInt(5) == 0 ? 0xFFFFFFFF : r.nextInt(1 << 20) << 3 | r.nextInt(8);
                }
            } else {
                block[15] = r.nextInt();
            }
            boolean barycentrics = r.nextBoolean();
            boolean sorting = r.nextInt(4) != 0;
            int grow = r.nextInt(3) == 0 ? r.nextInt(256) : 0;
            BvhDescriptor d = new BvhDescriptor(0x10000, grow, sorting, 1000, barycentrics, 0, false, BvhDescriptor.TYPE_BVH);
            float dx = value(r);
            float dy = value(r);
            float dz = value(r);
            Ray ray = new Ray(r.nextInt(8) == 0 ? ODD[r.nextInt(ODD.length)] : Math.abs(value(r)) * 10, value(r), value(r),
                    value(r), dx, dy, dz, r.nextInt(6) == 0 ? value(r) : 1f / dx, r.nextInt(6) == 0 ? value(r) : 1f / dy,
                    r.nextInt(6) == 0 ? value(r) : 1f / dz);
            long pointer = NodeType.values()[type].pointerAt(64);
            int[] reference = NodeTest.intersect(d, pointer, ray, a -> block[(int) ((a - d.nodeAddress(pointer)) / 4)]);
            float g = 1f + d.boxGrowUlp() * 0x1p-24f;
            if (type >= 4) {
                BvhKernel.box(block, type == 4, g, sorting, ray.extent(), ray.ox(), ray.oy(), ray.oz(), ray.ix(), ray.iy(),
                        ray.iz(), out);
            } else {
                BvhKernel.triangle(block, type, barycentrics, ray.ox(), ray.oy(), ray.oz(), ray.dx(), ray.dy(), ray.dz(), out);
            }
            if (type < 4) {
                // float results: a NaN as any NaN. Java leaves open which of two NaN operands an operation returns
                // (the JIT may commute it), so neither NodeTest nor the kernel has a defined NaN payload there
                for (int k = 0; k < (barycentrics ? 4 : 2); k++) {
                    reference[k] = canonical(reference[k]);
                    out[k] = canonical(out[k]);
                }
            }
            int n = i;
            assertArrayEquals(reference, out, () -> "case " + n + ": node type " + type + ", ray " + ray);
            compared++;
        }
        assertEquals(40_000, compared);
    }

    private static int canonical(int bits) {
        return Float.isNaN(Float.intBitsToFloat(bits)) ? 0x7FC00000 : bits;
    }

    @Test
    void the_block_read_equals_per_dword_loads_and_refuses_a_block_outside_its_range() {
        byte[] bytes = new byte[256];
        new Random(7).nextBytes(bytes);
        ByteBuffer initial = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        InitialMemory im = new InitialMemory(List.of(new InitialMemory.Range(0, 0x2000, 256, initial, "bvh")));
        GroupMemory g = new GroupMemory(im);
        int[] block = new int[28];
        assertTrue(g.loadDwords(0x2000 + 64, 28, block, 0));
        for (int k = 0; k < 28; k++) {
            assertEquals((int) g.load(0x2000 + 64 + 4L * k, 4, 0), block[k]);
        }
        // the group's own bytes (a store inside the block) win over the initial ones, as load() reads them
        g.store(0x2000 + 64 + 9, 0xABCDL, 2, 0);
        assertTrue(g.loadDwords(0x2000 + 64, 28, block, 0));
        for (int k = 0; k < 28; k++) {
            assertEquals((int) g.load(0x2000 + 64 + 4L * k, 4, 0), block[k]);
        }
        assertEquals(0xCD, block[2] >>> 8 & 0xFF);
        // 112 bytes from 0x2000 + 192 leave the range: no read, no fault; a per-dword load there faults
        int[] untouched = block.clone();
        assertFalse(g.loadDwords(0x2000 + 192, 28, block, 3));
        assertArrayEquals(untouched, block);
        assertFalse(g.loadDwords(0x9000, 16, block, 3));
        GuestFault f = org.junit.jupiter.api.Assertions.assertThrows(GuestFault.class, () -> g.load(0x2000 + 256, 4, 3));
        assertEquals(3, f.lane());
    }
}
