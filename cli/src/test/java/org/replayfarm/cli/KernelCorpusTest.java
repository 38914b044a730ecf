package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.cli.harness.NativeHarness;

/**
 * The host model against native execution of the same source: every kernel in
 * {@code src/test/resources/kernels} is compiled by clang-19 for gfx1030 (at -O0 and -O2, wave32 and
 * wave64), built into a capture with {@code replay capture build}, evaluated with {@code replay eval},
 * and compared bit for bit with the same source compiled natively by clang-19 for x86-64 and run by a
 * small C harness (one thread per work-item, {@code -ffp-contract=off} on both sides, no fast-math, half
 * operations rounded one by one: {@link NativeHarness#COMPILER_FLAGS}).
 * Kernels whose results the hardware only approximates say so ({@code //! tolerance f32 N}: N ulps).
 * No expected output is written by hand. {@code -Dreplay.kernels=GLOB} (a file-name glob, e.g.
 * {@code 3*_*.cl}) runs only the matching kernels; by default every kernel runs.
 */
@Tag("corpus")
class KernelCorpusTest {
    @TempDir
    Path dir;

    /** Where each kernel's native run (per wave size) left its outputs: the dynamic tests share one instance. */
    private final Map<String, Path> nativeRuns = new HashMap<>();

    /**
     * A kernel file's header: {@code //! kernel NAME}, {@code //! groups ...}, {@code //! arg ...}, {@code //! tolerance ...}.
     * Arguments: {@code buffer TYPE COUNT GEN [SEED]}, {@code zeros BYTES}, {@code local BYTES} (a __local pointer),
     * a by-value {@code KIND VALUE} or {@code KINDxN V1,..,VN} (KIND i8 u8 i16 u16 f16 i32 u32 f32 i64 u64 f64), or
     * {@code bytes HEX C-EXPRESSION} (a struct by value: its bytes for the device, the C value for the native build).
     */
    record Spec(Path source, String kernel, String groups, String size, List<String[]> args, int toleranceUlps,
                boolean library) {
        /** Whether the kernel is built with the project's flow (capture build --source: the device libraries). */
        boolean fromSource() {
            return library || source.toString().endsWith(".hip");
        }

        boolean hip() {
            return source.toString().endsWith(".hip");
        }

        static Spec read(Path source) throws IOException {
            String kernel = null;
            String groups = "1";
            String size = "64";
            int tolerance = 0;
            boolean library = false;
            List<String[]> args = new ArrayList<>();
            for (String line : Files.readAllLines(source)) {
                if (!line.startsWith("//! ")) {
                    continue;
                }
                String[] w = line.substring(4).trim().split("\\s+");
                switch (w[0]) {
                    case "kernel" -> kernel = w[1];
                    case "groups" -> {
                        groups = w[1];
                        size = w[3];
                    }
                    case "arg" -> args.add(java.util.Arrays.copyOfRange(w, 1, w.length));
                    case "tolerance" -> tolerance = Integer.parseInt(w[2]);
                    case "library" -> library = true;
                    default -> throw new IllegalStateException(source + ": unknown header '" + line + "'");
                }
            }
            return new Spec(source, kernel, groups, size, args, tolerance, library);
        }

        long groupCount() {
            long n = 1;
            for (String s : groups.split(",")) {
                n *= Long.parseLong(s);
            }
            return n;
        }
    }

    @org.junit.jupiter.api.AfterAll
    static void translations_compiled() throws Exception {
        CudaCpuCorpus.finish();
    }

