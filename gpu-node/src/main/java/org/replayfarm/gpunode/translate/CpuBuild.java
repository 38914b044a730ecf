package org.replayfarm.gpunode.translate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Writes a translation to a directory (kernel.cu, its headers, guest.s, BUILD) and builds the CPU runner
 * with g++, cached by the hash of everything that goes into the build: the same program on the same
 * compiler builds once.
 */
public final class CpuBuild {
    /** The g++ flags of the CPU runner (TRANSLATOR.md): no contraction, no fast-math, IEEE rounding modes honoured. */
    public static final List<String> GXX_FLAGS = List.of("-std=c++17", "-O2", "-ffp-contract=off",
            "-fno-strict-aliasing", "-frounding-math", "-w");
    /**
     * A translation whose kernel.cu is larger than this builds at -O0 instead: g++ -O2 on one function of tens of
     * thousands of lines (an -O0 corpus kernel fully unrolled, say) takes many minutes, -O0 seconds, and the result
     * is the same (no fast-math, rounding modes honoured at every level).
     */
    public static final int LARGE_SOURCE_BYTES = 256 * 1024;

    /**
     * The nvcc flags of the GPU build. {@code -DRT_INLINE_SHAPES}: the shared instruction bodies (Shapes) are
     * inlined again, so a PC sample lands in its guest instruction's {@code #line}.
     */
    public static final List<String> NVCC_FLAGS = List.of("-gencode", "arch=compute_90,code=[sm_90,compute_90]",
            "--fmad=false", "-prec-div=true", "-prec-sqrt=true", "-lineinfo", "-DRT_INLINE_SHAPES");

    /**
     * The nvcc flags of the corpus test's compile check, first step: the device flags ({@code --fmad=false},
     * precise division and square root, line info) for compute_90, to PTX ({@code -ptx}: front end and NVVM, cicc
     * at -O1), the shared bodies out of line (each compiled once). {@link #PTXAS_CHECK_FLAGS} then assembles that
     * PTX to sm_90 SASS: together every step of {@code nvcc -c} that sees device code. The device runner's fat
     * binary keeps {@link #NVCC_FLAGS}.
     */
    public static final List<String> NVCC_CHECK_FLAGS = List.of("-arch=compute_90", "--fmad=false", "-prec-div=true",
            "-prec-sqrt=true", "-lineinfo", "-Xcicc", "-O1", "-ptx");

    /**
     * The compile check's second step: ptxas from that PTX to sm_90, at -O0 and {@code -Ofc=max} (it checks, it does
     * not tune: the fast-compile level skips optimisations, about a third less ptxas time on the corpus).
     */
    public static final List<String> PTXAS_CHECK_FLAGS = List.of("-arch=sm_90", "-O0", "-Ofc=max", "-lineinfo");

    /**
     * The runner's system headers, which rt_cpu_main.cpp includes first: {@link #build} puts a precompiled copy
     * (rt_sys.h.gch, made once per flag set) beside it, so that g++ does not parse them again for every program.
     */
    public static final String SYSTEM_HEADER = "rt_sys.h";

    private final String gxx;
    private final Path cache;
    /** Per flag set, the precompiled system header (null: g++ could not make one; builds parse the text). */
    private final Map<List<String>, java.util.concurrent.CompletableFuture<Path>> precompiled =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final String optimisation;
    private final List<String> defines;
    private String version;

    /**
     * @param gxx   the g++ to build with
     * @param cache the directory builds are cached in (one subdirectory per hash)
     */
    public CpuBuild(String gxx, Path cache) {
        this(gxx, cache, null);
    }

    /**
     * @param optimisation the g++ optimisation flag every build uses ("-O0", "-O1", ...), or null for
     *                     {@link #gxxFlags(Translation)}'s choice by size. Float results do not depend on it (no
     *                     contraction, no fast-math, SSE2 arithmetic on x86-64, rounding modes honoured): the corpus
     *                     test builds at -O0, where g++ is cheapest for its small dispatches, and compares every
     *                     variant with the host model.
     */
    public CpuBuild(String gxx, Path cache, String optimisation) {
        this(gxx, cache, optimisation, List.of());
    }

