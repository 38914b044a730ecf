package org.replayfarm.coordinator.cluster;

import java.nio.file.Path;
import java.util.List;
import org.replayfarm.evalnode.hostmodel.Kernel;

/**
 * A job to run on the cluster: the capture (by SHA-256, fetched from {@code captureUrl}), its kernel
 * (opened on the coordinator for the merge), the selected groups ({@code explicit} null means every group
 * of the dispatch, in x-fastest order), the per-wave budget, where the outputs go, and the thread count
 * the report names.
 */
public record JobSpec(String jobId, String captureSha256, String captureUrl, Kernel kernel, List<int[]> explicit,
                      long totalGroups, long budget, Path outDir, int reportThreads) {
}
