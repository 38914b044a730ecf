package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * Every example is rebuilt from source with the commands in its BUILD file (clang-19, then replay
 * commands: generating inputs, capture build, the recorded run attached with native-run and add-run) and
 * must come out byte-identical to the committed code object and capture, recorded run included.
 */
@Tag("unit")
class ExampleRebuildTest {
    @TempDir
    Path dir;

    @Test
    void saxpy_code_object_and_capture_with_its_native_run_rebuild_byte_identical_from_source() throws Exception {
        rebuild("saxpy", "saxpy.o", "saxpy.capture");
    }

    @Test
    void shadow_pass_code_object_and_capture_with_its_reference_run_rebuild_byte_identical_from_source() throws Exception {
        rebuild("shadow-pass", "shadow.o", "shadow.capture");
    }

    /** A HIP example built with the project's flow: BUILD starts with capture build --source (no code object kept). */
    @Test
    void hip_reduce_capture_with_its_native_run_rebuilds_byte_identical_from_source() throws Exception {
        rebuild("hip-reduce", null, "reduce.capture");
    }

    /** A Vulkan compute shader through RADV (ACO), lavapipe's run recorded: BUILD is one capture build --source. */
    @Test
    void bloom_tiles_vulkan_capture_with_lavapipes_run_rebuilds_byte_identical_from_source() throws Exception {
        rebuild("bloom-tiles", null, "bloom.capture");
    }

    private void rebuild(String example, String object, String capture) throws Exception {
        Path source = Toolchain.root().resolve("examples").resolve(example);
        List<String> lines = Files.readAllLines(source.resolve("BUILD")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertTrue(lines.size() >= 2, "BUILD holds the compile command (or capture build --source), then replay commands");
        try (var files = Files.list(source)) {
            for (Path f : files.toList()) {
                if (Files.isRegularFile(f) && (object == null || !f.getFileName().toString().equals(object))
                        && !f.getFileName().toString().equals(capture)) {
                    Files.copy(f, dir.resolve(f.getFileName()));
                }
            }
        }
        if (object != null) {
            List<String> compile = words(lines.get(0));
            assertEquals("clang-19", compile.get(0));
            Toolchain.run(dir, compile);
            assertArrayEquals(Files.readAllBytes(source.resolve(object)), Files.readAllBytes(dir.resolve(object)),
                    object + " rebuilt by clang-19 differs from the committed one");
        }

        for (String line : lines.subList(object != null ? 1 : 0, lines.size())) {
            List<String> command = new ArrayList<>(words(line));
            assertEquals("replay", command.remove(0), line);
            // the commands name files relative to the example: resolve them in the scratch copy
            for (int i = 0; i < command.size(); i++) {
                String a = command.get(i);
                String previous = i > 0 ? command.get(i - 1) : "";
                if (List.of("--elf", "--asm", "--source", "-o", "--out", "--from").contains(previous)
                        || (!a.startsWith("-") && Files.exists(dir.resolve(a)) && !previous.equals("--label"))) {
                    command.set(i, dir.resolve(a).toString());
                } else {
                    // --binding SET.BINDING=KIND:PATH: the binding kept, the rest resolved as a KIND:PATH argument
                    java.util.regex.Matcher binding = java.util.regex.Pattern.compile("(\\d+\\.\\d+=)(.*)").matcher(a);
                    String prefix = "";
                    if (binding.matches()) {
                        prefix = binding.group(1);
                        a = binding.group(2);
                    }
                    for (String kind : List.of("buffer:", "bvh:", "image:raw:", "image:")) {
                        if (a.startsWith(kind)) {
                            // KIND:PATH[,options]: the path resolved, the options after it kept as they are
                            command.set(i, prefix + kind + dir.resolve(a.substring(kind.length())));
                            break;
                        }
                    }
                }
            }
            CliRun run = CliRun.of(command.toArray(String[]::new));
            assertEquals(0, run.exitCode(), line + "\n" + run.out() + run.err());
        }
        assertArrayEquals(Files.readAllBytes(source.resolve(capture)), Files.readAllBytes(dir.resolve(capture)),
                capture + " rebuilt (with its recorded runs) differs from the committed one");
    }

    /** A BUILD line split into words; double quotes keep spaces inside one word. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (char c : line.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
                any = true;
            } else if (c == ' ' && !quoted) {
                if (any) {
                    words.add(w.toString());
                }
                w.setLength(0);
                any = false;
            } else {
                w.append(c);
                any = true;
            }
        }
        if (any) {
            words.add(w.toString());
        }
        assertTrue(!quoted, "unbalanced quote in: " + line);
        return words;
    }
}
