package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.replayfarm.cli.examples.ReferenceTracer;
import org.replayfarm.cli.examples.ShadowScene;
import org.replayfarm.model.bvh.BvhBuilder;
import org.replayfarm.model.testing.Toolchain;

/**
 * A traversal kernel (bvh-trace/trace.cl: one ray a lane, a private stack, nearest or any hit) compiled by
 * clang-19 into the three forms of the BVH builtins — image_bvh_intersect_ray, its a16 form (half direction
 * and inverse) and image_bvh64_intersect_ray over a base-0 descriptor, all three as clang emits them (NSA
 * address lists) — run by {@code replay eval} on scenes the shadow pass does not use: a random soup, the
 * faces of axis-aligned unit cubes with rays parallel to the axes (inverse direction ±infinity, from +0.0 and
 * -0.0 components), and another seed's shadow scene. Each ray's answer is compared with the independent
 * reference tracer (double precision, no RDNA code) given the direction the instruction saw (rounded to half
 * for a16); rays it flags as grazing are skipped, counted and printed.
 */
@Tag("corpus")
class BvhTraceKernelTest {
    private static final int GROUPS = 6;
    private static final int RAYS = 64 * GROUPS;

    @TempDir
    static Path dir;
    static Path object;

    @BeforeAll
    static void compile() throws Exception {
        try (InputStream in = BvhTraceKernelTest.class.getResourceAsStream("/bvh-trace/trace.cl")) {
            Files.write(dir.resolve("trace.cl"), in.readAllBytes());
        }
        List<String> command = new ArrayList<>(List.of("clang-19"));
        command.addAll(Toolchain.OPENCL_FLAGS);
        command.addAll(List.of("-mwavefrontsize64", "-c", "trace.cl", "-o", "trace.o"));
        Toolchain.run(dir, command);
        object = dir.resolve("trace.o");
    }

    static Stream<Arguments> scenes() {
        Random r = new Random(41);
        float[] soup = new float[9 * 400];
        for (int t = 0; t < 400; t++) {
            float[] c = {r.nextFloat() * 20, r.nextFloat() * 20, r.nextFloat() * 20};
            for (int k = 0; k < 9; k++) {
                soup[9 * t + k] = c[k % 3] + 3 * r.nextFloat() - 1.5f;
            }
        }
        return Stream.of(Arguments.of("random soup", soup, false), Arguments.of("axis-aligned unit cubes", cubes(), true),
                Arguments.of("shadow scene of seed 7", ShadowScene.generate(7, 64, 36).triangles(), false));
    }

    /** The twelve triangles of each of 30 unit cubes at random integer positions in [0, 8)^3. */
    private static float[] cubes() {
        Random r = new Random(43);
        List<Float> out = new ArrayList<>();
        int[][] quads = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
        for (int cube = 0; cube < 30; cube++) {
            int x = r.nextInt(8);
            int y = r.nextInt(8);
            int z = r.nextInt(8);
            for (int[] q : quads) {
                for (int[] tri : new int[][] {{q[0], q[1], q[2]}, {q[0], q[2], q[3]}}) {
                    for (int corner : tri) {
                        out.add((float) (x + (corner & 1)));
                        out.add((float) (y + (corner >> 1 & 1)));
                        out.add((float) (z + (corner >> 2 & 1)));
                    }
                }
            }
        }
        float[] a = new float[out.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = out.get(i);
        }
        return a;
    }

    /** Ray i: form i / 128 (0 plain, 1 a16, 2 bvh64), any-hit for odd i / 64; origins around the scene. */
    private static float[][] rays(float[] tris, boolean axisParallel, long seed) {
        Random r = new Random(seed);
        float[] lo = {Float.MAX_VALUE, Float.MAX_VALUE, Float.MAX_VALUE};
        float[] hi = {-Float.MAX_VALUE, -Float.MAX_VALUE, -Float.MAX_VALUE};
        for (int i = 0; i < tris.length; i++) {
            lo[i % 3] = Math.min(lo[i % 3], tris[i]);
            hi[i % 3] = Math.max(hi[i % 3], tris[i]);
        }
        float[][] rays = new float[RAYS][];
        for (int i = 0; i < RAYS; i++) {
            float[] o = new float[3];
            float[] d = new float[3];
            for (int a = 0; a < 3; a++) {
                float pad = (hi[a] - lo[a]) * 0.2f + 1;
                o[a] = lo[a] - pad + r.nextFloat() * (hi[a] - lo[a] + 2 * pad);
            }
            if (axisParallel && i % 3 != 0) {
                int axis = r.nextInt(3);
                for (int a = 0; a < 3; a++) {
                    d[a] = a == axis ? (r.nextBoolean() ? 1f : -1f) : (r.nextBoolean() ? 0f : -0f);
                }
            } else {
                // toward a point inside a random triangle, or anywhere
                int t = r.nextInt(tris.length / 9);
                double u = r.nextDouble() * 0.8 + 0.1;
                double v = (1 - u) * (r.nextDouble() * 0.8 + 0.1);
                double[] target = new double[3];
                double len = 0;
                for (int a = 0; a < 3; a++) {
                    target[a] = i % 4 == 3 ? r.nextGaussian() * 50
                            : tris[9 * t + a] * (1 - u - v) + tris[9 * t + 3 + a] * u + tris[9 * t + 6 + a] * v;
                    len += (target[a] - o[a]) * (target[a] - o[a]);
                }
                for (int a = 0; a < 3; a++) {
                    d[a] = (float) ((target[a] - o[a]) / Math.sqrt(len));
                }
            }
            float extent = i % 5 == 4 ? 5 + r.nextFloat() * 10 : 1000f;
            rays[i] = new float[] {o[0], o[1], o[2], d[0], d[1], d[2], extent, i / 128, (i / 64) % 2};
        }
        return rays;
    }

