package org.replayfarm.model.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Kernels;
import org.replayfarm.model.testing.Toolchain;

/**
 * The loader's relocation of a clang-19 object must agree byte for byte with ld.lld-19's: the object is
 * loaded with its sections at the addresses lld gave them, and compared with lld's shared object loaded
 * at the same base.
 */
@Tag("unit")
class CodeObjectLoaderTest {
    @TempDir
    Path dir;


    @Test
    void relocating_the_object_matches_ld_lld_at_any_base() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "tables", Kernels.TABLES);
        Path so = Toolchain.link(o);
        ElfFile object = ElfFile.parse(Files.readAllBytes(o));
        ElfFile shared = ElfFile.parse(Files.readAllBytes(so));
        Map<String, Long> lldAddress = shared.sections().stream().filter(ElfFile.Section::isAlloc)
                .collect(Collectors.toMap(ElfFile.Section::name, ElfFile.Section::address, (a, b) -> a));
        List<String> relocated = List.of(".text", ".rodata", ".data.rel.ro");
        for (String name : relocated) {
            assertTrue(object.section(name).isPresent(), "clang put " + name + " in the object");
        }
        for (long base : new long[] {0, 0x1_2345_0000L, 0x7fff_0000_0000L}) {
            LoadedCodeObject ours = CodeObjectLoader.loadRelocatable(object, base,
                    s -> lldAddress.getOrDefault(s.name(), -1L));
            LoadedCodeObject lld = CodeObjectLoader.load(shared, base);
            for (ElfFile.Section s : object.sections()) {
                if (!s.isAlloc() || s.size() == 0) {
                    continue;
                }
                long address = base + lldAddress.get(s.name());
                assertArrayEquals(lld.bytesAt(address, (int) s.size()), ours.bytesAt(address, (int) s.size()),
                        s.name() + " at base 0x" + Long.toHexString(base));
            }
            assertEquals(lld.symbolAddress("lookup.kd"), ours.symbolAddress("lookup.kd"));
        }
    }

    @Test
    void the_default_layout_resolves_pc_relative_and_absolute_references_to_the_same_symbol() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "tables", Kernels.TABLES);
        LoadedCodeObject loaded = CodeObjectLoader.load(ElfFile.parse(Files.readAllBytes(o)), 0x5_0000_0000L);
        long table = loaded.symbolAddress("table").orElseThrow();
        long tabptr = loaded.symbolAddress("tabptr").orElseThrow();
        long stored = java.nio.ByteBuffer.wrap(loaded.bytesAt(tabptr, 8)).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(table, stored, "ABS64: the pointer constant holds the table's guest address");
        int[] values = new int[8];
        java.nio.ByteBuffer.wrap(loaded.bytesAt(table, 32)).order(java.nio.ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(values);
        assertArrayEquals(new int[] {3, 1, 4, 1, 5, 9, 2, 6}, values);
    }

    @Test
    void a_call_to_an_undefined_function_names_the_symbol() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "undef", """
                __kernel void k(__global int *out) { out[get_global_id(0)] = 1; }
                """);
        ElfFile elf = ElfFile.parse(Files.readAllBytes(o));
        CodeObjectException e = assertThrows(CodeObjectException.class, () -> CodeObjectLoader.load(elf, 0));
        assertTrue(e.getMessage().contains("undefined symbol"), e.getMessage());
        assertTrue(e.getMessage().contains("get_global_id(uint)  [_Z13get_global_idj]"), e.getMessage());
        assertTrue(e.getMessage().contains("-include include/replay-cl.h"), "the way out is named: " + e.getMessage());
        // and that way out works: the same source with the header loads
        Path withHeader = Toolchain.compileOpenCl(dir, "withheader", """
                __kernel void k(__global int *out) { out[get_global_id(0)] = 1; }
                """, "-include", Toolchain.root().resolve("include/replay-cl.h").toString());
        assertTrue(CodeObjectLoader.load(ElfFile.parse(Files.readAllBytes(withHeader)), 0) != null);
    }

    /**
     * Every undefined symbol is listed, demangled as the OpenCL C declaration clang-19 compiled (the declarations
     * in the source are the oracle), with the fix.
     */
    @Test
    void every_undefined_symbol_is_listed_as_its_opencl_c_declaration_with_the_fix() throws Exception {
        java.util.Map<String, String> declared = new java.util.LinkedHashMap<>();
        declared.put("uint atomic_inc(volatile __local uint *p)", "atomic_inc(volatile __local uint *)");
        declared.put("float4 mix4(float4 a, float4 b, float t)", "mix4(float4, float4, float)");
        declared.put("void same(__global float *a, __global float *b)", "same(__global float *, __global float *)");
        declared.put("void cv(const __global int4 *p, __global int4 *q, int4 r)",
                "cv(const __global int4 *, __global int4 *, int4)");
        declared.put("void many(__global float2 *a, __global float2 *b, __local float2 *c, __constant char *d, uchar16 e, "
                + "long g, ulong h, half i, double j, const __local int *k, __private short *m, ushort n, __generic int *o)",
                "many(__global float2 *, __global float2 *, __local float2 *, __constant char *, uchar16, long, ulong, half, "
                        + "double, const __local int *, __private short *, ushort, __generic int *)");
        declared.put("int none(void)", "none(void)");
        StringBuilder src = new StringBuilder("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
        for (String d : declared.keySet()) {
            src.append("__attribute__((overloadable)) ").append(d).append(";\n");
        }
        src.append("""
                __kernel void k(__global float *x, __local uint *l, __global int4 *v, __global float2 *f2, __local float2 *l2,
                                __constant char *c, __local int *li, __global int *gi) {
                    __private short s = 1;
                    atomic_inc(l);
                    x[0] = mix4((float4) (x[1]), (float4) (x[2]), 0.5f).x;
                    same(x, x);
                    cv(v, v, v[0]);
                    many(f2, f2, l2, c, (uchar16) (0), 1, 2, 0.5h, 0.25, li, &s, 3, gi);
                    x[3] = sqrt(x[4]) + none();
                }
                """);
        Path o = Toolchain.compileOpenCl(dir, "undefs", src.toString(), "-O0");
        CodeObjectException e = assertThrows(CodeObjectException.class,
                () -> CodeObjectLoader.load(ElfFile.parse(Files.readAllBytes(o)), 0));
        String m = e.getMessage();
        assertTrue(m.startsWith("7 undefined symbols"), m);
        for (String spelled : declared.values()) {
            assertTrue(m.contains("\n  " + spelled + "  [_Z"), "lists " + spelled + ":\n" + m);
        }
        assertTrue(m.contains("\n  sqrt(float)  [_Z4sqrtf]"), m);
        assertTrue(m.contains("replay capture build --source") && m.contains("--rocm-device-lib-path"), m);
        assertEquals(m.indexOf("atomic_inc("), m.lastIndexOf("atomic_inc("), "each symbol once");
    }

    @Test
    void non_elf_and_foreign_elf_inputs_are_refused_by_name() throws Exception {
        assertTrue(assertThrows(CodeObjectException.class, () -> ElfFile.parse("not an elf at all, no".repeat(4).getBytes()))
                .getMessage().contains("not an ELF"));
        byte[] host = Files.readAllBytes(Path.of("/bin/sh").toRealPath());
        assertTrue(assertThrows(CodeObjectException.class, () -> ElfFile.parse(host))
                .getMessage().contains("e_machine"));
    }

    @Test
    void truncated_or_corrupted_code_objects_fail_with_a_code_object_error_never_a_crash() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "tables", Kernels.TABLES);
        byte[] good = Files.readAllBytes(o);
        for (int length = 0; length < good.length; length += 7) {
            expectCleanFailureOrSuccess(Arrays.copyOf(good, length));
        }
        Random random = new Random(99);
        for (int trial = 0; trial < 400; trial++) {
            byte[] bad = good.clone();
            for (int f = 0; f < 3; f++) {
                bad[random.nextInt(bad.length)] = (byte) random.nextInt(256);
            }
            expectCleanFailureOrSuccess(bad);
        }
    }

    private static void expectCleanFailureOrSuccess(byte[] bytes) {
        try {
            ElfFile elf = ElfFile.parse(bytes);
            CodeObjectLoader.load(elf, 0x1000_0000L);
            KernelMetadata.read(elf);
        } catch (CodeObjectException expected) {
            assertTrue(!expected.getMessage().isBlank());
        }
    }
}
