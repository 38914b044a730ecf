package org.replayfarm.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.replayfarm.gpunode.device.CudaCpuBackend;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.NvccBatch;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The translator's proof on the kernel corpus, run inside KernelCorpusTest on the captures it builds (no second
 * clang or capture build). Every variant is translated once (here, on the test's thread; a refusal is reported
 * with what was refused); the translation is handed to the cuda-cpu backend (no second translation), built with
 * g++ (cached by content hash), run, and its ranges must equal the host model's bit for bit (kernels whose header
 * states an f32 tolerance: within it, the words outside exactness counted). The build, run and compare of each
 * variant go to a pool of {@code -Dreplay.cudacpu.threads} workers (default: the machine's processors), so they
 * overlap the corpus test's own clang builds, evaluations and native runs; {@link #finish} waits for them,
 * prints per-variant figures and fails listing every variant that failed.
 *
 * <p>What runs: by default every variant is built and run through cuda-cpu ({@code -Dreplay.cudacpu.maxKiB=N}: only
 * those up to N KiB of C; {@code -Dreplay.cudacpu=sample}: the old sample, {@link #sampled}); every translation up to
 * {@link #NVCC_DEFAULT_BYTES} of C (by default every one) is compiled for sm_90 with PTX ({@link CpuBuild#NVCC_CHECK_FLAGS} then
 * {@link CpuBuild#PTXAS_CHECK_FLAGS}) in the same pool, in batches ({@link NvccBatch}), and {@code -Dreplay.nvcc=all}
 * compiles every one (docs/translation.md, "Tests"; the figures in docs/perf.md, "The translator").
 */
final class CudaCpuCorpus {
    private static final Path NVCC = Path.of("/usr/local/cuda/bin/nvcc");
    private static final Path PTXAS = Path.of("/usr/local/cuda/bin/ptxas");
    /**
     * Translations up to this many KiB of C are compiled by nvcc ({@code -Dreplay.nvcc.maxKiB=N}); by default every
     * one ({@code -Dreplay.nvcc=all} too). Runs of shared bodies (Shapes, {@code RT_RUN}) made the check several times
     * cheaper per guest instruction on the large variants (59_math_library -O0 wave64, 10,607 instructions: cicc 36.7 s
     * + ptxas 48.0 s of CPU before, 5.9 s + 4.2 s after), so every variant is in the default run (docs/perf.md,
     * "The translator").
     */
    static final int NVCC_DEFAULT_BYTES = (int) Math.min(Integer.MAX_VALUE,
            Integer.getInteger("replay.nvcc.maxKiB", 1 << 20) * 1024L);
    /** A batch of nvcc compile checks is queued once it holds this many KiB of C ({@code -Dreplay.nvcc.batchKiB=N}). */
    static final int NVCC_BATCH_BYTES = Integer.getInteger("replay.nvcc.batchKiB", 512) * 1024;
    /** ... or this many translations ({@code -Dreplay.nvcc.batch=N}; 1: one nvcc per translation). */
    static final int NVCC_BATCH_COUNT = Integer.getInteger("replay.nvcc.batch", 24);
    /**
     * Translations up to this many KiB of C are built and run through cuda-cpu ({@code -Dreplay.cudacpu.maxKiB=N}; by
     * default every one). g++ -O0 costs about 1.1 s of CPU per build plus about 0.6–0.8 s per 100 KiB (59_math_library
     * -O0: 1.08 MiB with shapes and computed indirect targets, 7.4 s; 1.68 MiB with every instruction a label, 13.1 s;
     * 4 MiB before shapes, 51 s).
     */
    static final int CUDACPU_DEFAULT_BYTES = Integer.getInteger("replay.cudacpu.maxKiB", 1 << 20) * 1024;
    private static final List<String> equal = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> refused = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> approximate = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> notRun = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> nvccSkipped = Collections.synchronizedList(new ArrayList<>());
    private static final List<String> figures = Collections.synchronizedList(new ArrayList<>());
    private static final List<Future<String>> jobs = Collections.synchronizedList(new ArrayList<>());
    /** Every this many kernels, an -O0 variant is also built and run with -Dreplay.cudacpu=sample. */
    static final int O0_EVERY = 12;
    private static ExecutorService pool;
    private static final AtomicLong translateNanos = new AtomicLong();
    private static final AtomicLong gxxNanos = new AtomicLong();
    private static final AtomicLong runNanos = new AtomicLong();
    private static final AtomicLong nvccNanos = new AtomicLong();
    private static final AtomicLong nvccCompiles = new AtomicLong();
    private static final AtomicLong nvccBatches = new AtomicLong();
    private static final List<String> nvccSame = Collections.synchronizedList(new ArrayList<>());
    private static final AtomicLong gxxBuilds = new AtomicLong();
    private static final AtomicLong bytesOfC = new AtomicLong();
    private static final AtomicLong failedRuns = new AtomicLong();
    /** Translations whose indirect targets ControlFlow could not bound (every instruction a block and a case). */
    private static final List<String> everyInstruction = Collections.synchronizedList(new ArrayList<>());
    private static final AtomicLong translated = new AtomicLong();
    private static long started;

    private CudaCpuCorpus() {
    }

    private static synchronized ExecutorService pool() {
        if (pool == null) {
            started = System.nanoTime();
            int n = Integer.getInteger("replay.cudacpu.threads", Runtime.getRuntime().availableProcessors());
            pool = Executors.newFixedThreadPool(Math.max(1, n), r -> {
                Thread th = new Thread(r, "corpus-cuda-cpu");
                th.setDaemon(true);
                return th;
            });
        }
        return pool;
    }

    /**
     * Translates one corpus variant's capture and queues its cuda-cpu build, run and comparison against the host
     * model's outputs (KernelCorpusTest's replay eval wrote them to {@code work/out/host}; they are read now, as
     * the work directory is deleted after the test class).
     */
    static void check(String name, Path capture, Path work, int toleranceUlps, int buffers) throws Exception {
        long t0 = System.nanoTime();
        // a copy of the capture of our own: the backend reads it by path, and the work directory is deleted when
        // the test factory ends, possibly before the pool reaches this variant; the job deletes the copy
        Path own = Files.createTempFile("corpus-cuda-cpu", ".capture");
        Files.copy(capture, own, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        CaptureFile file = CaptureFile.open(own);
        Translation translation = new Translator().translate(ProgramInfo.of(file));
        translateNanos.addAndGet(System.nanoTime() - t0);
        if (!translation.ok()) {
            Files.deleteIfExists(own);
            String first = translation.refusals().isEmpty() ? "" : translation.refusals().get(0).getMessage();
            refused.add(name + ": " + first);
            System.out.println("[cuda-cpu corpus] " + name + ": REFUSED " + first);
            return;
        }
        int bytes = translation.source().length();
        bytesOfC.addAndGet(bytes);
        translated.incrementAndGet();
        String flow = translation.coverageReport().lines().filter(l -> l.contains("control flow:")).findFirst()
                .orElse("").trim();
        if (flow.contains("every instruction is a block")) {
            everyInstruction.add(name + ": " + flow);
        }
        String mode = System.getProperty("replay.cudacpu", "default");
        boolean build = switch (mode) {
            case "all" -> true; // the default too, unless -Dreplay.cudacpu.maxKiB caps it
            case "none" -> false;
            case "sample" -> sampled(name);
            default -> bytes <= CUDACPU_DEFAULT_BYTES;
        };
        if (!build) {
            Files.deleteIfExists(own);
            String why = name + ": translated (" + bytes / 1024 + " KiB of C), not built (-Dreplay.cudacpu=" + mode + ")";
            notRun.add(why);
            System.out.println("[cuda-cpu corpus] " + why);
            return;
        }
        List<byte[]> host = new ArrayList<>();
        for (int i = 0; i < buffers; i++) {
            host.add(Files.readAllBytes(work.resolve("out/host/guest-" + i + ".bin")));
        }
        jobs.add(pool().submit(() -> {
            try {
                String r = runAndCompare(name, file, translation, host, toleranceUlps);
                if (!r.isEmpty()) {
                    failedRuns.incrementAndGet();
                    System.out.println("[cuda-cpu corpus] FAILED " + r);
                }
                return r;
            } finally {
                Files.deleteIfExists(own);
            }
        }));
        boolean nvccAll = "all".equals(System.getProperty("replay.nvcc"));
        if (Files.isExecutable(NVCC)) {
            if (!"none".equals(System.getProperty("replay.nvcc")) && (nvccAll || bytes <= NVCC_DEFAULT_BYTES)) {
                queueNvcc(name, translation);
            } else {
                nvccSkipped.add(name + " (" + bytes / 1024 + " KiB)");
            }
        }
    }

    /** Translations waiting for their nvcc batch, and the KiB of C they hold. */
    private static final List<String> batchNames = new ArrayList<>();
    private static final List<Translation> batch = new ArrayList<>();
    private static long batchBytes;
    /** Sources already queued for nvcc (by content): an identical translation is compiled once. */
    private static final java.util.Map<String, String> nvccQueued = new java.util.HashMap<>();

    /**
     * Queues one translation's nvcc compile check. Translations go to nvcc in batches ({@link NvccBatch}: one nvcc
     * and one ptxas per batch, each translation in its own namespace) of up to {@link #NVCC_BATCH_BYTES} of C or
     * {@link #NVCC_BATCH_COUNT} translations, so the fixed cost of nvcc and ptxas (about 0.6 s of CPU) is paid once
     * per batch; a translation identical to one already queued is not compiled again.
     */
    private static synchronized void queueNvcc(String name, Translation translation) {
        String key = translation.source() + "\0" + new java.util.TreeMap<>(translation.headers());
        String same = nvccQueued.putIfAbsent(key, name);
        if (same != null) {
            nvccSame.add(name + " (the same C as " + same + ")");
            return;
        }
        batchNames.add(name);
        batch.add(translation);
        batchBytes += translation.source().length();
        if (batchBytes >= NVCC_BATCH_BYTES || batch.size() >= NVCC_BATCH_COUNT) {
            flushNvcc();
        }
    }

    private static synchronized void flushNvcc() {
        if (batch.isEmpty()) {
            return;
        }
        List<String> names = List.copyOf(batchNames);
        List<Translation> ts = List.copyOf(batch);
        batchNames.clear();
        batch.clear();
        batchBytes = 0;
        jobs.add(pool().submit(() -> nvccBatch(names, ts)));
    }

    /** Builds and runs one translation through cuda-cpu; "" when equal (or within tolerance), else what failed. */
    private static String runAndCompare(String name, CaptureFile file, Translation translation, List<byte[]> host,
                                        int toleranceUlps) {
        DeviceRun run;
        CudaCpuBackend.Outcome outcome;
        try {
            // a backend per run: its lastOutcome belongs to this run; the builder (and its cache) is shared
            CudaCpuBackend backend = new CudaCpuBackend(builder(), 600,
                    org.replayfarm.gpunode.translate.LaunchBundle.DEFAULT_BUDGET);
            run = backend.run(new DeviceRequest(file, file.identity()), e -> { }, translation);
            outcome = backend.lastOutcome();
        } catch (DeviceException | IOException e) {
            return "cuda-cpu failed on " + name + ": " + e.getMessage();
        }
        long gxx = outcome.built().compiled() ? outcome.built().compileNanos() : 0;
        gxxNanos.addAndGet(gxx);
        runNanos.addAndGet(outcome.runNanos());
        if (outcome.built().compiled()) {
            gxxBuilds.incrementAndGet();
        }
        if (run.fidelity().faultedGroups() != 0) {
            return name + ": " + run.fidelity().faultedGroups() + " groups faulted on the device";
        }
        int inexact = 0;
        for (int i = 0; i < host.size(); i++) {
            byte[] device = run.rangeBytes(i);
            if (host.get(i).length != device.length) {
                return name + ": range " + i + " size: host " + host.get(i).length + ", cuda-cpu " + device.length;
            }
            String bad = compare(name, i, host.get(i), device, toleranceUlps);
            if (bad.startsWith("!")) {
                return bad.substring(1);
            }
            inexact += Integer.parseInt(bad);
        }
        (inexact > 0 ? approximate : equal).add(name);
        String line = String.format(Locale.ROOT, "%s: %s (%d KiB of C; g++ %s %.1f s, run %.2f s)", name,
                inexact > 0 ? "within " + toleranceUlps + " ulps (" + inexact + " words not exact)" : "equal",
                translation.source().length() / 1024, String.join(" ", builder().flagsFor(translation)).replaceAll(
                        ".*(-O[0-3s]).*", "$1"), gxx / 1e9, outcome.runNanos() / 1e9);
        figures.add(line);
        System.out.println("[cuda-cpu corpus] " + line);
        return "";
    }

    private static CpuBuild builder;

    private static synchronized CpuBuild builder() {
        if (builder == null) {
            builder = new CpuBuild("g++", Path.of(System.getProperty("replay.cudacpu.cache",
                    CudaCpuBackend.defaultCache().toString())), System.getProperty("replay.cudacpu.opt", "-O0"));
        }
        return builder;
    }

    /**
     * Compiles a batch of translations for sm_90 with PTX ({@link NvccBatch#compile}: nvcc to compute_90 PTX with
     * {@link CpuBuild#NVCC_CHECK_FLAGS}, then ptxas to an sm_90 object with {@link CpuBuild#PTXAS_CHECK_FLAGS}) — the
     * device half of {@code nvcc -c} without its host half (cudafe++ and the host compile of the launch stub, about
     * 1.2 s of CPU per kernel that sees no device code). When the batch fails, each of its translations is compiled
     * alone, so the failures name the variants that fail.
     */
    private static String nvccBatch(List<String> names, List<Translation> ts) {
        long t0 = System.nanoTime();
        long bytes = ts.stream().mapToLong(t -> t.source().length()).sum();
        String failure = compileBatch(ts);
        if (failure == null) {
            long took = System.nanoTime() - t0;
            nvccNanos.addAndGet(took);
            nvccCompiles.addAndGet(ts.size());
            nvccBatches.incrementAndGet();
            System.out.printf(Locale.ROOT, "[cuda-cpu corpus] nvcc sm_90 batch of %d (%d KiB of C) %.1f s: %s%n",
                    ts.size(), bytes / 1024, took / 1e9, String.join(", ", names));
            return "";
        }
        List<String> failed = new ArrayList<>();
        for (int i = 0; i < ts.size(); i++) {
            long t1 = System.nanoTime();
            String alone = compileBatch(List.of(ts.get(i)));
            nvccNanos.addAndGet(System.nanoTime() - t1);
            if (alone == null) {
                nvccCompiles.incrementAndGet();
                nvccBatches.incrementAndGet();
            } else {
                failed.add(names.get(i) + ": nvcc sm_90 failed: " + alone);
            }
        }
        if (failed.isEmpty()) {
            return "nvcc sm_90: a batch failed although each of its translations compiles alone ("
                    + String.join(", ", names) + "): " + failure;
        }
        return String.join("\n", failed);
    }

    /** Null when the batch compiles, else why not. */
    private static String compileBatch(List<Translation> ts) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("corpus-nvcc");
            NvccBatch.compile(NVCC, PTXAS, ts, dir, 1800);
            return null;
        } catch (Exception e) {
            return e.getMessage();
        } finally {
            if (dir != null) {
                try {
                    CpuBuild.deleteTree(dir);
                } catch (IOException ignored) {
                    // a leftover temp directory is harmless
                }
            }
        }
    }

    /**
     * The old default sample ({@code -Dreplay.cudacpu=sample}; "NN_name.cl -O2 wave32"): every kernel once at -O2,
     * wave32 for even-numbered kernels and wave64 for odd ones, and every {@link #O0_EVERY}th kernel once more at
     * -O0 (wave32 and wave64 alternating).
     */
    static boolean sampled(String name) {
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

    /** The number of words not exact (as text), or "!" and the first difference past the tolerance. */
    private static String compare(String name, int range, byte[] host, byte[] device, int ulps) {
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
                        return String.format("!%s: range %d word %d: host 0x%08x, cuda-cpu 0x%08x (beyond %d ulps)",
                                name, range, i / 4, a, b, ulps);
                    }
                    inexact++;
                }
            }
            return Integer.toString(inexact);
        }
        for (int i = 0; i < host.length; i++) {
            if (host[i] != device[i]) {
                int w = i & ~3;
                return String.format("!%s: range %d byte %d: host 0x%08x, cuda-cpu 0x%08x", name, range, i,
                        w + 4 <= host.length ? h.getInt(w) : host[i], w + 4 <= host.length ? d.getInt(w) : device[i]);
            }
        }
        return "0";
    }

    /** Waits for every queued build, run and nvcc compile, prints the summary; fails listing every failure. */
    static void finish() throws Exception {
        flushNvcc();
        List<String> failures = new ArrayList<>();
        for (Future<String> f : new ArrayList<>(jobs)) {
            String r = f.get(60, TimeUnit.MINUTES);
            if (!r.isEmpty()) {
                failures.add(r);
            }
        }
        double wall = pool == null ? 0 : (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "[cuda-cpu corpus] %d variants (%d KiB of C): %d equal, %d within tolerance, %d "
                        + "refused, %d translated but not built (-Dreplay.cudacpu.maxKiB=%d); nvcc sm_90: %d compiled in %d "
                        + "invocations, %d the same C as another, %d left out (-Dreplay.nvcc.maxKiB=%d), failures %d; "
                        + "translate %.1f s, g++ %d builds %.1f s, runs %.1f s, nvcc %.1f s (summed over %d workers, wall "
                        + "%.1f s from the first queued; noisy: the machine is shared)%n",
                equal.size() + approximate.size() + refused.size() + notRun.size() + failedRuns.get(), bytesOfC.get() / 1024,
                equal.size(), approximate.size(), refused.size(), notRun.size(), CUDACPU_DEFAULT_BYTES / 1024,
                nvccCompiles.get(), nvccBatches.get(), nvccSame.size(), nvccSkipped.size(), NVCC_DEFAULT_BYTES / 1024,
                failures.size(), translateNanos.get() / 1e9, gxxBuilds.get(),
                gxxNanos.get() / 1e9, runNanos.get() / 1e9, nvccNanos.get() / 1e9,
                Integer.getInteger("replay.cudacpu.threads", Runtime.getRuntime().availableProcessors()), wall);
        System.out.printf(Locale.ROOT, "[cuda-cpu corpus] control flow: %d translations with computed indirect targets, "
                + "%d fell back to every instruction%n", translated.get() - everyInstruction.size(), everyInstruction.size());
        for (String r : everyInstruction) {
            System.out.println("[cuda-cpu corpus]   " + r);
        }
        for (String r : refused) {
            System.out.println("[cuda-cpu corpus]   refused " + r);
        }
        for (String s : nvccSame) {
            System.out.println("[cuda-cpu corpus]   not compiled again by nvcc: " + s);
        }
        for (String s : nvccSkipped) {
            System.out.println("[cuda-cpu corpus]   not compiled by nvcc: " + s);
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.size() + " corpus variants failed through cuda-cpu or nvcc:\n"
                    + String.join("\n", failures));
        }
    }
}
