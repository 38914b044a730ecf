package org.replayfarm.gpunode.sampling;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * PC sampling on a GPU through the JNI shim {@code libreplaycupti.so} (gpu-node/src/main/native, built
 * with gcc where the CUDA toolkit's CUPTI headers are). Loaded only when asked ({@link #load}), and
 * absent it says so. Every call runs on the launching thread (the {@link SamplingSession} sees to it);
 * the shim itself holds one lock around every CUPTI call.
 */
public final class CuptiShim implements PcSampler {
    public static final String LIBRARY = "libreplaycupti.so";

    private final long context;
    private final List<PcRecord> pcs = new ArrayList<>();
    private final List<KernelRecord> kernels = new ArrayList<>();
    private List<String> stallReasons = List.of();

    private CuptiShim(long context) {
        this.context = context;
    }

    /** Where the build puts the shim: {@code gpu-node/target/native} under {@code root}. */
    public static Path built(Path root) {
        return root.resolve("gpu-node").resolve("target").resolve("native").resolve(LIBRARY);
    }

    /**
     * Loads the shim from {@code library} (once per JVM) for the CUDA context {@code context} (a
     * {@code CUcontext} pointer, e.g. JCuda's CUcontext native pointer, current on the launching thread).
     */
    public static CuptiShim load(Path library, long context) throws SamplingException {
        loadLibrary(library);
        return new CuptiShim(context);
    }

    /** The CUPTI API version of the loaded library ({@code cuptiGetVersion}; runs without a GPU). */
    public static int version(Path library) throws SamplingException {
        loadLibrary(library);
        return nativeVersion();
    }

    private static void loadLibrary(Path library) throws SamplingException {
        if (!Files.isRegularFile(library)) {
            throw new SamplingException("the CUPTI shim is absent: " + library + " does not exist (it is built with gpu-node "
                    + "where the CUDA toolkit's CUPTI headers are, /usr/local/cuda or CUDA_HOME; or set "
                    + SamplingSettings.PATH + ".cupti-library)");
        }
        try {
            System.load(library.toAbsolutePath().toString());
        } catch (UnsatisfiedLinkError e) {
            throw new SamplingException("the CUPTI shim " + library + " does not load (libcupti and the NVIDIA driver "
                    + "libraries must be on this machine): " + e.getMessage());
        }
    }

    @Override
    public void configure(SamplingMode mode) throws SamplingException {
        int collection = switch (mode) {
            case CONTINUOUS -> 1;   // CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS
            case SERIALIZED -> 2;   // CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED
            case OFF -> throw new SamplingException("configure(OFF): sampling that is off never configures CUPTI");
        };
        Object[] names = new Object[1];
        String[] message = new String[1];
        check(nativeConfigure(context, collection, names, message), message);
        stallReasons = Arrays.asList((String[]) names[0]);
    }

    @Override
    public void start() throws SamplingException {
        String[] message = new String[1];
        check(nativeStart(context, message), message);
    }

    @Override
    public void stop() throws SamplingException {
        String[] message = new String[1];
        check(nativeStop(context, message), message);
    }

    @Override
    public Drained drain() throws SamplingException {
        String[] message = new String[1];
        check(nativeDrain(context, new Sink(), message), message);
        return Drained.takeFrom(pcs, kernels);
    }

    @Override
    public List<String> stallReasons() {
        return stallReasons;
    }

    @Override
    public long timestampNs() {
        return nativeTimestamp();
    }

    /** Kernel records the shim's queue had no room for (counted, never silent). */
    public long kernelsDropped() {
        return nativeKernelsDropped();
    }

    /** Called back by the shim during a drain. */
    private final class Sink {
        @SuppressWarnings("unused")
        void pc(String function, long pcOffset, int stallReasonIndex, int samples, int correlationId) {
            pcs.add(new PcRecord(function, pcOffset, stallReasonIndex, samples, correlationId));
        }

        @SuppressWarnings("unused")
        void kernel(String name, long start, long end, int correlationId, int graphId) {
            kernels.add(new KernelRecord(name, start, end, correlationId, graphId));
        }
    }

    private static void check(int result, String[] message) throws SamplingException {
        if (result != 0) {
            throw new SamplingException(message[0] != null ? message[0] : "CUPTI shim call failed (" + result + ")");
        }
    }

    private static native int nativeVersion();

    private static native long nativeTimestamp();

    private static native int nativeConfigure(long context, int collectionMode, Object[] namesOut, String[] messageOut);

    private static native int nativeStart(long context, String[] messageOut);

    private static native int nativeStop(long context, String[] messageOut);

    private static native int nativeDrain(long context, Object sink, String[] messageOut);

    private static native long nativeKernelsDropped();
}
