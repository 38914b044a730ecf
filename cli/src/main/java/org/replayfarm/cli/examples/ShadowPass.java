package org.replayfarm.cli.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The shadow pass's inputs and its expected mask. The depth image holds, per frame pixel, the distance to
 * the nearest surface along the pixel's primary ray (0 where none); the normal map the surface's geometric
 * normal facing the camera, n * 0.5 + 0.5 in 8-bit UNORM, stored in memory as (z, y, x, 1) so that a
 * descriptor whose channel order is (Z, Y, X, W) hands the kernel (x, y, z, 1). Primary rays and normals
 * come from the reference tracer. The mask is half the frame's size in each direction.
 */
public final class ShadowPass {
    /** The mask's texels before the pass: neither 0 nor 255, so a texel the kernel does not store shows. */
    public static final int UNWRITTEN = 0x80;
    /** The mask's image number in the example's capture (depth 0, normals 1, mask 2, in argument order). */
    public static final int MASK_IMAGE = 2;

    private ShadowPass() {
    }

    /** Everything the example writes. */
    public record Inputs(int width, int height, int maskWidth, int maskHeight, float[] depth, byte[] normals,
                         byte[] camera, byte[] referenceMask, List<String> grazes) {
    }

    public static Inputs generate(ShadowScene scene, int width, int height) {
        ReferenceTracer tracer = new ReferenceTracer(scene.triangles());
        float[] depth = new float[width * height];
        byte[] normals = new byte[4 * width * height];
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                float[] d = primary(scene, width, height, x, y);
                ReferenceTracer.Hit h = tracer.trace(new double[] {scene.eye()[0], scene.eye()[1], scene.eye()[2]},
                        new double[] {d[0], d[1], d[2]}, 1e4, false);
                int at = y * width + x;
                if (h.triangle() < 0) {
                    normals[4 * at + 3] = (byte) 255;
                    continue;
                }
                depth[at] = (float) h.t();
                double[] n = normal(scene.triangles(), h.triangle());
                if (n[0] * d[0] + n[1] * d[1] + n[2] * d[2] > 0) {
                    n = new double[] {-n[0], -n[1], -n[2]};
                }
                normals[4 * at] = unorm8(n[2]);
                normals[4 * at + 1] = unorm8(n[1]);
                normals[4 * at + 2] = unorm8(n[0]);
                normals[4 * at + 3] = (byte) 255;
            }
        }
        int mw = (width + 1) / 2;
        int mh = (height + 1) / 2;
        byte[] mask = new byte[mw * mh];
        List<String> grazes = new ArrayList<>();
        for (int my = 0; my < mh; my++) {
            for (int mx = 0; mx < mw; mx++) {
                int px = 2 * mx;
                int py = 2 * my;
                float t = depth[py * width + px];
                if (t <= 0) {
                    continue; // no surface: 0
                }
                // the kernel's reconstruction, in float as the kernel does it
                float[] d = primary(scene, width, height, px, py);
                float[] p = {scene.eye()[0] + d[0] * t, scene.eye()[1] + d[1] * t, scene.eye()[2] + d[2] * t};
                int at = 4 * (py * width + px);
                float[] n = {decode(normals[at + 2]), decode(normals[at + 1]), decode(normals[at])};
                double[] o = new double[3];
                double[] l = new double[3];
                for (int a = 0; a < 3; a++) {
                    o[a] = p[a] + n[a] * scene.bias();
                    l[a] = scene.light()[a] - o[a];
                }
                double dist = Math.sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
                ReferenceTracer.Hit h = tracer.trace(o, new double[] {l[0] / dist, l[1] / dist, l[2] / dist}, dist, true);
                mask[my * mw + mx] = (byte) (h.triangle() >= 0 ? 0 : 255);
                if (h.graze()) {
                    grazes.add(mx + "," + my);
                }
            }
        }
        return new Inputs(width, height, mw, mh, depth, normals, camera(scene, width, height, mw, mh), mask, grazes);
    }

    /** The pixel centre's primary direction, unit length, in float as the kernel computes it. */
    static float[] primary(ShadowScene s, int width, int height, int px, int py) {
        float sx = (px + 0.5f) / (float) width * 2.0f - 1.0f;
        float sy = 1.0f - (py + 0.5f) / (float) height * 2.0f;
        float[] d = new float[3];
        for (int a = 0; a < 3; a++) {
            d[a] = s.forward()[a] + sx * s.right()[a] + sy * s.up()[a];
        }
        float inv = 1.0f / (float) Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        return new float[] {d[0] * inv, d[1] * inv, d[2] * inv};
    }

    private static double[] normal(float[] tris, int t) {
        double[] e1 = new double[3];
        double[] e2 = new double[3];
        for (int a = 0; a < 3; a++) {
            e1[a] = tris[9 * t + 3 + a] - tris[9 * t + a];
            e2[a] = tris[9 * t + 6 + a] - tris[9 * t + a];
        }
        double[] n = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double l = Math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        return new double[] {n[0] / l, n[1] / l, n[2] / l};
    }

    private static byte unorm8(double v) {
        return (byte) Math.round((v * 0.5 + 0.5) * 255);
    }

    /** An 8-bit UNORM channel's value as the kernel gets it (byte / 255), mapped back to [-1, 1]. */
    private static float decode(byte b) {
        return (b & 0xFF) / 255.0f * 2.0f - 1.0f;
    }

    /** The kernel's camera_t: eye, forward, right, up, light (xyz each), bias, frame and mask sizes. */
    static byte[] camera(ShadowScene s, int width, int height, int mw, int mh) {
        ByteBuffer b = ByteBuffer.allocate(80).order(ByteOrder.LITTLE_ENDIAN);
        for (float[] v : new float[][] {s.eye(), s.forward(), s.right(), s.up(), s.light()}) {
            for (float f : v) {
                b.putFloat(f);
            }
        }
        b.putFloat(s.bias()).putInt(width).putInt(height).putInt(mw).putInt(mh);
        return b.array();
    }

    /** The depth image as little-endian float32 texels. */
    public static byte[] depthBytes(Inputs in) {
        ByteBuffer b = ByteBuffer.allocate(4 * in.depth().length).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : in.depth()) {
            b.putFloat(f);
        }
        return b.array();
    }
}
