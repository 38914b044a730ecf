package org.replayfarm.gpunode.translate.image;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.bvh.BvhBuilder;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.Provenance;

/**
 * The BVH traversal kernel of the CLI's BvhTraceKernelTest (cli/src/test/resources/bvh-trace/trace.cl: one ray a
 * lane, a private stack in scratch, nearest or any hit; clang-19 -O2 wave64 emits image_bvh_intersect_ray, its a16
 * form and image_bvh64_intersect_ray in NSA form) on a random soup, through the translation and the CPU runner:
 * every t and every lane's node-test count equal to the host model's.
 */
@Tag("corpus")
class BvhTraceDeviceTest {
    @TempDir
    Path dir;

    @Test
    void the_trace_kernel_runs_through_cuda_cpu_equal_to_the_host_model() throws Exception {
        Files.copy(Path.of("..", "cli", "src", "test", "resources", "bvh-trace", "trace.cl"), dir.resolve("trace.cl"));
        List<String> command = new ArrayList<>(List.of("clang-19"));
        command.addAll(Toolchain.OPENCL_FLAGS);
        command.addAll(List.of("-mwavefrontsize64", "-c", "trace.cl", "-o", "trace.o"));
        Toolchain.run(dir, command);
        Random r = new Random(41);
        float[] soup = new float[9 * 120];
        for (int t = 0; t < 120; t++) {
            float[] c = {r.nextFloat() * 20, r.nextFloat() * 20, r.nextFloat() * 20};
            for (int k = 0; k < 9; k++) {
                soup[9 * t + k] = c[k % 3] + 3 * r.nextFloat() - 1.5f;
            }
        }
        int rays = 128;
        ByteBuffer b = ByteBuffer.allocate(4 * 9 * rays).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < rays; i++) {
            float[] o = {r.nextFloat() * 30 - 5, r.nextFloat() * 30 - 5, r.nextFloat() * 30 - 5};
            int t = r.nextInt(120);
            double[] d = new double[3];
            double len = 0;
            for (int a = 0; a < 3; a++) {
                d[a] = (soup[9 * t + a] + soup[9 * t + 3 + a] + soup[9 * t + 6 + a]) / 3 - o[a] + (i % 4 == 3 ? r.nextGaussian() * 5 : 0);
                len += d[a] * d[a];
            }
            for (float v : o) {
                b.putFloat(v);
            }
            for (int a = 0; a < 3; a++) {
                b.putFloat((float) (d[a] / Math.sqrt(len)));
            }
            b.putFloat(i % 5 == 4 ? 8f : 1000f);
            b.putInt(i % 3);
            b.putInt(i / 3 % 2);
        }
        Files.write(dir.resolve("rays.bin"), b.array());
        Files.write(dir.resolve("scene.bvh"), BvhBuilder.build(soup, 2).nodes());
        List<KernelArg> args = new ArrayList<>();
        for (String a : List.of("buffer:" + dir.resolve("rays.bin"), "bvh:" + dir.resolve("scene.bvh"), "zeros:" + 4 * rays,
                "zeros:" + 4 * rays, "u32:" + rays)) {
            args.add(KernelArg.parse(a));
        }
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(dir.resolve("trace.o")), "trace",
                new DispatchShape(rays / 64, 1, 1, 64, 1, 1, 1), args, Provenance.getDefaultInstance());
        Path file = dir.resolve("trace.capture");
        built.write(file);
        CaptureFile capture = CaptureFile.open(file);
        ImageRig.Side host = ImageRig.host(capture);
        ImageRig.Side device = ImageRig.device(capture, dir);
        List<String> diff = ImageRig.differences(host, device, 64, 64, Set.of(), 0f, new long[1]);
        assertTrue(diff.isEmpty(), String.join("\n", diff));
        // ranges: the buffers in argument order (rays 0, out 1, stats 2), then the BVH nodes and descriptor
        ByteBuffer out = ByteBuffer.wrap(host.ranges().get(1)).order(ByteOrder.LITTLE_ENDIAN);
        int hits = 0;
        for (int i = 0; i < rays; i++) {
            hits += Float.isFinite(out.getFloat(4 * i)) ? 1 : 0;
        }
        assertTrue(hits > 10 && hits < rays, "rays hit and miss: " + hits + " of " + rays);
    }

    /** Every program this class ran through cuda-cpu also compiles with nvcc for sm_90 (ImageRig.nvccCheck). */
    @org.junit.jupiter.api.AfterAll
    static void its_programs_compile_with_nvcc_for_sm_90(@TempDir Path nvcc) throws Exception {
        int n = ImageRig.nvccCheck(nvcc);
        org.junit.jupiter.api.Assertions.assertTrue(n > 0, "no program was run, none compiled");
        System.out.println("[image nvcc] BvhTraceDeviceTest: " + n + " translations compiled for sm_90");
    }
}