    @TestFactory
    Stream<DynamicTest> every_kernel_evaluates_bit_for_bit_like_its_native_build() throws IOException {
        Path kernels = Toolchain.root().resolve("cli/src/test/resources/kernels");
        List<Path> sources;
        try (var files = Files.list(kernels)) {
            sources = files.filter(p -> p.toString().endsWith(".cl") || p.toString().endsWith(".hip")).sorted().toList();
        }
        assertTrue(sources.size() >= 84, "at least 84 kernels, found " + sources.size());
        String only = System.getProperty("replay.kernels", "");
        if (!only.isBlank()) {
            PathMatcher matcher = kernels.getFileSystem().getPathMatcher("glob:" + only);
            sources = sources.stream().filter(p -> matcher.matches(p.getFileName())).toList();
            assertTrue(!sources.isEmpty(), "no kernel matches -Dreplay.kernels=" + only);
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path source : sources) {
            for (String opt : List.of("-O2", "-O0")) {
                for (boolean wave64 : List.of(false, true)) {
                    String name = source.getFileName() + " " + opt + (wave64 ? " wave64" : " wave32");
                    tests.add(DynamicTest.dynamicTest(name, () -> {
                        try {
                            check(Spec.read(source), opt, wave64);
                        } catch (AssertionError e) {
                            throw new AssertionError(name + ": " + e.getMessage(), e);
                        }
                    }));
                }
            }
        }
        return tests.stream();
    }

    private void check(Spec spec, String opt, boolean wave64) throws Exception {
        Path work = Files.createTempDirectory(dir, spec.kernel() + opt + (wave64 ? "w64" : "w32"));
        String kernelFile = spec.hip() ? "kernel.hip" : "kernel.cl";
        Files.copy(spec.source(), work.resolve(kernelFile));
        // inputs, generated from the header (seeded, so both sides see the same bytes)
        List<String> buildArgs = new ArrayList<>();
        List<Path> buffers = new ArrayList<>();
        List<String> nativeArgs = new ArrayList<>();
        List<Integer> locals = new ArrayList<>();
        int b = 0;
        for (String[] a : spec.args()) {
            switch (a[0]) {
                case "buffer", "zeros" -> {
                    Path file = work.resolve("in" + b + ".bin");
                    Files.write(file, a[0].equals("zeros") ? new byte[Integer.parseInt(a[1])] : generate(a));
                    buildArgs.add("buffer:" + file);
                    buffers.add(file);
                    nativeArgs.add("(void *) __replay_buf[" + b + "]");
                    b++;
                }
                case "f32" -> {
                    buildArgs.add("f32:" + a[1]);
                    nativeArgs.add(String.format("__replay_f32(0x%08xu)", Float.floatToRawIntBits(Float.parseFloat(a[1]))));
                }
                case "i32", "u32" -> {
                    buildArgs.add(a[0] + ":" + a[1]);
                    nativeArgs.add("(" + (a[0].equals("i32") ? "int" : "uint") + ") " + a[1] + (a[0].equals("u32") ? "u" : ""));
                }
                case "u64" -> {
                    buildArgs.add("u64:" + a[1]);
                    nativeArgs.add("(ulong) " + a[1] + "ul");
                }
                case "local" -> {
                    buildArgs.add("local:" + a[1]);
                    nativeArgs.add("(void *) __replay_local" + locals.size());
                    locals.add(Integer.parseInt(a[1]));
                }
                case "bytes" -> {
                    // a struct by value: its bytes for the device, the C initializer for the native build
                    buildArgs.add("bytes:" + a[1]);
                    nativeArgs.add(String.join(" ", java.util.Arrays.copyOfRange(a, 2, a.length)));
                }
                default -> {
                    // a scalar or vector by value, spelled for the native build as a C literal of its type (the
                    // values are written exactly representable, so C's conversion and the device's agree)
                    String kind = a[0];
                    int x = kind.indexOf('x');
                    String type = NativeHarness.cType(x < 0 ? kind : kind.substring(0, x)) + (x < 0 ? "" : kind.substring(x + 1));
                    buildArgs.add(kind + ":" + a[1]);
                    nativeArgs.add(x < 0 ? "((" + type + ") (" + a[1] + "))" : "((" + type + ") {" + a[1] + "})");
                }
            }
        }
        // the device side: clang-19 for gfx1030, replay capture build, replay eval
        List<String> build = new ArrayList<>(List.of("capture", "build"));
        if (spec.fromSource()) {
            // the project's flow: capture build --source (ROCm's device libraries, -ffp-contract=off; HIP's prelude)
            build.addAll(List.of("--source", spec.source().toString(), "-O", opt.substring(2)));
            if (wave64) {
                build.add("--wave64");
            }
        } else {
            // include/replay-cl.h: get_global_id, barrier and their kin over the amdgcn builtins (no device library)
            List<String> clang = new ArrayList<>(List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa",
                    "-mcpu=gfx1030", "-nogpulib", "-include", Toolchain.root().resolve("include/replay-cl.h").toString(),
                    opt, "-ffp-contract=off", "-c", "kernel.cl", "-o", "kernel.o"));
            if (wave64) {
                clang.add(clang.size() - 4, "-mwavefrontsize64");
            }
            Toolchain.run(work, clang);
            build.addAll(List.of("--elf", work.resolve("kernel.o").toString()));
        }
        build.addAll(List.of("--kernel", spec.kernel(), "--groups", spec.groups(), "--group-size", spec.size()));
        for (String a : buildArgs) {
            build.add("--arg");
            build.add(a);
        }
        build.addAll(List.of("-o", work.resolve("k.capture").toString()));
        CliRun built = CliRun.of(build.toArray(String[]::new));
        assertEquals(0, built.exitCode(), built.err());
        CliRun eval = CliRun.of("eval", work.resolve("k.capture").toString(), "--every-group", "--threads", "2",
                "--out", work.resolve("out").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        tiersAgree(spec.source().getFileName() + " " + opt + (wave64 ? " wave64" : " wave32"), work.resolve("k.capture"));
        keepForGpuCheck(spec, opt, wave64, work);
        // the native side: the same source, clang-19 for x86-64, one thread per work-item; its result does not
        // depend on the device build's -O level, so it is built and run once per kernel and wave size
        Path reference = nativeRuns.get(spec.source() + (wave64 ? " wave64" : " wave32"));
        if (reference == null) {
            reference = work;
            runNative(spec, work, buffers, locals, nativeArgs, wave64);
            nativeRuns.put(spec.source() + (wave64 ? " wave64" : " wave32"), work);
        }
        for (int i = 0; i < buffers.size(); i++) {
            byte[] host = Files.readAllBytes(work.resolve("out/host/guest-" + i + ".bin"));
            compare(spec, i, host, Files.readAllBytes(reference.resolve("native" + i + ".bin")));
        }
        // the translator (issue 13): the same capture through cuda-cpu, against the host model
        CudaCpuCorpus.check(spec.source().getFileName() + " " + opt + (wave64 ? " wave64" : " wave32"),
                work.resolve("k.capture"), work, spec.toleranceUlps(), buffers.size());
    }

