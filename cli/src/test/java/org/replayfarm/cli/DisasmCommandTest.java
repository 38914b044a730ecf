package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Kernels;
import org.replayfarm.model.testing.Toolchain;

/** {@code replay disasm} against llvm-objdump-19 on code objects, captures and raw code. */
@Tag("unit")
class DisasmCommandTest {
    @TempDir
    Path dir;

    private static List<String> listing(String text) {
        return text.lines().filter(l -> l.startsWith("\t") || l.matches("[0-9a-f]{16} <.*>:")).toList();
    }

    private static List<String> instructionTexts(String text) {
        return text.lines().filter(l -> l.startsWith("\t")).map(l -> l.substring(1, l.indexOf("//")).strip()).toList();
    }

    @Test
    void a_code_object_lists_exactly_as_llvm_objdump_lists_it() throws Exception {
        Path o = dir.resolve("saxpy.o");
        Files.copy(Toolchain.root().resolve("examples/saxpy/saxpy.o"), o);
        CliRun run = CliRun.of("disasm", o.toString());
        assertEquals(0, run.exitCode(), run.err());
        String objdump = Toolchain.run(dir, "llvm-objdump-19", "-d", "--mcpu=gfx1030", "saxpy.o");
        assertEquals(listing(objdump), listing(run.out()));
    }

    @Test
    void one_kernel_of_a_code_object_lists_alone_with_its_label() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "tables", Kernels.TABLES);
        CliRun run = CliRun.of("disasm", o.toString(), "--kernel", "other");
        assertEquals(0, run.exitCode(), run.err());
        List<String> ours = listing(run.out());
        assertTrue(ours.get(0).endsWith(" <other>:"), ours.get(0));
        assertFalse(run.out().contains("<lookup>:"));
        List<String> all = listing(Toolchain.run(dir, "llvm-objdump-19", "-d", "--mcpu=gfx1030", "tables.o"));
        int start = all.indexOf(ours.get(0));
        assertTrue(start >= 0);
        assertEquals(all.subList(start, start + ours.size()), ours, "the kernel's lines as objdump lists them");
    }

    @Test
    void a_wave64_kernel_is_spelled_for_wave64_from_its_descriptor() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "w64", """
                __kernel void w64(__global int *o, int n) {
                    uint x = __builtin_amdgcn_workitem_id_x();
                    if (x < n) o[x] = x;
                }
                """, "-mwavefrontsize64");
        CliRun run = CliRun.of("disasm", o.toString(), "--kernel", "w64");
        assertEquals(0, run.exitCode(), run.err());
        String objdump = Toolchain.run(dir, "llvm-objdump-19", "-d", "--mcpu=gfx1030", "--mattr=+wavefrontsize64", "w64.o");
        List<String> ours = listing(run.out());
        assertEquals(listing(objdump).subList(0, ours.size()), ours, "the kernel's lines, before the s_code_end padding");
        assertTrue(run.out().contains("v_cmp_gt_u32_e32 vcc, s0, v0"), run.out());
    }

    @Test
    void a_capture_lists_its_program_at_its_guest_address_with_the_entry_labelled() throws Exception {
        CliRun run = CliRun.of("disasm", Toolchain.root().resolve("examples/saxpy/saxpy.capture").toString());
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("0000000100060000 <saxpy>:"), run.out());
        assertTrue(run.out().contains("// 000100060004: F4000002 FA00002C"), run.out());
        String objdump = Toolchain.run(Toolchain.root().resolve("examples/saxpy"), "llvm-objdump-19", "-d",
                "--mcpu=gfx1030", "saxpy.o");
        assertEquals(instructionTexts(objdump), instructionTexts(run.out()));
    }

    @Test
    void raw_code_lists_from_address_zero() throws Exception {
        Path o = dir.resolve("saxpy.o");
        Files.copy(Toolchain.root().resolve("examples/saxpy/saxpy.o"), o);
        Toolchain.run(dir, "llvm-objcopy-19", "-O", "binary", "--only-section=.text", "saxpy.o", "saxpy.bin");
        CliRun run = CliRun.of("disasm", dir.resolve("saxpy.bin").toString());
        assertEquals(0, run.exitCode(), run.err());
        String objdump = Toolchain.run(dir, "llvm-objdump-19", "-d", "--mcpu=gfx1030", "saxpy.o");
        assertEquals(instructionTexts(objdump), instructionTexts(run.out()));
    }

    @Test
    void bytes_that_are_not_instructions_list_as_long_words_like_objdump() throws Exception {
        Path raw = dir.resolve("bad.bin");
        Files.write(raw, new byte[] {0x00, 0x00, (byte) 0xf0, (byte) 0xbf, 0x00, 0x00, (byte) 0x81, (byte) 0xbf, 0x01});
        CliRun run = CliRun.of("disasm", raw.toString());
        assertEquals(0, run.exitCode(), run.err());
        assertEquals(List.of(".long 0xbff00000", "s_endpgm"), instructionTexts(run.out()));
        // the ninth byte is no whole word: said on stderr, not dropped in silence
        assertEquals("replay disasm: " + raw + " ends with 1 byte(s) after its last whole 4-byte word (offset 0x8), "
                + "not disassembled", run.err().trim());
        Path three = Files.write(dir.resolve("three.bin"), new byte[] {1, 2, 3});
        CliRun short_ = CliRun.of("disasm", three.toString());
        assertEquals(0, short_.exitCode(), short_.err());
        assertTrue(short_.err().contains("ends with 3 byte(s) after its last whole 4-byte word (offset 0x0)"), short_.err());
    }

    @Test
    void a_missing_kernel_or_a_damaged_capture_exits_2_naming_it() throws Exception {
        Path o = Toolchain.root().resolve("examples/saxpy/saxpy.o");
        CliRun missing = CliRun.of("disasm", o.toString(), "--kernel", "nope");
        assertEquals(2, missing.exitCode());
        assertTrue(missing.err().contains("no kernel 'nope'"), missing.err());
        byte[] capture = Files.readAllBytes(Toolchain.root().resolve("examples/saxpy/saxpy.capture"));
        Path cut = dir.resolve("cut.capture");
        Files.write(cut, Arrays.copyOf(capture, 100));
        CliRun damaged = CliRun.of("disasm", cut.toString());
        assertEquals(2, damaged.exitCode());
        assertTrue(damaged.err().contains("replay: error: metadata"), damaged.err());
    }
}
