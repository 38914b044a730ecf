package org.replayfarm.gpunode.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.LaunchBundle;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.image.ImageBundle;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The {@code cuda-cpu} backend: translates the capture's program to CUDA C, builds it for the CPU with
 * g++ (cached by program hash), and runs the whole dispatch in a separate process over a launch bundle,
 * so a crash in generated code never takes the node down: a crash, a non-zero exit or a timeout is the
 * device failing, reported with the runner's output. Its outputs are the final ranges and images.
 */
public final class CudaCpuBackend implements DeviceBackend {
    /** Where builds are cached unless told otherwise: {@code $REPLAY_CUDA_CPU_CACHE}, else the temp directory. */
    public static Path defaultCache() {
        String env = System.getenv("REPLAY_CUDA_CPU_CACHE");
        return env != null && !env.isEmpty() ? Path.of(env)
                : Path.of(System.getProperty("java.io.tmpdir"), "replay-farm-cuda-cpu");
    }

    private final CpuBuild build;
    private final long timeoutSeconds;
    private final long budget;
    /** A translation folder run as it lies ({@code cuda-cpu:DIR}), or null: the capture's program translated now. */
    private final Path folder;
    private String label;
    private volatile Outcome last;

    public CudaCpuBackend() {
        this(new CpuBuild("g++", defaultCache(), defaultOptimisation()), 600, defaultBudget());
    }

    /**
     * The instructions one wave may execute in the default backends: the system property {@code replay.cuda-cpu.budget},
     * else {@link LaunchBundle#DEFAULT_BUDGET} (the host model's default). The planted-bug benchmark lowers it with the
     * run's {@code --budget}, so that a mutant that loops for ever stops soon on both sides.
     */
    public static long defaultBudget() {
        String p = System.getProperty("replay.cuda-cpu.budget");
        return p == null || p.isBlank() ? LaunchBundle.DEFAULT_BUDGET : Long.parseLong(p.strip());
    }

    /**
     * The g++ optimisation level of the default builds: the system property {@code replay.cuda-cpu.opt} or
     * {@code $REPLAY_CUDA_CPU_OPT} ({@code -O0} ... {@code -O3}), else null (by the translation's size). Results do not
     * depend on it (CpuBuild's flags); -O0 builds fastest, for runs of many small programs (the planted-bug benchmark).
     */
    public static String defaultOptimisation() {
        String p = System.getProperty("replay.cuda-cpu.opt", System.getenv("REPLAY_CUDA_CPU_OPT"));
        return p == null || p.isBlank() ? null : p.strip();
    }

    public CudaCpuBackend(CpuBuild build, long timeoutSeconds, long budget) {
        this(build, timeoutSeconds, budget, null);
    }

    /**
     * @param folder a translation folder ({@code replay translate --out DIR}, perhaps edited) built and run as it
     *               lies instead of the capture's program translated now; null for the latter
     */
    public CudaCpuBackend(CpuBuild build, long timeoutSeconds, long budget, Path folder) {
        this.build = build;
        this.timeoutSeconds = timeoutSeconds;
        this.budget = budget;
        this.folder = folder;
    }

    /** The {@code cuda-cpu:DIR} backend: the translation folder DIR built with g++ as it lies and run on the CPU. */
    public static CudaCpuBackend ofFolder(Path folder) {
        return new CudaCpuBackend(new CpuBuild("g++", defaultCache(), defaultOptimisation()), 600, defaultBudget(),
                folder);
    }

    /** The translation folder this backend runs, or null when it translates the capture itself. */
    public Path folder() {
        return folder;
    }

    /** The spelling of this backend in messages: cuda-cpu or cuda-cpu:DIR. */
    private String spelling() {
        return folder == null ? kind() : kind() + ":" + folder;
    }

    @Override
    public String kind() {
        return "cuda-cpu";
    }

    @Override
    public synchronized String label() {
        if (label == null) {
            String v;
            try {
                v = build.compilerVersion();
            } catch (IOException e) {
                v = "(g++ not found: " + e.getMessage() + ")";
            }
            label = (folder == null ? "CUDA C translation on the CPU, g++ " : "the CUDA C translation in " + folder
                    + " (as it lies) on the CPU, g++ ") + v;
        }
        return label;
    }

    /** What the last run did besides its outputs: the translation, the build, per group faults and counts. */
    public record Outcome(Translation translation, CpuBuild.Built built, LaunchBundle.Result result, long runNanos) {
    }

    /** The last run's outcome (for reports and tests), or null before the first. */
    public Outcome lastOutcome() {
        return last;
    }

    /**
     * The translation, images section and runner of a run: the capture's program translated and built, or with a
     * folder, the folder built as it lies (the capture translated too, for the fidelity counts, and its listing checked
     * against the folder's guest.s: a folder made from another program is refused, naming both).
     */
    static PreparedTranslation<CpuBuild.Built> prepare(CaptureFile capture, Translation given, CpuBuild build,
                                                      Path folder) throws DeviceException {
        if (folder == null) {
            return given == null ? PreparedTranslation.of("cuda-cpu", "g++", capture, build::build)
                    : PreparedTranslation.of("cuda-cpu", "g++", capture, given, build::build);
        }
        return PreparedTranslation.ofFolder("cuda-cpu:" + folder, "g++", capture, folder, build::buildFolder);
    }

