package org.replayfarm.model.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Clang offload bundles as clang-19 writes them for HIP: the gfx1030 entry comes out byte for byte as
 * clang-offload-bundler-19 --unbundle gives it (the oracle); a damaged bundle is an error, never a crash.
 */
@Tag("unit")
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

    /**
     * clang-19 --offload-compress (zstd, header version 2): the gfx1030 entry equals what clang-offload-bundler-19
     * unbundles from the same file.
     */
    @Test
    void a_compressed_bundle_inflates_to_what_clang_offload_bundler_unbundles() throws Exception {
        bundle(); // writes k.hip
        Toolchain.run(dir, List.of("clang-19", "-x", "hip", "--offload-arch=gfx1030", "--cuda-device-only", "-nogpulib",
                "-nogpuinc", "-O2", "--offload-compress", "-c", "k.hip", "-o", "kz.bundle"));
        byte[] compressed = Files.readAllBytes(dir.resolve("kz.bundle"));
        assertEquals("CCOB", new String(compressed, 0, 4, java.nio.charset.StandardCharsets.US_ASCII));
        Toolchain.run(dir, List.of("clang-offload-bundler-19", "--unbundle", "--type=o",
                "--targets=hipv4-amdgcn-amd-amdhsa--gfx1030", "--input=kz.bundle", "--output=kz.o"));
        OffloadBundle.Picked picked = OffloadBundle.unpack(compressed).orElseThrow();
        assertArrayEquals(Files.readAllBytes(dir.resolve("kz.o")), picked.codeObject());
        assertEquals("compressed clang offload bundle", picked.container());
        assertTrue(CodeObjectLoader.load(ElfFile.parse(picked.codeObject()), 0) != null);

        // a damaged payload, a wrong size, an unknown method or version, a truncated header: errors, never a crash
        byte[] flipped = compressed.clone();
        flipped[flipped.length - 9] ^= 0x5a;
        byte[] method = compressed.clone();
        method[6] = 7;
        byte[] version = compressed.clone();
        version[4] = 9;
        byte[] size = compressed.clone();
        size[12] ^= 0x01;
        for (byte[] bad : List.of(flipped, method, version, size, java.util.Arrays.copyOf(compressed, 14),
                java.util.Arrays.copyOf(compressed, compressed.length / 2))) {
            try {
                OffloadBundle.unpack(bad);
                throw new AssertionError("a damaged compressed bundle was accepted");
            } catch (CodeObjectException expected) {
                assertTrue(expected.getMessage().startsWith("compressed offload bundle"), expected.getMessage());
            }
        }
    }

    /**
     * zlib, the method clang-offload-bundler uses when LLVM is built without zstd, in header versions 1 and 3:
     * no clang here writes them, so the file is made from clang's own uncompressed bundle with the JDK's deflater
     * and the header laid out as LLVM's OffloadBundler.cpp documents it; what comes out must be that bundle's entry.
     */
    @Test
    void zlib_bundles_in_header_versions_1_and_3_inflate_too() throws Exception {
        byte[] bundle = bundle();
        java.util.zip.Deflater deflater = new java.util.zip.Deflater();
        deflater.setInput(bundle);
        deflater.finish();
        byte[] buf = new byte[bundle.length + 64];
        int n = deflater.deflate(buf);
        deflater.end();
        byte[] md5 = java.security.MessageDigest.getInstance("MD5").digest(bundle);
        for (int v : new int[] {1, 3}) {
            java.nio.ByteBuffer h = java.nio.ByteBuffer.allocate(32 + n).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            h.put("CCOB".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putShort((short) v).putShort((short) 0);
            int headerLength = v == 1 ? 20 : 32;
            if (v == 3) {
                h.putLong(headerLength + n).putLong(bundle.length);
            } else {
                h.putInt(bundle.length);
            }
            h.put(md5, 0, 8).put(buf, 0, n);
            byte[] file = java.util.Arrays.copyOf(h.array(), headerLength + n);
            assertArrayEquals(OffloadBundle.unpack(bundle).orElseThrow().codeObject(),
                    OffloadBundle.unpack(file).orElseThrow().codeObject(), "version " + v);
        }
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