    /** A float rounded to the nearest half (ties to even), as the kernel's (half) casts do; written here from the format. */
    static float toHalf(float x) {
        if (x == 0 || Float.isInfinite(x) || Float.isNaN(x)) {
            return x;
        }
        double a = Math.abs(x);
        double quantum = Math.scalb(1.0, Math.max(Math.getExponent(a), -14) - 10);
        double rounded = Math.rint(a / quantum) * quantum;
        if (rounded > 65504) {
            rounded = Double.POSITIVE_INFINITY;
        }
        return (float) Math.copySign(rounded, x);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenes")
    void every_form_of_the_builtin_finds_what_the_reference_tracer_finds(String name, float[] tris, boolean axisParallel)
            throws Exception {
        Path scene = Files.createDirectories(dir.resolve(name.replace(' ', '-')));
        BvhBuilder.Bvh bvh = BvhBuilder.build(tris, 2);
        Files.write(scene.resolve("scene.bvh"), bvh.nodes());
        float[][] rays = rays(tris, axisParallel, name.hashCode());
        ByteBuffer in = ByteBuffer.allocate(36 * RAYS).order(ByteOrder.LITTLE_ENDIAN);
        for (float[] q : rays) {
            for (int k = 0; k < 7; k++) {
                in.putFloat(q[k]);
            }
            in.putInt((int) q[7]).putInt((int) q[8]);
        }
        Files.write(scene.resolve("rays.bin"), in.array());
        Path capture = scene.resolve("trace.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "trace", "--groups", "" + GROUPS,
                "--group-size", "64", "--arg", "buffer:" + scene.resolve("rays.bin"), "--arg", "bvh:" + scene.resolve("scene.bvh"),
                "--arg", "zeros:" + 4 * RAYS, "--arg", "zeros:" + 4 * RAYS, "--arg", "u32:" + RAYS, "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        Path out = scene.resolve("out");
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        ByteBuffer t = ByteBuffer.wrap(Files.readAllBytes(out.resolve("host/guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer stats = ByteBuffer.wrap(Files.readAllBytes(out.resolve("host/guest-2.bin"))).order(ByteOrder.LITTLE_ENDIAN);

        ReferenceTracer reference = new ReferenceTracer(tris);
        int[] grazes = new int[3];
        int[] hits = new int[3];
        int[] misses = new int[3];
        long tests = 0;
        for (int i = 0; i < RAYS; i++) {
            float[] q = rays[i];
            int form = (int) q[7];
            boolean any = q[8] != 0;
            double[] d = new double[3];
            for (int a = 0; a < 3; a++) {
                d[a] = form == 1 ? toHalf(q[3 + a]) : q[3 + a];
            }
            ReferenceTracer.Hit want = reference.trace(new double[] {q[0], q[1], q[2]}, d, q[6], any);
            int nodeTests = stats.getInt(4 * i);
            assertTrue(nodeTests > 0, name + ": ray " + i + " walked without overflowing its stack: " + nodeTests);
            tests += nodeTests;
            if (want.graze()) {
                grazes[form]++;
                continue;
            }
            float got = t.getFloat(4 * i);
            String where = name + ", ray " + i + " (form " + form + (any ? ", any hit" : "") + ") from (" + q[0] + ", " + q[1]
                    + ", " + q[2] + ") along (" + d[0] + ", " + d[1] + ", " + d[2] + "), extent " + q[6];
            if (want.triangle() < 0) {
                assertEquals(Float.POSITIVE_INFINITY, got, "a miss: " + where);
                misses[form]++;
            } else {
                assertTrue(got < q[6], "a hit: " + where + ", the reference's at t = " + want.t());
                if (!any) {
                    assertEquals(want.t(), got, 1e-4 * Math.max(1, want.t()), "nearest t: " + where);
                }
                hits[form]++;
            }
        }
        System.out.printf("%s: %d triangles; per form (plain, a16, bvh64): hits %s, misses %s, grazing rays skipped %s;"
                        + " %.1f node tests a ray%n", name, tris.length / 9, java.util.Arrays.toString(hits),
                java.util.Arrays.toString(misses), java.util.Arrays.toString(grazes), tests / (double) RAYS);
        for (int form = 0; form < 3; form++) {
            assertTrue(hits[form] > 20 && misses[form] > 5, name + ": form " + form + " met hits and misses");
            assertTrue(grazes[form] < 6, name + ": few grazing rays, form " + form + ": " + grazes[form]);
        }
    }
}
