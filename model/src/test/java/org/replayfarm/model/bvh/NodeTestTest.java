package org.replayfarm.model.bvh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The node test on hand-built nodes, against results derived by hand in the comments. */
@Tag("unit")
class NodeTestTest {
    private static final int MISS = 0xFFFFFFFF;
    private static final long BASE = 0x1_0000_0000L;

    private static NodeMemory memory(byte[] nodes) {
        ByteBuffer b = ByteBuffer.wrap(nodes).order(ByteOrder.LITTLE_ENDIAN);
        return address -> b.getInt((int) (address - BASE));
    }

    private static int f(float v) {
        return Float.floatToRawIntBits(v);
    }

    /** A box32 node at offset 0 with children 0x100|k and the given bounds (six floats each). */
    private static byte[] box32(float[]... bounds) {
        ByteBuffer b = ByteBuffer.allocate(128).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 4; i++) {
            b.putInt(4 * i, i < bounds.length ? 0x100 + 8 * i | 5 : MISS);
            for (int k = 0; k < 6 && i < bounds.length; k++) {
                b.putFloat(16 + 24 * i + 4 * k, bounds[i][k]);
            }
        }
        return b.array();
    }

    private static float[] cube(float x) {
        return new float[] {x, -1, -1, x + 1, 1, 1};
    }

    @Test
    void descriptor_fields_decode_from_the_bits_radv_writes() {
        // radv_rt_common.c: {0, 1u<<31, (size-1) low, (size-1) high | 1u<<24 | 1u<<31}, size 2^42
        BvhDescriptor d = BvhDescriptor.decode(0, 1 << 31, 0xFFFFFFFF, 0x3FF | 1 << 24 | 1 << 31);
        assertTrue(d.boxSorting());
        assertTrue(d.returnBarycentrics());
        assertEquals(8, d.type());
        assertEquals((1L << 42) - 1, d.sizeUnits());
        assertEquals(0, d.baseAddress());
        BvhDescriptor e = new BvhDescriptor(0x12_3456_7800L, 6, false, 999, false, 2, true, 8);
        int[] w = e.encode();
        assertEquals(0x1234_5678, w[0]); // base / 256
        assertEquals(6 << 23, w[1]); // grow ULPs at [62:55]
        assertEquals(e, BvhDescriptor.decode(w[0], w[1], w[2], w[3]));
        assertEquals(BASE + 0x40 * 3, BvhDescriptor.of(BASE, 4096, true).nodeAddress(3 << 3 | 5));
        assertThrows(IllegalArgumentException.class, () -> BvhDescriptor.of(BASE + 64, 64, true));
    }

    @Test
    void box32_children_come_back_sorted_by_entry_distance_with_misses_last() {
        // children at x = 9, 3, (off the ray) and 6; the ray runs along +x from the origin
        byte[] node = box32(cube(9), cube(3), new float[] {2, 5, 5, 3, 6, 6}, cube(6));
        Ray ray = Ray.of(100f, 0, 0, 0, 1, 0, 0);
        int[] r = NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, ray, memory(node));
        assertArrayEquals(new int[] {0x108 | 5, 0x118 | 5, 0x100 | 5, MISS}, r);
        // unsorted: node order, the miss in place
        BvhDescriptor unsorted = new BvhDescriptor(BASE, 0, false, 1, true, 0, false, 8);
        assertArrayEquals(new int[] {0x100 | 5, 0x108 | 5, MISS, 0x118 | 5},
                NodeTest.intersect(unsorted, 5, ray, memory(node)));
        // the extent cuts off the box at 9 (entry 9 > 7.5) and the one at 6 still counts (entry 6)
        assertArrayEquals(new int[] {0x108 | 5, 0x118 | 5, MISS, MISS},
                NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, Ray.of(7.5f, 0, 0, 0, 1, 0, 0), memory(node)));
        // a ray going the other way hits nothing ahead of it
        assertArrayEquals(new int[] {MISS, MISS, MISS, MISS},
                NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, Ray.of(100f, 0, 0, 0, -1, 0, 0), memory(node)));
    }

    @Test
    void a_box_behind_whose_exit_is_short_by_less_than_the_grow_ulps_is_hit() {
        // one box whose far x plane is just before the entry through y: entry = 1 (y), exit = 1 - 2^-24 (x)
        float xMax = 1f - 0x1p-24f;
        byte[] node = box32(new float[] {-1, 1, -1, xMax, 2, 1});
        Ray ray = Ray.of(100f, 0, 0, 0, 1, 1, 0);
        assertArrayEquals(new int[] {MISS, MISS, MISS, MISS},
                NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, ray, memory(node)));
        BvhDescriptor grown = new BvhDescriptor(BASE, 6, true, 1, true, 0, false, 8);
        assertEquals(0x100 | 5, NodeTest.intersect(grown, 5, ray, memory(node))[0]);
    }

    @Test
    void box16_bounds_read_as_packed_halves() {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, 0x200 | 4).putInt(4, 0x208 | 5).putInt(8, MISS).putInt(12, MISS);
        // child 0: [4, 5] x [-1, 1]^2, child 1: [2, 3] x [-1, 1]^2; half 1.0 = 0x3C00, -1.0 = 0xBC00, 2 = 0x4000,
        // 3 = 0x4200, 4 = 0x4400, 5 = 0x4500
        b.putInt(16, 0x4400 | 0xBC00 << 16).putInt(20, 0xBC00 | 0x4500 << 16).putInt(24, 0x3C00 | 0x3C00 << 16);
        b.putInt(28, 0x4000 | 0xBC00 << 16).putInt(32, 0xBC00 | 0x4200 << 16).putInt(36, 0x3C00 | 0x3C00 << 16);
        int[] r = NodeTest.intersect(BvhDescriptor.of(BASE, 64, true), 4, Ray.of(100f, 0, 0, 0, 1, 0, 0),
                memory(b.array()));
        assertArrayEquals(new int[] {0x208 | 5, 0x200 | 4, MISS, MISS}, r);
    }

    /** A triangle node: V0 (0,0,5), V1 (1,0,5), V2 (0,1,5), V3 (1,1,5), V4 (0.5,2,5) and an id word. */
    private static byte[] triangles(int id) {
        float[][] v = {{0, 0, 5}, {1, 0, 5}, {0, 1, 5}, {1, 1, 5}, {0.5f, 2, 5}};
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        for (int k = 0; k < 5; k++) {
            for (int c = 0; c < 3; c++) {
                b.putFloat(12 * k + 4 * c, v[k][c]);
            }
        }
        b.putInt(60, id);
        return b.array();
    }

    @Test
    void a_triangle_hit_returns_t_num_t_denom_and_the_barycentric_numerators() {
        // e1 = (1,0,0), e2 = (0,1,0), e3 = (0.25,0.25,-5); s1 = d x e2 = (-1,0,0), s2 = e3 x e1 = (0,-5,-0.25);
        // t_denom = s1.e1 = -1, t_num = e2.s2 = -5 (t = 5), u = e3.s1 = -0.25, v = d.s2 = -0.25
        Ray ray = Ray.of(100f, 0.25f, 0.25f, 0, 0, 0, 1);
        BvhDescriptor ij = BvhDescriptor.of(BASE, 64, true);
        assertArrayEquals(new int[] {f(-5), f(-1), f(-0.25f), f(-0.25f)},
                NodeTest.intersect(ij, 0, ray, memory(triangles(9))));
        // id byte 0 = I_SRC 0, J_SRC 1: I is vertex 0's numerator (t_denom - u - v = -0.5), J vertex 1's
        assertArrayEquals(new int[] {f(-5), f(-1), f(-0.5f), f(-0.25f)},
                NodeTest.intersect(ij, 0, ray, memory(triangles(0 | 1 << 2))));
        // return mode 0: the id word and hit status
        BvhDescriptor id = BvhDescriptor.of(BASE, 64, false);
        assertArrayEquals(new int[] {f(-5), f(-1), 0x0909_0909, 1},
                NodeTest.intersect(id, 0, ray, memory(triangles(0x0909_0909))));
        // a miss beside the triangle, and one behind the origin (t = -5)
        assertArrayEquals(new int[] {f(Float.POSITIVE_INFINITY), f(1f), 0, 0},
                NodeTest.intersect(ij, 0, Ray.of(100f, 0.75f, 0.75f, 0, 0, 0, 1), memory(triangles(9))));
        assertArrayEquals(new int[] {f(Float.POSITIVE_INFINITY), f(1f), 0x0909_0909, 0},
                NodeTest.intersect(id, 0, Ray.of(100f, 0.25f, 0.25f, 10, 0, 0, 1), memory(triangles(0x0909_0909))));
    }

    @Test
    void a_triangle_beyond_the_extent_is_still_returned_the_guest_compares_t_with_its_extent() {
        // neither GPURT's fast_intersect_triangle nor radv's watertight test reads the ray extent: t = 5 > 4.9
        Ray ray = Ray.of(4.9f, 0.25f, 0.25f, 0, 0, 0, 1);
        assertArrayEquals(new int[] {f(-5), f(-1), 0x0909_0909, 1},
                NodeTest.intersect(BvhDescriptor.of(BASE, 64, false), 0, ray, memory(triangles(0x0909_0909))));
        assertArrayEquals(new int[] {f(-5), f(-1), f(-0.25f), f(-0.25f)},
                NodeTest.intersect(BvhDescriptor.of(BASE, 64, true), 0, ray, memory(triangles(9))));
    }

    @Test
    void a_ray_on_a_triangle_edge_hits_it_edges_are_inclusive() {
        // V0 (0,0,5), V1 (1,0,5), V2 (0,1,5); down x = 0 at y = 0.5: e3 = (0, 0.5, -5), s1 = (-1, 0, 0), u = e3.s1 = 0
        // (b1 = 0 / -1 = -0, not < 0), s2 = e3 x e1 = (0, -5, -0.5), v = d.s2 = -0.5, t_num = e2.s2 = -5, t_denom = -1
        Ray ray = Ray.of(100f, 0, 0.5f, 0, 0, 0, 1);
        assertArrayEquals(new int[] {f(-5), f(-1), f(0), f(-0.5f)},
                NodeTest.intersect(BvhDescriptor.of(BASE, 64, true), 0, ray, memory(triangles(9))));
    }

    @Test
    void a_ray_running_along_a_box_face_enters_the_box_its_nan_plane_distance_is_dropped() {
        // the ray goes along +z in the plane x = 3 of the box [3, 4] x [2, 3] x [0, 1]: on x the distances are
        // (3 - 3) * inf = NaN and (4 - 3) * inf = inf; GPURT's max3/min3 drop the NaN: entry 1 (z), exit 2 (z)
        byte[] node = box32(new float[] {3, 2, 0, 4, 3, 1});
        Ray ray = Ray.of(100f, 3, 2.5f, -1, 0, 0, 1);
        assertEquals(0x100 | 5, NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, ray, memory(node))[0]);
        // a flat box (a triangle lying in x = 3): NaN on both x planes, entry and exit from z
        assertEquals(0x100 | 5, NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, ray,
                memory(box32(new float[] {3, 2, 0, 3, 3, 1})))[0]);
        // only when every axis is NaN (a zero direction from the box's corner) is the child missed
        Ray still = new Ray(100f, 3, 2, 0, 0, 0, 0, Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY,
                Float.POSITIVE_INFINITY);
        assertEquals(MISS, NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, still, memory(node))[0]);
    }

    @Test
    void an_inverse_direction_of_minus_zero_counts_as_positive_as_gpurt_compares_it() {
        // GPURT selects the near plane by inv_dir >= 0, so -0.0 takes the min plane as near. It matters only when a
        // plane distance is NaN: x in [-inf, 5] from x = 0 gives (-inf - 0) * -0 = NaN (near, dropped) and
        // (5 - 0) * -0 = -0 (far), so the exit is -0 and the box at y in [1, 2] (entry 1) is missed. Taking the
        // sign bit instead would make -0 the near distance, drop the far NaN and hit it (entry 1, exit 2).
        byte[] node = box32(new float[] {Float.NEGATIVE_INFINITY, 1, -1, 5, 2, 3});
        Ray ray = new Ray(100f, 0, 0, 0, Float.NEGATIVE_INFINITY, 1, 1, -0f, 1, 1);
        assertEquals(MISS, NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, ray, memory(node))[0]);
        // with +0.0 the same
        Ray plus = new Ray(100f, 0, 0, 0, Float.POSITIVE_INFINITY, 1, 1, 0f, 1, 1);
        assertEquals(MISS, NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, plus, memory(node))[0]);
    }

    @Test
    void a_hit_whose_entry_overflows_to_infinity_sorts_before_the_misses() {
        // coordinates at float's limit: (3e38 - -3e38) * 1 overflows to +inf on every axis, entry = exit = +inf,
        // extent +inf: a hit whose key is +inf. GPURT's SORT moves a hit ahead of a miss whatever the keys.
        float[] far = {3e38f, 3e38f, 3e38f, 3.4e38f, 3.4e38f, 3.4e38f};
        float[] behind = {-3.4e38f, -3.4e38f, -3.4e38f, -3.3e38f, -3.3e38f, -3.3e38f};
        byte[] node = box32(behind, far);
        Ray ray = new Ray(Float.POSITIVE_INFINITY, -3e38f, -3e38f, -3e38f, 1, 1, 1, 1, 1, 1);
        assertArrayEquals(new int[] {0x108 | 5, MISS, MISS, MISS},
                NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, ray, memory(node)));
    }

    @Test
    void the_node_type_selects_which_triangle_of_the_node_is_tested() {
        BvhDescriptor d = BvhDescriptor.of(BASE, 64, false);
        byte[] node = triangles(0x0909_0909);
        // (0.75, 0.75): only in type 1 (V1, V3, V2); (0.5, 1.5): only in type 2 (V2, V3, V4; type 3 spans
        // x 0.25..0.375 there); (0.1, 0.5): in types 0 (V0, V1, V2) and 3 (V2, V4, V0: x 0..0.125 at y 0.5)
        float[][] points = {{0.75f, 0.75f}, {0.5f, 1.5f}, {0.1f, 0.5f}};
        int[][] expected = {{0, 1, 0, 0}, {0, 0, 1, 0}, {1, 0, 0, 1}};
        for (int p = 0; p < 3; p++) {
            for (int type = 0; type < 4; type++) {
                Ray ray = Ray.of(100f, points[p][0], points[p][1], 0, 0, 0, 1);
                assertEquals(expected[p][type], NodeTest.intersect(d, type, ray, memory(node))[3],
                        "point " + p + " type " + type);
            }
        }
    }

    @Test
    void instance_and_procedural_nodes_return_all_ones() {
        for (int type : new int[] {6, 7}) {
            assertArrayEquals(new int[] {MISS, MISS, MISS, MISS},
                    NodeTest.intersect(BvhDescriptor.of(BASE, 64, true), type, Ray.of(1f, 0, 0, 0, 1, 0, 0),
                            address -> { throw new AssertionError("an instance node is not read"); }));
        }
        assertFalse(NodeType.INSTANCE.triangle());
    }

    @Test
    void a_flat_box_whose_entry_equals_the_extent_is_hit_and_one_ulp_shorter_only_when_grown() {
        // a box flat at z = 5 (a triangle lying in z = 5): entry = exit = 5 along +z. With extent 5 the exit is
        // clamped to 5 and 5 <= 5 hits; with the float below 5 it misses, unless BOX_GROW_ULP 6 widens the exit
        // by (1 + 6 * 2^-24) rounded to float, 1 + 3 * 2^-23: 4.9999995 * that is above 5
        byte[] node = box32(new float[] {-1, -1, 5, 1, 1, 5});
        float below = Math.nextDown(5f);
        assertEquals(0x100 | 5, NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, Ray.of(5f, 0, 0, 0, 0, 0, 1),
                memory(node))[0]);
        assertEquals(MISS, NodeTest.intersect(BvhDescriptor.of(BASE, 128, true), 5, Ray.of(below, 0, 0, 0, 0, 0, 1),
                memory(node))[0]);
        BvhDescriptor grown = new BvhDescriptor(BASE, 6, true, 1, true, 0, false, 8);
        assertEquals(0x100 | 5, NodeTest.intersect(grown, 5, Ray.of(below, 0, 0, 0, 0, 0, 1), memory(node))[0]);
    }
}
