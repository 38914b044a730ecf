package org.replayfarm.gpunode.device;

/**
 * The device side of a comparison: runs a capture's dispatch somewhere other than the host model and
 * returns the final contents of its ranges and images. {@code recorded} replays outputs carried in the
 * capture; a later {@code cuda} backend translates, compiles and launches on a GPU, and reports each
 * launch (and, while it runs, PC-sampling windows) through {@link DeviceEvents}.
 */
public interface DeviceBackend {
    /** The backend's kind: {@code recorded}, later {@code cuda}. */
    String kind();

    /** What produced (or will produce) the outputs, e.g. "native x86-64 (clang-19)" or a GPU's name. */
    String label();

    /**
     * Runs (or fetches) the dispatch and returns its outputs. The whole dispatch runs: a group selection
     * narrows what is compared, not what the device executes. {@code events} hears about the run as it
     * goes (from any thread), the run's own {@link DeviceEvent.Finished} last.
     *
     * @throws DeviceException when the device cannot give outputs; the message names what and why
     */
    DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException;
}
