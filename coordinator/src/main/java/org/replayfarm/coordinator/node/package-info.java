/**
 * A farm node and its roles: {@link org.replayfarm.coordinator.node.FarmNode} starts the actor system (Artery, the
 * split-brain resolver, sharding, the metrics endpoint) and composes the roles it was given: {@link
 * org.replayfarm.coordinator.node.CoordinatorRole}, {@link org.replayfarm.coordinator.node.EvalRole} and {@link
 * org.replayfarm.coordinator.node.GpuRole}, each with its own start and close. How a node finds the others
 * ({@code Bootstrap}) and TLS between them ({@code ClusterTls}) are here too.
 */
package org.replayfarm.coordinator.node;
