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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.bvh.BvhDescriptor;
import org.replayfarm.model.bvh.NodeTest;
import org.replayfarm.model.bvh.Ray;

/**
 * {@code replay example shadow-pass}: the generated BVH, walked as the kernel walks it (float32 ray set-up,
 * a stack of box results nearest on top, any triangle hit with 0 &lt; t &lt; distance) through the node test,
 * shadows exactly the texels the independent reference tracer shadows, apart from the grazing rays the
 * reference lists. This is the host model's half of the example without the image instructions.
 */
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
        for (int my = 0; my < mh; my++) {
            for (int mx = 0; mx < mw; mx++) {
                int px = 2 * mx;
                int py = 2 * my;
                float t = depth.getFloat(4 * (py * w + px));
                int value = 0;
                if (t > 0) {
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
                    Ray ray = Ray.of(dist, o[0], o[1], o[2], l[0] / dist, l[1] / dist, l[2] / dist);
                    value = occluded(desc, ray, nb, base) ? 0 : 255;
                }
                value = value == 0 ? 0 : 255;
                if (value != (reference[my * mw + mx] & 0xFF)) {
                    differ.add(mx + "," + my);
                }
                if (t > 0) {
                    if (value == 0) {
                        shadowed++;
                    } else {
                        lit++;
                    }
                }
            }
        }
        assertTrue(shadowed > 200 && lit > 1000, "a scene with shadows: " + shadowed + " shadowed, " + lit + " lit");
        List<String> unexplained = differ.stream().filter(p -> !grazes.contains(p)).toList();
        assertEquals(List.of(), unexplained, "texels that differ and are not listed grazes (" + differ.size() + " differ)");
    }

    private static boolean occluded(BvhDescriptor desc, Ray ray, ByteBuffer nodes, long base) {
        long[] stack = new long[64];
        int top = 0;
        long node = 5;
        for (;;) {
            int[] r = NodeTest.intersect(desc, node, ray, a -> nodes.getInt((int) (a - base)));
            if ((node & 7) < 4) {
                float t = Float.intBitsToFloat(r[0]) / Float.intBitsToFloat(r[1]);
                if (t > 0 && t < ray.extent()) {
                    return true;
                }
            } else {
                for (int k = 3; k >= 0; k--) {
                    if (r[k] != -1) {
                        stack[top++] = Integer.toUnsignedLong(r[k]);
                    }
                }
            }
            if (top == 0) {
                return false;
            }
            node = stack[--top];
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
