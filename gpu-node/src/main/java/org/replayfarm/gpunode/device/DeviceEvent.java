package org.replayfarm.gpunode.device;

/** Something that happened during a device run. */
public sealed interface DeviceEvent {
    /** The run began on this backend. */
    record Started(String kind, String label) implements DeviceEvent {
    }

    /** One launch (execution) ended. */
    record Executed(ExecutionRecord execution) implements DeviceEvent {
    }

    /** The outputs are complete. */
    record Finished(int ranges, int images) implements DeviceEvent {
    }
}
