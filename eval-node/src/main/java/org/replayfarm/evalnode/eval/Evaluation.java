package org.replayfarm.evalnode.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.InitialMemory;

/**
 * The single-process reference path ({@code replay eval}): evaluates the selected groups of a capture on
 * the host model, on {@code threads} threads, merges their results in group order (so the output does
 * not depend on the threads), and writes {@code host/guest-<n>.bin} and {@code report.json}.
 */
public final class Evaluation {
    /** Totals of one evaluation. */
    public record Outcome(int groups, long waveInstructions, long laneInstructions, long exact, long approximate,
                          long unsupported, List<FaultRecord> faults, MemoryMerge memory, ImageMerge images,
                          List<MemoryMerge.OrderDependent> orderDependent, Duration wallTime, int threads,
                          InOrder.Pass inOrder) {
        public Outcome(int groups, long waveInstructions, long laneInstructions, long exact, long approximate,
                       long unsupported, List<FaultRecord> faults, MemoryMerge memory, ImageMerge images,
                       List<MemoryMerge.OrderDependent> orderDependent, Duration wallTime, int threads) {
            this(groups, waveInstructions, laneInstructions, exact, approximate, unsupported, faults, memory, images,
                    orderDependent, wallTime, threads, InOrder.Pass.NONE);
        }
    }

    private Evaluation() {
    }

    /**
     * Runs the groups. {@code progress} is told how many groups have finished after each one (from any
     * thread).
     */
    public static Outcome run(Kernel kernel, List<int[]> groups, int threads, long budget, IntConsumer progress)
            throws InterruptedException {
        return run(kernel, groups, threads, budget, HostModel.Tier.byDefault(), progress);
    }

