package org.replayfarm.gpunode.cuda;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.gpunode.device.DeviceEvent;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.device.ExecutionRecord;
import org.replayfarm.gpunode.device.PreparedTranslation;
import org.replayfarm.gpunode.sampling.CuptiShim;
import org.replayfarm.gpunode.translate.LaunchBundle;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.image.ImageBundle;
import org.replayfarm.model.capture.CaptureFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code cuda} backend: translates the capture's program, builds it with nvcc as a fat binary (sm_90
 * code and compute_90 PTX, cached by program hash), loads it into the device's primary context (once per
 * program), allocates and copies the guest ranges, the range table, scratch, the images/BVH section, the
 * fault records and counters, launches the whole dispatch (one block per group, one warp per wave) timed
 * with CUDA events, reads everything back and frees it. JCuda's driver API only. A sticky CUDA error (the
 * context is lost) is reported naming the error, the primary context is reset and retained again, and the
 * backend keeps serving. Runs are serialized: one launching thread at a time.
 */
public final class CudaBackend implements DeviceBackend {
    private static final Logger LOG = LoggerFactory.getLogger(CudaBackend.class);
    /** Errors after which the context is unusable (CUDA driver API documentation: "sticky"). */
    static final Set<Integer> STICKY = Set.of(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, CUresult.CUDA_ERROR_LAUNCH_TIMEOUT,
            CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR, CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION,
            CUresult.CUDA_ERROR_MISALIGNED_ADDRESS, CUresult.CUDA_ERROR_INVALID_ADDRESS_SPACE,
            CUresult.CUDA_ERROR_INVALID_PC, CUresult.CUDA_ERROR_LAUNCH_FAILED, CUresult.CUDA_ERROR_ECC_UNCORRECTABLE,
            CUresult.CUDA_ERROR_UNKNOWN);

    private final GpuProbe.Gpu gpu;
    private final FatbinBuild build;
    private final long budget;
    private volatile LaunchHooks hooks = LaunchHooks.NONE;
    private final Map<String, CUmodule> modules = new HashMap<>();
    private final PrimaryContext primary;
    private volatile Outcome last;
    private long contextResets;

    /** What a run did besides its outputs: the translation, the module, per group outcome, the kernel's time. */
    public record Outcome(Translation translation, FatbinBuild.Built built, LaunchBundle.Result result, long kernelNanos) {
    }

    /** A CUDA driver call failed: {@code code} is its CUresult. */
    static final class CudaCallException extends Exception {
        final int code;
        /** The context was already reset for this error (on the launching thread, before the hooks' exit). */
        boolean contextReset;

        CudaCallException(String call, int code) {
            super(call + " failed: " + CUresult.stringFor(code) + " (" + code + ")");
            this.code = code;
        }
    }

    /**
     * @throws IllegalStateException when {@code gpu} is not available (the probe's reason)
     */
    public CudaBackend(GpuProbe.Gpu gpu, FatbinBuild build, long budget) {
        this(gpu, build, budget, PrimaryContext.jcuda());
    }

    CudaBackend(GpuProbe.Gpu gpu, FatbinBuild build, long budget, PrimaryContext primary) {
        if (!gpu.available()) {
            throw new IllegalStateException("--device cuda: " + gpu.describe());
        }
        this.gpu = gpu;
        this.build = build;
        this.budget = budget;
        this.primary = primary;
    }

    public CudaBackend(GpuProbe.Gpu gpu) {
        this(gpu, new FatbinBuild(), LaunchBundle.DEFAULT_BUDGET);
    }

    /** The hooks every launch runs (sampling); set once the node's sampling session exists. */
    public void hooks(LaunchHooks h) {
        hooks = h == null ? LaunchHooks.NONE : h;
    }

    @Override
    public String kind() {
        return "cuda";
    }

    @Override
    public String label() {
        String nvcc;
        try {
            nvcc = build.compilerVersion();
        } catch (IOException e) {
            nvcc = "nvcc unavailable";
        }
        return "CUDA C translation on " + gpu.describe() + "; JCuda 12.6.0; " + nvcc;
    }

    public GpuProbe.Gpu gpu() {
        return gpu;
    }

    public Outcome lastOutcome() {
        return last;
    }

