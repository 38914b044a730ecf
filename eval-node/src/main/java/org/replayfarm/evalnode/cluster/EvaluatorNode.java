package org.replayfarm.evalnode.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.proto.GroupOutcome;
import org.replayfarm.proto.SliceResult;
import org.replayfarm.proto.SliceTask;

/**
 * What an evaluator node shares between its slices: the capture cache, one host model per capture and
 * budget, and the dedicated executor (the evaluator dispatcher) every group runs on.
 */
public final class EvaluatorNode {
    private final CaptureCache cache;
    private final Executor executor;
    private final String address;
    private final Map<String, HostModel> models = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();

    private final FarmMetrics.EvalSeries metrics;

    public EvaluatorNode(CaptureCache cache, Executor executor, String address) {
        this(cache, executor, address, FarmMetrics.off().eval());
    }

    /** As above, recording each slice (latency, groups, instructions, faults) and the queue depth in {@code metrics}. */
    public EvaluatorNode(CaptureCache cache, Executor executor, String address, FarmMetrics.EvalSeries metrics) {
        this.cache = cache;
        this.executor = executor;
        this.address = address;
        this.metrics = metrics;
    }

    /** Evaluates a slice's groups in parallel on the executor; the result lists them in the task's order. */
    public CompletableFuture<SliceResult> evaluate(SliceTask task) {
        return evaluate(task, () -> false);
    }

    /**
     * As {@link #evaluate(SliceTask)}; once {@code cancelled} says true (the job no longer wants the slice) its
     * groups stop within {@link HostModel#CANCEL_CHECK_EVERY} instructions of a wave and the stage fails with
     * {@link HostModel.GroupCancelled}, so the executor's threads go to other slices.
     */
    public CompletableFuture<SliceResult> evaluate(SliceTask task, java.util.function.BooleanSupplier cancelled) {
        long start = System.nanoTime();
        metrics.queueDepth(running.incrementAndGet());
        CompletableFuture<SliceResult> result = cache.kernel(task.getCaptureSha256(), task.getCaptureUrl(), executor).thenCompose(kernel -> {
            long budget = task.getBudget() > 0 ? task.getBudget() : HostModel.DEFAULT_BUDGET;
            HostModel model = models.computeIfAbsent(task.getCaptureSha256() + "/" + budget, k -> new HostModel(kernel, budget));
            List<int[]> groups = SliceCodec.groups(task, kernel.dispatch());
            List<CompletableFuture<GroupOutcome>> futures = new ArrayList<>(groups.size());
            for (int[] g : groups) {
                futures.add(CompletableFuture.supplyAsync(() -> {
                    GroupResult r = model.runGroup(g[0], g[1], g[2], cancelled);
                    return SliceCodec.encode(r);
                }, executor));
            }
            return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).thenApply(v -> {
                List<GroupOutcome> outcomes = new ArrayList<>(futures.size());
                futures.forEach(f -> outcomes.add(f.join()));
                return SliceResult.newBuilder().setJobId(task.getJobId()).setSliceId(task.getSliceId())
                        .setAttempt(task.getAttempt()).setNodeAddress(address)
                        .setResultHash(com.google.protobuf.ByteString.copyFrom(SliceCodec.hash(outcomes)))
                        .addAllOutcomes(outcomes).setEvalNanos(System.nanoTime() - start).build();
            });
        });
        // the returned stage completes after the slice is recorded, so whoever replies with it replies after
        // the metrics count it; the queue depth falls last, so a depth of 0 means every slice is counted
        return result.whenComplete((r, e) -> {
            long wave = 0;
            long lane = 0;
            long faults = 0;
            if (r != null) {
                for (GroupOutcome o : r.getOutcomesList()) {
                    wave += o.getWaveInstructions();
                    lane += o.getLaneInstructions();
                    faults += o.hasFault() ? 1 : 0;
                }
            }
            metrics.slice(System.nanoTime() - start, r == null ? 0 : r.getOutcomesCount(), wave, lane, faults);
            metrics.queueDepth(running.decrementAndGet());
        });
    }

    /** Slices being evaluated on this node now. */
    public int running() {
        return running.get();
    }

    public CaptureCache cache() {
        return cache;
    }

    public String address() {
        return address;
    }

    /** Kernel of a capture this node has loaded (for tests and diagnostics). */
    public CompletableFuture<Kernel> kernel(String sha, String url) {
        return cache.kernel(sha, url, executor);
    }
}
