package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code replay run CAPTURE --device exec:COMMAND} with a real program (sh) as the device: what it writes into
 * {out} is compared as a dir: folder would be, and its failures (a status, a wrong-sized file, a time limit) end
 * the run with an error that says which. The outputs it writes are those of {@code replay capture export} (every
 * range as the capture holds it) overlaid with the capture's recorded native x86-64 run.
 */
@Tag("cluster")
class ExecDeviceTest {
    @TempDir
    Path dir;

    Path capture;
    Path outputs;

    @BeforeEach
    void outputs() throws Exception {
        capture = dir.resolve("saxpy.capture");
        Files.copy(Toolchain.root().resolve("examples/saxpy/saxpy.capture"), capture);
        outputs = dir.resolve("outputs");
        CliRun export = CliRun.of("capture", "export", capture.toString(), "--out", outputs.toString());
        assertEquals(0, export.exitCode(), export.out() + export.err());
        CaptureFile file = CaptureFile.open(capture);
        var recorded = DeviceChoice.parse("recorded").resolve(file).backend().orElseThrow()
                .run(new DeviceRequest(file, ""), DeviceEvents.ignore());
        for (int n : recorded.ranges().keySet()) {
            Files.write(outputs.resolve("guest-" + n + ".bin"), recorded.rangeBytes(n));
        }
    }

    /** The program: copies the range files of {@code from} into {out}, says so on stderr. */
    private static String copying(Path from) {
        return "exec:sh -c 'cp \"$0\"/guest-*.bin \"$1\"/ && echo emu: copied >&2' " + from + " {out}";
    }

    private CliRun run(String name, String device, String... more) {
        String[] args = {"run", capture.toString(), "--every-group", "--device", device, "--evaluators", "2",
                "--out", dir.resolve(name).toString()};
        String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return CliRun.of(all);
    }

    @Test
    void a_program_that_writes_the_right_outputs_compares_equal_and_the_report_says_how_it_ended() throws Exception {
        String device = copying(outputs);
        CliRun equal = run("equal", device);
        assertEquals(0, equal.exitCode(), equal.out() + equal.err());
        assertTrue(equal.out().contains("device          the program sh (exec:"), equal.out());
        assertTrue(equal.out().contains("device ran      " + device.substring("exec:".length()) + ": exit status 0 in "),
                equal.out());
        assertTrue(equal.out().contains("; its stderr ended: emu: copied"), equal.out());
        assertTrue(equal.out().contains("1000 element(s) compared, 0 differing"), equal.out());
        JsonNode report = new ObjectMapper().readTree(dir.resolve("equal/report.json").toFile());
        assertEquals(device, report.get("device").get("choice").asText());
        assertEquals("exec", report.get("device").get("kind").asText());
        JsonNode exec = report.get("device").get("exec");
        assertEquals(device.substring("exec:".length()), exec.get("command").asText());
        assertEquals(0, exec.get("exit_status").asInt());
        assertEquals("emu: copied", exec.get("stderr_tail").asText());
        assertTrue(exec.get("seconds").asDouble() > 0, exec.toString());
        assertTrue(Files.readString(dir.resolve("equal/summary.txt")).contains("exit status 0"));
    }

    @Test
    void a_wrong_byte_is_a_difference_at_its_element() throws Exception {
        ByteBuffer y = ByteBuffer.wrap(Files.readAllBytes(outputs.resolve("guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        float y5 = y.getFloat(4 * 5);
        y.putFloat(4 * 5, y5 + 1);
        Files.write(outputs.resolve("guest-1.bin"), y.array());
        CliRun differs = run("differs", copying(outputs));
        assertEquals(1, differs.exitCode(), differs.out() + differs.err());
        assertTrue(differs.out().contains(String.format("element 5 (bytes 20..23): host %s (0x%08x), device %s (0x%08x)",
                y5, Float.floatToRawIntBits(y5), y5 + 1, Float.floatToRawIntBits(y5 + 1))), differs.out());
    }

    @Test
    void a_failing_program_ends_the_run_with_its_status_and_stderr() {
        CliRun failed = run("failed", "exec:sh -c 'echo emu: no such opcode v_dot9 >&2; exit 3'");
        assertEquals(2, failed.exitCode(), failed.out() + failed.err());
        assertTrue(failed.err().contains("sh exited with status 3; the end of its stderr:\n  emu: no such opcode v_dot9"),
                failed.err());
        assertTrue(!Files.exists(dir.resolve("failed/report.json")), "no report: the device gave no outputs");

        CliRun absent = run("absent", "exec:" + dir.resolve("no-such-emu") + " {capture} {out}");
        assertEquals(2, absent.exitCode(), absent.out() + absent.err());
        assertTrue(absent.err().contains("cannot start the program " + dir.resolve("no-such-emu")
                + ": error=2, No such file or directory"), absent.err());
    }

    @Test
    void a_wrong_sized_file_is_an_error_naming_it_and_both_sizes() throws Exception {
        Files.write(outputs.resolve("guest-1.bin"), new byte[3]);
        CliRun wrong = run("wrong", copying(outputs));
        assertEquals(2, wrong.exitCode(), wrong.out() + wrong.err());
        assertTrue(wrong.err().contains("{out}/guest-1.bin: 3 bytes, but range 1 ('arg2 y.bin') of the capture holds 4000"),
                wrong.err());
    }

    @Test
    void a_program_past_the_device_timeout_is_stopped_and_the_run_says_it_timed_out() throws Exception {
        // the program blocks for good opening a fifo no one writes: only --device-timeout ends it
        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mk.waitFor());
        CliRun late = run("late", "exec:cat " + fifo, "--device-timeout", "1");
        assertEquals(2, late.exitCode(), late.out() + late.err());
        assertTrue(late.err().contains("timed out: the program did not finish within 1 s (--device-timeout); stopped it"),
                late.err());
    }

    @Test
    void a_node_refuses_to_allow_a_program_that_is_not_there() {
        CliRun node = CliRun.of("node", "--role", "coordinator", "--allow-exec-device", "sh,no-such-emu-on-path");
        assertEquals(2, node.exitCode(), node.out() + node.err());
        assertTrue(node.err().startsWith("replay: --allow-exec-device no-such-emu-on-path: no executable of that name on "
                + "PATH"), node.err());
    }

    @Test
    void an_open_quote_is_refused_before_anything_is_evaluated() {
        CliRun open = run("open", "exec:sh -c 'exit 0");
        assertEquals(2, open.exitCode(), open.out() + open.err());
        assertTrue(open.err().startsWith("replay: --device 'exec:sh -c 'exit 0': the single quote at character 7 is not "
                + "closed"), open.err());
        assertTrue(!open.err().contains("evaluating"), open.err());
    }
}
