package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code --arg local:BYTES} and by-value arguments of every size through the command line: a kernel with two
 * __local arguments, a half, a float4 and a struct by value, built by {@code capture build} and evaluated by
 * {@code replay eval}, gives the bytes {@code capture native-run} (the same source on x86-64) gives; bad
 * arguments end with status 2 and a message naming the argument.
 */
@Tag("corpus")
class KernelArgKindsTest {
    static final String KERNEL = """
            #pragma OPENCL EXTENSION cl_khr_fp16 : enable
            typedef struct { short a; double d; } pair_t;
            __kernel void kinds(__global const float *in, __local float *tile, half h, __global float *out, float4 v,
                                __local uint *counts, pair_t p, uchar c) {
                __local int fixed[3];
                uint l = __builtin_amdgcn_workitem_id_x();
                uint g = __builtin_amdgcn_workgroup_id_x();
                if (l < 3) fixed[l] = (int) l * p.a;
                tile[l] = in[g * 64 + l] * v[l % 4];
                counts[l] = l * c;
                __builtin_amdgcn_s_barrier();
                float s = tile[63 - l] + (float) ((half) tile[l] * h) + (float) counts[(l + 5) % 64];
                out[g * 64 + l] = s + (float) fixed[l % 3] + (float) (p.d * (double) l);
            }
            """;

    @TempDir
    Path dir;

    @BeforeEach
    void compile() throws Exception {
        Files.writeString(dir.resolve("k.cl"), KERNEL);
        Toolchain.run(dir, List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030",
                "-nogpulib", "-O2", "-ffp-contract=off", "-c", "k.cl", "-o", "k.o"));
        byte[] in = new byte[4 * 128];
        for (int i = 0; i < 128; i++) {
            int bits = Float.floatToIntBits((i * 37 % 101) / 8.0f - 5);
            for (int k = 0; k < 4; k++) {
                in[4 * i + k] = (byte) (bits >>> (8 * k));
            }
        }
        Files.write(dir.resolve("in.bin"), in);
    }

    private List<String> args(String tile, String h, String struct) {
        return List.of("--arg", "buffer:" + dir.resolve("in.bin"), "--arg", tile, "--arg", h, "--arg", "zeros:512",
                "--arg", "f32x4:1.5,-2,0.25,3", "--arg", "local:256", "--arg", struct, "--arg", "u8:7");
    }

    private CliRun build(List<String> args) {
        List<String> cmd = new ArrayList<>(List.of("capture", "build", "--elf", dir.resolve("k.o").toString(), "--kernel",
                "kinds", "--groups", "2", "--group-size", "64", "-o", dir.resolve("k.capture").toString()));
        cmd.addAll(args);
        return CliRun.of(cmd.toArray(String[]::new));
    }

    private CliRun nativeRun(List<String> args) {
        List<String> cmd = new ArrayList<>(List.of("capture", "native-run", dir.resolve("k.cl").toString(), "--kernel",
                "kinds", "--groups", "2", "--group-size", "64", "--out", dir.resolve("native").toString()));
        cmd.addAll(args);
        return CliRun.of(cmd.toArray(String[]::new));
    }

    // pair_t {short a = -3; double d = 0.75}: a at 0, 6 bytes of padding, d at 8
    static final String PAIR = "bytes:fdff000000000000000000000000e83f";

    @Test
    void local_and_by_value_arguments_evaluate_like_the_native_run() throws Exception {
        CliRun built = build(args("local:256", "f16:1.5", PAIR));
        assertEquals(0, built.exitCode(), built.out() + built.err());
        CliRun eval = CliRun.of("eval", dir.resolve("k.capture").toString(), "--every-group", "--out",
                dir.resolve("eval").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        CliRun ran = nativeRun(args("local:256", "f16:1.5", PAIR + ",type=pair_t"));
        assertEquals(0, ran.exitCode(), ran.out() + ran.err());
        byte[] host = Files.readAllBytes(dir.resolve("eval/host/guest-1.bin"));
        assertArrayEquals(Files.readAllBytes(dir.resolve("native/guest-1.bin")), host);
        // and the result is not trivial: work-item 1 of group 0 read its neighbours' tile, the half and the struct
        float first = Float.intBitsToFloat((host[4] & 0xFF) | (host[5] & 0xFF) << 8 | (host[6] & 0xFF) << 16 | host[7] << 24);
        assertTrue(first != 0 && !Float.isNaN(first), "work-item 1: " + first);
    }

    @Test
    void bad_arguments_end_with_status_2_naming_the_argument() {
        CliRun big = build(args("local:65500", "f16:1.5", PAIR));
        assertEquals(2, big.exitCode(), big.out() + big.err());
        assertTrue(big.err().contains("argument 1 local:65500") && big.err().contains("65536"), big.err());
        CliRun size = build(args("local:256", "f32:1.5", PAIR));
        assertEquals(2, size.exitCode());
        assertTrue(size.err().contains("argument 2 (half) takes 2 bytes; 'f32:1.5' gives 4"), size.err());
        CliRun struct = build(args("local:256", "f16:1.5", "bytes:00"));
        assertEquals(2, struct.exitCode());
        assertTrue(struct.err().contains("argument 6 (pair_t) takes 16 bytes"), struct.err());
        CliRun global = build(args("zeros:256", "f16:1.5", PAIR));
        assertEquals(2, global.exitCode());
        assertTrue(global.err().contains("argument 1 (float*) is a __local pointer"), global.err());
        List<String> localForGlobal = new ArrayList<>(args("local:256", "f16:1.5", PAIR));
        localForGlobal.set(7, "local:512");
        CliRun wrongSlot = build(localForGlobal);
        assertEquals(2, wrongSlot.exitCode());
        assertTrue(wrongSlot.err().contains("argument 3 (float*) is a global_buffer, not a __local pointer"), wrongSlot.err());
        CliRun parse = build(args("local:256", "f16x2:1", PAIR));
        assertEquals(2, parse.exitCode());
        assertTrue(parse.err().contains("f16x2:1") && parse.err().contains("takes 2 value(s), 1 given"), parse.err());
        CliRun untyped = nativeRun(args("local:256", "f16:1.5", PAIR));
        assertEquals(2, untyped.exitCode());
        assertTrue(untyped.err().contains("type="), untyped.err());
    }
}
