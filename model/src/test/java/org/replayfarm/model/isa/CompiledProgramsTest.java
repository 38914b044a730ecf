package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.elf.ElfFile;
import org.replayfarm.model.testing.Kernels;
import org.replayfarm.model.testing.Toolchain;

/**
 * Programs clang-19 compiles list line for line as llvm-objdump-19 lists them: labels, text, addresses,
 * bytes and branch targets.
 */
@Tag("unit")
class CompiledProgramsTest {
    @TempDir
    Path dir;

    static final String MIXED = """
            __kernel void mix(__global float *out, __global const float *in, __global int *count, float s, uint n) {
                __local float tile[64];
                uint x = __builtin_amdgcn_workitem_id_x();
                uint g = __builtin_amdgcn_workgroup_id_x() * 64 + x;
                tile[x] = in[g];
                __builtin_amdgcn_s_barrier();
                float v = tile[63 - x] * s;
                for (uint i = 0; i < n; i++) {
                    v = __builtin_fmaf(v, 0.5f, (float) i) + __builtin_sqrtf(v * v + 1.0f);
                    if (v > 1000.0f) break;
                }
                out[g] = v / (s + 3.0f);
                __opencl_atomic_fetch_add((volatile __global atomic_int *) count, 1, memory_order_relaxed, memory_scope_device);
            }
            #pragma OPENCL EXTENSION cl_khr_fp16 : enable
            __kernel void halfs(__global half *h, __global double *d, __global long *l) {
                uint x = __builtin_amdgcn_workitem_id_x();
                h[x] = h[x] * 2.0h + 0.5h;
                d[x] = d[x] * 0.15915494309189532 + (double) l[x];
                l[x] = l[x] >> 3 | (long) x << 40;
            }
            """;

    private List<String> objdump(Path object, boolean wave64) {
        List<String> cmd = new ArrayList<>(List.of("llvm-objdump-19", "-d", "--mcpu=gfx1030"));
        if (wave64) {
            cmd.add("--mattr=+wavefrontsize64");
        }
        cmd.add(object.getFileName().toString());
        return relevant(Toolchain.run(object.getParent(), cmd).lines().toList());
    }

    private static List<String> relevant(List<String> lines) {
        return lines.stream().filter(l -> l.startsWith("\t") || l.matches("[0-9a-f]{16} <.*>:")).toList();
    }

    private List<String> ours(Path object, boolean wave64) throws Exception {
        ElfFile elf = ElfFile.parse(Files.readAllBytes(object));
        ElfFile.Section text = elf.section(".text").orElseThrow();
        Map<Long, String> labels = new TreeMap<>();
        for (ElfFile.Symbol s : elf.symbols()) {
            if (s.sectionIndex() == text.index() && s.type() == 2) {
                labels.put(s.value(), s.name());
            }
        }
        return relevant(Listing.lines(ByteBuffer.wrap(elf.contents(text)), text.address(), labels, ".text",
                wave64 ? Syntax.WAVE64 : Syntax.WAVE32));
    }

    private void same(Path object, boolean wave64) throws Exception {
        List<String> expected = objdump(object, wave64);
        List<String> actual = ours(object, wave64);
        assertTrue(expected.size() > 5, "llvm-objdump listed " + expected.size() + " lines");
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            assertEquals(expected.get(i), actual.get(i), object.getFileName() + " line " + i);
        }
        assertEquals(expected.size(), actual.size(), "line count");
    }

    @Test
    void the_saxpy_example_lists_as_llvm_objdump_lists_it() throws Exception {
        Path o = dir.resolve("saxpy.o");
        Files.copy(Toolchain.root().resolve("examples/saxpy/saxpy.o"), o);
        same(o, false);
    }

    @Test
    void kernels_with_lds_barriers_loops_atomics_and_calls_list_identically() throws Exception {
        same(Toolchain.compileOpenCl(dir, "mixed", MIXED), false);
        same(Toolchain.compileOpenCl(dir, "tables", Kernels.TABLES), false);
        same(Toolchain.compileOpenCl(dir, "mixed0", MIXED, "-O0"), false);
    }

    @Test
    void wave64_kernels_list_identically_with_wave64_spellings() throws Exception {
        same(Toolchain.compileOpenCl(dir, "mixed64", MIXED, "-mwavefrontsize64"), true);
    }
}