    /**
     * @param defines macro definitions added to every build ({@code -DRT_INLINE_SHAPES}: the CPU runner built from the
     *                code the GPU build compiles, every instruction inline instead of runs of shared bodies)
     */
    public CpuBuild(String gxx, Path cache, String optimisation, List<String> defines) {
        if (optimisation != null && !optimisation.matches("-O[0-3s]")) {
            throw new IllegalArgumentException("not a g++ optimisation flag: " + optimisation);
        }
        for (String d : defines) {
            if (!d.matches("-D\\w+(=\\w+)?")) {
                throw new IllegalArgumentException("not a macro definition: " + d);
            }
        }
        this.gxx = gxx;
        this.cache = cache;
        this.optimisation = optimisation;
        this.defines = List.copyOf(defines);
    }

    /** This builder with {@code define} added to its macro definitions (the same compiler, cache and level). */
    public CpuBuild with(String define) {
        List<String> all = new ArrayList<>(defines);
        all.add(define);
        return new CpuBuild(gxx, cache, optimisation, all);
    }

    /** The g++ flags this builder uses for a translation (its fixed optimisation level, else by size; its defines). */
    public List<String> flagsFor(Translation t) {
        return flagsFor(t.source().length());
    }

    /** {@link #flagsFor(Translation)} for a kernel.cu of {@code kernelLength} characters. */
    private List<String> flagsFor(long kernelLength) {
        List<String> flags = optimisation == null ? gxxFlags(kernelLength)
                : GXX_FLAGS.stream().map(f -> f.equals("-O2") ? optimisation : f).toList();
        if (defines.isEmpty()) {
            return flags;
        }
        List<String> all = new ArrayList<>(flags);
        all.addAll(defines);
        return all;
    }

    /** g++'s version, e.g. "14.2.0" (the report's device label names it). */
    public synchronized String compilerVersion() throws IOException {
        if (version == null) {
            version = run(List.of(gxx, "-dumpfullversion"), null, 60).trim();
        }
        return version;
    }

    /** Writes kernel.cu, the headers, guest.s and BUILD into {@code dir} (the `replay translate` layout). */
    public static void writeSources(Translation t, Path dir) throws IOException {
        writeSources(t, dir, gxxFlags(t));
    }

