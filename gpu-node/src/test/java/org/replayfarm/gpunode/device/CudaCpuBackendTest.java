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
import org.junit.jupiter.api.Tag;
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
@Tag("corpus")
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
    void a_given_translation_is_built_as_it_is_and_the_level_is_part_of_the_hash() throws Exception {
        // v_add_f32 and v_mul_f32 under IEEE rounding: the lanes' results must not depend on g++'s level
        CaptureFile c = Differential.assemble(dir, "v_cvt_f32_u32 v1, v0\nv_mul_f32 v2, 0x3dcccccd, v1\n"
                + "v_add_f32 v3, v2, 0x3f8ccccd\nv_fma_f32 v4, v3, v2, v1\nv_div_fixup_f32 v4, v4, v3, v2\n"
                + "global_store_dword_addtid v4, s[0:1]\ns_endpgm\n", 32, 32, 1, List.of(new byte[128]), 0, 0);
        var t = new Translator().translate(ProgramInfo.of(c));
        CpuBuild o0 = new CpuBuild("g++", dir.resolve("cache"), "-O0");
        CpuBuild o2 = new CpuBuild("g++", dir.resolve("cache"), "-O2");
        assertTrue(o0.flagsFor(t).contains("-O0") && !o0.flagsFor(t).contains("-O2"), o0.flagsFor(t).toString());
        assertTrue(!o0.hash(t).equals(o2.hash(t)), "the optimisation level is part of the cache key");
        CudaCpuBackend b0 = new CudaCpuBackend(o0, 120, 1_000_000);
        CudaCpuBackend b2 = new CudaCpuBackend(o2, 120, 1_000_000);
        DeviceRun r0 = b0.run(new DeviceRequest(c, c.identity()), e -> { }, t);
        DeviceRun r2 = b2.run(new DeviceRequest(c, c.identity()), e -> { }, t);
        assertTrue(b0.lastOutcome().translation() == t, "the given translation is the one built (no second one)");
        assertTrue(b0.lastOutcome().built().compiled() && b2.lastOutcome().built().compiled(), "two builds");
        assertEquals(r2.ranges().size(), r0.ranges().size());
        for (int i = 0; i < r0.ranges().size(); i++) {
            assertTrue(java.util.Arrays.equals(r2.rangeBytes(i), r0.rangeBytes(i)), "range " + i + " at -O0 and -O2");
        }
        assertEquals(r2.fidelity().laneInstructions(), r0.fidelity().laneInstructions());
        assertTrue(!java.util.Arrays.equals(new byte[128], r0.rangeBytes(0)), "the program stored its results");
        assertThrows(IllegalArgumentException.class, () -> new CpuBuild("g++", dir, "-ffast-math"));
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
