package org.replayfarm.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.gpunode.device.ExecAllowList;

/**
 * A job sent over the API may have the coordinator run a program as its device (exec:COMMAND) only when the
 * coordinator was started naming that program (--allow-exec-device): any other would run whatever a client asks.
 */
@Tag("unit")
class JobRequestExecTest {
    private static final String SHA = "a".repeat(64);

    @TempDir
    Path dir;

    private static byte[] job(String device, String more) {
        return ("{\"capture\": \"" + SHA + "\", \"groups\": \"every\", \"device\": \"" + device.replace("\"", "\\\"")
                + "\"" + more + "}").getBytes();
    }

    private Path executable(String name) throws Exception {
        Path p = Files.writeString(dir.resolve(name), "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void exec_is_refused_on_a_coordinator_that_allows_no_program() {
        String m = assertThrows(JobRequest.Invalid.class, () -> JobRequest.parse(job("exec:sh -c 'id' sh {out}", "")))
                .getMessage();
        assertTrue(m.startsWith("'device': exec:COMMAND runs a program on the coordinator's machine, which a job sent "
                + "over the API may do only when the coordinator was started with --allow-exec-device naming that "
                + "program; this one allows none"), m);
    }

    @Test
    void only_the_programs_allowed_run_compared_as_real_paths() throws Exception {
        Path emu = executable("emu");
        Path other = executable("other");
        Path link = Files.createSymbolicLink(dir.resolve("emu-link"), emu);
        ExecAllowList allowed = ExecAllowList.of(List.of(dir.resolve("./emu").toString()));
        assertEquals(List.of(emu.toRealPath()), allowed.programs());

        JobRequest ok = JobRequest.parse(job("exec:" + link + " --run {capture} {out}", ", \"device_timeout_seconds\": 30"),
                allowed);
        DeviceChoice device = ok.compare().device();
        assertEquals(DeviceChoice.Kind.EXEC, device.kind());
        assertEquals(link + " --run {capture} {out}", device.label());
        assertEquals(30, device.timeoutSeconds());
        // what replay submit sends reads back the same
        JobRequest again = JobRequest.parse(ok.toJson().toString().getBytes(), allowed);
        assertEquals(device.spelling(), again.compare().device().spelling());
        assertEquals(30, again.compare().device().timeoutSeconds());

        String refused = assertThrows(JobRequest.Invalid.class,
                () -> JobRequest.parse(job("exec:" + other + " {capture}", ""), allowed)).getMessage();
        assertTrue(refused.startsWith("'device': the program '" + other + "' (" + other.toRealPath() + ") is not one this "
                + "coordinator allows") && refused.endsWith("; allowed: [" + emu.toRealPath() + "]"), refused);
        String viaOut = assertThrows(JobRequest.Invalid.class,
                () -> JobRequest.parse(job("exec:{out}/emu", ""), allowed)).getMessage();
        assertTrue(viaOut.contains("(named through {capture} or {out}) is not one this coordinator allows"), viaOut);
        String badTimeout = assertThrows(JobRequest.Invalid.class,
                () -> JobRequest.parse(job("exec:" + emu, ", \"device_timeout_seconds\": 0"), allowed)).getMessage();
        assertTrue(badTimeout.startsWith("'device_timeout_seconds' must be a positive integer"), badTimeout);
    }

    @Test
    void a_bare_name_is_looked_up_on_path_and_an_unknown_one_refused_at_start() {
        ExecAllowList sh = ExecAllowList.of(List.of("sh"));
        JobRequest ok = assertDoesNotThrow(() -> JobRequest.parse(job("exec:sh -c 'exit 0'", ""), sh));
        assertEquals("sh -c 'exit 0'", ok.compare().device().label());
        String unknown = assertThrows(IllegalArgumentException.class,
                () -> ExecAllowList.of(List.of("no-such-program-on-path"))).getMessage();
        assertEquals("--allow-exec-device no-such-program-on-path: no executable of that name on PATH", unknown);
    }
}
