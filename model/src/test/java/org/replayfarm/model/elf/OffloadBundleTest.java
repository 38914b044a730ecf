package org.replayfarm.model.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Clang offload bundles as clang-19 writes them for HIP: the gfx1030 entry comes out byte for byte as
 * clang-offload-bundler-19 --unbundle gives it (the oracle); a damaged bundle is an error, never a crash.
 */
class OffloadBundleTest {
    @TempDir
    Path dir;

    private byte[] bundle() throws Exception {
        Files.writeString(dir.resolve("k.hip"), """
                extern "C" __attribute__((global)) void k(float *x) { x[__builtin_amdgcn_workitem_id_x()] = 1.0f; }
                """);
        Toolchain.run(dir, List.of("clang-19", "-x", "hip", "--offload-arch=gfx1030", "--cuda-device-only", "-nogpulib",
                "-nogpuinc", "-O2", "-c", "k.hip", "-o", "k.bundle"));
        return Files.readAllBytes(dir.resolve("k.bundle"));
    }

    @Test
    void the_gfx1030_entry_is_what_clang_offload_bundler_unbundles() throws Exception {
        byte[] bundle = bundle();
        Toolchain.run(dir, List.of("clang-offload-bundler-19", "--unbundle", "--type=o",
                "--targets=hipv4-amdgcn-amd-amdhsa--gfx1030", "--input=k.bundle", "--output=k.o"));
        OffloadBundle.Picked picked = OffloadBundle.unpack(bundle).orElseThrow();
        assertArrayEquals(Files.readAllBytes(dir.resolve("k.o")), picked.codeObject());
        assertEquals("hipv4-amdgcn-amd-amdhsa--gfx1030", picked.entry());
        assertTrue(picked.entries().contains("host-x86_64-unknown-linux--"), picked.entries().toString());
        assertTrue(CodeObjectLoader.load(ElfFile.parse(picked.codeObject()), 0) != null);
        // an AMDGPU ELF is not a bundle: left as it is
        assertTrue(OffloadBundle.unpack(picked.codeObject()).isEmpty());
    }

    @Test
    void a_truncated_or_corrupted_bundle_is_a_code_object_error() throws Exception {
        byte[] bundle = bundle();
        for (int length = 24; length < Math.min(bundle.length, 400); length += 3) {
            byte[] cut = java.util.Arrays.copyOf(bundle, length);
            try {
                OffloadBundle.unpack(cut);
            } catch (CodeObjectException expected) {
                assertTrue(!expected.getMessage().isEmpty());
            }
        }
        byte[] bad = bundle.clone();
        bad[24] = (byte) 0xff; // the entry count
        try {
            OffloadBundle.unpack(bad);
            throw new AssertionError("a bundle of 255+ entries in a few bytes was accepted");
        } catch (CodeObjectException expected) {
            assertTrue(expected.getMessage().contains("offload bundle"), expected.getMessage());
        }
    }

    @Test
    void hip_kernel_symbols_read_as_their_declarations_and_other_cxx_names_stay() {
        assertEquals("scale(float *, float, uint)", OpenClNames.demangle("_Z5scalePffj"));
        assertEquals("block_reduce(const int *, int *)", OpenClNames.demangle("_Z12block_reducePKiPi"));
        assertEquals("_ZN3foo3barEv", OpenClNames.demangle("_ZN3foo3barEv"));
        assertEquals("plain", OpenClNames.demangle("plain"));
    }
}