    /**
     * Every group of the capture on the three host-model tiers, bit for bit: stores, texels, atomics, the fault
     * record, the instruction, lane and fidelity counts and every wave's final registers. The compiled tier runs
     * twice: compiling each run on its first visit (so that code run once runs compiled too) and at its default
     * threshold (runs first stepped, then compiled, as in a real evaluation).
     */
    private static void tiersAgree(String where, Path capture) throws Exception {
        org.replayfarm.evalnode.hostmodel.Kernel kernel = new org.replayfarm.evalnode.hostmodel.Kernel(
                org.replayfarm.model.capture.CaptureFile.open(capture));
        var reference = new org.replayfarm.evalnode.hostmodel.HostModel(kernel,
                org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET,
                org.replayfarm.evalnode.hostmodel.HostModel.Tier.REFERENCE);
        List<org.replayfarm.evalnode.hostmodel.HostModel> others = List.of(
                new org.replayfarm.evalnode.hostmodel.HostModel(kernel,
                        org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET,
                        org.replayfarm.evalnode.hostmodel.HostModel.Tier.FAST),
                new org.replayfarm.evalnode.hostmodel.HostModel(kernel,
                        org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET,
                        org.replayfarm.evalnode.hostmodel.HostModel.Tier.COMPILED, 1),
                new org.replayfarm.evalnode.hostmodel.HostModel(kernel,
                        org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET,
                        org.replayfarm.evalnode.hostmodel.HostModel.Tier.COMPILED));
        for (int[] g : org.replayfarm.evalnode.eval.GroupSelection.everyGroup().resolve(kernel.dispatch())) {
            String expected = describe(reference.runKeepingState(g[0], g[1], g[2]));
            for (var model : others) {
                assertEquals(expected, describe(model.runKeepingState(g[0], g[1], g[2])), where + " group "
                        + java.util.Arrays.toString(g) + ": the " + model.tier().name().toLowerCase(java.util.Locale.ROOT)
                        + " tier against the reference tier");
            }
        }
    }

