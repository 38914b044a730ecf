package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * What the Vulkan capture tests share: input files in a test's folder, {@code capture build --source} with the
 * decoder's cross-check, {@code replay run} against the recorded lavapipe run or through {@code --device
 * cuda-cpu}, and the run's summary.
 */
final class VulkanTestSupport {
    private static final String DECODED = "(?s).*decoder: all \\d+ instructions read as RADV prints them.*";

    private final Path dir;

    VulkanTestSupport(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** ACO wave64 by default; ACO and LLVM, wave32 and wave64 with -Dreplay.amber.all=true (as the Amber corpus). */
    static Stream<Arguments> compilers() {
        List<Arguments> all = List.of(Arguments.of("aco", 64), Arguments.of("aco", 32), Arguments.of("llvm", 64),
                Arguments.of("llvm", 32));
        return (Boolean.getBoolean("replay.amber.all") ? all : all.subList(0, 1)).stream();
    }

    Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    /** {@code n} bytes of a pattern that {@code seed} varies. */
    Path bytes(String name, int n, int seed) throws IOException {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * (29 + 2 * seed) + 7 * seed + (i >> 5));
        }
        Path p = dir.resolve(name);
        Files.write(p, b);
        return p;
    }

    /** {@code n} little-endian 32-bit words, word i being {@code f(i)}. */
    Path words(String name, int n, IntUnaryOperator f) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putInt(f.applyAsInt(i));
        }
        Path p = dir.resolve(name);
        Files.write(p, b.array());
        return p;
    }

    /** What {@code replay run --out OUT} summarised, or why there is nothing (for assertion messages). */
    static String summary(Path out) {
        try {
            return Files.readString(out.resolve("summary.txt"));
        } catch (IOException e) {
            return "(no summary: " + e.getMessage() + ")";
        }
    }

    /** The little-endian words of what the host model left in guest range {@code range} of a run in {@code out}. */
    static ByteBuffer hostRange(Path out, int range) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(out.resolve("host").resolve("guest-" + range + ".bin")))
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /** {@code capture build --source} of {@code source} (written as NAME.comp) to NAME.capture, as given. */
    CliRun tryBuild(String name, String source, String groups, List<String> options) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("capture", "build", "--source", write(name + ".comp", source).toString(),
                "--groups", groups, "-o", dir.resolve(name + ".capture").toString()));
        cmd.addAll(options);
        return CliRun.of(cmd.toArray(String[]::new));
    }

    /** As {@link #tryBuild}, asserting that it built and that the decoder read every instruction as RADV prints it. */
    Path build(String name, String source, String groups, List<String> options) throws IOException {
        CliRun built = tryBuild(name, source, groups, options);
        assertEquals(0, built.exitCode(), built.err());
        assertTrue(built.out().matches(DECODED), built.out());
        return dir.resolve(name + ".capture");
    }

    /**
     * {@code replay run --every-group} of a capture against its recorded run, with {@code options} (a view, a
     * tolerance); asserts exit 0, the result equal and no fault, and returns the summary.
     */
    String runEqual(Path capture, String... options) {
        String name = capture.getFileName().toString().replace(".capture", "");
        Path out = dir.resolve(name + "-run");
        List<String> cmd = new ArrayList<>(List.of("run", capture.toString(), "--every-group", "--out", out.toString()));
        cmd.addAll(List.of(options));
        CliRun ran = CliRun.of(cmd.toArray(String[]::new));
        assertEquals(0, ran.exitCode(), () -> summary(out) + ran.err());
        String s = summary(out);
        assertTrue(s.contains("result          equal"), s);
        assertTrue(s.contains("faults          0"), s);
        return s;
    }

    /**
     * Builds {@code source} with {@code compiler} and {@code wave} and runs it against lavapipe with range 0 read as
     * f32 within 2 ulps (float results through unorm texels: lavapipe's conversion, measured); returns the summary.
     */
    String buildAndRun(String name, String source, String groups, List<String> bindings, String compiler, int wave)
            throws IOException {
        List<String> options = new ArrayList<>(List.of("--compiler", compiler, "--wave" + wave));
        options.addAll(bindings);
        return runEqual(build(name, source, groups, options), "--view", "0=f32", "--ulp", "2");
    }

    /** {@code replay run --every-group --device cuda-cpu}: the translation equal to the host model, no group faulted. */
    void equalOnCudaCpu(Path capture) {
        String name = capture.getFileName().toString().replace(".capture", "");
        Path out = dir.resolve(name + "-cuda");
        CliRun ran = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu", "--out", out.toString());
        assertEquals(0, ran.exitCode(), () -> summary(out) + ran.err());
        assertTrue(summary(out).contains("result          equal"), () -> summary(out));
        assertTrue(summary(out).contains("0 group(s) faulted"), () -> summary(out));
    }

    /** Builds without a reference run (for inputs that must be refused), to x.capture. */
    CliRun buildNoReference(Path src, String groups, List<String> bindings) {
        List<String> cmd = new ArrayList<>(List.of("capture", "build", "--source", src.toString(), "--groups", groups,
                "--no-reference", "-o", dir.resolve("x.capture").toString()));
        cmd.addAll(bindings);
        return CliRun.of(cmd.toArray(String[]::new));
    }
}
