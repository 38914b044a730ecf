/**
 * The farm's metrics: {@link org.replayfarm.metrics.FarmMetrics} names every metric (its Kamon and
 * Prometheus names, kind, unit, role and tags) and holds the series they are recorded through, and {@link
 * org.replayfarm.metrics.MetricsEndpoint} serves a node's {@code /metrics} from Kamon in Prometheus text
 * ({@code ScrapeReporter}). Every node starts an endpoint; the evaluator nodes and the coordinator's jobs, device
 * runs and sampling store record into the series.
 */
package org.replayfarm.metrics;
