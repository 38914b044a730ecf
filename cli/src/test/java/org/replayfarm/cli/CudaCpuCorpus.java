package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.replayfarm.gpunode.device.CudaCpuBackend;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The translator's proof on the kernel corpus, run inside KernelCorpusTest on the captures it builds (no
 * second clang or capture build): every variant goes through {@code replay run --device cuda-cpu}, and its
 * device ranges must equal the host model's bit for bit (kernels whose header states an f32 tolerance:
 * within it, the words outside exactness counted). A refused translation is reported with what was refused;
 * any other device failure or difference fails. Every variant is translated; the default run builds and runs
 * the variants {@link #builtByDefault} names (every kernel once, some at -O0 too: {@code -Dreplay.cudacpu=all}
 * builds and runs all of them). One in {@link #NVCC_SAMPLE} of the run translations that are not large (every run
 * one with {@code -Dreplay.nvcc=all}) is also compiled by nvcc for sm_90 with PTX, in the background;
 * {@link #finish} waits for those compiles and prints the summary.
 */
final class CudaCpuCorpus {
    private static final Path NVCC = Path.of("/usr/local/cuda/bin/nvcc");
    private static final CudaCpuBackend BACKEND = new CudaCpuBackend();
    private static final List<String> equal = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> refused = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> approximate = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> notRun = Collections.synchronizedList(new ArrayList<>());
    /** Every this many kernels, an -O0 variant is also built and run in the default run. */
    static final int O0_EVERY = 12;
    /** One translation in this many of those run (not large) is compiled by nvcc in the default run. */
    static final int NVCC_SAMPLE = 16;
    private static int nvccCandidates;
    private static final List<Future<String>> compiles = Collections.synchronizedList(new ArrayList<>());
    private static ExecutorService nvcc;
    private static long checkNanos;
    private static final java.util.concurrent.atomic.AtomicLong nvccNanos = new java.util.concurrent.atomic.AtomicLong();

    private CudaCpuCorpus() {
    }

    /** Runs one corpus variant's capture through cuda-cpu and checks it against the host model. */
    static void check(String name, Path capture, Path work, int toleranceUlps, int buffers) throws Exception {
        long started = System.nanoTime();
        try {
            checkVariant(name, capture, work, toleranceUlps, buffers);
        } finally {
            synchronized (CudaCpuCorpus.class) {
                checkNanos += System.nanoTime() - started;
            }
        }
    }

    private static void checkVariant(String name, Path capture, Path work, int toleranceUlps, int buffers)
            throws Exception {
        // the device side only: the host model's outputs are the ones KernelCorpusTest's replay eval just wrote
        // (out/host); replay run --device cuda-cpu itself is CudaCpuCommandsTest's and ExamplesCudaCpuTest's
        CaptureFile file = CaptureFile.open(capture);
        Translation translation = new Translator().translate(ProgramInfo.of(file));
        boolean isLarge = translation.source().length() > CpuBuild.LARGE_SOURCE_BYTES;
        if (translation.ok() && !"all".equals(System.getProperty("replay.cudacpu")) && !builtByDefault(name)) {
            String why = name + ": translated (" + translation.source().length() / 1024
                    + " KiB of C), not built in the default run (-Dreplay.cudacpu=all builds and runs every variant)";
            notRun.add(why);
            System.out.println("[cuda-cpu corpus] " + why);
            return;
        }
        long began = System.nanoTime();
        DeviceRun run;
        try {
            run = BACKEND.run(new DeviceRequest(file, file.identity()), e -> { });
        } catch (DeviceException e) {
            if (e.getMessage().contains("is refused")) {
                String first = e.getMessage().lines().filter(l -> l.contains("pc 0x")).findFirst().orElse("").trim();
                refused.add(name + ": " + first);
                System.out.println("[cuda-cpu corpus] " + name + ": REFUSED " + first);
                return;
            }
            throw new AssertionError("cuda-cpu failed on " + name + ": " + e.getMessage(), e);
        }
        assertEquals(0, run.fidelity().faultedGroups(), name + ": groups faulted on the device");
        int inexact = 0;
        for (int i = 0; i < buffers; i++) {
            byte[] host = Files.readAllBytes(work.resolve("out/host/guest-" + i + ".bin"));
            byte[] device = run.rangeBytes(i);
            assertEquals(host.length, device.length, name + ": range " + i + " size");
            inexact += compare(name, i, host, device, toleranceUlps);
        }
        (inexact > 0 ? approximate : equal).add(name);
        System.out.printf("[cuda-cpu corpus] %s: %s (%d KiB of C, %.1f s)%n", name, inexact > 0 ? "within "
                + toleranceUlps + " ulps (" + inexact + " words not exact)" : "equal",
                translation.source().length() / 1024, (System.nanoTime() - began) / 1e9);
        boolean all = "all".equals(System.getProperty("replay.nvcc"));
        boolean sampled;
        synchronized (CudaCpuCorpus.class) {
            sampled = !isLarge && nvccCandidates++ % NVCC_SAMPLE == 0;
        }
        if (Files.isExecutable(NVCC) && (all || sampled)) {
            Path dir = work.resolve("translation");
            CliRun t = CliRun.of("translate", capture.toString(), "--out", dir.toString());
            assertEquals(0, t.exitCode(), t.out() + t.err());
            synchronized (CudaCpuCorpus.class) {
                if (nvcc == null) {
                    nvcc = Executors.newSingleThreadExecutor(r -> {
                        Thread th = new Thread(r, "corpus-nvcc");
                        th.setDaemon(true);
                        return th;
                    });
                }
            }
            // the work directory is deleted after the test class: keep a copy for the background compile
            Path keep = Files.createTempDirectory("corpus-nvcc");
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.copy(f, keep.resolve(f.getFileName()));
                }
            }
            compiles.add(nvcc.submit(() -> {
                List<String> cmd = new ArrayList<>(List.of(NVCC.toString()));
                cmd.addAll(CpuBuild.NVCC_FLAGS);
                cmd.addAll(List.of("-c", "kernel.cu", "-o", "kernel.o"));
                long t0 = System.nanoTime();
                try {
                    CpuBuild.run(cmd, keep, 600);
                    nvccNanos.addAndGet(System.nanoTime() - t0);
                    return Files.size(keep.resolve("kernel.o")) > 0 ? "" : name + ": nvcc wrote an empty object";
                } catch (Exception e) {
                    return name + ": " + e.getMessage();
                } finally {
                    try (var walk = Files.walk(keep)) {
                        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                            Files.deleteIfExists(p);
                        }
                    }
                }
            }));
        }
    }

    /**
     * Whether the default run builds and runs this variant ("NN_name.cl -O2 wave32"): every kernel once at -O2,
     * wave32 for even-numbered kernels and wave64 for odd ones, and every {@link #O0_EVERY}th kernel once more at
     * -O0 (wave32 and wave64 alternating). A g++ build takes seconds per translation on 2 cores, tens of seconds
     * for the -O0 ones (hundreds of KiB of C), so building all 340 takes most of an hour; every variant is
     * still translated (a refusal is reported for each).
     */
    static boolean builtByDefault(String name) {
        int k = 0;
        int i = 0;
        while (i < name.length() && Character.isDigit(name.charAt(i))) {
            k = k * 10 + (name.charAt(i++) - '0');
        }
        boolean wave64 = name.endsWith("wave64");
        if (name.contains(" -O2 ")) {
            return wave64 == (k % 2 == 1);
        }
        return k % O0_EVERY == 0 && wave64 == (k / O0_EVERY % 2 == 1);
    }

    /** Words (tolerance) or bytes that differ; fails past the tolerance. */
    private static int compare(String name, int range, byte[] host, byte[] device, int ulps) {
        ByteBuffer h = ByteBuffer.wrap(host).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer d = ByteBuffer.wrap(device).order(ByteOrder.LITTLE_ENDIAN);
        int inexact = 0;
        if (ulps > 0) {
            for (int i = 0; i + 4 <= host.length; i += 4) {
                int a = h.getInt(i);
                int b = d.getInt(i);
                if (a != b) {
                    long x = a < 0 ? 0x80000000L - (a & 0x7FFFFFFFL) : 0x80000000L + a;
                    long y = b < 0 ? 0x80000000L - (b & 0x7FFFFFFFL) : 0x80000000L + b;
                    boolean nans = Float.isNaN(Float.intBitsToFloat(a)) && Float.isNaN(Float.intBitsToFloat(b));
                    if (!nans && Math.abs(x - y) > ulps) {
                        fail(String.format("%s: range %d word %d: host 0x%08x, cuda-cpu 0x%08x (beyond %d ulps)", name,
                                range, i / 4, a, b, ulps));
                    }
                    inexact++;
                }
            }
            return inexact;
        }
        for (int i = 0; i < host.length; i++) {
            if (host[i] != device[i]) {
                int w = i & ~3;
                fail(String.format("%s: range %d byte %d: host 0x%08x, cuda-cpu 0x%08x", name, range, i,
                        w + 4 <= host.length ? h.getInt(w) : host[i], w + 4 <= host.length ? d.getInt(w) : device[i]));
            }
        }
        return 0;
    }

    /** Waits for the nvcc compiles, prints the summary; fails when a compile failed. */
    static void finish() throws Exception {
        List<String> failures = new ArrayList<>();
        for (Future<String> f : compiles) {
            String r = f.get(20, TimeUnit.MINUTES);
            if (!r.isEmpty()) {
                failures.add(r);
            }
        }
        System.out.printf("[cuda-cpu corpus] %d variants: %d equal, %d within tolerance, %d refused, %d translated but "
                + "not built (-Dreplay.cudacpu=all runs them); nvcc sm_90: %d compiled, %d failed; %.1f s in "
                + "cuda-cpu checks (translate, g++, run, compare), %.1f s of background nvcc (wall, noisy: the machine is "
                + "shared)%n", equal.size() + approximate.size() + refused.size() + notRun.size(), equal.size(),
                approximate.size(), refused.size(), notRun.size(), compiles.size() - failures.size(), failures.size(),
                checkNanos / 1e9, nvccNanos.get() / 1e9);
        for (String r : refused) {
            System.out.println("[cuda-cpu corpus]   refused " + r);
        }
        assertTrue(failures.isEmpty(), "nvcc sm_90 failed on translations:\n" + String.join("\n", failures));
    }
}