    /** As {@link #writeSources(Translation, Path)}, with BUILD naming the given g++ flags. */
    public static void writeSources(Translation t, Path dir, List<String> gxxFlags) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kernel.cu"), t.source());
        for (Map.Entry<String, String> h : t.headers().entrySet()) {
            Files.writeString(dir.resolve(h.getKey()), h.getValue());
        }
        Files.writeString(dir.resolve("rt_cpu_main.cpp"), Translator.resource("rt_cpu_main.cpp"));
        Files.writeString(dir.resolve(SYSTEM_HEADER), Translator.resource(SYSTEM_HEADER));
        Files.writeString(dir.resolve("guest.s"), t.guestListing());
        Files.writeString(dir.resolve("BUILD"), buildFile(gxxFlags));
    }

    /** The g++ flags this translation builds with: {@link #GXX_FLAGS}, at -O0 past {@link #LARGE_SOURCE_BYTES}. */
    public static List<String> gxxFlags(Translation t) {
        return gxxFlags(t.source().length());
    }

    private static List<String> gxxFlags(long kernelLength) {
        if (kernelLength <= LARGE_SOURCE_BYTES) {
            return GXX_FLAGS;
        }
        return GXX_FLAGS.stream().map(f -> f.equals("-O2") ? "-O0" : f).toList();
    }

    /** The BUILD file: the exact commands that build the translation for the GPU and for the CPU. */
    public static String buildFile(List<String> gxxFlags) {
        return "# The translation builds as it lies in this directory.\n"
                + "# GPU (sm_90, no GPU needed to compile):\n"
                + "nvcc " + String.join(" ", NVCC_FLAGS) + " -c kernel.cu -o kernel.o\n"
                + "# GPU, as a fat binary the device runner loads:\n"
                + "nvcc " + String.join(" ", NVCC_FLAGS) + " -fatbin kernel.cu -o kernel.fatbin\n"
                + "# CPU runner (cuda-cpu): ./runner BUNDLE RESULT\n"
                + "g++ " + String.join(" ", gxxFlags) + " -I. rt_cpu_main.cpp -o runner\n";
    }

    /** The hash a build is cached under: the sources, the flags and the compiler's version. */
    public String hash(Translation t) throws IOException {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            update(md, "kernel.cu", t.source());
            for (Map.Entry<String, String> h : new java.util.TreeMap<>(t.headers()).entrySet()) {
                update(md, h.getKey(), h.getValue());
            }
            update(md, "rt_cpu_main.cpp", Translator.resource("rt_cpu_main.cpp"));
            update(md, SYSTEM_HEADER, Translator.resource(SYSTEM_HEADER));
            update(md, "flags", String.join(" ", flagsFor(t)));
            update(md, "compiler", gxx + " " + compilerVersion());
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void update(MessageDigest md, String name, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        md.update(name.getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
        md.update(java.nio.ByteBuffer.allocate(8).putLong(b.length).array());
        md.update(b);
    }

    /** A built runner and whether this call built it (false: it came from the cache). */
    public record Built(Path runner, String hash, boolean compiled, long compileNanos) {
    }

    /**
     * The runner for a translation: from the cache, or built now (into a temporary directory, then moved
     * into place, so concurrent builds of one program never see half a runner).
     *
     * @throws IOException when g++ fails (the message carries its output)
     */
    public Built build(Translation t) throws IOException {
        List<String> flags = flagsFor(t);
        return build(hash(t), flags, tmp -> writeSources(t, tmp, flags));
    }

    /** The files of a translation folder a build reads: everything but what a build or an editor leaves behind. */
    private static boolean source(Path f) {
        String n = f.getFileName().toString();
        return Files.isRegularFile(f) && !n.equals("runner") && !n.endsWith(".o") && !n.endsWith(".gch")
                && !n.endsWith(".fatbin") && !n.endsWith("~") && !n.startsWith(".");
    }

    /**
     * The runner of a translation folder as it lies ({@code replay translate --out DIR}, perhaps edited since):
     * its files copied and built with this builder's flags (-O0 past {@link #LARGE_SOURCE_BYTES} of kernel.cu),
     * cached by the hash of every file in it. A folder that no longer builds is an IOException whose message starts
     * with g++'s first error.
     */
    public Built buildFolder(Path folder) throws IOException {
        if (!Files.isRegularFile(folder.resolve("kernel.cu")) || !Files.isRegularFile(folder.resolve("rt_cpu_main.cpp"))) {
            throw new IOException(folder + " is not a translation folder (replay translate --out writes kernel.cu, "
                    + "rt_cpu_main.cpp and the runtime headers; " + (Files.isDirectory(folder) ? "it lacks them"
                    : "it is not a folder") + ")");
        }
        List<Path> files;
        try (var list = Files.list(folder)) {
            files = list.filter(CpuBuild::source).sorted().toList();
        }
        List<String> flags = flagsFor(Files.size(folder.resolve("kernel.cu")));
        String h;
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            update(md, "folder", "");
            for (Path f : files) {
                md.update(f.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                md.update((byte) 0);
                byte[] b = Files.readAllBytes(f);
                md.update(java.nio.ByteBuffer.allocate(8).putLong(b.length).array());
                md.update(b);
            }
            update(md, "flags", String.join(" ", flags));
            update(md, "compiler", gxx + " " + compilerVersion());
            h = HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try {
            return build(h, flags, tmp -> {
                for (Path f : files) {
                    Files.copy(f, tmp.resolve(f.getFileName()));
                }
            });
        } catch (IOException e) {
            throw new IOException("the folder " + folder + " does not build: " + firstError(e.getMessage()), e);
        }
    }

    /** The compiler's first error line in a failed build's output (else its first line). */
    public static String firstError(String output) {
        String first = null;
        // the message's first line is the command (run): the compiler's output follows it
        for (String line : output.substring(output.indexOf('\n') + 1).split("\n")) {
            if (line.contains("error")) {
                return line.strip();
            }
            if (first == null && !line.isBlank()) {
                first = line.strip();
            }
        }
        return first == null ? "(no output)" : first;
    }

    /** Writes a build's sources into a folder. */
    @FunctionalInterface
    private interface Sources {
        void writeTo(Path dir) throws IOException;
    }

    private Built build(String h, List<String> flags, Sources sources) throws IOException {
        Path dir = cache.resolve(h);
        Path runner = dir.resolve("runner");
        if (Files.isExecutable(runner)) {
            return new Built(runner, h, false, 0);
        }
        Files.createDirectories(cache);
        Path tmp = Files.createTempDirectory(cache, h.substring(0, 12) + ".tmp");
        sources.writeTo(tmp);
        long start = System.nanoTime();
        Path gch = precompiledHeader(flags);
        Path link = tmp.resolve(SYSTEM_HEADER + ".gch");
        if (gch != null) {
            try {
                Files.createSymbolicLink(link, gch);
            } catch (IOException | UnsupportedOperationException e) {
                // a file system without symbolic links: this build parses the header's text
            }
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(gxx);
        cmd.addAll(flags);
        cmd.addAll(List.of("-I.", "rt_cpu_main.cpp", "-o", "runner"));
        try {
            run(cmd, tmp, 600);
        } catch (IOException e) {
            deleteTree(tmp);
            throw e;
        } finally {
            Files.deleteIfExists(link); // the cached build holds its sources and runner, as BUILD describes them
        }
        long took = System.nanoTime() - start;
        try {
            Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException | java.nio.file.FileAlreadyExistsException
                 | java.nio.file.DirectoryNotEmptyException e) {
            // another build of the same program won the race: use its runner
            deleteTree(tmp);
        }
        if (!Files.isExecutable(runner)) {
            throw new IOException("the build of " + h + " left no runner in " + dir);
        }
        return new Built(runner, h, true, took);
    }

    /**
     * The precompiled {@value #SYSTEM_HEADER} for a flag set: made once (per cache directory, compiler and flags;
     * kept in {@code pch-HASH/} beside the builds), or null when g++ cannot make one, and then every build parses the
     * header's text (the same program either way: it only holds system headers).
     */
    Path precompiledHeader(List<String> flags) {
        var mine = new java.util.concurrent.CompletableFuture<Path>();
        var known = precompiled.putIfAbsent(List.copyOf(flags), mine);
        if (known != null) {
            return known.join();
        }
        Path made = null;
        try {
            made = makePrecompiledHeader(flags);
        } catch (IOException | RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(CpuBuild.class).warn("no precompiled {} for g++ {}: {}", SYSTEM_HEADER,
                    String.join(" ", flags), e.getMessage());
        } finally {
            mine.complete(made);
        }
        return made;
    }

    private Path makePrecompiledHeader(List<String> flags) throws IOException {
        String text = Translator.resource(SYSTEM_HEADER);
        String key;
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            update(md, SYSTEM_HEADER, text);
            update(md, "flags", String.join(" ", flags));
            update(md, "compiler", gxx + " " + compilerVersion());
            key = HexFormat.of().formatHex(md.digest()).substring(0, 24);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Path dir = cache.resolve("pch-" + key);
        Path gch = dir.resolve(SYSTEM_HEADER + ".gch");
        if (Files.isRegularFile(gch)) {
            return gch.toAbsolutePath();
        }
        Files.createDirectories(cache);
        Path tmp = Files.createTempDirectory(cache, "pch-" + key.substring(0, 12) + ".tmp");
        try {
            Files.writeString(tmp.resolve(SYSTEM_HEADER), text);
            List<String> cmd = new ArrayList<>();
            cmd.add(gxx);
            cmd.addAll(flags);
            cmd.addAll(List.of("-x", "c++-header", SYSTEM_HEADER, "-o", SYSTEM_HEADER + ".gch"));
            run(cmd, tmp, 300);
            try {
                Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException | java.nio.file.FileAlreadyExistsException
                     | java.nio.file.DirectoryNotEmptyException e) {
                // another JVM made it first: use that one
            }
        } finally {
            deleteTree(tmp);
        }
        if (!Files.isRegularFile(gch)) {
            throw new IOException("the precompiled header left no " + gch);
        }
        return gch.toAbsolutePath();
    }

    /** Deletes a directory tree (or a file); nothing when it does not exist. */
    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(q);
            }
        }
    }

    /** Runs a command, returns its output; a non-zero exit or a timeout is an IOException with the output. */
    public static String run(List<String> cmd, Path dir, long timeoutSeconds) throws IOException {
        return run(cmd, dir, timeoutSeconds, Map.of());
    }

    /** As {@link #run(List, Path, long)}, with {@code env} added to the command's environment. */
    public static String run(List<String> cmd, Path dir, long timeoutSeconds, Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        Process p = pb.start();
        byte[] out;
        try {
            var reader = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return p.getInputStream().readAllBytes();
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": timed out after " + timeoutSeconds + " s");
            }
            out = reader.join();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited with " + p.exitValue() + ":\n" + tail(text));
        }
        return text;
    }

    static String tail(String s) {
        return s.length() <= 4000 ? s : "..." + s.substring(s.length() - 4000);
    }
}
