/**
 * What a coordinator offers its clients, independent of how jobs run: the {@link
 * org.replayfarm.coordinator.jobs.JobService} interface (store a capture by SHA-256, start a job over groups of it,
 * follow its progress, read its outputs), captures on disk ({@link org.replayfarm.coordinator.jobs.CaptureStore}),
 * and every job's progress with its listeners ({@link org.replayfarm.coordinator.jobs.ProgressBoard},
 * {@code JobProgress}, {@code JobInfo}) and the job metrics derived from it ({@code ProgressMetrics}). The HTTP API
 * ({@code coordinator.http}) serves it, the cluster's {@code ClusterJobService} implements it, and the CLI's client
 * commands read its progress values.
 */
package org.replayfarm.coordinator.jobs;
