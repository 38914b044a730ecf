/**
 * Active and standby coordinators: the singleton that makes one coordinator the active one ({@link
 * org.replayfarm.coordinator.failover.ActiveCoordinator}), what every coordinator knows of the others ({@link
 * org.replayfarm.coordinator.failover.Coordinators}), whether this one is cut off from the majority ({@code Quorum}),
 * and a standby's forwarding of API requests to the active one ({@code StandbyForward}).
 */
package org.replayfarm.coordinator.failover;