    /** As above, on the host model's {@code tier}. */
    public static Outcome run(Kernel kernel, List<int[]> groups, int threads, long budget, HostModel.Tier tier,
                              IntConsumer progress) throws InterruptedException {
        long start = System.nanoTime();
        HostModel model = new HostModel(kernel, budget, tier);
        GroupResult[] results = new GroupResult[groups.size()];
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads), r -> {
            Thread t = new Thread(r, "host-model");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            int n = Math.max(1, threads);
            for (int worker = 0; worker < n; worker++) {
                int first = worker;
                futures.add(pool.submit(() -> {
                    for (int i = first; i < groups.size(); i += n) {
                        int[] g = groups.get(i);
                        results[i] = model.runGroup(g[0], g[1], g[2]);
                        progress.accept(done.incrementAndGet());
                    }
                }));
            }
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("host model failed: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        Totals totals = new Totals(kernel, budget, tier);
        for (int i = 0; i < results.length; i++) {
            totals.add(results[i]);
        }
        return totals.outcome(Duration.ofNanos(System.nanoTime() - start), Math.max(1, threads));
    }

    /**
     * Merges group results in group order (the order fixes conflicts and order-dependent atomics, so
     * every evaluator of a selection must add them in the same order) and sums their counters.
     */
    public static final class Totals {
        private final MemoryMerge merge;
        private final ImageMerge images;
        private int groups;
        private long wave;
        private long lane;
        private long exact;
        private long approximate;
        private long unsupported;
        private final List<FaultRecord> faults = new ArrayList<>();
        private final Kernel kernel;
        private final long budget;
        private final HostModel.Tier tier;
        private HostModel.StepListener steps;

        /** Totals whose order-dependent groups run again in order under the default budget and tier. */
        public Totals(Kernel kernel) {
            this(kernel, HostModel.DEFAULT_BUDGET, HostModel.Tier.byDefault());
        }

        /** {@code budget} and {@code tier} are the evaluation's: the groups run again in order run under them. */
        public Totals(Kernel kernel, long budget, HostModel.Tier tier) {
            this.kernel = kernel;
            this.budget = budget;
            this.tier = tier;
            this.merge = new MemoryMerge(kernel.memory(), kernel.dispatch());
            this.images = new ImageMerge(kernel.images(), kernel.dispatch());
        }

        /**
         * The in-order pass runs its groups with {@code listener} told of every instruction, as the groups added were
         * run (replay mutant-run's planted bug: a group run again in order must carry the same bug).
         */
        public Totals steppedWith(HostModel.StepListener listener) {
            this.steps = listener;
            return this;
        }

        /** Adds a group's result; results must come in the order of the selection. */
        public void add(GroupResult r) {
            merge.add(r);
            images.add(r);
            groups++;
            wave += r.waveInstructions();
            lane += r.laneInstructions();
            exact += r.exact();
            approximate += r.approximate();
            unsupported += r.unsupported();
            r.fault().ifPresent(faults::add);
        }

        public int groups() {
            return groups;
        }

        public long waveInstructions() {
            return wave;
        }

        public long laneInstructions() {
            return lane;
        }

        public int faults() {
            return faults.size();
        }

        /** Bytes and texels two groups stored differently, so far. */
        public long storeConflicts() {
            return merge.conflictCount() + images.conflictCount();
        }

        /**
         * Runs the groups that meet on order-dependent atomic locations again in group order, memory carried
         * ({@link InOrder}), applies the memory and image atomics (once, after every group was added) and returns
         * the totals (the image merge keeps its order-dependent texels, {@link ImageMerge#orderDependent}). The
         * counters are the first evaluation's; the in-order pass says what it ran.
         */
        public Outcome outcome(Duration wallTime, int threads) {
            InOrder.Pass pass = InOrder.run(kernel, budget, tier, merge, images, steps);
            List<MemoryMerge.OrderDependent> dependent = merge.applyAtomics();
            images.applyAtomics();
            return new Outcome(groups, wave, lane, exact, approximate, unsupported, List.copyOf(faults), merge, images, dependent,
                    wallTime, threads, pass);
        }
    }

    /**
     * Writes {@code dir/host/guest-<n>.bin} for every range, {@code dir/host/image-<k>.raw} for every image
     * (final texels in the capture's layout) with {@code image-<k>.png} beside it (level 0, see
     * {@link org.replayfarm.model.image.ImagePng}) and {@code dir/report.json} ({@link EvalReport}).
     */
    public static void write(Outcome o, Kernel kernel, String captureSha256, Path dir) throws IOException {
        write(o, kernel, captureSha256, dir, report -> { });
    }

    /**
     * As {@link #write(Outcome, Kernel, String, Path)}, and {@code more} may add fields at the end of the
     * report (before {@code wall_time_seconds}).
     */
    public static void write(Outcome o, Kernel kernel, String captureSha256, Path dir,
                             java.util.function.Consumer<ObjectNode> more) throws IOException {
        write(o, kernel, captureSha256, dir, more, () -> { });
    }

    /** More files of a run, written after the host's outputs and before report.json. */
    @FunctionalInterface
    public interface MoreFiles {
        void write() throws IOException;
    }

    /**
     * As {@link #write(Outcome, Kernel, String, Path, java.util.function.Consumer)}, through
     * {@link OutputFolder}: every file goes to a temporary name and is renamed, {@code files} writes its
     * own (with {@link OutputFolder#write}) after the host's, and report.json is renamed into place last.
     */
    public static void write(Outcome o, Kernel kernel, String captureSha256, Path dir,
                             java.util.function.Consumer<ObjectNode> more, MoreFiles files) throws IOException {
        OutputFolder.begin(dir);
        Path host = dir.resolve("host");
        Files.createDirectories(host);
        InitialMemory memory = o.memory().initial();
        for (InitialMemory.Range r : memory.ranges()) {
            OutputFolder.write(host.resolve("guest-" + r.index() + ".bin"), o.memory().range(r.index()));
        }
        // the pictures are encoded on threads of their own (Encoder) while this one writes the files in order
        try (Encoder encoder = new Encoder(o.images().imageCount())) {
            List<java.util.concurrent.CompletableFuture<byte[]>> pngs = new ArrayList<>();
            for (int k = 0; k < o.images().imageCount(); k++) {
                int image = k;
                pngs.add(encoder.start(() -> org.replayfarm.model.image.ImagePng.encode(
                        o.images().initial().get(image).image(), o.images().texels(image))));
            }
            for (int k = 0; k < o.images().imageCount(); k++) {
                OutputFolder.write(host.resolve("image-" + k + ".raw"), o.images().texels(k));
                OutputFolder.write(host.resolve("image-" + k + ".png"), Encoder.get(pngs.get(k)));
            }
        }
        files.write();
        ObjectNode report = ReportJson.tree(EvalReport.of(o, kernel, captureSha256));
        // the fields more adds go before wall_time_seconds, which stays last
        JsonNode wallTime = report.remove("wall_time_seconds");
        more.accept(report);
        report.set("wall_time_seconds", wallTime);
        OutputFolder.finish(dir, ReportJson.bytes(report));
    }

    /**
     * The one-screen summary. A farm job's outcome has no thread count (0: its coordinator does not know the
     * evaluator nodes' threads), so its line says where the groups ran instead of "on 0 thread(s)".
     */
    public static void summarize(Outcome o, PrintWriter out) {
        String where = o.threads() > 0 ? o.threads() + " thread(s)" : "the farm's evaluator nodes";
        out.printf("groups          %d (on %s, %.3f s)%n", o.groups(), where, o.wallTime().toNanos() / 1e9);
        out.printf("instructions    %d wave, %d lane (exact %d, approximate %d, unsupported %d)%n", o.waveInstructions(),
                o.laneInstructions(), o.exact(), o.approximate(), o.unsupported());
        out.printf("faults          %d%n", o.faults().size());
        o.faults().stream().limit(10).forEach(f -> out.println("  " + f));
        out.printf("store conflicts %d%n", o.memory().conflictCount() + o.images().conflictCount());
        out.printf("order-dependent atomics %d%n", o.orderDependent().size() + o.images().orderDependent().size());
        if (o.inOrder().ran()) {
            out.printf("  their %d group(s) ran again one after another in group order, memory and images carried (%s%s), %d wave "
                    + "instructions%s%n", o.inOrder().groups().size(), String.join(", ", o.inOrder().groups().subList(0,
                    Math.min(4, o.inOrder().groups().size()))), o.inOrder().groups().size() > 4 ? ", ..." : "",
                    o.inOrder().waveInstructions(), o.inOrder().fault().map(f -> "; a fault: " + f).orElse(""));
        }
        out.flush();
    }
}
