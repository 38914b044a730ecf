package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39, point 1: HIP's float {@code atomicAdd} across blocks is a compare-and-swap loop. Evaluated apart, every
 * block's compare-and-swap succeeded against the initial 0 and the merge kept one block's partial sum, a value no
 * execution stores. The groups that meet on such a location now run again one after another in group order, memory
 * carried, in {@code eval} as in the farm: the host's sum is the one a device running the blocks in that order
 * stores, bit for bit the native build's (clang-19 for x86-64, which runs the blocks in order). A device that summed
 * in another order is compared within the reassociation bound of the sum's terms, and named so; one beyond it differs.
 */
@Tag("cluster")
class OrderDependentAtomicsTest {
    @TempDir
    static Path dir;
    static Path capture;
    static Path nativeOut;
    static String[] ARGS;

    static final String SOURCE = """
            #include <hip/hip_runtime.h>
            __global__ void fsum(const float *in, float *out, unsigned n, int *last) {
                unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
                __shared__ float part[64];
                part[threadIdx.x] = i < n ? in[i] : 0.0f;
                __syncthreads();
                if (threadIdx.x == 0) {
                    float s = 0.0f;
                    for (int k = 0; k < 64; k++) {
                        s += part[k];
                    }
                    atomicAdd(out, s);
                    atomicExch(last, (int) blockIdx.x);
                }
            }
            """;

