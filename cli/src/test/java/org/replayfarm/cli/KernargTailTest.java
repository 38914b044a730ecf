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
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/**
 * The kernarg range as the ROCm runtime gives it: the segment, then the rest of its page. clang-19 at -O2 reads
 * a kernel's three trailing {@code u32} scalars (bytes 8..20 of a 20-byte segment) with one
 * {@code s_load_dwordx4} of bytes 8..24; the hardware reads the runtime's kernarg pool there, so the replay
 * must too. A load past the page still faults.
 */
@Tag("corpus")
class KernargTailTest {
    @TempDir
    Path dir;

    @Test
    void scalars_ending_off_a_16_byte_boundary_are_read_with_an_over_wide_load_that_does_not_fault() throws Exception {
        Files.writeString(dir.resolve("k.cl"), """
                kernel void escape(global uint *out, uint w, uint h, uint maxit) {
                    uint x = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
                    out[x] = (x % w) * h + maxit;
                }
                """);
        Toolchain.run(dir, List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030",
                "-nogpulib", "-O2", "-c", "k.cl", "-o", "k.o"));
        // the oracle for what the compiled code does: llvm-objdump-19 and llvm-readelf-19
        String disasm = Toolchain.run(dir, List.of("llvm-objdump-19", "-d", "k.o"));
        assertTrue(disasm.contains("s_load_dwordx4 s[0:3], s[4:5], 0x8"), disasm);
        String notes = Toolchain.run(dir, List.of("llvm-readelf-19", "--notes", "k.o"));
        assertTrue(notes.contains(".kernarg_segment_size: 20"), notes);

        CliRun built = CliRun.of("capture", "build", "--elf", dir.resolve("k.o").toString(), "--groups", "2",
                "--group-size", "64", "--arg", "zeros:512", "--arg", "u32:7", "--arg", "u32:3", "--arg", "u32:100",
                "-o", dir.resolve("k.capture").toString());
        assertEquals(0, built.exitCode(), built.err());
        CaptureFile capture = CaptureFile.open(dir.resolve("k.capture"));
        var kernarg = capture.metadata().getRangesList().stream().filter(r -> r.getName().equals("kernarg")).findFirst()
                .orElseThrow();
        assertEquals(4096, kernarg.getSize());
        assertEquals(20, capture.metadata().getProgram().getKernargSize());

        CliRun eval = CliRun.of("eval", dir.resolve("k.capture").toString(), "--every-group", "--out",
                dir.resolve("out").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        ByteBuffer out = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("out/host/guest-0.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        for (int x = 0; x < 128; x++) {
            assertEquals((x % 7) * 3 + 100, out.getInt(4 * x), "out[" + x + "]");
        }
    }

    @Test
    void a_scalar_load_past_the_page_stays_a_fault() throws Exception {
        Path s = dir.resolve("k.s");
        // the last dword of the page reads back; the next one lies outside every range
        Files.writeString(s, """
                s_load_dwordx2 s[4:5], s[0:1], 0x0
                s_load_dword s6, s[0:1], 0xffc
                s_load_dword s7, s[0:1], 0x1000
                s_waitcnt lgkmcnt(0)
                v_mov_b32 v1, 0
                v_mov_b32 v2, s6
                global_store_dword v1, v2, s[4:5]
                s_endpgm
                """);
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "1",
                "--arg", "zeros:64", "-o", dir.resolve("k.capture").toString());
        assertEquals(0, built.exitCode(), built.err());
        CliRun eval = CliRun.of("eval", dir.resolve("k.capture").toString(), "--every-group", "--out",
                dir.resolve("out").toString());
        assertEquals(1, eval.exitCode(), eval.out() + eval.err());
        assertTrue(eval.out().contains("s_load_dword s7, s[0:1], 0x1000"), eval.out());
        assertTrue(eval.out().contains("outside every memory range"), eval.out());
    }
}
