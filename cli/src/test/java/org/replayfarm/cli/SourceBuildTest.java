package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code capture build --source} and {@code native-run} with the same source options; code objects from clang's HIP
 * flow (offload bundles, fat binaries) taken as they come; the errors that name what to do. The oracles: clang-19
 * (it builds the bundles and fat binaries), the native build of the same source, the source's own declarations.
 */
@Tag("corpus")
class SourceBuildTest {
    @TempDir
    Path dir;

    private static final String KERNEL = """
            #include "helpers.h"
            kernel void scaled(global const float *in, global float *out) {
                size_t i = get_global_id(0);
                out[i] = twice(sqrt(in[i])) * FACTOR + OFFSET + clamp(in[i], 0.0f, 1.0f);
            }
            """;

    private Path inputs() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(4 * 128).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 128; i++) {
            b.putFloat(i * 0.37f);
        }
        Path in = dir.resolve("in.bin");
        Files.write(in, b.array());
        return in;
    }

    /** One source, one set of options (-D, -I, -include, includes from the source's folder) for both sides. */
    @Test
    void capture_build_and_native_run_take_the_same_source_options_and_agree() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src"));
        Path inc = Files.createDirectories(dir.resolve("inc"));
        Files.writeString(src.resolve("k.cl"), KERNEL);
        Files.writeString(src.resolve("helpers.h"), "#include \"more.h\"\ninline float twice(float x) { return 2.0f * x; }\n");
        Files.writeString(inc.resolve("more.h"), "#define OFFSET 0.5f\n");
        Files.writeString(dir.resolve("pre.h"), "#define UNUSED_BY_KERNEL 1\n");
        Path in = inputs();
        List<String> options = List.of("-D", "FACTOR=3.0f", "-I", inc.toString(), "-include", dir.resolve("pre.h").toString());
        for (String opt : List.of("0", "2")) {
            List<String> build = new ArrayList<>(List.of("capture", "build", "--source", src.resolve("k.cl").toString(),
                    "-O", opt, "--kernel", "scaled", "--groups", "2", "--group-size", "64", "--arg", "buffer:" + in,
                    "--arg", "zeros:512", "-o", dir.resolve("k" + opt + ".capture").toString()));
            build.addAll(options);
            CliRun built = CliRun.of(build.toArray(String[]::new));
            assertEquals(0, built.exitCode(), built.out() + built.err());
            var provenance = CaptureFile.open(dir.resolve("k" + opt + ".capture")).metadata().getProvenance();
            String args = String.join(" ", provenance.getArgumentsList());
            assertTrue(args.contains("--source k.cl -O " + opt + " -D FACTOR=3.0f -I inc -include pre.h"), args);
            CliRun eval = CliRun.of("eval", dir.resolve("k" + opt + ".capture").toString(), "--every-group", "--out",
                    dir.resolve("out" + opt).toString());
            assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        }
        List<String> nat = new ArrayList<>(List.of("capture", "native-run", src.resolve("k.cl").toString(), "--kernel",
                "scaled", "--groups", "2", "--group-size", "64", "--arg", "buffer:" + in, "--arg", "zeros:512", "--out",
                dir.resolve("native").toString()));
        nat.addAll(options);
        CliRun ran = CliRun.of(nat.toArray(String[]::new));
        assertEquals(0, ran.exitCode(), ran.out() + ran.err());
        byte[] reference = Files.readAllBytes(dir.resolve("native/guest-1.bin"));
        for (String opt : List.of("0", "2")) {
            ByteBuffer host = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("out" + opt + "/host/guest-1.bin")))
                    .order(ByteOrder.LITTLE_ENDIAN);
            ByteBuffer r = ByteBuffer.wrap(reference).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 128; i++) {
                // sqrt: 3 ulps in OpenCL C (ocml's v_sqrt_f32 path), scaled by 6 and shifted: within 8 ulps
                assertTrue(Math.abs(host.getInt(4 * i) - r.getInt(4 * i)) <= 8, "-O" + opt + " element " + i + ": host "
                        + host.getFloat(4 * i) + ", native " + r.getFloat(4 * i));
            }
        }
    }

    private Path hipSource() throws Exception {
        Path hip = dir.resolve("scale.hip");
        Files.writeString(hip, """
                __global__ void scale(float *x, float a, unsigned n) {
                    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
                    if (i < n) x[i] = x[i] * a;
                }
                """);
        return hip;
    }

    private List<String> hipCompile(String... extra) {
        List<String> cmd = new ArrayList<>(List.of("clang-19", "-x", "hip", "-nogpuinc", "-nogpulib", "-O2", "-include",
                Toolchain.root().resolve("include/replay-hip.h").toString()));
        cmd.addAll(List.of(extra));
        cmd.addAll(List.of("-c", "scale.hip"));
        return cmd;
    }

    private CliRun buildFrom(Path object) throws Exception {
        return CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "scale", "--groups", "1",
                "--group-size", "64", "--arg", "buffer:" + inputs(), "--arg", "f32:2", "--arg", "u32:64", "-o",
                dir.resolve("h.capture").toString());
    }

    /** Runs the commands in dir side by side (clang's HIP compiles are independent and each uses one core). */
    private void runAll(List<List<String>> commands) {
        List<CompletableFuture<String>> running = new ArrayList<>();
        for (List<String> c : commands) {
            running.add(CompletableFuture.supplyAsync(() -> Toolchain.run(dir, c), r -> new Thread(r, "clang").start()));
        }
        try {
            running.forEach(CompletableFuture::join);
        } catch (CompletionException e) {
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /** clang-19's HIP outputs as they come: a device-only offload bundle, a host object's fat binary; both evaluate. */
    @Test
    void offload_bundles_and_hip_fat_binaries_give_their_gfx1030_code_object_and_say_which() throws Exception {
        hipSource();
        // the five objects this test reads, compiled at once
        runAll(List.of(
                hipCompile("--offload-arch=gfx1030", "--cuda-device-only", "-o", "dev.o"),
                hipCompile("--offload-arch=gfx906", "--offload-arch=gfx1030", "-o", "host.o"),
                hipCompile("--offload-arch=gfx906", "--cuda-device-only", "-o", "other.o"),
                hipCompile("--offload-arch=gfx1030", "--cuda-device-only", "--offload-compress", "-o", "z.o"),
                hipCompile("--offload-arch=gfx906", "--offload-arch=gfx1030", "--offload-compress", "-o", "zhost.o")));
        CliRun built = buildFrom(dir.resolve("dev.o"));
        assertEquals(0, built.exitCode(), built.out() + built.err());
        assertTrue(built.out().contains("took the gfx1030 code object 'hipv4-amdgcn-amd-amdhsa--gfx1030' of the clang "
                + "offload bundle"), built.out());
        CliRun eval = CliRun.of("eval", dir.resolve("h.capture").toString(), "--every-group", "--out", dir.resolve("o1").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        ByteBuffer out = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("o1/host/guest-0.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 64; i++) {
            assertEquals(i * 0.37f * 2.0f, out.getFloat(4 * i), "x[" + i + "]");
        }

        // a host object for two GPUs: its .hip_fatbin section holds the bundle, gfx1030 is picked among the entries
        built = buildFrom(dir.resolve("host.o"));
        assertEquals(0, built.exitCode(), built.out() + built.err());
        assertTrue(built.out().contains("'hipv4-amdgcn-amd-amdhsa--gfx1030' of the HIP fat binary (.hip_fatbin section of a "
                + "host object)") && built.out().contains("hipv4-amdgcn-amd-amdhsa--gfx906"), built.out());

        // a bundle without gfx1030: refused, saying what to do
        built = buildFrom(dir.resolve("other.o"));
        assertEquals(2, built.exitCode());
        assertTrue(built.err().contains("holds no gfx1030 code object") && built.err().contains("--offload-arch=gfx1030"),
                built.err());
        // compressed (--offload-compress, zstd): a device-only bundle and a host object's fat binary evaluate alike
        for (String object : List.of("z.o", "zhost.o")) {
            built = buildFrom(dir.resolve(object));
            assertEquals(0, built.exitCode(), object + ": " + built.out() + built.err());
            assertTrue(built.out().contains("'hipv4-amdgcn-amd-amdhsa--gfx1030' of the compressed clang offload bundle"),
                    object + ": " + built.out());
            CliRun again = CliRun.of("eval", dir.resolve("h.capture").toString(), "--every-group", "--out",
                    dir.resolve("o-" + object).toString());
            assertEquals(0, again.exitCode(), again.out() + again.err());
            assertArrayEquals(Files.readAllBytes(dir.resolve("o1/host/guest-0.bin")),
                    Files.readAllBytes(dir.resolve("o-" + object + "/host/guest-0.bin")), object);
        }
    }

    /** A HIP source through --source and native-run: the mangled kernel found by its plain name, the same results. */
    @Test
    void a_hip_source_builds_and_runs_natively_with_the_same_results() throws Exception {
        Path hip = hipSource();
        Path in = inputs();
        for (String wave : List.of("32", "64")) {
            List<String> build = new ArrayList<>(List.of("capture", "build", "--source", hip.toString(), "--kernel", "scale",
                    "--groups", "2", "--group-size", "64", "--arg", "buffer:" + in, "--arg", "f32:2.5", "--arg", "u32:100",
                    "-o", dir.resolve("s.capture").toString()));
            if (wave.equals("64")) {
                build.add("--wave64");
            }
            CliRun built = CliRun.of(build.toArray(String[]::new));
            assertEquals(0, built.exitCode(), built.out() + built.err());
            assertEquals("_Z5scalePffj", CaptureFile.open(dir.resolve("s.capture")).metadata().getProgram().getKernelName());
            assertEquals(Integer.parseInt(wave), CaptureFile.open(dir.resolve("s.capture")).metadata().getProgram().getWaveSize());
            CliRun eval = CliRun.of("eval", dir.resolve("s.capture").toString(), "--every-group", "--out",
                    dir.resolve("o" + wave).toString());
            assertEquals(0, eval.exitCode(), eval.out() + eval.err());
            CliRun ran = CliRun.of("capture", "native-run", hip.toString(), "--kernel", "scale", "--groups", "2",
                    "--group-size", "64", "--arg", "buffer:" + in, "--arg", "f32:2.5", "--arg", "u32:100", "--wave-size", wave,
                    "--out", dir.resolve("n" + wave).toString());
            assertEquals(0, ran.exitCode(), ran.out() + ran.err());
            assertArrayEquals(Files.readAllBytes(dir.resolve("n" + wave + "/guest-0.bin")),
                    Files.readAllBytes(dir.resolve("o" + wave + "/host/guest-0.bin")));
        }
    }

    /** Issue 39: a HIP source's usual first lines, {@code #include <hip/hip_runtime.h>} and hip_fp16.h, build both sides. */
    @Test
    void hip_sources_including_the_hip_headers_build_and_run_natively_alike() throws Exception {
        Path hip = dir.resolve("half.hip");
        Files.writeString(hip, """
                #include <hip/hip_runtime.h>
                #include <hip/hip_fp16.h>
                __global__ void halve(float *x, unsigned n) {
                    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
                    if (i < n) {
                        __half h = __float2half(x[i]);
                        x[i] = __half2float(__hmul(h, __float2half(0.5f)));
                    }
                }
                """);
        Path in = inputs();
        CliRun built = CliRun.of("capture", "build", "--source", hip.toString(), "--kernel", "halve", "--groups", "2",
                "--group-size", "64", "--arg", "buffer:" + in, "--arg", "u32:100", "-o", dir.resolve("h.capture").toString());
        assertEquals(0, built.exitCode(), built.out() + built.err());
        CliRun eval = CliRun.of("eval", dir.resolve("h.capture").toString(), "--every-group", "--out",
                dir.resolve("oh").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        CliRun ran = CliRun.of("capture", "native-run", hip.toString(), "--kernel", "halve", "--groups", "2",
                "--group-size", "64", "--arg", "buffer:" + in, "--arg", "u32:100", "--out", dir.resolve("nh").toString());
        assertEquals(0, ran.exitCode(), ran.out() + ran.err());
        byte[] host = Files.readAllBytes(dir.resolve("oh/host/guest-0.bin"));
        assertArrayEquals(Files.readAllBytes(dir.resolve("nh/guest-0.bin")), host);
        // x[i] rounded to binary16 and halved: the inputs (small floats) change, so the kernel ran
        assertTrue(!java.util.Arrays.equals(Files.readAllBytes(in), host));
        // --wave-size, native-run's spelling, is capture build's too
        CliRun wide = CliRun.of("capture", "build", "--source", hip.toString(), "--kernel", "halve", "--groups", "2",
                "--group-size", "64", "--arg", "buffer:" + in, "--arg", "u32:100", "--wave-size", "64", "-o",
                dir.resolve("h64.capture").toString());
        assertEquals(0, wide.exitCode(), wide.out() + wide.err());
        assertEquals(64, CaptureFile.open(dir.resolve("h64.capture")).metadata().getProgram().getWaveSize());
        CliRun odd = CliRun.of("capture", "build", "--source", hip.toString(), "--kernel", "halve", "--wave-size", "48",
                "-o", dir.resolve("h48.capture").toString());
        assertEquals(2, odd.exitCode());
        assertTrue(odd.err().contains("--wave-size 48: expected 32 or 64"), odd.err());
        CliRun both = CliRun.of("capture", "build", "--source", hip.toString(), "--kernel", "halve", "--wave-size", "32",
                "--wave64", "-o", dir.resolve("hb.capture").toString());
        assertEquals(2, both.exitCode());
        assertTrue(both.err().contains("exclude each other"), both.err());
    }

    /** Issue 39: native-run showed clang's raw errors from generated files; it answers in one line naming the source. */
    @Test
    void native_run_refuses_in_one_line_naming_the_function_and_the_users_line() throws Exception {
        Path wg = dir.resolve("wg.cl");
        Files.writeString(wg, """
                kernel void scan(global const uint *in, global uint *out) {
                    size_t i = get_global_id(0);
                    uint s = work_group_reduce_add(in[i]); // sub_group_reduce_add( in a comment is no call
                    out[i] = s;
                }
                """);
        Path in = inputs();
        CliRun reduce = CliRun.of("capture", "native-run", wg.toString(), "--kernel", "scan", "--groups", "1",
                "--group-size", "64", "--arg", "buffer:" + in, "--arg", "buffer:" + in, "--out", dir.resolve("n1").toString());
        assertEquals(2, reduce.exitCode(), reduce.out() + reduce.err());
        assertTrue(reduce.err().contains("wg.cl:3: work_group_reduce_add is not in the native reference"), reduce.err());
        CliRun typo = CliRun.of("capture", "native-run", wg.toString(), "--kernel", "scna", "--groups", "1",
                "--group-size", "64", "--arg", "buffer:" + in, "--arg", "buffer:" + in, "--out", dir.resolve("n2").toString());
        assertEquals(2, typo.exitCode());
        assertTrue(typo.err().contains("wg.cl defines no kernel 'scna'; it defines scan"), typo.err());
        Path bad = dir.resolve("bad.cl");
        Files.writeString(bad, """
                kernel void k(global float *x) {
                    size_t i = get_global_id(0);
                    x[i] = undefined_thing(x[i]);
                }
                """);
        CliRun broken = CliRun.of("capture", "native-run", bad.toString(), "--kernel", "k", "--groups", "1",
                "--group-size", "64", "--arg", "buffer:" + in, "--out", dir.resolve("n3").toString());
        assertEquals(2, broken.exitCode());
        assertTrue(broken.err().contains(bad + ":3:") && broken.err().contains("undefined_thing")
                && !broken.err().contains("replay-native") && !broken.err().contains("harness.c"), broken.err());
    }

    /** Issue 39: printf built silently and faulted at address 0x4; it is refused at build time, naming the line. */
    @Test
    void printf_is_refused_at_build_time_naming_the_line() throws Exception {
        Path cl = dir.resolve("pf.cl");
        Files.writeString(cl, """
                kernel void k(global float *x) {
                    size_t i = get_global_id(0); // printf( in a comment is no call
                    x[i] *= 2.0f;
                    if (i == 0) printf("x0 %f\\n", x[0]);
                }
                """);
        CliRun built = CliRun.of("capture", "build", "--source", cl.toString(), "--kernel", "k", "--groups", "1",
                "--group-size", "64", "--arg", "buffer:" + inputs(), "-o", dir.resolve("pf.capture").toString());
        assertEquals(2, built.exitCode(), built.out() + built.err());
        assertTrue(built.err().contains("pf.cl calls printf") && built.err().contains("pf.cl:4: if (i == 0) printf("),
                built.err());
        assertTrue(!Files.exists(dir.resolve("pf.capture")));
    }

    /** The errors: a float parameter given i32, and a -nogpulib object calling the built-ins. */
    @Test
    void a_mismatched_kind_and_missing_built_ins_are_errors_that_say_what_to_do() throws Exception {
        Files.writeString(dir.resolve("k.cl"), """
                kernel void k(global float *out, float f, volatile local uint *counter) {
                    atomic_inc(counter);
                    out[__builtin_amdgcn_workitem_id_x()] = sqrt(f) + exp(f);
                }
                """);
        Toolchain.run(dir, List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-nogpulib",
                "-O2", "-c", "k.cl", "-o", "k.o"));
        CliRun built = CliRun.of("capture", "build", "--elf", dir.resolve("k.o").toString(), "--groups", "1", "--group-size",
                "64", "--arg", "zeros:256", "--arg", "f32:2", "--arg", "local:4", "-o", dir.resolve("k.capture").toString());
        assertEquals(2, built.exitCode());
        assertTrue(built.err().contains("atomic_inc(volatile __local uint *)")
                && built.err().contains("exp(float)") && built.err().contains("--source"), built.err());

        CliRun wrongKind = CliRun.of("capture", "build", "--source", dir.resolve("k.cl").toString(), "--groups", "1",
                "--group-size", "64", "--arg", "zeros:256", "--arg", "i32:1", "--arg", "local:4", "-o",
                dir.resolve("k.capture").toString());
        assertEquals(2, wrongKind.exitCode());
        assertTrue(wrongKind.err().contains("argument 1 (float) is a float; 'i32:1' gives i32; give f32:VALUE"),
                wrongKind.err());
    }
}
