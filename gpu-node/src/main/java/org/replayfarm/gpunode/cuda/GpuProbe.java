package org.replayfarm.gpunode.cuda;

import jcuda.CudaException;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node has a usable GPU, found once per process: JCuda's driver library loads (a
 * {@link LinkageError} where {@code libcuda.so.1} is absent), {@code cuInit} succeeds, a device exists.
 * The answer names the device (name, compute capability, memory, driver version) or says in one line
 * why there is none.
 */
public final class GpuProbe {
    private static final Logger LOG = LoggerFactory.getLogger(GpuProbe.class);
    private static volatile Gpu cached;

    /** What the probe found: {@code available} with the device's facts, or {@code why} not. */
    public record Gpu(boolean available, String why, String name, int ccMajor, int ccMinor, long memoryBytes,
                      int driverVersion) {
        public static Gpu none(String why) {
            return new Gpu(false, why, "", 0, 0, 0, 0);
        }

        /** "NVIDIA H200, compute capability 9.0, 141 GiB, driver 13.0" or "no GPU: WHY". */
        public String describe() {
            if (!available) {
                return "no GPU: " + why;
            }
            return String.format("%s, compute capability %d.%d, %.1f GiB, driver %d.%d", name, ccMajor, ccMinor,
                    memoryBytes / (double) (1L << 30), driverVersion / 1000, driverVersion % 1000 / 10);
        }
    }

    private GpuProbe() {
    }

    /** The probe's answer for this process (probes on the first call only). */
    public static Gpu once() {
        Gpu g = cached;
        if (g == null) {
            synchronized (GpuProbe.class) {
                g = cached;
                if (g == null) {
                    g = probe();
                    cached = g;
                    if (g.available()) {
                        LOG.info("GPU: {}", g.describe());
                    } else {
                        LOG.info("{}", g.describe());
                    }
                }
            }
        }
        return g;
    }

    /** Probes now (tests; {@link #once} for everything else). */
    public static Gpu probe() {
        try {
            JCudaDriver.setExceptionsEnabled(false);
            int r = JCudaDriver.cuInit(0);
            if (r != CUresult.CUDA_SUCCESS) {
                return Gpu.none("cuInit failed: " + CUresult.stringFor(r));
            }
            int[] version = new int[1];
            r = JCudaDriver.cuDriverGetVersion(version);
            if (r != CUresult.CUDA_SUCCESS) {
                return Gpu.none("cuDriverGetVersion failed: " + CUresult.stringFor(r));
            }
            int[] count = new int[1];
            r = JCudaDriver.cuDeviceGetCount(count);
            if (r != CUresult.CUDA_SUCCESS || count[0] == 0) {
                return Gpu.none(r != CUresult.CUDA_SUCCESS ? "cuDeviceGetCount failed: " + CUresult.stringFor(r)
                        : "the CUDA driver " + version[0] + " reports no device");
            }
            CUdevice d = new CUdevice();
            JCudaDriver.cuDeviceGet(d, 0);
            byte[] name = new byte[256];
            JCudaDriver.cuDeviceGetName(name, name.length, d);
            int len = 0;
            while (len < name.length && name[len] != 0) {
                len++;
            }
            int[] major = new int[1];
            int[] minor = new int[1];
            JCudaDriver.cuDeviceGetAttribute(major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
            JCudaDriver.cuDeviceGetAttribute(minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
            long[] mem = new long[1];
            JCudaDriver.cuDeviceTotalMem(mem, d);
            if (major[0] < 9) {
                return Gpu.none("device 0 (" + new String(name, 0, len, java.nio.charset.StandardCharsets.US_ASCII)
                        + ") has compute capability " + major[0] + "." + minor[0] + "; the translation is built for sm_90");
            }
            return new Gpu(true, "", new String(name, 0, len, java.nio.charset.StandardCharsets.US_ASCII), major[0],
                    minor[0], mem[0], version[0]);
        } catch (LinkageError e) {
            // UnsatisfiedLinkError on the first use, NoClassDefFoundError after it (jcuda/jcuda#45)
            return Gpu.none("JCuda's driver library does not load (no NVIDIA driver, libcuda.so.1): " + firstLine(e));
        } catch (CudaException e) {
            return Gpu.none("the CUDA driver failed: " + firstLine(e));
        }
    }

    static String firstLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
