package org.replayfarm.gpunode.device;

/** Receives a device run's events while it runs (progress bars, live PC-sampling views, logs). */
@FunctionalInterface
public interface DeviceEvents {
    void on(DeviceEvent event);

    /** Ignores every event. */
    static DeviceEvents ignore() {
        return e -> { };
    }
}