    /**
     * A lockstep trace of one group: the translation (or the folder) built with {@code -DRT_TRACE} and run on that
     * group alone.
     *
     * @param trace   the trace file's bytes (evalnode.trace.DeviceTrace reads them)
     * @param ranges  the final ranges after that group alone
     * @param nanos   how long the traced run took
     */
    public record Traced(byte[] trace, java.util.Map<Integer, ByteBuffer> ranges, LaunchBundle.Result result, long nanos,
                         boolean compiled) {
    }

    /**
     * Runs group {@code group} of the capture's dispatch with tracing on (at most {@code maxSteps} instructions); with
     * {@code group} null, every group in order, each from the initial memory and images.
     */
    public Traced trace(CaptureFile capture, int[] group, long maxSteps) throws DeviceException {
        PreparedTranslation<CpuBuild.Built> p = prepare(capture, null, build.with("-DRT_TRACE"), folder);
        Path work = null;
        try {
            work = Files.createTempDirectory("replay-trace");
            Path bundle = work.resolve("launch.bundle");
            Path result = work.resolve("result.bin");
            Path traceFile = work.resolve("trace.bin");
            Files.write(bundle, LaunchBundle.write(capture, budget, p.imagesSection()));
            long start = System.nanoTime();
            try {
                CpuBuild.run(List.of(p.built().runner().toString(), bundle.toString(), result.toString()), work,
                        timeoutSeconds, java.util.Map.of("RT_TRACE_FILE", traceFile.toString(), "RT_TRACE_GROUP",
                                group == null ? "all" : group[0] + "," + group[1] + "," + group[2], "RT_TRACE_MAX_STEPS", Long.toString(maxSteps)));
            } catch (IOException e) {
                throw new DeviceException(spelling() + ": the traced run failed: " + e.getMessage(), e);
            }
            long took = System.nanoTime() - start;
            LaunchBundle.Result r = LaunchBundle.read(Files.readAllBytes(result));
            return new Traced(Files.readAllBytes(traceFile), new TreeMap<>(r.ranges()), r, took, p.built().compiled());
        } catch (IOException | IllegalArgumentException e) {
            throw new DeviceException(spelling() + ": the traced run failed: " + e.getMessage(), e);
        } finally {
            if (work != null) {
                try {
                    CpuBuild.deleteTree(work);
                } catch (IOException ignored) {
                    // a leftover temp directory is harmless
                }
            }
        }
    }

    @Override
    public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
        return run(request, events, null);
    }

    /**
     * As {@link #run(DeviceRequest, DeviceEvents)}, with the capture's program already translated (null: translate
     * it here), so a caller that has the translation does not pay for a second one.
     */
    public DeviceRun run(DeviceRequest request, DeviceEvents events, Translation given) throws DeviceException {
        CaptureFile capture = request.capture();
        events.on(new DeviceEvent.Started(kind(), label()));
        PreparedTranslation<CpuBuild.Built> p = prepare(capture, given, build, folder);
        Translation t = p.translation();
        CpuBuild.Built built = p.built();
        byte[] section = p.imagesSection();
        Path work = null;
        try {
            work = Files.createTempDirectory("replay-cuda-cpu");
            Path bundle = work.resolve("launch.bundle");
            Path result = work.resolve("result.bin");
            Files.write(bundle, LaunchBundle.write(capture, budget, section));
            long start = System.nanoTime();
            try {
                CpuBuild.run(List.of(built.runner().toString(), bundle.toString(), result.toString()), work,
                        timeoutSeconds);
            } catch (IOException e) {
                throw new DeviceException(spelling() + ": the device failed (runner " + built.hash().substring(0, 12)
                        + "): " + e.getMessage(), e);
            }
            long took = System.nanoTime() - start;
            LaunchBundle.Result r;
            try {
                r = LaunchBundle.read(Files.readAllBytes(result));
            } catch (IllegalArgumentException e) {
                throw new DeviceException(spelling() + ": the device failed: " + e.getMessage(), e);
            }
            last = new Outcome(t, built, r, took);
            ExecutionRecord exec = new ExecutionRecord(UUID.randomUUID().toString(), took,
                    ExecutionRecord.Serialized.UNKNOWN);
            events.on(new DeviceEvent.Executed(exec));
            SortedMap<Integer, ByteBuffer> ranges = new TreeMap<>(r.ranges());
            SortedMap<Integer, ByteBuffer> images;
            try {
                images = new TreeMap<>(ImageBundle.texels(r.images()));
            } catch (IllegalArgumentException e) {
                throw new DeviceException("cuda-cpu: the device failed: its images section: " + e.getMessage(), e);
            }
            long wave = 0;
            long lane = 0;
            long faulted = 0;
            for (LaunchBundle.GroupOutcome g : r.groups()) {
                wave += g.waveInstructions();
                lane += g.laneInstructions();
                faulted += g.faulted() ? 1 : 0;
            }
            int translated = t.coverage().values().stream().mapToInt(Translation.Count::translated).sum();
            DeviceRun.Fidelity fidelity = new DeviceRun.Fidelity(translated - t.approximate(), t.approximate(), 0,
                    t.unreached(), wave, lane, faulted);
            DeviceRun out = new DeviceRun(kind(), label(), ranges, images, List.of(exec), fidelity);
            events.on(new DeviceEvent.Finished(ranges.size(), images.size()));
            return out;
        } catch (IOException e) {
            throw new DeviceException(spelling() + ": " + e.getMessage(), e);
        } finally {
            if (work != null) {
                try (var walk = Files.walk(work)) {
                    for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(q);
                    }
                } catch (IOException ignored) {
                    // a leftover temp directory is harmless
                }
            }
        }
    }
}
