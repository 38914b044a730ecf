package org.replayfarm.gpunode.cuda;

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
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.Translation;

/**
 * Builds a translation for the GPU with nvcc: a fat binary with sm_90 code and compute_90 PTX
 * ({@link CpuBuild#NVCC_FLAGS}, {@code -lineinfo}), cached by the hash of the sources, the flags and nvcc's
 * version. The sm_90 cubin nvcc embeds is kept beside it ({@code --keep}): its line table maps PC samples
 * back to guest.s. No GPU is needed to build.
 */
public final class FatbinBuild {
    /** {@code $REPLAY_CUDA_CACHE}, else the temp directory. */
    public static Path defaultCache() {
        String env = System.getenv("REPLAY_CUDA_CACHE");
        return env != null && !env.isEmpty() ? Path.of(env)
                : Path.of(System.getProperty("java.io.tmpdir"), "replay-farm-cuda");
    }

    /** nvcc from {@code $NVCC}, else {@code $CUDA_HOME/bin/nvcc}, else {@code /usr/local/cuda/bin/nvcc}, else PATH. */
    public static String defaultNvcc() {
        String env = System.getenv("NVCC");
        if (env != null && !env.isEmpty()) {
            return env;
        }
        String home = System.getenv("CUDA_HOME");
        for (String h : new String[] {home, "/usr/local/cuda"}) {
            if (h != null && Files.isExecutable(Path.of(h, "bin", "nvcc"))) {
                return Path.of(h, "bin", "nvcc").toString();
            }
        }
        return "nvcc";
    }

    /** A built module: the fat binary, the sm_90 cubin inside it, the hash, whether this call compiled it. */
    public record Built(Path fatbin, Path cubin, String hash, boolean compiled, long compileNanos) {
        public byte[] fatbinBytes() throws IOException {
            return Files.readAllBytes(fatbin);
        }
    }

    private final String nvcc;
    private final Path cache;
    private String version;

    public FatbinBuild(String nvcc, Path cache) {
        this.nvcc = nvcc;
        this.cache = cache;
    }

    public FatbinBuild() {
        this(defaultNvcc(), defaultCache());
    }

    /** nvcc's version line, e.g. "Cuda compilation tools, release 13.0, V13.0.88". */
    public synchronized String compilerVersion() throws IOException {
        if (version == null) {
            String out = CpuBuild.run(List.of(nvcc, "--version"), null, 60);
            String last = "";
            for (String l : out.split("\n")) {
                if (l.startsWith("Cuda compilation tools")) {
                    last = l.trim();
                }
            }
            version = last.isEmpty() ? out.trim() : last;
        }
        return version;
    }

    /** The cache key: kernel.cu, the headers, the nvcc flags and nvcc's version. */
    public String hash(Translation t) throws IOException {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            update(md, "kernel.cu", t.source());
            for (Map.Entry<String, String> h : new java.util.TreeMap<>(t.headers()).entrySet()) {
                update(md, h.getKey(), h.getValue());
            }
            update(md, "guest.s", t.guestListing());
            update(md, "flags", String.join(" ", CpuBuild.NVCC_FLAGS) + " -fatbin");
            update(md, "compiler", compilerVersion());
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The fat binary for a translation, from the cache or built now (in a temporary directory moved into
     * place, so a concurrent build never sees half a module).
     *
     * @throws IOException when nvcc fails (the message carries its output)
     */
    public Built build(Translation t) throws IOException {
        return build(hash(t), tmp -> CpuBuild.writeSources(t, tmp));
    }

    /**
     * The fat binary of a translation folder as it lies ({@code replay translate --out DIR}, perhaps edited: the GPU
     * node's {@code cuda:DIR}), cached by the hash of its files; a folder that does not build is an IOException whose
     * message starts with nvcc's first error.
     */
    public Built buildFolder(Path folder) throws IOException {
        if (!Files.isRegularFile(folder.resolve("kernel.cu"))) {
            throw new IOException(folder + " is not a translation folder (it has no kernel.cu)");
        }
        List<Path> files;
        try (var list = Files.list(folder)) {
            files = list.filter(f -> Files.isRegularFile(f) && (f.toString().endsWith(".cu") || f.toString().endsWith(".h")))
                    .sorted().toList();
        }
        String h;
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            update(md, "folder", "");
            for (Path f : files) {
                update(md, f.getFileName().toString(), Files.readString(f));
            }
            update(md, "flags", String.join(" ", CpuBuild.NVCC_FLAGS) + " -fatbin");
            update(md, "compiler", compilerVersion());
            h = HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try {
            return build(h, tmp -> {
                for (Path f : files) {
                    Files.copy(f, tmp.resolve(f.getFileName()));
                }
            });
        } catch (IOException e) {
            throw new IOException("the folder " + folder + " does not build: " + CpuBuild.firstError(e.getMessage()), e);
        }
    }

    private interface Sources {
        void writeTo(Path dir) throws IOException;
    }

    private Built build(String h, Sources sources) throws IOException {
        Path dir = cache.resolve(h);
        Path fatbin = dir.resolve("kernel.fatbin");
        Path cubin = dir.resolve("kernel.sm_90.cubin");
        if (Files.isRegularFile(fatbin) && Files.isRegularFile(cubin)) {
            return new Built(fatbin, cubin, h, false, 0);
        }
        Files.createDirectories(cache);
        Path tmp = Files.createTempDirectory(cache, h.substring(0, 12) + ".tmp");
        sources.writeTo(tmp);
        Files.createDirectories(tmp.resolve("keep"));
        List<String> cmd = new ArrayList<>();
        cmd.add(nvcc);
        cmd.addAll(CpuBuild.NVCC_FLAGS);
        cmd.addAll(List.of("-w", "-fatbin", "--keep", "--keep-dir", "keep", "kernel.cu", "-o", "kernel.fatbin"));
        long start = System.nanoTime();
        try {
            CpuBuild.run(cmd, tmp, 600);
        } catch (IOException e) {
            CpuBuild.deleteTree(tmp);
            throw e;
        }
        long took = System.nanoTime() - start;
        Path kept = tmp.resolve("keep").resolve("kernel.sm_90.cubin");
        if (!Files.isRegularFile(kept)) {
            throw new IOException("nvcc built " + tmp.resolve("kernel.fatbin") + " but kept no sm_90 cubin in " + kept.getParent());
        }
        Files.move(kept, tmp.resolve("kernel.sm_90.cubin"));
        CpuBuild.deleteTree(tmp.resolve("keep"));
        try {
            Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException | java.nio.file.FileAlreadyExistsException
                 | java.nio.file.DirectoryNotEmptyException e) {
            CpuBuild.deleteTree(tmp);
        }
        if (!Files.isRegularFile(fatbin)) {
            throw new IOException("the build of " + h + " left no kernel.fatbin in " + dir);
        }
        return new Built(fatbin, cubin, h, true, took);
    }

    private static void update(MessageDigest md, String name, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        md.update(name.getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
        md.update(java.nio.ByteBuffer.allocate(8).putLong(b.length).array());
        md.update(b);
    }
}
