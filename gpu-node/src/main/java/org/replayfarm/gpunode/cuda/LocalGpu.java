package org.replayfarm.gpunode.cuda;

import org.replayfarm.gpunode.device.GpuSource;

/**
 * This process's GPU as a {@link GpuSource}: the probe's answer (once per process), and one
 * {@link CudaBackend} shared by every run (it owns the device's primary context).
 */
public final class LocalGpu implements GpuSource {
    private static final LocalGpu INSTANCE = new LocalGpu();
    private CudaBackend backend;

    private LocalGpu() {
    }

    public static LocalGpu get() {
        return INSTANCE;
    }

    /** The shared backend, or null when the probe found no GPU. */
    public synchronized CudaBackend backend() {
        GpuProbe.Gpu g = GpuProbe.once();
        if (!g.available()) {
            return null;
        }
        if (backend == null) {
            backend = new CudaBackend(g);
        }
        return backend;
    }

    @Override
    public Offer offer() {
        CudaBackend b = backend();
        return b == null ? Offer.none("no GPU on this node: " + GpuProbe.once().why())
                : Offer.of(b, "this node's GPU: " + b.gpu().describe());
    }
}
