package org.replayfarm.cli.examples;

import java.util.Random;

/**
 * The shadow pass's scene, from a seed: a 40 x 40 ground, eight boxes and three spheres of about a thousand
 * triangles each, a camera looking at them and a point light above. Triangles are nine floats each,
 * counter-clockwise seen from outside.
 */
public record ShadowScene(float[] triangles, float[] eye, float[] forward, float[] right, float[] up, float[] light,
                          float bias) {
    public static final long DEFAULT_SEED = 20261025L;

    public static ShadowScene generate(long seed, int width, int height) {
        Random r = new Random(seed);
        Soup s = new Soup();
        float g = 20;
        s.quad(new float[] {-g, 0, -g}, new float[] {-g, 0, g}, new float[] {g, 0, g}, new float[] {g, 0, -g});
        for (int i = 0; i < 8; i++) {
            float x = r.nextFloat() * 24 - 12;
            float z = r.nextFloat() * 16 - 6;
            float w = 0.8f + r.nextFloat() * 2;
            float h = 0.8f + r.nextFloat() * 3;
            float d = 0.8f + r.nextFloat() * 2;
            s.box(x - w / 2, 0, z - d / 2, x + w / 2, h, z + d / 2);
        }
        for (int i = 0; i < 3; i++) {
            float radius = 1.2f + r.nextFloat() * 1.5f;
            s.sphere(r.nextFloat() * 16 - 8, radius + r.nextFloat() * 1.5f, r.nextFloat() * 10 - 4, radius, 22, 24);
        }
        float[] eye = {0, 9, -20};
        float[] target = {0, 1, 2};
        float[] fwd = normalize(sub(target, eye));
        float[] right = normalize(cross(new float[] {0, 1, 0}, fwd));
        float[] up = cross(fwd, right);
        float tanHalf = (float) Math.tan(Math.toRadians(30));
        float aspect = (float) width / height;
        return new ShadowScene(s.toArray(), eye, fwd, scale(right, tanHalf * aspect), scale(up, tanHalf),
                new float[] {16, 8, 6}, 0.02f);
    }

    static float[] sub(float[] a, float[] b) {
        return new float[] {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    }

    static float[] scale(float[] a, float s) {
        return new float[] {a[0] * s, a[1] * s, a[2] * s};
    }

    static float[] cross(float[] a, float[] b) {
        return new float[] {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    }

    static float[] normalize(float[] a) {
        float l = (float) Math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        return scale(a, 1 / l);
    }

    /** Collects triangles. */
    private static final class Soup {
        private float[] data = new float[9 * 1024];
        private int n;

        void triangle(float[] a, float[] b, float[] c) {
            if (n + 9 > data.length) {
                data = java.util.Arrays.copyOf(data, data.length * 2);
            }
            for (float[] v : new float[][] {a, b, c}) {
                System.arraycopy(v, 0, data, n, 3);
                n += 3;
            }
        }

        /** Two triangles a, b, c and a, c, d sharing the diagonal a-c. */
        void quad(float[] a, float[] b, float[] c, float[] d) {
            triangle(a, b, c);
            triangle(a, c, d);
        }

        void box(float x0, float y0, float z0, float x1, float y1, float z1) {
            float[][] p = new float[8][];
            for (int i = 0; i < 8; i++) {
                p[i] = new float[] {(i & 1) != 0 ? x1 : x0, (i & 2) != 0 ? y1 : y0, (i & 4) != 0 ? z1 : z0};
            }
            quad(p[0], p[2], p[3], p[1]); // z0 face, facing -z
            quad(p[4], p[5], p[7], p[6]); // z1
            quad(p[0], p[4], p[6], p[2]); // x0
            quad(p[1], p[3], p[7], p[5]); // x1
            quad(p[0], p[1], p[5], p[4]); // y0
            quad(p[2], p[6], p[7], p[3]); // y1
        }

        void sphere(float cx, float cy, float cz, float radius, int stacks, int slices) {
            float[][][] v = new float[stacks + 1][slices + 1][];
            for (int i = 0; i <= stacks; i++) {
                double theta = Math.PI * i / stacks;
                for (int j = 0; j <= slices; j++) {
                    double phi = 2 * Math.PI * (j % slices) / slices;
                    v[i][j] = new float[] {cx + (float) (radius * Math.sin(theta) * Math.cos(phi)),
                            cy + (float) (radius * Math.cos(theta)), cz + (float) (radius * Math.sin(theta) * Math.sin(phi))};
                }
            }
            for (int i = 0; i < stacks; i++) {
                for (int j = 0; j < slices; j++) {
                    float[] a = v[i][j];
                    float[] b = v[i][j + 1];
                    float[] c = v[i + 1][j + 1];
                    float[] d = v[i + 1][j];
                    if (i > 0) {
                        triangle(a, b, d);
                    }
                    if (i < stacks - 1) {
                        triangle(b, c, d);
                    }
                }
            }
        }

        float[] toArray() {
            return java.util.Arrays.copyOf(data, n);
        }
    }
}