    private static String describe(org.replayfarm.evalnode.hostmodel.HostModel.Run run) {
        var r = run.result();
        StringBuilder s = new StringBuilder();
        s.append("fault ").append(r.fault()).append("\ncounts ").append(r.waveInstructions()).append(' ')
                .append(r.laneInstructions()).append(' ').append(r.exact()).append(' ').append(r.approximate())
                .append(' ').append(r.unsupported()).append('\n');
        r.stores().forEach(st -> s.append("store ").append(st.range()).append('+').append(st.offset()).append(' ')
                .append(java.util.Arrays.toString(st.data())).append('\n'));
        r.texels().forEach(t -> s.append("texel ").append(t.image()).append(':').append(t.texel()).append(' ')
                .append(java.util.Arrays.toString(t.value())).append('\n'));
        r.atomics().forEach(a -> s.append("atomic ").append(a).append('\n'));
        r.texelAtomics().forEach(a -> s.append("texel atomic ").append(a).append('\n'));
        for (var w : run.group().waves()) {
            s.append("wave ").append(w.index()).append(" pc ").append(Long.toHexString(w.pc())).append(" scc ")
                    .append(w.scc()).append(" mode ").append(Integer.toHexString(w.mode())).append('\n');
            for (int i = 0; i < 128; i++) {
                s.append(Integer.toHexString(w.sgpr(i))).append(' ');
            }
            s.append('\n').append(java.util.Arrays.toString(w.vgprFile())).append('\n');
        }
        return s.toString();
    }

