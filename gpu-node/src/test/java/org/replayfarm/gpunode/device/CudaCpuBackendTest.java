package org.replayfarm.gpunode.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.Differential;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The cuda-cpu backend's contract: outputs for a program that runs; the device failing (never the caller)
 * when the runner crashes or runs past its timeout, with what it printed; a refused translation named
 * instruction by instruction; the build cached by program hash (a second run compiles nothing).
 */
class CudaCpuBackendTest {
    @TempDir
    Path dir;

    private CaptureFile capture(String asm) throws Exception {
        return Differential.assemble(dir, asm, 32, 64, 2, List.of(new byte[64]), 0, 0);
    }

    @Test
    void runs_caches_and_reports_events() throws Exception {
        CaptureFile c = capture("s_mov_b32 s4, 7\ns_endpgm\n");
        CpuBuild build = new CpuBuild("g++", dir.resolve("cache"));
        CudaCpuBackend backend = new CudaCpuBackend(build, 120, 1_000_000);
        List<DeviceEvent> events = new ArrayList<>();
        DeviceRun run = backend.run(new DeviceRequest(c, c.identity()), events::add);
        assertEquals("cuda-cpu", run.kind());
        assertTrue(run.label().startsWith("CUDA C translation on the CPU, g++ "), run.label());
        assertEquals(c.metadata().getRangesCount(), run.ranges().size(), "every range comes back");
        assertNotNull(run.fidelity());
        assertEquals(2 * 2 * 2, run.fidelity().waveInstructions(), "2 groups of 2 waves, 2 instructions each");
        assertTrue(backend.lastOutcome().built().compiled(), "the first run compiles");
        assertTrue(events.get(0) instanceof DeviceEvent.Started && events.get(events.size() - 1)
                instanceof DeviceEvent.Finished, events.toString());
        backend.run(new DeviceRequest(c, c.identity()), e -> { });
        assertTrue(!backend.lastOutcome().built().compiled(), "the second run of the same program is cached");
    }

    @Test
    void a_crash_or_a_timeout_is_the_device_failing() throws Exception {
        CaptureFile spin = capture("loop:\ns_add_u32 s4, s4, 1\ns_branch loop\n");
        CpuBuild build = new CpuBuild("g++", dir.resolve("cache"));
        CudaCpuBackend slow = new CudaCpuBackend(build, 2, Long.MAX_VALUE);
        DeviceException timeout = assertThrows(DeviceException.class,
                () -> slow.run(new DeviceRequest(spin, spin.identity()), e -> { }));
        assertTrue(timeout.getMessage().contains("the device failed") && timeout.getMessage().contains("timed out"),
                timeout.getMessage());

        // a runner that crashes (stands in the cache where the program's build would be)
        CaptureFile c = capture("s_mov_b32 s5, 9\ns_endpgm\n");
        var t = new Translator().translate(ProgramInfo.of(c));
        Path cached = dir.resolve("cache").resolve(build.hash(t));
        Files.createDirectories(cached);
        Path runner = cached.resolve("runner");
        Files.writeString(runner, "#!/bin/sh\necho generated code went wrong >&2\nkill -SEGV $$\n");
        Files.setPosixFilePermissions(runner, PosixFilePermissions.fromString("rwxr-xr-x"));
        DeviceException crash = assertThrows(DeviceException.class,
                () -> new CudaCpuBackend(build, 60, 1000).run(new DeviceRequest(c, c.identity()), e -> { }));
        assertTrue(crash.getMessage().contains("the device failed") && crash.getMessage().contains("generated code went wrong"),
                crash.getMessage());
    }

    @Test
    void a_refused_translation_names_each_instruction() throws Exception {
        CaptureFile c = capture("s_setkill 1\ns_sethalt 0\ns_endpgm\n");
        DeviceException e = assertThrows(DeviceException.class, () -> new CudaCpuBackend(new CpuBuild("g++",
                dir.resolve("cache")), 60, 1000).run(new DeviceRequest(c, c.identity()), x -> { }));
        assertTrue(e.getMessage().contains("is refused (2 instructions)") && e.getMessage().contains("s_setkill")
                && e.getMessage().contains("s_sethalt"), e.getMessage());
    }
}
