package org.replayfarm.model.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The reference toolchain: llvm-mc-19 assembles gfx1030 assembly. The binary is looked up on PATH
 * (override with the REPLAY_LLVM_MC environment variable).
 */
public final class Llvm {
    private Llvm() {
    }

    public static String mc() {
        String override = System.getenv("REPLAY_LLVM_MC");
        return override != null && !override.isBlank() ? override : "llvm-mc-19";
    }

    /** Assembles a gfx1030 source into a relocatable object and returns its bytes. */
    public static byte[] assemble(Path source, boolean wave64) throws IOException {
        Path out = Files.createTempFile("replay-asm", ".o");
        try {
            List<String> cmd = new ArrayList<>(List.of(mc(), "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030"));
            if (wave64) {
                cmd.add("-mattr=+wavefrontsize64");
            }
            cmd.addAll(List.of("-filetype=obj", source.toString(), "-o", out.toString()));
            run(cmd);
            return Files.readAllBytes(out);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Runs a tool, failing with its output when it fails or cannot be started. */
    public static String run(List<String> command) throws IOException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run " + command.get(0) + " (is LLVM 19 installed? apt-get install llvm-19): "
                    + e.getMessage(), e);
        }
        byte[] output = process.getInputStream().readAllBytes();
        try {
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException(command.get(0) + " did not finish in 5 minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + command.get(0), e);
        }
        String text = new String(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + process.exitValue() + "):\n" + text.strip());
        }
        return text;
    }
}
