package org.replayfarm.gpunode.translate.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds the rt_image.h test drivers with g++ (and checks the header with nvcc), cached under target/ by the
 * content hash of the headers and the driver, so the tests of one build share one compile.
 */
final class RtImageBuild {
    static final String RT = "/org/replayfarm/gpunode/translate/rt/";
    static final String HERE = "/org/replayfarm/gpunode/translate/image/";
    static final List<String> CPU_FLAGS = List.of("-std=c++17", "-O2", "-ffp-contract=off", "-fno-strict-aliasing",
            "-frounding-math");

    private RtImageBuild() {
    }

    static byte[] resource(String path) throws IOException {
        try (InputStream in = RtImageBuild.class.getResourceAsStream(path)) {
            return in == null ? null : in.readAllBytes();
        }
    }

    /** A directory holding rt_image.h, rt_atomic.h and rt_base.h (the lead's, or until it lands the test shim) and the file. */
    static Path sources(String driver) throws IOException, InterruptedException {
        byte[] image = resource(RT + "rt_image.h");
        byte[] atomic = resource(RT + "rt_atomic.h");
        byte[] base = resource(RT + "rt_base.h");
        if (base == null) {
            base = resource(HERE + "rt_base_shim.h");
        }
        byte[] drv = resource(HERE + driver);
        if (image == null || atomic == null || base == null || drv == null) {
            throw new IOException("missing runtime header or driver " + driver + " on the test classpath");
        }
        String hash = hash(image, atomic, base, drv, String.join(" ", CPU_FLAGS).getBytes(StandardCharsets.UTF_8));
        Path dir = Path.of("target", "rt-image-cache", hash).toAbsolutePath();
        Files.createDirectories(dir);
        write(dir.resolve("rt_image.h"), image);
        write(dir.resolve("rt_atomic.h"), atomic);
        write(dir.resolve("rt_base.h"), base);
        write(dir.resolve(driver), drv);
        return dir;
    }

    /** The driver built with the CPU flags (cached). */
    static Path gpp(String driver) throws IOException, InterruptedException {
        Path dir = sources(driver);
        Path exe = dir.resolve(driver.replaceAll("\\.cpp$", ""));
        if (!Files.isExecutable(exe)) {
            List<String> cmd = new ArrayList<>(List.of("g++"));
            cmd.addAll(CPU_FLAGS);
            cmd.addAll(List.of("-Wall", "-Werror", "-I", dir.toString(), dir.resolve(driver).toString(), "-o",
                    exe + ".tmp"));
            run(cmd, dir);
            Files.move(Path.of(exe + ".tmp"), exe, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        return exe;
    }

    static String run(List<String> cmd, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed:\n" + out);
        }
        return out;
    }

    /** Feeds lines to the driver and returns its answers, one a line. */
    static List<String> answer(Path exe, List<String> lines) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(exe.toAbsolutePath().toString()).redirectErrorStream(true).start();
        Thread feeder = new Thread(() -> {
            try (var w = p.getOutputStream()) {
                w.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // the reader below reports a short answer
            }
        });
        feeder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        feeder.join();
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException(exe + " exited " + p.exitValue() + ":\n" + out);
        }
        List<String> answers = out.isEmpty() ? List.of() : List.of(out.split("\n", -1));
        answers = answers.subList(0, Math.max(0, answers.size() - 1)); // the final newline
        if (answers.size() != lines.size()) {
            throw new IOException(exe + " answered " + answers.size() + " of " + lines.size() + " lines:\n" + out);
        }
        return new ArrayList<>(answers);
    }

    private static void write(Path p, byte[] b) throws IOException {
        if (!Files.exists(p) || !java.util.Arrays.equals(Files.readAllBytes(p), b)) {
            Files.write(p, b);
        }
    }

    static String hash(byte[]... parts) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (byte[] b : parts) {
                d.update(Integer.toString(b.length).getBytes(StandardCharsets.UTF_8));
                d.update(b);
            }
            return HexFormat.of().formatHex(d.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
