package org.replayfarm.gpunode.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;

/**
 * --device exec:COMMAND runs a real program (sh and coreutils here) as the device: the outputs it writes are the run,
 * and each way it can fail is an error saying which. The correct outputs come from the capture's recorded run (its
 * native x86-64 build; the ranges it does not change, kernarg and the like, as the capture holds them), written by
 * the test into a folder the program copies from.
 */
@Tag("unit")
class ExecBackendTest {
    private static final Path SAXPY = Path.of("..", "examples", "saxpy", "saxpy.capture").toAbsolutePath();

    @TempDir
    Path dir;

    CaptureFile capture;
    Path expected;
    byte[] x;
    byte[] y;

    @BeforeEach
    void outputs() throws Exception {
        capture = CaptureFile.open(SAXPY);
        DeviceRun native_ = DeviceChoice.parse("recorded").resolve(capture).backend().orElseThrow()
                .run(new DeviceRequest(capture, ""), DeviceEvents.ignore());
        x = native_.rangeBytes(0);
        y = native_.rangeBytes(1);
        expected = Files.createDirectories(dir.resolve("expected"));
        for (org.replayfarm.proto.MemoryRange r : capture.metadata().getRangesList()) {
            byte[] initial = new byte[(int) r.getSize()];
            capture.blob(r.getInitial()).get(initial);
            Files.write(expected.resolve("guest-" + r.getIndex() + ".bin"), initial);
        }
        Files.write(expected.resolve("guest-0.bin"), x);
        Files.write(expected.resolve("guest-1.bin"), y);
    }

    private DeviceRun run(String command, long timeout, List<DeviceEvent> events) throws DeviceException {
        return DeviceChoice.parse("exec:" + command).withTimeoutSeconds(timeout).resolve(capture).backend().orElseThrow()
                .run(new DeviceRequest(capture, ""), events::add);
    }

    private String fails(String command, long timeout) {
        return assertThrows(DeviceException.class, () -> run(command, timeout, new ArrayList<>())).getMessage();
    }

    @Test
    void the_program_gets_the_capture_and_an_empty_folder_and_its_files_are_the_run() throws Exception {
        Path seen = dir.resolve("seen");
        // the program checks it was given the capture's exact bytes as capture.capture and an empty {out}, reads its
        // stdin to the end (closed: at once), then writes the outputs and a line on stderr
        String command = "sh -c '"
                + "case \"$1\" in */capture.capture) ;; *) exit 8 ;; esac; "
                + "cmp -s \"$0\" \"$1\" || exit 9; [ -z \"$(ls -A \"$3\")\" ] || exit 10; cat > /dev/null; "
                + "echo \"$1\" > \"$4\"; cp \"$2\"/* \"$3\"/; echo emu: 1000 lanes >&2' "
                + SAXPY + " {capture} " + expected + " {out} " + seen;
        List<DeviceEvent> events = new ArrayList<>();
        DeviceRun run = run(command, 60, events);
        assertEquals("exec", run.kind());
        assertEquals(command, run.label());
        assertArrayEquals(x, run.rangeBytes(0));
        assertArrayEquals(y, run.rangeBytes(1));
        assertEquals(0, run.exec().exitStatus());
        assertEquals("emu: 1000 lanes", run.exec().stderrTail());
        assertEquals(command, run.exec().command());
        assertEquals(3, events.size(), events.toString());
        assertEquals(new DeviceEvent.Started("exec", command), events.get(0));
        assertTrue(events.get(1) instanceof DeviceEvent.Executed, events.toString());
        assertEquals(new DeviceEvent.Finished(capture.metadata().getRangesCount(), 0), events.get(2));
        Path given = Path.of(Files.readString(seen).strip());
        assertFalse(Files.exists(given.getParent()), "the run's folder is removed after it");
    }

    @Test
    void a_non_zero_exit_is_an_error_with_its_status_and_the_end_of_its_stderr() {
        String m = fails("sh -c 'echo emu: warming up >&2; echo emu: no such opcode v_dot9 >&2; exit 3'", 60);
        assertTrue(m.startsWith("--device exec:sh -c "), m);
        assertTrue(m.contains("sh exited with status 3; the end of its stderr:\n  emu: warming up\n  emu: no such opcode v_dot9"),
                m);
        // a long stderr: its last 20 lines
        String tail = fails("sh -c 'i=1; while [ $i -le 30 ]; do echo line $i >&2; i=$((i+1)); done; exit 5'", 60);
        assertTrue(tail.contains("status 5; the end of its stderr:\n  line 11\n") && tail.endsWith("  line 30")
                && !tail.contains("line 10\n"), tail);
    }

    @Test
    void missing_and_wrong_sized_files_are_errors_naming_them() throws Exception {
        String missing = fails("cp " + expected.resolve("guest-1.bin") + " {out}/", 60);
        assertTrue(missing.contains("no guest-0.bin (range 0 ('arg1 x.bin') of the capture, 4000 bytes) in {out}, which is "
                + "to hold every range's and image's final contents"), missing);
        assertTrue(missing.endsWith("it wrote nothing to stderr"), missing);
        Files.write(expected.resolve("guest-1.bin"), new byte[3]);
        String wrong = fails("sh -c 'cp \"$0\"/* \"$1\"/' " + expected + " {out}", 60);
        assertTrue(wrong.contains("{out}/guest-1.bin: 3 bytes, but range 1 ('arg2 y.bin') of the capture holds 4000"), wrong);
        String noOut = fails("true", 60);
        assertTrue(noOut.contains("the command never names {out}"), noOut);
    }

    @Test
    void a_program_that_cannot_start_is_named_with_the_os_error() throws Exception {
        String absent = fails(dir.resolve("no-such-emu") + " {capture} {out}", 60);
        assertTrue(absent.contains("cannot start the program " + dir.resolve("no-such-emu")
                + ": error=2, No such file or directory"), absent);
        Path notExecutable = Files.writeString(dir.resolve("emu.sh"), "#!/bin/sh\n");
        String denied = fails(notExecutable + " {capture}", 60);
        assertTrue(denied.contains("cannot start the program " + notExecutable + ": error=13, Permission denied"), denied);
    }

    @Test
    void a_program_past_its_time_limit_is_killed_with_what_it_started() throws Exception {
        // the program's child blocks for good opening a fifo no one writes: only the time limit ends the run
        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mk.waitFor());
        Path pid = dir.resolve("child.pid");
        String m = fails("sh -c 'echo emu: waiting >&2; cat \"$0\" > /dev/null & echo $! > \"$1\"; wait' " + fifo + " " + pid, 1);
        assertTrue(m.contains("timed out: the program did not finish within 1 s (--device-timeout); stopped it and the 1 "
                + "process(es) it started; the end of its stderr:\n  emu: waiting"), m);
        long child = Long.parseLong(Files.readString(pid).strip());
        assertFalse(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "the program's child is gone too");
    }
}
