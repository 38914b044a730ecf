package org.replayfarm.coordinator.job;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.replayfarm.coordinator.report.DiffOptions;
import org.replayfarm.coordinator.report.RunReport;
import org.replayfarm.coordinator.sampling.SamplingSnapshot;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.model.capture.CaptureFile;

/**
 * A job to run on the cluster: the capture (by SHA-256, fetched from {@code captureUrl}), its kernel
 * (opened on the coordinator for the merge), the selected groups ({@code explicit} null means every group
 * of the dispatch, in x-fastest order), the per-wave budget, the deadline of one slice (0: the coordinator's,
 * measured from the time per group), where the outputs go, and the thread count
 * the report names; then what the merged results are compared with at the end ({@code device},
 * {@code options}, the stored {@code capture} it reads recorded runs from), the report's {@code identity},
 * and where the GPU nodes' sampling stands ({@code sampling}, for the report's sampling section).
 */
public record JobSpec(String jobId, String captureSha256, String captureUrl, Kernel kernel, List<int[]> explicit,
                      long totalGroups, long budget, long sliceDeadlineNanos, Path outDir, int reportThreads, CaptureFile capture,
                      RunReport.Identity identity, DeviceChoice device, DiffOptions options,
                      Supplier<CompletionStage<SamplingSnapshot>> sampling) {
}
