package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.bvh.BvhDescriptor;
import org.replayfarm.model.bvh.NodeTest;
import org.replayfarm.model.bvh.Ray;

/**
 * {@code replay example shadow-pass}: the generated BVH, walked as the kernel walks it (float32 ray set-up;
 * wave-coherent: the 64 rays of an 8 x 8 block share one stack, each step one node for the wave, the
 * children any active ray hit pushed in the first such lane's order, any triangle hit with
 * 0 &lt; t &lt; distance ending a ray) through the node test, shadows exactly the texels the independent
 * reference tracer shadows, apart from the grazing rays the reference lists, and the wave's stack never
 * needs more than the kernel's 64 entries. This is the host model's half of the example without the image
 * instructions.
 */
@Tag("unit")
class ShadowPassExampleTest {
    @TempDir
    Path dir;

    @Test
    void the_bvh_through_the_node_test_matches_the_reference_mask_apart_from_listed_grazes() throws Exception {
        int w = 192;
        int h = 108;
        CliRun run = CliRun.of("example", "shadow-pass", "--width", "" + w, "--height", "" + h, "--out", dir.toString());
        assertEquals(0, run.exitCode(), run.err());
        byte[] nodes = Files.readAllBytes(dir.resolve("scene.bvh"));
        ByteBuffer depth = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("depth.raw"))).order(ByteOrder.LITTLE_ENDIAN);
        byte[] normals = Files.readAllBytes(dir.resolve("normals.raw"));
        ByteBuffer cam = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("camera.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        byte[] reference = Files.readAllBytes(dir.resolve("reference-mask.raw"));
        Set<String> grazes = new HashSet<>(Files.readAllLines(dir.resolve("grazes.txt")));
        float[] c = new float[16];
        for (int i = 0; i < 16; i++) {
            c[i] = cam.getFloat(4 * i);
        }
        int mw = cam.getInt(72);
        int mh = cam.getInt(76);
        assertEquals(w / 2 * (h / 2), reference.length);
        long base = 0x1_0000_0000L;
        ByteBuffer nb = ByteBuffer.wrap(nodes).order(ByteOrder.LITTLE_ENDIAN);
        BvhDescriptor desc = BvhDescriptor.of(base, nodes.length, true);
        List<String> differ = new ArrayList<>();
        int shadowed = 0;
        int lit = 0;
        int deepest = 0;
        for (int gy = 0; gy < (mh + 7) / 8; gy++) {
            for (int gx = 0; gx < (mw + 7) / 8; gx++) {
                // one wave: lane = 8 * row + column of the block, as the kernel numbers its threads
                Ray[] rays = new Ray[64];
                for (int lane = 0; lane < 64; lane++) {
                    int mx = gx * 8 + lane % 8;
                    int my = gy * 8 + lane / 8;
                    if (mx < mw && my < mh) {
                        rays[lane] = ray(mx, my, w, h, c, depth, normals);
                    }
                }
                boolean[] occluded = new boolean[64];
                deepest = Math.max(deepest, walkWave(desc, rays, occluded, nb, base));
                for (int lane = 0; lane < 64; lane++) {
                    int mx = gx * 8 + lane % 8;
                    int my = gy * 8 + lane / 8;
                    if (mx >= mw || my >= mh) {
                        continue;
                    }
                    int value = rays[lane] != null && !occluded[lane] ? 255 : 0;
                    if (value != (reference[my * mw + mx] & 0xFF)) {
                        differ.add(mx + "," + my);
                    }
                    if (rays[lane] != null) {
                        if (value == 0) {
                            shadowed++;
                        } else {
                            lit++;
                        }
                    }
                }
            }
        }
        System.out.println("shadow pass " + w + "x" + h + " walked wave-coherently: deepest stack " + deepest + " entries");
        assertTrue(shadowed > 200 && lit > 1000, "a scene with shadows: " + shadowed + " shadowed, " + lit + " lit");
        assertTrue(deepest >= 2 && deepest <= STACK, "the wave's stack holds what it needs: " + deepest + " of " + STACK);
        List<String> unexplained = differ.stream().filter(p -> !grazes.contains(p)).toList();
        assertEquals(List.of(), unexplained, "texels that differ and are not listed grazes (" + differ.size() + " differ)");
    }

    /** The kernel's stack: one entry a lane of a wave64 VGPR. */
    private static final int STACK = 64;

    /** The shadow ray of mask texel (mx, my) as the kernel sets it up in float32, or null for sky. */
    private static Ray ray(int mx, int my, int w, int h, float[] c, ByteBuffer depth, byte[] normals) {
        int px = 2 * mx;
        int py = 2 * my;
        float t = depth.getFloat(4 * (py * w + px));
        if (!(t > 0)) {
            return null;
        }
        float sx = (px + 0.5f) / (float) w * 2.0f - 1.0f;
        float sy = 1.0f - (py + 0.5f) / (float) h * 2.0f;
        float[] d = new float[3];
        for (int a = 0; a < 3; a++) {
            d[a] = c[3 + a] + sx * c[6 + a] + sy * c[9 + a];
        }
        float inv = 1.0f / (float) Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        int at = 4 * (py * w + px);
        float[] n = {(normals[at + 2] & 0xFF) / 255f * 2 - 1, (normals[at + 1] & 0xFF) / 255f * 2 - 1,
                (normals[at] & 0xFF) / 255f * 2 - 1};
        float[] o = new float[3];
        float[] l = new float[3];
        for (int a = 0; a < 3; a++) {
            o[a] = c[a] + d[a] * inv * t + n[a] * c[15];
            l[a] = c[12 + a] - o[a];
        }
        float dist = (float) Math.sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
        return Ray.of(dist, o[0], o[1], o[2], l[0] / dist, l[1] / dist, l[2] / dist);
    }

    /**
     * Walks the BVH for one wave's rays (null: no ray) as shadow.cl does: one node at a time for the wave; at
     * a triangle node a ray with 0 &lt; t &lt; extent is occluded and drops out; at a box node the children any
     * active ray hit, taken as the lowest lane with one left names its nearest, which every lane then strikes
     * off its list; the first is the next node, the others pushed farthest first. Ends when no ray is active
     * or the stack is empty. Returns the deepest the stack got.
     */
    private static int walkWave(BvhDescriptor desc, Ray[] rays, boolean[] occluded, ByteBuffer nodes, long base) {
        boolean[] active = new boolean[64];
        boolean any = false;
        for (int lane = 0; lane < 64; lane++) {
            active[lane] = rays[lane] != null;
            any |= active[lane];
        }
        if (!any) {
            return 0;
        }
        List<Long> stack = new ArrayList<>();
        int deepest = 0;
        long node = 5;
        for (;;) {
            List<List<Long>> hits = new ArrayList<>();
            for (int lane = 0; lane < 64; lane++) {
                List<Long> mine = new ArrayList<>();
                hits.add(mine);
                if (!active[lane]) {
                    continue;
                }
                int[] r = NodeTest.intersect(desc, node, rays[lane], a -> nodes.getInt((int) (a - base)));
                if ((node & 7) < 4) {
                    float t = Float.intBitsToFloat(r[0]) / Float.intBitsToFloat(r[1]);
                    if (t > 0 && t < rays[lane].extent()) {
                        occluded[lane] = true;
                        active[lane] = false;
                    }
                } else {
                    for (int k = 0; k < 4 && r[k] != -1; k++) {
                        mine.add(Integer.toUnsignedLong(r[k]));
                    }
                }
            }
            List<Long> children = new ArrayList<>();
            for (;;) {
                Long next = hits.stream().filter(m -> !m.isEmpty()).map(m -> m.get(0)).findFirst().orElse(null);
                if (next == null) {
                    break;
                }
                children.add(next);
                hits.forEach(m -> m.remove(next));
            }
            if (!children.isEmpty()) {
                for (int k = children.size() - 1; k >= 1; k--) {
                    stack.add(children.get(k));
                }
                deepest = Math.max(deepest, stack.size());
                node = children.get(0);
                continue;
            }
            boolean anyActive = false;
            for (boolean a : active) {
                anyActive |= a;
            }
            if (stack.isEmpty() || !anyActive) {
                return deepest;
            }
            node = stack.remove(stack.size() - 1);
        }
    }

    @Test
    void the_generator_is_seeded_the_same_inputs_twice_give_the_same_bytes() throws Exception {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        assertEquals(0, CliRun.of("example", "shadow-pass", "--width", "64", "--height", "36", "--out", a.toString()).exitCode());
        assertEquals(0, CliRun.of("example", "shadow-pass", "--width", "64", "--height", "36", "--out", b.toString()).exitCode());
        for (String f : new String[] {"scene.bvh", "depth.raw", "normals.raw", "camera.bin", "reference-mask.raw"}) {
            assertArrayEquals(Files.readAllBytes(a.resolve(f)), Files.readAllBytes(b.resolve(f)), f);
        }
    }
}
