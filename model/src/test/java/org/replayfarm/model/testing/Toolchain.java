package org.replayfarm.model.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The reference toolchain the tests use as their oracle: clang-19 compiles OpenCL C for gfx1030,
 * llvm-mc-19 assembles, ld.lld-19 links, llvm-objdump-19 and llvm-readelf-19 tell what is in an object.
 * A missing tool fails the test with the install command; it is never skipped.
 */
public final class Toolchain {
    public static final List<String> OPENCL_FLAGS = List.of("-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa",
            "-mcpu=gfx1030", "-nogpulib", "-O2");

    private Toolchain() {
    }

    /** The repository root (set by Maven as replayfarm.root, else found by walking up to .ci/). */
    public static Path root() {
        String prop = System.getProperty("replayfarm.root");
        if (prop != null && Files.isDirectory(Path.of(prop, "examples"))) {
            return Path.of(prop);
        }
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("cannot find the repository root (no examples/ above " + Path.of("").toAbsolutePath() + ")");
        }
        return p;
    }

    /** Runs a command in a directory and returns its standard output; a failure throws with its output. */
    public static String run(Path dir, List<String> command) {
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(command + " timed out");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " failed (exit " + process.exitValue() + "):\n" + text);
            }
            return text;
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command.get(0)
                    + ": install the reference toolchain (apt-get install -y llvm-19 clang-19 lld-19)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static String run(Path dir, String... command) {
        return run(dir, List.of(command));
    }

    /** Compiles OpenCL C for gfx1030 with clang-19 into NAME.o in dir. */
    public static Path compileOpenCl(Path dir, String name, String source, String... extraFlags) throws IOException {
        Path cl = dir.resolve(name + ".cl");
        Files.writeString(cl, source);
        List<String> cmd = new ArrayList<>(List.of("clang-19"));
        cmd.addAll(OPENCL_FLAGS);
        cmd.addAll(List.of(extraFlags));
        cmd.addAll(List.of("-c", cl.getFileName().toString(), "-o", name + ".o"));
        run(dir, cmd);
        return dir.resolve(name + ".o");
    }

    /** Assembles gfx1030 assembly with llvm-mc-19 into NAME.o in dir. */
    public static Path assemble(Path dir, String name, String source, boolean wave64) throws IOException {
        Path s = dir.resolve(name + ".s");
        Files.writeString(s, source);
        List<String> cmd = new ArrayList<>(List.of("llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030"));
        if (wave64) {
            cmd.add("-mattr=+wavefrontsize64");
        }
        cmd.addAll(List.of("-filetype=obj", s.getFileName().toString(), "-o", name + ".o"));
        run(dir, cmd);
        return dir.resolve(name + ".o");
    }

    /** Links a relocatable object into a shared code object with ld.lld-19, as the clang driver does. */
    public static Path link(Path object) {
        Path so = object.resolveSibling(object.getFileName().toString().replace(".o", ".so"));
        run(object.getParent(), "ld.lld-19", "-shared", "--no-undefined", object.getFileName().toString(), "-o",
                so.getFileName().toString());
        return so;
    }

    /** llvm-objdump-19 -d for gfx1030. */
    public static String disassemble(Path object) {
        return run(object.getParent(), "llvm-objdump-19", "-d", "--mcpu=gfx1030", object.getFileName().toString());
    }
}
