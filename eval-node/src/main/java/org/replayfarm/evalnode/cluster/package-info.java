/**
 * The evaluator side of the cluster: Cluster Sharding of one evaluator entity per slice attempt ({@link
 * org.replayfarm.evalnode.cluster.EvaluatorSharding}, {@link org.replayfarm.evalnode.cluster.Evaluator}), what an
 * evaluator node shares between its slices (the capture cache, a host model per capture and budget, the evaluator
 * executor: {@code EvaluatorNode}, {@code CaptureCache}), the wire forms of a slice's results ({@code SliceCodec}),
 * the draining notice ({@code DrainingTopic}), and the coordinator's API token ({@link
 * org.replayfarm.evalnode.cluster.ApiToken}). The coordinator's node start-up and its job actors use it; the HTTP
 * server and the CLI's clients use the token.
 */
package org.replayfarm.evalnode.cluster;
