package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code replay capture native-run --wave-size}: a kernel whose result depends on the wave (the first lane's
 * value broadcast) built by clang-19 as wave64, its native run attached at the device's wave size, compares
 * equal with the host model through {@code replay run}; the same run made for waves of 32 is caught as
 * different at exactly the upper half of every group.
 */
@Tag("corpus")
class NativeRunWaveSizeTest {
    static final String KERNEL = """
            __kernel void first(__global uint *out) {
                uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x()
                        + __builtin_amdgcn_workitem_id_x();
                out[i] = __builtin_amdgcn_readfirstlane(i * 7u + 1u);
            }
            """;

    @TempDir
    Path dir;

    private Path nativeRun(int waveSize) throws Exception {
        Path out = dir.resolve("native" + waveSize);
        CliRun r = CliRun.of("capture", "native-run", dir.resolve("k.cl").toString(), "--kernel", "first",
                "--groups", "3", "--group-size", "64", "--arg", "zeros:768", "--wave-size", String.valueOf(waveSize),
                "--out", out.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        return out;
    }

    @Test
    void a_wave64_build_compares_equal_with_its_wave64_native_run_and_differs_from_a_wave32_one() throws Exception {
        Files.writeString(dir.resolve("k.cl"), KERNEL);
        Toolchain.run(dir, List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030",
                "-mwavefrontsize64", "-nogpulib", "-O2", "-c", "k.cl", "-o", "k.o"));
        Path capture = dir.resolve("k.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", dir.resolve("k.o").toString(), "--kernel", "first",
                "--groups", "3", "--group-size", "64", "--arg", "zeros:768", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());

        Path w64 = nativeRun(64);
        Path w32 = nativeRun(32);
        ByteBuffer a = ByteBuffer.wrap(Files.readAllBytes(w64.resolve("guest-0.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(w32.resolve("guest-0.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 192; i++) {
            // the independent expectation: lane 0 of the work-item's wave, waves of 64 or of 32 work-items
            assertEquals((i / 64 * 64) * 7 + 1, a.getInt(4 * i), "wave64 work-item " + i);
            assertEquals((i / 32 * 32) * 7 + 1, b.getInt(4 * i), "wave32 work-item " + i);
        }
        for (var run : List.of(List.of("w64", w64), List.of("w32", w32))) {
            CliRun add = CliRun.of("capture", "add-run", capture.toString(), "--label", (String) run.get(0),
                    "--from", run.get(1).toString());
            assertEquals(0, add.exitCode(), add.out() + add.err());
        }
        CliRun same = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:w64",
                "--out", dir.resolve("same").toString());
        assertEquals(0, same.exitCode(), same.out() + same.err());
        CliRun other = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:w32",
                "--out", dir.resolve("other").toString());
        assertEquals(1, other.exitCode(), other.out() + other.err());
        // exactly the bytes of the upper 32 work-items of each group where the two native runs disagree
        byte[] x = Files.readAllBytes(w64.resolve("guest-0.bin"));
        byte[] y = Files.readAllBytes(w32.resolve("guest-0.bin"));
        int differing = 0;
        java.util.Set<Integer> words = new java.util.TreeSet<>();
        for (int i = 0; i < x.length; i++) {
            if (x[i] != y[i]) {
                assertTrue(i / 4 % 64 >= 32, "byte " + i + " is in an upper half");
                differing++;
                words.add(i / 4);
            }
        }
        assertTrue(differing >= 96, "every upper-half word differs in a byte at least: " + differing);
        // the range is typed from the kernel's metadata (uint*): the summary counts elements (issue 17)
        assertTrue(other.out().contains("192 element(s) compared, " + words.size() + " differing, 0 device-only"),
                other.out());
    }

    @Test
    void a_wave_size_rdna_2_does_not_have_is_refused() throws Exception {
        Files.writeString(dir.resolve("k.cl"), KERNEL);
        CliRun r = CliRun.of("capture", "native-run", dir.resolve("k.cl").toString(), "--kernel", "first",
                "--groups", "1", "--group-size", "64", "--arg", "zeros:256", "--wave-size", "48",
                "--out", dir.resolve("n").toString());
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertTrue(r.err().contains("--wave-size is 32 or 64"), r.err());
    }
}
