/**
 * Jobs: what a coordinator offers its clients ({@link org.replayfarm.coordinator.job.JobService}, captures on disk in
 * {@code CaptureStore}, progress in {@code ProgressBoard}, {@code JobProgress}, {@code JobInfo} and
 * {@code ProgressMetrics}), and how a job runs on the cluster: {@link org.replayfarm.coordinator.job.ClusterJobService},
 * one {@link org.replayfarm.coordinator.job.Job} actor per job that shards its slices over the evaluators and merges
 * their results (its decisions in {@code JobState}, its request in {@code JobSpec}), and the journal
 * ({@code Journal}) they are resumed from.
 */
package org.replayfarm.coordinator.job;
