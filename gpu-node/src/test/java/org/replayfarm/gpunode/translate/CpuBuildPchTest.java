package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The runner's precompiled system header: made once per flag set and used by every build with those flags (g++
 * itself says so: {@code -H} marks a precompiled header it loaded with "!"), the cached build holding only its
 * sources and runner; a g++ that cannot make one still builds every program, from the header's text.
 */
@Tag("corpus")
class CpuBuildPchTest {
    @TempDir
    Path dir;

    private Translation translation(String asm) throws Exception {
        CaptureFile c = Differential.assemble(dir, asm, 32, 32, 1, List.of(new byte[128]), 0, 0);
        return new Translator().translate(ProgramInfo.of(c));
    }

    private static List<Path> pchDirs(Path cache) throws Exception {
        try (var s = Files.list(cache)) {
            return s.filter(p -> p.getFileName().toString().startsWith("pch-")).toList();
        }
    }

    @Test
    void one_precompiled_header_per_flag_set_and_g_plus_plus_loads_it() throws Exception {
        Path cache = dir.resolve("cache");
        CpuBuild build = new CpuBuild("g++", cache, "-O0");
        Translation a = translation("v_mov_b32 v1, 3\nglobal_store_dword_addtid v1, s[0:1]\ns_endpgm\n");
        Translation b = translation("v_mov_b32 v1, 5\nv_add_nc_u32 v1, v1, v0\nglobal_store_dword_addtid v1, s[0:1]\n"
                + "s_endpgm\n");
        CpuBuild.Built ba = build.build(a);
        CpuBuild.Built bb = build.build(b);
        assertTrue(ba.compiled() && bb.compiled(), "two programs, two builds");
        assertNotEquals(ba.hash(), bb.hash());
        List<Path> pch = pchDirs(cache);
        assertEquals(1, pch.size(), "one precompiled header for one flag set: " + pch);
        Path gch = pch.get(0).resolve(CpuBuild.SYSTEM_HEADER + ".gch");
        assertTrue(Files.size(gch) > 0, gch.toString());
        assertEquals(gch.toAbsolutePath(), build.precompiledHeader(build.flagsFor(a)), "made once, then reused");
        for (CpuBuild.Built x : List.of(ba, bb)) {
            Path d = x.runner().getParent();
            assertTrue(Files.isRegularFile(d.resolve(CpuBuild.SYSTEM_HEADER)), "the build's sources hold rt_sys.h");
            assertFalse(Files.exists(d.resolve(CpuBuild.SYSTEM_HEADER + ".gch"), java.nio.file.LinkOption.NOFOLLOW_LINKS),
                    "no link to the precompiled header is left in the cached build");
        }

        // g++ with the build's flags, the build's sources and the precompiled header beside rt_sys.h: it loads it
        Path copy = dir.resolve("copy");
        Files.createDirectories(copy);
        try (var s = Files.list(ba.runner().getParent())) {
            for (Path p : s.filter(p -> !p.getFileName().toString().equals("runner")).toList()) {
                Files.copy(p, copy.resolve(p.getFileName()));
            }
        }
        Files.createSymbolicLink(copy.resolve(CpuBuild.SYSTEM_HEADER + ".gch"), gch);
        List<String> cmd = new ArrayList<>(List.of("g++"));
        cmd.addAll(build.flagsFor(a));
        cmd.addAll(List.of("-H", "-fsyntax-only", "-I.", "rt_cpu_main.cpp"));
        String out = CpuBuild.run(cmd, copy, 120);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("! ") && l.contains("rt_sys.h.gch")),
                "g++ -H names the precompiled header it loaded:\n" + out.lines().limit(5).toList());

        // another flag set (-O2) gets its own
        CpuBuild o2 = new CpuBuild("g++", cache, "-O2");
        assertTrue(o2.build(a).compiled());
        assertEquals(2, pchDirs(cache).size(), "a second flag set, a second precompiled header");
    }

    @Test
    void a_compiler_that_cannot_precompile_still_builds_from_the_text() throws Exception {
        // a g++ that refuses headers (-x c++-header) and builds everything else
        Path gxx = dir.resolve("gxx-no-pch");
        Files.writeString(gxx, "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = c++-header ] && { echo 'no headers here' >&2; "
                + "exit 1; }; done\nexec g++ \"$@\"\n");
        Files.setPosixFilePermissions(gxx, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path cache = dir.resolve("cache2");
        CpuBuild build = new CpuBuild(gxx.toString(), cache, "-O0");
        Translation a = translation("v_mov_b32 v1, 7\nglobal_store_dword_addtid v1, s[0:1]\ns_endpgm\n");
        assertNull(build.precompiledHeader(build.flagsFor(a)), "no precompiled header from this compiler");
        CpuBuild.Built built = build.build(a);
        assertTrue(built.compiled() && Files.isExecutable(built.runner()), "the program builds all the same");
        assertEquals(List.of(), pchDirs(cache));
        try (var s = Files.list(cache)) {
            assertEquals(List.of(built.runner().getParent()), s.toList(), "nothing half-made is left in the cache");
        }
        assertNotNull(built.hash());
    }
}