    @BeforeAll
    static void build() throws Exception {
        Path hip = dir.resolve("fsum.hip");
        Files.writeString(hip, SOURCE);
        ByteBuffer x = ByteBuffer.allocate(4 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        Random random = new Random(39);
        for (int i = 0; i < 1024; i++) {
            x.putFloat(0.1f + 1.2f * random.nextFloat());
        }
        Files.write(dir.resolve("x.bin"), x.array());
        capture = dir.resolve("fsum.capture");
        ARGS = new String[] {"--kernel", "fsum", "--groups", "16", "--group-size", "64", "--arg",
                "buffer:" + dir.resolve("x.bin"), "--arg", "zeros:4", "--arg", "u32:1024", "--arg", "zeros:4"};
        String[] args = ARGS;
        CliRun built = CliRun.of(concat(new String[] {"capture", "build", "--source", hip.toString()}, args,
                new String[] {"-o", capture.toString()}));
        assertEquals(0, built.exitCode(), built.out() + built.err());
        nativeOut = dir.resolve("native");
        CliRun ran = CliRun.of(concat(new String[] {"capture", "native-run", hip.toString()}, args,
                new String[] {"--out", nativeOut.toString()}));
        assertEquals(0, ran.exitCode(), ran.out() + ran.err());
    }

    @Test
    void the_hosts_sum_is_the_one_group_order_gives_in_eval_and_in_the_farm() throws Exception {
        byte[] nativeSum = Files.readAllBytes(nativeOut.resolve("guest-1.bin"));
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("e").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        assertArrayEquals(nativeSum, Files.readAllBytes(dir.resolve("e/host/guest-1.bin")),
                "eval: the sum of the blocks in group order, as the native build computes it");
        assertTrue(eval.out().contains("their 16 group(s) ran again one after another in group order"), eval.out());

        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + nativeOut, "--out",
                dir.resolve("r").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertArrayEquals(nativeSum, Files.readAllBytes(dir.resolve("r/host/guest-1.bin")), "the farm: the same sum");
        JsonNode report = new ObjectMapper().readTree(dir.resolve("r/report.json").toFile());
        assertEquals(16, report.path("order_dependent_in_order").path("group_count").asInt(), report.toString());
        assertEquals("(0, 0, 0)", report.path("order_dependent_in_order").path("groups").get(0).asText());
        JsonNode out = report.path("comparison").path("ranges").get(1);
        assertEquals("f32", out.path("view").path("type").asText(), out.toString());
        assertEquals(1, out.path("order_dependent").path("equal").asInt(), out.toString());
        assertTrue(run.out().contains("2 order-dependent location(s) compared against the host's group order"), run.out());
    }

    @Test
    void another_order_of_the_sum_is_within_its_bound_and_a_wrong_sum_is_not() throws Exception {
        float sum = ByteBuffer.wrap(Files.readAllBytes(nativeOut.resolve("guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN)
                .getFloat();
        // the same terms summed in reverse group order: another order a device may choose
        ByteBuffer x = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("x.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        float reversed = 0;
        for (int g = 15; g >= 0; g--) {
            float s = 0;
            for (int k = 0; k < 64; k++) {
                s += x.getFloat(4 * (64 * g + k));
            }
            reversed += s;
        }
        assertTrue(reversed != sum, "the orders give different sums (else the case proves nothing): " + sum);
        Path other = device("reversed", reversed);
        CliRun near = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + other, "--out",
                dir.resolve("near").toString());
        assertEquals(0, near.exitCode(), near.out() + near.err());
        assertTrue(near.out().contains("1 within the reassociation bound"), near.out());
        JsonNode od = new ObjectMapper().readTree(dir.resolve("near/report.json").toFile()).path("comparison")
                .path("ranges").get(1).path("order_dependent");
        assertEquals(1, od.path("within_reassociation_bound").asInt(), od.toString());
        assertTrue(od.path("largest_difference").asDouble() <= od.path("largest_bound").asDouble(), od.toString());
        assertTrue(od.path("largest_bound").asDouble() < 0.01, "the bound is the sum's rounding, not a loose one: " + od);

        Path wrong = device("wrong", sum + 1.0f);
        CliRun far = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + wrong, "--out",
                dir.resolve("far").toString());
        assertEquals(1, far.exitCode(), far.out() + far.err());
        assertTrue(far.out().contains("beyond the reassociation bound"), far.out());
        assertTrue(far.out().contains("result          different"), far.out());
        // the store trace shows the groups as the in-order pass ran them: the last group's compare-and-swap stored
        // the host's final sum (run apart, it stored only its own block's)
        JsonNode value = new ObjectMapper().readTree(dir.resolve("far/report.json").toFile()).path("comparison")
                .path("ranges").get(1).path("values").get(0);
        JsonNode stores = value.path("stores");
        assertTrue(stores.size() >= 16, value.toString());
        JsonNode last = stores.get(stores.size() - 1);
        assertEquals("(15, 0, 0)", last.path("group").asText(), value.toString());
        assertTrue(last.path("value").asText().startsWith(value.path("host").get(0).asText() + " ("), value.toString());
    }

    @Test
    void an_exchange_may_end_on_any_groups_value_but_no_other() throws Exception {
        assertEquals(15, ByteBuffer.wrap(Files.readAllBytes(nativeOut.resolve("guest-2.bin")))
                .order(ByteOrder.LITTLE_ENDIAN).getInt(), "the native build ran the blocks in order");
        float sum = ByteBuffer.wrap(Files.readAllBytes(nativeOut.resolve("guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN)
                .getFloat();
        Path third = device("third", sum, 3);
        CliRun other = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + third, "--out",
                dir.resolve("x3").toString());
        assertEquals(0, other.exitCode(), other.out() + other.err());
        assertTrue(other.out().contains("1 holding another group's exchanged value"), other.out());
        Path none = device("none", sum, 99);
        CliRun wrong = CliRun.of("run", capture.toString(), "--every-group", "--device", "dir:" + none, "--out",
                dir.resolve("x99").toString());
        assertEquals(1, wrong.exitCode(), wrong.out() + wrong.err());
        assertTrue(wrong.out().contains("different (not a float sum: compared exactly)"), wrong.out());
    }

    /**
     * Issue 39, point 4: {@code capture build --native-run} builds, runs natively and attaches the run in one command
     * (the argument list typed once): the capture is byte for byte the one the three commands make.
     */
    @Test
    void one_command_builds_runs_natively_and_attaches_the_run() throws Exception {
        Path three = dir.resolve("three.capture");
        CliRun added = CliRun.of("capture", "add-run", capture.toString(), "--label", "native x86-64 (clang-19)",
                "--from", nativeOut.toString(), "-o", three.toString());
        assertEquals(0, added.exitCode(), added.out() + added.err());
        Path one = dir.resolve("one.capture");
        CliRun built = CliRun.of(concat(new String[] {"capture", "build", "--source", dir.resolve("fsum.hip").toString()},
                ARGS, new String[] {"-o", one.toString(), "--native-run"}));
        assertEquals(0, built.exitCode(), built.out() + built.err());
        assertTrue(built.out().contains("added run 'native x86-64 (clang-19)'"), built.out());
        assertArrayEquals(Files.readAllBytes(three), Files.readAllBytes(one), "the same capture as build, native-run and add-run");
        CliRun vulkan = CliRun.of("capture", "build", "--source", dir.resolve("x.comp").toString(), "--groups", "1",
                "-o", dir.resolve("v.capture").toString(), "--native-run");
        assertEquals(2, vulkan.exitCode(), vulkan.out() + vulkan.err());
        assertTrue(vulkan.err().contains("a Vulkan shader's reference is its lavapipe run"), vulkan.err());
    }

    private static Path device(String name, float sum) throws Exception {
        return device(name, sum, 15);
    }

    private static Path device(String name, float sum, int last) throws Exception {
        Path d = Files.createDirectories(dir.resolve(name));
        Files.copy(nativeOut.resolve("guest-0.bin"), d.resolve("guest-0.bin"));
        Files.write(d.resolve("guest-1.bin"), ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(sum).array());
        Files.write(d.resolve("guest-2.bin"), ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(last).array());
        return d;
    }

    private static String[] concat(String[]... parts) {
        return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
    }
}
