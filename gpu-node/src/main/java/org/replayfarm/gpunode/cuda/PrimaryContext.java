package org.replayfarm.gpunode.cuda;

import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.replayfarm.gpunode.sampling.CuptiShim;
import org.replayfarm.gpunode.sampling.PcSampler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Device 0's primary context as the {@code cuda} backend holds it: retained on first use and made current on
 * the calling thread; after a sticky error released, reset and retained again, which makes a new context
 * (a new {@code CUcontext} handle, a new {@link #generation}). It is the {@link CuptiShim.Context} the PC
 * sampler reads its context from, so after a reset the sampler configures and samples the new context, never
 * the destroyed one.
 */
public final class PrimaryContext implements CuptiShim.Context {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryContext.class);

    /** The driver calls behind a primary context (JCuda's driver API on a GPU node: {@link #jcuda()}). */
    interface Driver {
        /** cuInit, cuDeviceGet(0), cuDevicePrimaryCtxRetain. */
        void retain() throws CudaBackend.CudaCallException;

        /** cuCtxSetCurrent on the calling thread. */
        void makeCurrent() throws CudaBackend.CudaCallException;

        /** cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxReset: the context is destroyed. */
        void releaseAndReset() throws CudaBackend.CudaCallException;

        /** The retained context's native {@code CUcontext} handle. */
        long handle() throws CudaBackend.CudaCallException;
    }

    private final Driver driver;
    private final java.util.List<Runnable> beforeDestroy = new java.util.concurrent.CopyOnWriteArrayList<>();
    private boolean retained;
    private long handle;
    private long generation;

    PrimaryContext(Driver driver) {
        this.driver = driver;
    }

    /** The primary context of device 0 through JCuda's driver API. */
    static PrimaryContext jcuda() {
        return new PrimaryContext(new JCudaDriverContext());
    }

    /** Retains the context (once per generation) and makes it current on the calling thread. */
    synchronized void ensure() throws CudaBackend.CudaCallException {
        if (!retained) {
            driver.retain();
            retained = true;
            handle = 0;
        }
        driver.makeCurrent();
    }

    /** The current generation's native handle (retaining the context first when needed). */
    synchronized long nativeHandle() throws CudaBackend.CudaCallException {
        ensure();
        if (handle == 0) {
            handle = driver.handle();
        }
        return handle;
    }

    @Override
    public synchronized long handle() throws PcSampler.SamplingException {
        try {
            return nativeHandle();
        } catch (CudaBackend.CudaCallException e) {
            throw new PcSampler.SamplingException("the CUDA context for PC sampling: " + e.getMessage());
        }
    }

    @Override
    public void beforeDestroy(Runnable action) {
        beforeDestroy.add(action);
    }

    /** How many times the context was reset (0 for the first one). */
    @Override
    public synchronized long generation() {
        return generation;
    }

    /**
     * After a sticky error: the context is gone; release and reset it, and retain a fresh one (a new
     * generation, whatever the reset's outcome). False when no context could be made again (the next
     * {@link #ensure} tries once more).
     */
    synchronized boolean reset(int stickyCode) {
        for (Runnable r : beforeDestroy) {
            try {
                r.run(); // the PC sampler stops, drains and disables while the old context still exists
            } catch (RuntimeException e) {
                LOG.warn("cuda: before the context reset: {}", e.toString());
            }
        }
        generation++;
        handle = 0;
        retained = false;
        try {
            driver.releaseAndReset();
            ensure();
            LOG.error("cuda: sticky error {}: the primary context was reset and recreated (generation {}); the node "
                    + "serves on", CUresult.stringFor(stickyCode), generation);
            return true;
        } catch (CudaBackend.CudaCallException e) {
            retained = false;
            LOG.error("cuda: after sticky error {} the context could not be recreated: {}", CUresult.stringFor(stickyCode),
                    e.getMessage());
            return false;
        }
    }

    /** JCuda's driver API. */
    private static final class JCudaDriverContext implements Driver {
        private CUdevice device;
        private CUcontext context;

        @Override
        public void retain() throws CudaBackend.CudaCallException {
            JCudaDriver.setExceptionsEnabled(false);
            CudaBackend.check("cuInit", JCudaDriver.cuInit(0));
            CUdevice d = new CUdevice();
            CudaBackend.check("cuDeviceGet", JCudaDriver.cuDeviceGet(d, 0));
            CUcontext c = new CUcontext();
            CudaBackend.check("cuDevicePrimaryCtxRetain", JCudaDriver.cuDevicePrimaryCtxRetain(c, d));
            device = d;
            context = c;
        }

        @Override
        public void makeCurrent() throws CudaBackend.CudaCallException {
            CudaBackend.check("cuCtxSetCurrent", JCudaDriver.cuCtxSetCurrent(context));
        }

        @Override
        public void releaseAndReset() throws CudaBackend.CudaCallException {
            context = null;
            if (device != null) {
                JCudaDriver.cuDevicePrimaryCtxRelease(device);
                CudaBackend.check("cuDevicePrimaryCtxReset", JCudaDriver.cuDevicePrimaryCtxReset(device));
            }
        }

        /**
         * The driver names the context an allocation belongs to (CU_POINTER_ATTRIBUTE_CONTEXT), so a word is
         * allocated, asked and freed.
         */
        @Override
        public long handle() throws CudaBackend.CudaCallException {
            CUdeviceptr p = new CUdeviceptr();
            CudaBackend.check("cuMemAlloc", JCudaDriver.cuMemAlloc(p, 8));
            try {
                long[] v = new long[1];
                CudaBackend.check("cuPointerGetAttribute(CONTEXT)", JCudaDriver.cuPointerGetAttribute(Pointer.to(v),
                        CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT, p));
                return v[0];
            } finally {
                JCudaDriver.cuMemFree(p);
            }
        }
    }
}