    /** How many times a sticky error made this backend reset and recreate the context. */
    public synchronized long contextResets() {
        return contextResets;
    }

    /**
     * The device's primary context: what the CUPTI shim samples ({@link CuptiShim.Context}); after a sticky
     * error it is a new context, and the shim follows it.
     */
    public PrimaryContext primaryContext() {
        return primary;
    }

    private void ensureContext() throws CudaCallException {
        primary.ensure();
    }

    /** After a sticky error: the context is gone (modules with it); reset the primary context and retain a fresh one. */
    private void recreate(int code) {
        contextResets++;
        modules.clear(); // modules died with the context
        primary.reset(code);
    }

    @Override
    public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
        return run(request, events, null);
    }

    /**
     * This GPU running a translation folder as it lies ({@code cuda:DIR}: {@code replay translate --out DIR}, perhaps
     * edited) instead of the capture's program translated now.
     */
    public org.replayfarm.gpunode.device.DeviceBackend forFolder(java.nio.file.Path folder) {
        CudaBackend gpu = this;
        return new org.replayfarm.gpunode.device.DeviceBackend() {
            @Override
            public String kind() {
                return "cuda";
            }

            @Override
            public String label() {
                return gpu.label() + ", the translation in " + folder + " as it lies";
            }

            @Override
            public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
                return gpu.run(request, events, folder);
            }
        };
    }

    private synchronized DeviceRun run(DeviceRequest request, DeviceEvents events, java.nio.file.Path folder)
            throws DeviceException {
        CaptureFile capture = request.capture();
        events.on(new DeviceEvent.Started(kind(), label()));
        PreparedTranslation<FatbinBuild.Built> p = folder == null
                ? PreparedTranslation.of(kind(), "nvcc", capture, build::build)
                : PreparedTranslation.ofFolder("cuda:" + folder, "nvcc", capture, folder, build::buildFolder);
        Translation t = p.translation();
        FatbinBuild.Built built = p.built();
        byte[] section = p.imagesSection();
        LaunchImage image = LaunchImage.of(LaunchBundle.write(capture, budget, section));
        int waveSize = capture.metadata().getProgram().getWaveSize();
        try {
            return launch(t, built, image, waveSize, events);
        } catch (CudaCallException e) {
            if (STICKY.contains(e.code)) {
                if (!e.contextReset) {
                    recreate(e.code);
                }
                throw new DeviceException("cuda: the device failed with a sticky CUDA error (" + e.getMessage()
                        + "); the context was lost, reset and recreated; this run has no outputs", e);
            }
            throw new DeviceException("cuda: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new DeviceException("cuda: " + e.getMessage(), e);
        }
    }

    private DeviceRun launch(Translation t, FatbinBuild.Built built, LaunchImage image, int waveSize, DeviceEvents events)
            throws CudaCallException, IOException {
        ensureContext();
        hooks.contextReady(); // before any module is loaded: CUPTI's Enable must precede the module loads
        CUmodule module = modules.get(built.hash());
        if (module == null) {
            module = new CUmodule();
            // cuModuleLoadData takes a fatbin as well as a cubin or PTX; JCuda's cuModuleLoadFatBinary binding (12.6)
            // never writes the loaded module back to its CUmodule, so the first GPU run (H200, driver 580) failed
            // with cuModuleGetFunction: CUDA_ERROR_INVALID_HANDLE on the null handle
            check("cuModuleLoadData(fatbin)", JCudaDriver.cuModuleLoadData(module, built.fatbinBytes()));
            modules.put(built.hash(), module);
        }
        CUfunction f = new CUfunction();
        check("cuModuleGetFunction(replay_kernel)", JCudaDriver.cuModuleGetFunction(f, module, "replay_kernel"));
        if (image.ldsBytes() > 48 * 1024) {
            check("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", JCudaDriver.cuFuncSetAttribute(f,
                    CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, image.ldsBytes()));
        }
        List<CUdeviceptr> allocated = new ArrayList<>();
        CUevent start = new CUevent();
        CUevent stop = new CUevent();
        boolean events2 = false;
        try {
            List<LaunchImage.Range> ranges = image.ranges();
            long[] bases = new long[ranges.size()];
            CUdeviceptr[] rangePtrs = new CUdeviceptr[ranges.size()];
            byte[] bundle = image.bundle();
            for (int i = 0; i < ranges.size(); i++) {
                LaunchImage.Range r = ranges.get(i);
                rangePtrs[i] = alloc(allocated, r.size() + 16, "range " + r.index());
                check("cuMemcpyHtoD(range " + r.index() + ")", JCudaDriver.cuMemcpyHtoD(rangePtrs[i],
                        Pointer.to(bundle).withByteOffset(r.offset()), r.size()));
                bases[i] = address(rangePtrs[i]);
            }
            byte[] table = image.rangeTable(bases);
            CUdeviceptr tablePtr = alloc(allocated, table.length, "range table");
            check("cuMemcpyHtoD(range table)", JCudaDriver.cuMemcpyHtoD(tablePtr, Pointer.to(table), table.length));
            long scratchBytes = image.scratchBytes(waveSize);
            CUdeviceptr scratch = scratchBytes > 0 ? alloc(allocated, scratchBytes, "scratch") : null;
            CUdeviceptr images = alloc(allocated, image.imagesBytes() + 16, "images section");
            if (image.imagesBytes() > 0) {
                check("cuMemcpyHtoD(images)", JCudaDriver.cuMemcpyHtoD(images,
                        Pointer.to(bundle).withByteOffset(image.imagesOffset()), image.imagesBytes()));
            }
            long groups = image.groups();
            CUdeviceptr faults = alloc(allocated, groups * LaunchImage.FAULT_SIZE, "fault records");
            CUdeviceptr counts = alloc(allocated, groups * 16, "counters");
            CUdeviceptr abort = alloc(allocated, 8, "abort flag");
            byte[] params = image.params(new LaunchImage.Pointers(address(tablePtr), scratch == null ? 0 : address(scratch),
                    address(images), address(faults), address(counts), address(abort)));
            check("cuEventCreate", JCudaDriver.cuEventCreate(start, 0));
            check("cuEventCreate", JCudaDriver.cuEventCreate(stop, 0));
            events2 = true;
            Pointer kernelParams = Pointer.to(Pointer.to(params));
            LaunchHooks h = hooks;
            h.enter();
            long wall;
            try {
                long w0 = System.nanoTime();
                check("cuEventRecord", JCudaDriver.cuEventRecord(start, null));
                check("cuLaunchKernel", JCudaDriver.cuLaunchKernel(f, image.groupCount(0), image.groupCount(1),
                        image.groupCount(2), image.wavesPerGroup() * 32, 1, 1, image.ldsBytes(), null, kernelParams, null));
                check("cuEventRecord", JCudaDriver.cuEventRecord(stop, null));
                check("cuEventSynchronize (the kernel)", JCudaDriver.cuEventSynchronize(stop));
                wall = System.nanoTime() - w0;
            } catch (CudaCallException e) {
                if (STICKY.contains(e.code)) {
                    // reset before the hooks' exit: the sampler's stop must not go to the destroyed context
                    recreate(e.code);
                    e.contextReset = true;
                }
                throw e;
            } finally {
                h.exit();
            }
            float[] ms = new float[1];
            check("cuEventElapsedTime", JCudaDriver.cuEventElapsedTime(ms, start, stop));
            long kernelNanos = Math.round(ms[0] * 1e6);
            SortedMap<Integer, ByteBuffer> out = new TreeMap<>();
            for (int i = 0; i < ranges.size(); i++) {
                LaunchImage.Range r = ranges.get(i);
                byte[] a = new byte[Math.toIntExact(r.size())];
                check("cuMemcpyDtoH(range " + r.index() + ")", JCudaDriver.cuMemcpyDtoH(Pointer.to(a), rangePtrs[i],
                        r.size()));
                out.put(r.index(), ByteBuffer.wrap(a));
            }
            byte[] imagesOut = new byte[Math.toIntExact(image.imagesBytes())];
            if (imagesOut.length > 0) {
                check("cuMemcpyDtoH(images)", JCudaDriver.cuMemcpyDtoH(Pointer.to(imagesOut), images, imagesOut.length));
            }
            byte[] faultBytes = new byte[Math.toIntExact(groups * LaunchImage.FAULT_SIZE)];
            check("cuMemcpyDtoH(faults)", JCudaDriver.cuMemcpyDtoH(Pointer.to(faultBytes), faults, faultBytes.length));
            byte[] countBytes = new byte[Math.toIntExact(groups * 16)];
            check("cuMemcpyDtoH(counts)", JCudaDriver.cuMemcpyDtoH(Pointer.to(countBytes), counts, countBytes.length));
            LaunchBundle.Result result = new LaunchBundle.Result(out, ByteBuffer.wrap(imagesOut),
                    groupOutcomes(faultBytes, countBytes, groups));
            last = new Outcome(t, built, result, kernelNanos);
            h.afterRun();
            ExecutionRecord exec = new ExecutionRecord(UUID.randomUUID().toString(), kernelNanos, h.disclosure());
            events.on(new DeviceEvent.Executed(exec));
            SortedMap<Integer, ByteBuffer> texels;
            try {
                texels = new TreeMap<>(ImageBundle.texels(result.images()));
            } catch (IllegalArgumentException e) {
                throw new IOException("the device's images section: " + e.getMessage(), e);
            }
            LOG.debug("cuda: {} groups in {} ms (events), {} ms wall", groups, ms[0], wall / 1e6);
            long wave = 0;
            long lane = 0;
            long faulted = 0;
            for (LaunchBundle.GroupOutcome g : result.groups()) {
                wave += g.waveInstructions();
                lane += g.laneInstructions();
                faulted += g.faulted() ? 1 : 0;
            }
            int translated = t.coverage().values().stream().mapToInt(Translation.Count::translated).sum();
            DeviceRun.Fidelity fidelity = new DeviceRun.Fidelity(translated - t.approximate(), t.approximate(), 0,
                    t.unreached(), wave, lane, faulted);
            DeviceRun run = new DeviceRun(kind(), label(), out, texels, List.of(exec), fidelity);
            events.on(new DeviceEvent.Finished(out.size(), texels.size()));
            return run;
        } finally {
            if (events2) {
                JCudaDriver.cuEventDestroy(start);
                JCudaDriver.cuEventDestroy(stop);
            }
            for (CUdeviceptr p : allocated) {
                JCudaDriver.cuMemFree(p);
            }
        }
    }

    /** The per-group fault records and counters as LaunchBundle reads them from the CPU runner. */
    static List<LaunchBundle.GroupOutcome> groupOutcomes(byte[] faults, byte[] counts, long groups) {
        ByteBuffer f = ByteBuffer.wrap(faults).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer c = ByteBuffer.wrap(counts).order(ByteOrder.LITTLE_ENDIAN);
        List<LaunchBundle.GroupOutcome> out = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            int at = g * LaunchImage.FAULT_SIZE;
            out.add(new LaunchBundle.GroupOutcome(f.getInt(at) != 0, f.getInt(at + 4), f.getInt(at + 8), f.getInt(at + 12),
                    f.getLong(at + 16), f.getLong(at + 24), c.getLong(16 * g), c.getLong(16 * g + 8)));
        }
        return out;
    }

    private static CUdeviceptr alloc(List<CUdeviceptr> allocated, long bytes, String what) throws CudaCallException {
        CUdeviceptr p = new CUdeviceptr();
        check("cuMemAlloc(" + what + ", " + bytes + " bytes)", JCudaDriver.cuMemAlloc(p, Math.max(bytes, 8)));
        allocated.add(p);
        check("cuMemsetD8(" + what + ")", JCudaDriver.cuMemsetD8(p, (byte) 0, Math.max(bytes, 8)));
        return p;
    }

    /** A device allocation's address, as the driver gives it (CU_POINTER_ATTRIBUTE_DEVICE_POINTER). */
    private static long address(CUdeviceptr p) throws CudaCallException {
        long[] v = new long[1];
        check("cuPointerGetAttribute(DEVICE_POINTER)", JCudaDriver.cuPointerGetAttribute(Pointer.to(v),
                CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p));
        return v[0];
    }

    static void check(String call, int r) throws CudaCallException {
        if (r != CUresult.CUDA_SUCCESS) {
            throw new CudaCallException(call, r);
        }
    }
}
