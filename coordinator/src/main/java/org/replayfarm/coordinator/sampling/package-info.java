/**
 * What the coordinator hears from GPU nodes about PC sampling: the store actor that takes their records ({@link
 * org.replayfarm.coordinator.sampling.SamplingStore}) into its ledger and window store ({@code SamplingLedger},
 * {@code WindowStore}), the decision whether each device execution was serialized by Tier A ({@link
 * org.replayfarm.coordinator.sampling.Disclosure}, {@code Serialized}), report.json's {@code sampling} section
 * ({@link org.replayfarm.coordinator.sampling.SamplingReport}), and the same figures as metrics and as the progress
 * events' sampling part ({@code SamplingMetrics}). The coordinator node starts the store; the run report and job
 * progress read it.
 */
package org.replayfarm.coordinator.sampling;
