package org.replayfarm.coordinator.sampling;

import java.util.List;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.GpuExecutionReport;
import org.replayfarm.proto.PcSample;

/** What the coordinator knew about sampling at one moment; immutable. {@code duplicates}: PC batches and executions that arrived twice. */
public record SamplingSnapshot(List<NodeSampling> nodes, long windowConflicts, long duplicates)
        implements akka.actor.NoSerializationVerificationNeeded {
    /** Nothing heard from any GPU node (the report's sampling mode reads "none"). */
    public static final SamplingSnapshot EMPTY = new SamplingSnapshot(List.of(), 0, 0);

    /**
     * One GPU node incarnation. {@code status} is its latest execution report without the executions
     * (null: none arrived, so its configured mode is not known here).
     */
    public record NodeSampling(WindowStore.NodeKey key, GpuExecutionReport status, List<WindowStore.Window> windows,
                               List<GpuExecution> executions, List<PcSample> samples) {
        public org.replayfarm.proto.SamplingMode configuredMode() {
            return status == null ? org.replayfarm.proto.SamplingMode.SAMPLING_MODE_UNSPECIFIED : status.getConfiguredMode();
        }

        public Disclosure disclosure() {
            return status == null
                    ? new Disclosure(configuredMode(), windows, 0, 0)
                    : new Disclosure(configuredMode(), windows, status.getBurstsStarted(), status.getAsOfNs());
        }
    }
}
