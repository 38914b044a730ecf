package org.replayfarm.gpunode.sampling;

import com.google.protobuf.Message;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/**
 * The Tier A overhead benchmark for a GPU machine (issue 9): the same run of kernel launches with
 * sampling off, then in Tier A at the default target, and the overhead as a ratio of wall times, with the
 * bursts, duty and pairs Tier A achieved. Where there is no GPU (or no CUPTI shim) it says so and prints no
 * figures. Usage: {@code SamplingBenchmark [--launches N] [--iters N] [--shim PATH]}.
 */
public final class SamplingBenchmark {
    private SamplingBenchmark() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the benchmark; 0 when measured, 2 when it cannot run here (said on {@code out}). */
    public static int run(String[] args, PrintStream out) {
        int launches = 2000;
        int iters = 100_000;
        Path shimPath = CuptiShim.built(Path.of(System.getProperty("replayfarm.root", ".")));
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--launches" -> launches = Integer.parseInt(args[i + 1]);
                case "--iters" -> iters = Integer.parseInt(args[i + 1]);
                case "--shim" -> shimPath = Path.of(args[i + 1]);
                default -> {
                    out.println("sampling benchmark: unknown option " + args[i]
                            + " (options: --launches N, --iters N, --shim PATH)");
                    return 2;
                }
            }
        }
        CUcontext ctx;
        CUfunction kernel;
        CUdeviceptr buffer;
        int blocks = 264;
        int threads = 256;
        try {
            JCudaDriver.setExceptionsEnabled(true);
            JCudaDriver.cuInit(0);
            int[] count = new int[1];
            JCudaDriver.cuDeviceGetCount(count);
            if (count[0] == 0) {
                return noFigures(out, "the CUDA driver reports no device");
            }
            CUdevice device = new CUdevice();
            JCudaDriver.cuDeviceGet(device, 0);
            ctx = new CUcontext();
            JCudaDriver.cuCtxCreate(ctx, 0, device);
        } catch (Throwable t) { // UnsatisfiedLinkError where libcuda.so.1 is missing: an Error, not an Exception
            return noFigures(out, "no usable CUDA driver or device (" + t + ")");
        }
        // sampling is enabled and configured right after the context exists, before the module is loaded:
        // CUPTI gives PC records only for modules loaded after its Enable
        CuptiShim shim;
        try {
            shim = CuptiShim.load(shimPath, pointerOf(ctx));
            shim.configure(SamplingMode.SERIALIZED);
        } catch (PcSampler.SamplingException | ReflectiveOperationException e) {
            return noFigures(out, "the CUPTI shim is not usable: " + e.getMessage());
        }
        try {
            CUmodule module = new CUmodule();
            JCudaDriver.cuModuleLoadData(module, spinPtx());
            kernel = new CUfunction();
            JCudaDriver.cuModuleGetFunction(kernel, module, "spin");
            buffer = new CUdeviceptr();
            JCudaDriver.cuMemAlloc(buffer, (long) blocks * threads * Float.BYTES);
        } catch (Throwable t) { // UnsatisfiedLinkError where libcuda.so.1 is missing: an Error, not an Exception
            return noFigures(out, "no usable CUDA driver or device (" + t + ")");
        }
        Pointer params = Pointer.to(Pointer.to(buffer), Pointer.to(new int[] {iters}));
        Runnable launch = () -> {
            JCudaDriver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, null, params, null);
            JCudaDriver.cuCtxSynchronize();
        };
        AtomicLong records = new AtomicLong();
        SamplingSink sink = (Message m) -> records.incrementAndGet();
        // off: sampling is enabled and configured on the context but never started
        SamplingSession off = new SamplingSession(SamplingSettings.off(), shim, sink, "benchmark", 1);
        timed(off, launch, 50);
        long offNs = timed(off, launch, launches);
        SamplingSession tierA = new SamplingSession(SamplingSettings.of(SamplingMode.SERIALIZED), shim, sink, "benchmark", 2);
        long tierANs = timed(tierA, launch, launches);
        tierA.report();
        SamplingSession.Stats st = tierA.stats();
        tierA.close(); // stop, drain and disable before the context goes
        out.printf("sampling benchmark: %d launches of spin (%d blocks x %d threads, %d FMAs each)%n", launches, blocks,
                threads, iters);
        out.printf("  off:    %.3f s (%.1f us per launch)%n", offNs / 1e9, offNs / 1e3 / launches);
        out.printf("  tier A: %.3f s (%.1f us per launch), bursts %d, duty %.4f, pairs %d, start failures %d%n",
                tierANs / 1e9, tierANs / 1e3 / launches, st.burstsClosed(), st.dutyAchieved(), st.pairs(),
                st.startFailures());
        out.printf("  overhead: %.4f (tier A / off)%n", (double) tierANs / offNs);
        return 0;
    }

    private static long timed(SamplingSession s, Runnable launch, int n) {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            s.onLaunchEnter(false);
            launch.run();
            s.onLaunchExit();
        }
        return System.nanoTime() - t0;
    }

    private static int noFigures(PrintStream out, String why) {
        out.println("sampling benchmark: needs a GPU machine (an NVIDIA driver and device, and the CUPTI shim): " + why);
        out.println("sampling benchmark: no figures measured");
        return 2;
    }

    /** The kernel's PTX (a resource, checked with ptxas in the tests). */
    static String spinPtx() throws IOException {
        try (InputStream in = SamplingBenchmark.class.getResourceAsStream("spin.ptx")) {
            if (in == null) {
                throw new IOException("spin.ptx is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    /** JCuda keeps the CUcontext pointer in NativePointerObject.nativePointer (gpu.md). */
    private static long pointerOf(NativePointerObject o) throws ReflectiveOperationException {
        Field f = NativePointerObject.class.getDeclaredField("nativePointer");
        f.setAccessible(true);
        return f.getLong(o);
    }
}
