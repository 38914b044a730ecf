package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.replayfarm.model.testing.Toolchain;

/**
 * The project's own Amber corpus ({@code src/test/resources/amber}, every script written here) through
 * {@code replay amber}: RADV's code on the host model, compared with lavapipe, every EXPECT checked. By
 * default ACO wave64; {@code -Dreplay.amber.all=true} runs ACO and LLVM, wave32 and wave64.
 *
 * <p>{@link #OPEN} lists the scripts the farm does not pass yet, each with what it meets: they must still
 * fail (so a fix is noticed and the script moves out of the list), and every other script must pass.
 */
@Tag("corpus")
class AmberCorpusTest {
    /** Scripts that do not pass yet, and why (issue 33's closing note has the detail). */
    static final Map<String, String> OPEN = Map.ofEntries(
            Map.entry("99_graphics_refused.amber", "a graphics pipeline: refused by name, exit 2"));

    /** Options a script needs, and why. */
    static final Map<String, List<String>> OPTIONS = Map.of(
            // Vulkan bounds sin and cos by an absolute error (2^-11 in [-pi, pi]), not ulps: sin(3) = 0.1411 is 15 ulps
            // from lavapipe's, well inside that bound
            "46_transcendentals.amber", List.of("--ulp", "16"));

    @TestFactory
    Stream<DynamicTest> everyScript() throws Exception {
        Path root = Toolchain.root().resolve("cli/src/test/resources/amber");
        List<Path> scripts;
        try (var list = Files.list(root)) {
            scripts = list.filter(p -> p.toString().endsWith(".amber")).sorted().toList();
        }
        assertTrue(scripts.size() >= 50, "the corpus holds " + scripts.size() + " scripts");
        List<String[]> configs = new ArrayList<>();
        configs.add(new String[] {"aco", "--wave64"});
        if (Boolean.getBoolean("replay.amber.all")) {
            configs.add(new String[] {"aco", "--wave32"});
            configs.add(new String[] {"llvm", "--wave64"});
            configs.add(new String[] {"llvm", "--wave32"});
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path s : scripts) {
            for (String[] c : configs) {
                String name = s.getFileName().toString();
                tests.add(DynamicTest.dynamicTest(name + " " + c[0] + " " + c[1], () -> {
                    List<String> args = new ArrayList<>(List.of("amber", s.toString(), "--compiler", c[0], c[1]));
                    args.addAll(OPTIONS.getOrDefault(name, List.of()));
                    CliRun r = CliRun.of(args.toArray(String[]::new));
                    String last = r.out().lines().reduce((a, b) -> b).orElse("");
                    assertTrue(last.startsWith("amber: "), r.out() + r.err());
                    // the project's decoder reads every instruction of RADV's code as RADV's Assembly prints it
                    assertTrue(!r.out().contains("read differently from RADV"), r.out());
                    if (OPEN.containsKey(name)) {
                        assertNotEquals(0, r.exitCode(), name + " passes now: take it out of OPEN (" + OPEN.get(name) + ")");
                    } else {
                        assertEquals(0, r.exitCode(), r.out() + r.err());
                        assertTrue(last.matches("amber: \\d+ runs, \\d+ expects passed, 0 failed, 0 unsupported"), last);
                    }
                }));
            }
        }
        return tests.stream();
    }

    /** Scripts whose first run the translation does not run equal to the host model, and why. */
    static final Map<String, String> OPEN_CUDA_CPU = Map.of(
            "99_graphics_refused.amber", "a graphics pipeline: no capture");

    /** A sample that CI runs by default; -Dreplay.amber.cuda=true runs every script. */
    static final List<String> CUDA_CPU_SAMPLE = List.of("01_storage_basic.amber", "13_storage_image_rgba8.amber",
            "18_sampler_linear_separate.amber", "20_texel_buffers.amber", "25_atomic_exchange_compswap.amber",
            "28_subgroup_shuffle_broadcast.amber",
            "31_subgroup_scan_vs_reference.amber", "35_double.amber", "50_tile_classifier.amber",
            "55_msaa_texel_fetch.amber");

    /**
     * The translator against the host model on RADV's code: each script's first run built with
     * {@code capture build --amber}, then {@code replay run --device cuda-cpu} (the program translated to CUDA C,
     * built with g++ and run on the CPU) must be equal, bit for bit.
     */
    @TestFactory
    Stream<DynamicTest> firstRunsThroughTheTranslation(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path root = Toolchain.root().resolve("cli/src/test/resources/amber");
        List<Path> scripts;
        try (var list = Files.list(root)) {
            scripts = list.filter(p -> p.toString().endsWith(".amber")).sorted().toList();
        }
        boolean all = Boolean.getBoolean("replay.amber.cuda");
        return scripts.stream().filter(p -> all || CUDA_CPU_SAMPLE.contains(p.getFileName().toString()))
                .map(s -> DynamicTest.dynamicTest(s.getFileName() + " cuda-cpu", () -> {
                    String name = s.getFileName().toString();
                    Path capture = dir.resolve(name + ".capture");
                    CliRun built = CliRun.of("capture", "build", "--amber", s.toString(), "--run", "1", "-o", capture.toString());
                    if (name.equals("99_graphics_refused.amber")) {
                        assertNotEquals(0, built.exitCode());
                        return;
                    }
                    assertEquals(0, built.exitCode(), built.err());
                    Path out = dir.resolve(name + ".out");
                    CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu", "--out", out.toString());
                    String summary = Files.readString(out.resolve("summary.txt"));
                    if (OPEN_CUDA_CPU.containsKey(name)) {
                        assertNotEquals(0, run.exitCode(), name + " is equal now: take it out of OPEN_CUDA_CPU");
                    } else {
                        assertEquals(0, run.exitCode(), summary);
                        assertTrue(summary.contains("0 refused"), summary);
                    }
                }));
    }
}
