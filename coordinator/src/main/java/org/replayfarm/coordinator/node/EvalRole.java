package org.replayfarm.coordinator.node;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.DispatcherSelector;
import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import org.replayfarm.evalnode.cluster.ApiToken;
import org.replayfarm.evalnode.cluster.CaptureCache;
import org.replayfarm.evalnode.cluster.EvaluatorNode;
import org.replayfarm.evalnode.cluster.EvaluatorSharding;
import org.replayfarm.metrics.FarmMetrics;

/**
 * The eval role of a node ({@value EvaluatorSharding#ROLE}): the {@link EvaluatorNode} that runs slices, with its
 * capture cache ({@code replay.eval.cache-dir}, else the work directory's {@code cache}) on the
 * {@code replay.eval.dispatcher}. Its shard region starts with the node's sharding; closing the role removes its
 * series from the node's metrics.
 */
public final class EvalRole implements AutoCloseable {
    private final EvaluatorNode evaluator;
    private final FarmMetrics metrics;

    private EvalRole(EvaluatorNode evaluator, FarmMetrics metrics) {
        this.evaluator = evaluator;
        this.metrics = metrics;
    }

    /** The evaluator of a node whose actor system has started, recording into {@code metrics}. */
    public static EvalRole start(ActorSystem<Void> system, Config config, Path workDir, String nodeAddress,
                                 FarmMetrics metrics) throws IOException {
        String dir = config.getString("replay.eval.cache-dir");
        Path cacheDir = dir.isEmpty() ? workDir.resolve("cache") : Path.of(dir);
        Executor executor = system.dispatchers().lookup(DispatcherSelector.fromConfig("replay.eval.dispatcher"));
        FarmMetrics.EvalSeries evalMetrics = metrics.eval();
        EvaluatorNode evaluator = new EvaluatorNode(new CaptureCache(cacheDir, evalMetrics, ApiToken.from(config)),
                executor, nodeAddress, evalMetrics);
        return new EvalRole(evaluator, metrics);
    }

    public EvaluatorNode evaluator() {
        return evaluator;
    }

    /** Removes the evaluator's series (its actors stop with the actor system, before this). */
    @Override
    public void close() {
        metrics.eval().remove();
    }
}
