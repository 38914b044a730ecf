/**
 * The farm as an Akka cluster: {@link org.replayfarm.coordinator.cluster.FarmNode} starts one node with its roles
 * (coordinator, eval, gpu), how it finds the others ({@code Bootstrap}) and TLS between them ({@code ClusterTls});
 * on the coordinator, the job service that runs on the cluster ({@link
 * org.replayfarm.coordinator.cluster.ClusterJobService}), one {@link org.replayfarm.coordinator.cluster.Job} actor
 * per job that shards its slices over the evaluator nodes and merges their results (its decisions in
 * {@code JobState}), the journal ({@code Journal}), and the active/standby coordinators ({@code ActiveCoordinator},
 * {@code Coordinators}). {@code replay node} and the embedded cluster of {@code replay run} start nodes through it.
 */
package org.replayfarm.coordinator.cluster;
