package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Kernels;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.SystemSgprKind;

@Tag("unit")
class CaptureCommandsTest {
    @TempDir
    Path dir;

    @Test
    void inspect_summarises_the_example_capture() {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        CliRun run = CliRun.of("inspect", capture.toString());
        assertEquals(0, run.exitCode(), run.err());
        for (String expected : new String[] {"program   saxpy, wave32", "dispatch  16 x 1 x 1 groups of 64 x 1 x 1",
                "KERNARG_SEGMENT_PTR", "WORKGROUP_ID_X", "arg1 x.bin", "arg2 y.bin", "kernarg", "code-object",
                "runs      ", "provenance replay capture build --elf saxpy.o"}) {
            assertTrue(run.out().contains(expected), "missing '" + expected + "' in\n" + run.out());
        }
    }

    @Test
    void assembly_with_a_kernel_descriptor_builds_through_llvm_mc_as_wave64() throws Exception {
        Path s = dir.resolve("k.s");
        Files.writeString(s, Kernels.DESCRIPTOR_ASM);
        Path out = dir.resolve("k.capture");
        CliRun run = CliRun.of("capture", "build", "--asm", s.toString(), "--wave64", "--groups", "2,2",
                "--group-size", "64", "-o", out.toString());
        assertEquals(0, run.exitCode(), run.err());
        Capture c = CaptureFile.open(out).metadata();
        assertEquals(64, c.getProgram().getWaveSize());
        assertEquals("k", c.getProgram().getKernelName());
        assertEquals(SystemSgprKind.WORKGROUP_ID_X, c.getRegisters().getSystemSgprs(0).getKind());
        assertEquals(10, c.getRegisters().getSystemSgprs(0).getIndex());
        assertEquals(2, c.getDispatch().getGroupCountY());
    }

    @Test
    void plain_assembly_takes_user_sgprs_from_the_command_line() throws Exception {
        Path s = dir.resolve("p.s");
        Files.writeString(s, "s_mov_b32 s5, s2\ns_endpgm\n");
        Path out = dir.resolve("p.capture");
        CliRun run = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "32",
                "--user-sgpr", "2=0xdeadbeef", "--user-sgpr", "3=17", "--workgroup-id-sgpr", "8", "-o", out.toString());
        assertEquals(0, run.exitCode(), run.err());
        Capture c = CaptureFile.open(out).metadata();
        assertEquals(0xdeadbeef, c.getRegisters().getUserSgprs(0).getValue());
        assertEquals(17, c.getRegisters().getUserSgprs(1).getValue());
        assertEquals(8, c.getRegisters().getSystemSgprs(0).getIndex());
        assertEquals(32, c.getProgram().getWaveSize());
    }

    @Test
    void assembly_that_llvm_mc_rejects_is_an_error_carrying_the_assemblers_message() throws Exception {
        Path s = dir.resolve("bad.s");
        Files.writeString(s, "v_bogus_instruction v0, v1\n");
        CliRun run = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "32",
                "-o", dir.resolve("x.capture").toString());
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("llvm-mc-19") && run.err().contains("invalid instruction"), run.err());
    }

    @Test
    void bad_command_lines_exit_2_and_say_what_was_wrong() throws Exception {
        Path elf = Toolchain.root().resolve("examples/saxpy/saxpy.o");
        CliRun zeroGroups = CliRun.of("capture", "build", "--elf", elf.toString(), "--kernel", "saxpy", "--groups", "0",
                "--group-size", "64", "-o", dir.resolve("a.capture").toString());
        assertEquals(2, zeroGroups.exitCode());
        assertTrue(zeroGroups.err().contains("--groups: '0' is not a positive 32-bit count"), zeroGroups.err());

        CliRun badArg = CliRun.of("capture", "build", "--elf", elf.toString(), "--kernel", "saxpy", "--groups", "1",
                "--group-size", "64", "--arg", "float:1", "-o", dir.resolve("a.capture").toString());
        assertEquals(2, badArg.exitCode());
        assertTrue(badArg.err().contains("unknown kind 'float'"), badArg.err());

        CliRun wrongCount = CliRun.of("capture", "build", "--elf", elf.toString(), "--kernel", "saxpy", "--groups", "1",
                "--group-size", "64", "--arg", "f32:1", "-o", dir.resolve("a.capture").toString());
        assertEquals(2, wrongCount.exitCode());
        assertTrue(wrongCount.err().contains("kernel saxpy takes 4 argument(s) (float, float*, float*, uint); 1 given"),
                wrongCount.err());

        CliRun missing = CliRun.of("capture", "build", "--elf", dir.resolve("none.o").toString(), "--kernel", "k",
                "--groups", "1", "--group-size", "64", "-o", dir.resolve("a.capture").toString());
        assertEquals(2, missing.exitCode());
        assertTrue(missing.err().contains("no such file: ") && missing.err().contains("none.o"), missing.err());
        assertTrue(Files.notExists(dir.resolve("a.capture")), "nothing is written when the build fails");
    }

    @Test
    void a_register_layout_past_the_programs_registers_is_refused_naming_the_field() throws Exception {
        Path s = dir.resolve("p.s");
        Files.writeString(s, "s_endpgm\n");
        CliRun outside = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "32",
                "--sgprs", "8", "--workgroup-id-sgpr", "7", "-o", dir.resolve("p.capture").toString());
        assertEquals(2, outside.exitCode());
        assertTrue(outside.err().contains("registers.system_sgprs[1].index: is 8; must be in [0, 7]"), outside.err());
        CliRun notNumber = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "32",
                "--user-sgpr", "1=zz", "-o", dir.resolve("p.capture").toString());
        assertEquals(2, notNumber.exitCode());
        assertTrue(notNumber.err().contains("--user-sgpr 1=zz: the value must be a 32-bit number"), notNumber.err());
    }

    @Test
    void inspecting_a_truncated_capture_names_the_field_and_exits_2() throws Exception {
        byte[] good = Files.readAllBytes(Toolchain.root().resolve("examples/saxpy/saxpy.capture"));
        Path cut = dir.resolve("cut.capture");
        Files.write(cut, Arrays.copyOf(good, good.length - 100));
        CliRun run = CliRun.of("inspect", cut.toString());
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("past the end of the file"), run.err());
        assertTrue(run.err().matches("(?s)replay: error: (ranges|program|images|runs)\\[?.*"), run.err());
    }
}
