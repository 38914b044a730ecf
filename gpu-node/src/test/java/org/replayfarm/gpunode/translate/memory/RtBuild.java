package org.replayfarm.gpunode.translate.memory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds test drivers against the runtime headers with the project's CPU flags (g++ -std=c++17 -O2
 * -ffp-contract=off -fno-strict-aliasing -frounding-math), cached by a hash of the sources under
 * target/rt-cache, and runs them; compiles CUDA sources with nvcc for sm_90 (no GPU needed).
 */
final class RtBuild {
    private RtBuild() {
    }

    static final String RT = "/org/replayfarm/gpunode/translate/rt/";
    static final List<String> CPU_FLAGS = List.of("-std=c++17", "-O2", "-ffp-contract=off", "-fno-strict-aliasing",
            "-frounding-math");
    static final List<String> GPU_FLAGS = List.of("-gencode", "arch=compute_90,code=[sm_90,compute_90]",
            "--fmad=false", "-prec-div=true", "-prec-sqrt=true", "-lineinfo");

    /** The runtime headers, copied into a directory (the include path). */
    static Path headers() {
        Path dir = Paths.get("target", "rt-cache", "include");
        try {
            Files.createDirectories(dir);
            for (String h : List.of("rt_base.h", "rt_atomic.h", "rt_mem.h")) {
                try (InputStream in = RtBuild.class.getResourceAsStream(RT + h)) {
                    if (in == null) {
                        throw new IllegalStateException("runtime header " + h + " is not on the class path");
                    }
                    byte[] bytes = in.readAllBytes();
                    Path to = dir.resolve(h);
                    if (!Files.exists(to) || !java.util.Arrays.equals(Files.readAllBytes(to), bytes)) {
                        Files.write(to, bytes);
                    }
                }
            }
            return dir.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String resource(String path) {
        try (InputStream in = RtBuild.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Compiles one C++ source with g++ (cached by the hash of it and the headers) and returns the binary. */
    static synchronized Path gxx(String name, String source) {
        Path inc = headers();
        String hash = hash(source, inc);
        Path dir = Paths.get("target", "rt-cache", name + "-" + hash).toAbsolutePath();
        Path exe = dir.resolve(name);
        if (Files.isExecutable(exe)) {
            return exe;
        }
        try {
            Files.createDirectories(dir);
            Path src = dir.resolve(name + ".cpp");
            Files.writeString(src, source);
            List<String> cmd = new ArrayList<>(List.of("g++"));
            cmd.addAll(CPU_FLAGS);
            cmd.addAll(List.of("-Wall", "-Werror", "-I" + inc, src.toString(), "-o", exe.toString()));
            run(cmd, null, 300);
            return exe;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Compiles a CUDA source with nvcc for sm_90 (-c); returns nvcc's output; throws on failure. */
    static String nvcc(String name, String source) {
        Path inc = headers();
        Path dir = Paths.get("target", "rt-cache", "nvcc-" + name + "-" + hash(source, inc)).toAbsolutePath();
        try {
            Files.createDirectories(dir);
            Path src = dir.resolve(name + ".cu");
            Files.writeString(src, source);
            List<String> cmd = new ArrayList<>(List.of(nvccPath()));
            cmd.addAll(GPU_FLAGS);
            cmd.addAll(List.of("-I" + inc, "-c", src.toString(), "-o", dir.resolve(name + ".o").toString()));
            return run(cmd, null, 300);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String nvccPath() {
        Path cuda = Paths.get("/usr/local/cuda/bin/nvcc");
        return Files.isExecutable(cuda) ? cuda.toString() : "nvcc";
    }

    static boolean hasNvcc() {
        try {
            run(List.of(nvccPath(), "--version"), null, 60);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Runs a command with stdin, returns stdout+stderr; throws naming the command on a non-zero exit. */
    static String run(List<String> cmd, String stdin, int timeoutSeconds) {
        try {
            Path out = Files.createTempFile("rt-run", ".out");
            Path in = Files.createTempFile("rt-run", ".in");
            Files.writeString(in, stdin == null ? "" : stdin);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile())
                    .redirectInput(in.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + String.join(" ", cmd));
            }
            String text = Files.readString(out);
            Files.deleteIfExists(out);
            Files.deleteIfExists(in);
            if (p.exitValue() != 0) {
                throw new IllegalStateException("exit " + p.exitValue() + ": " + String.join(" ", cmd) + "\n" + text);
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String hash(String source, Path inc) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(source.getBytes(StandardCharsets.UTF_8));
            try (var files = Files.list(inc)) {
                for (Path f : files.sorted().toList()) {
                    md.update(f.getFileName().toString().getBytes(StandardCharsets.UTF_8));
                    md.update(Files.readAllBytes(f));
                }
            }
            md.update(String.join(" ", CPU_FLAGS).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException | IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
