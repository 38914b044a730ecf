/**
 * The comparison core every consumer of host-against-device values shares: the distance of two floats in
 * units in the last place ({@link org.replayfarm.model.compare.Ulps}), used by the coordinator's range and
 * image diffs, the first-divergence searches and the Amber/lavapipe checks.
 */
package org.replayfarm.model.compare;
