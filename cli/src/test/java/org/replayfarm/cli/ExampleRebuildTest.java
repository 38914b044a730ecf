package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Every example is rebuilt from source with the commands in its BUILD file (clang-19, then replay
 * capture build) and must come out byte-identical to the committed code object and capture.
 */
class ExampleRebuildTest {
    @TempDir
    Path dir;

    @Test
    void saxpy_code_object_and_capture_rebuild_byte_identical_from_source() throws Exception {
        rebuild("saxpy", "saxpy.o", "saxpy.capture");
    }

    private void rebuild(String example, String object, String capture) throws Exception {
        Path source = Toolchain.root().resolve("examples").resolve(example);
        List<String> lines = Files.readAllLines(source.resolve("BUILD")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertEquals(2, lines.size(), "BUILD holds the compile command and the capture build command");
        try (var files = Files.list(source)) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals(object) && !f.getFileName().toString().equals(capture)) {
                    Files.copy(f, dir.resolve(f.getFileName()));
                }
            }
        }
        List<String> compile = Arrays.asList(lines.get(0).split(" +"));
        assertEquals("clang-19", compile.get(0));
        Toolchain.run(dir, compile);
        assertArrayEquals(Files.readAllBytes(source.resolve(object)), Files.readAllBytes(dir.resolve(object)),
                object + " rebuilt by clang-19 differs from the committed one");

        List<String> build = new ArrayList<>(Arrays.asList(lines.get(1).split(" +")));
        assertEquals("replay", build.remove(0));
        // the command names files relative to the example: resolve them in the scratch copy
        for (int i = 0; i < build.size(); i++) {
            String a = build.get(i);
            if (i > 0 && List.of("--elf", "--asm", "-o", "--out").contains(build.get(i - 1))) {
                build.set(i, dir.resolve(a).toString());
            } else if (a.startsWith("buffer:")) {
                build.set(i, "buffer:" + dir.resolve(a.substring(7)));
            }
        }
        CliRun run = CliRun.of(build.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run.err());
        assertTrue(run.out().contains("sha256"), run.out());
        assertArrayEquals(Files.readAllBytes(source.resolve(capture)), Files.readAllBytes(dir.resolve(capture)),
                capture + " rebuilt differs from the committed one");
    }
}