    /**
     * gpu-node/gpu-check-prepare.sh runs the corpus with {@code -Dreplay.corpus.keep=DIR}: each capture and
     * the host model's outputs go to {@code DIR/<kernel>-<opt>-<wave>/} for the GPU check to run there.
     */
    private static void keepForGpuCheck(Spec spec, String opt, boolean wave64, Path work) throws IOException {
        String keep = System.getProperty("replay.corpus.keep", "");
        if (keep.isBlank()) {
            return;
        }
        String name = spec.source().getFileName().toString().replace(".cl", "") + opt + (wave64 ? "-w64" : "-w32");
        Path to = Files.createDirectories(Path.of(keep).resolve(name));
        Files.copy(work.resolve("k.capture"), to.resolve("k.capture"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path host = Files.createDirectories(to.resolve("host"));
        try (var files = Files.list(work.resolve("out/host"))) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith("guest-")).toList()) {
                Files.copy(f, host.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Builds the harness for the kernel and runs it: {@code native<i>.bin} in {@code work} for each buffer. */
    private static void runNative(Spec spec, Path work, List<Path> buffers, List<Integer> locals, List<String> nativeArgs,
                                  boolean wave64) throws IOException {
        Files.writeString(work.resolve("prelude.h"), spec.hip() ? NativeHarness.hipPrelude() : NativeHarness.prelude());
        NativeHarness.writeNativeKernel(work, spec.source());
        Files.writeString(work.resolve("harness.c"), NativeHarness.source(spec.kernel(), triple(spec.groups()),
                triple(spec.size()), buffers.size(), locals.stream().mapToInt(Integer::intValue).toArray(),
                String.join(", ", nativeArgs), true));
        Toolchain.run(work, NativeHarness.compileCommand(work, wave64 ? 64 : 32, spec.groups().split(",").length, spec.hip(),
                List.of("-I", spec.source().getParent().toString())));
        List<String> run = new ArrayList<>(List.of("./native"));
        for (int i = 0; i < buffers.size(); i++) {
            run.add(buffers.get(i).toString());
            run.add(work.resolve("native" + i + ".bin").toString());
        }
        Toolchain.run(work, run);
    }

    private static void compare(Spec spec, int buffer, byte[] host, byte[] reference) {
        assertEquals(reference.length, host.length, "buffer " + buffer + " size");
        ByteBuffer h = ByteBuffer.wrap(host).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer r = ByteBuffer.wrap(reference).order(ByteOrder.LITTLE_ENDIAN);
        int differing = 0;
        String first = null;
        if (spec.toleranceUlps() > 0) {
            for (int i = 0; i + 4 <= host.length; i += 4) {
                int a = h.getInt(i);
                int c = r.getInt(i);
                if (a != c && !(ulps(a, c) <= spec.toleranceUlps())) {
                    differing++;
                    if (first == null) {
                        first = String.format("word %d: host %s (0x%08x), native %s (0x%08x)", i / 4,
                                Float.intBitsToFloat(a), a, Float.intBitsToFloat(c), c);
                    }
                }
            }
        } else {
            for (int i = 0; i < host.length; i++) {
                if (host[i] != reference[i]) {
                    differing++;
                    if (first == null) {
                        int w = i & ~3;
                        first = String.format("byte %d (word %d): host 0x%08x, native 0x%08x", i, w / 4,
                                w + 4 <= host.length ? h.getInt(w) : host[i], w + 4 <= host.length ? r.getInt(w) : reference[i]);
                    }
                }
            }
        }
        if (differing > 0) {
            fail(spec.kernel() + ": buffer " + buffer + " differs from the native build in " + differing
                    + (spec.toleranceUlps() > 0 ? " words (beyond " + spec.toleranceUlps() + " ulps)" : " bytes")
                    + "; first at " + first);
        }
    }

    private static long ulps(int a, int b) {
        if (Float.isNaN(Float.intBitsToFloat(a)) && Float.isNaN(Float.intBitsToFloat(b))) {
            return 0;
        }
        long x = a < 0 ? 0x80000000L - (a & 0x7FFFFFFFL) : 0x80000000L + a;
        long y = b < 0 ? 0x80000000L - (b & 0x7FFFFFFFL) : 0x80000000L + b;
        return Math.abs(x - y);
    }

    /** Seeded input: {@code buffer TYPE COUNT GEN [SEED]}, GEN one of index, small, rand, pos, unit. */
    static byte[] generate(String[] a) {
        String type = a[1];
        int count = Integer.parseInt(a[2]);
        String gen = a[3];
        long seed = a.length > 4 ? Long.parseLong(a[4]) : 1;
        SplittableRandom random = new SplittableRandom(seed);
        int width = switch (type) {
            case "i8", "u8" -> 1;
            case "i16", "u16", "f16" -> 2;
            case "i64", "u64", "f64" -> 8;
            default -> 4;
        };
        ByteBuffer out = ByteBuffer.allocate(count * width).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            double d = switch (gen) {
                case "index" -> i;
                case "small" -> random.nextInt(101) - 50;
                case "pos" -> 0.125 + random.nextDouble() * 10;
                case "unit" -> random.nextDouble() * 2 - 1;
                case "rand" -> type.startsWith("f") ? (random.nextDouble() - 0.5) * 200 : random.nextLong();
                default -> throw new IllegalStateException("unknown generator " + gen);
            };
            long bits = (long) d;
            if (gen.equals("rand") && !type.startsWith("f")) {
                bits = random.nextLong();
            }
            switch (type) {
                case "f32" -> out.putFloat((float) d);
                case "f64" -> out.putDouble(d);
                case "f16" -> out.putShort(toHalf((float) d));
                default -> {
                    for (int k = 0; k < width; k++) {
                        out.put((byte) (bits >>> (8 * k)));
                    }
                }
            }
        }
        return out.array();
    }

    /** float to half, round to nearest even (inputs are small and normal in the corpus). */
    static short toHalf(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = bits >>> 16 & 0x8000;
        int exp = (bits >>> 23 & 0xFF) - 127 + 15;
        int mant = bits & 0x7FFFFF;
        if (exp <= 0) {
            return (short) sign;
        }
        int half = sign | exp << 10 | mant >>> 13;
        int rest = mant & 0x1FFF;
        if (rest > 0x1000 || rest == 0x1000 && (half & 1) != 0) {
            half++;
        }
        return (short) half;
    }

    private static int[] triple(String text) {
        String[] parts = (text + ",1,1").split(",");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }
}
