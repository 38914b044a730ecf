package org.replayfarm.gpunode.sampling;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PC sampling on a GPU through the JNI shim {@code libreplaycupti.so} (gpu-node/src/main/native, built
 * with gcc where the CUDA toolkit's CUPTI headers are). Loaded only when asked ({@link #load}), and
 * absent it says so. Every call runs on the launching thread (the {@link SamplingSession} sees to it);
 * the shim itself holds one lock around every CUPTI call.
 */
public final class CuptiShim implements PcSampler {
    public static final String LIBRARY = "libreplaycupti.so";
    private static final Logger LOG = LoggerFactory.getLogger(CuptiShim.class);

    /**
     * Where the shim finds the CUDA context it samples: read at every call, since a sticky error makes the
     * backend reset its primary context, which gives a new handle and a new {@link #generation}.
     */
    public interface Context {
        /** The current context's native {@code CUcontext} handle, current on the launching thread. */
        long handle() throws SamplingException;

        /** Changes each time the context is destroyed and made again. */
        long generation();

        /** A context that never changes (tests, a handle from elsewhere). */
        static Context fixed(long handle) {
            return new Context() {
                @Override
                public long handle() {
                    return handle;
                }

                @Override
                public long generation() {
                    return 0;
                }
            };
        }
    }

    /** The shim's native calls (the JNI library; a recording stand-in in the tests of the context hand-over). */
    public interface Natives {
        int configure(long context, int collectionMode, Object[] namesOut, String[] messageOut);

        int start(long context, String[] messageOut);

        int stop(long context, String[] messageOut);

        int drain(long context, Object sink, String[] messageOut);

        long timestamp();

        long kernelsDropped();
    }

    private static final Natives JNI = new Natives() {
        @Override
        public int configure(long context, int collectionMode, Object[] namesOut, String[] messageOut) {
            return nativeConfigure(context, collectionMode, namesOut, messageOut);
        }

        @Override
        public int start(long context, String[] messageOut) {
            return nativeStart(context, messageOut);
        }

        @Override
        public int stop(long context, String[] messageOut) {
            return nativeStop(context, messageOut);
        }

        @Override
        public int drain(long context, Object sink, String[] messageOut) {
            return nativeDrain(context, sink, messageOut);
        }

        @Override
        public long timestamp() {
            return nativeTimestamp();
        }

        @Override
        public long kernelsDropped() {
            return nativeKernelsDropped();
        }
    };

    private final Context context;
    private final Natives natives;
    private final List<PcRecord> pcs = new ArrayList<>();
    private final List<KernelRecord> kernels = new ArrayList<>();
    private List<String> stallReasons = List.of();
    private SamplingMode mode;
    private long configuredGeneration;
    private long configuredHandle;
    private long reconfigurations;
    private boolean running;
    private long droppedReported;

    CuptiShim(Context context, Natives natives) {
        this.context = context;
        this.natives = natives;
    }

    /** A shim over other natives than the JNI library's (tests of what the shim hands CUPTI, without a GPU). */
    public static CuptiShim over(Context context, Natives natives) {
        return new CuptiShim(context, natives);
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
        return load(library, Context.fixed(context));
    }

    /** Loads the shim for the context {@code context} names now and after every reset. */
    public static CuptiShim load(Path library, Context context) throws SamplingException {
        loadLibrary(library);
        return new CuptiShim(context, JNI);
    }

    /** The CUPTI API version of the loaded library ({@code cuptiGetVersion}; runs without a GPU). */
    public static int version(Path library) throws SamplingException {
        loadLibrary(library);
        return nativeVersion();
    }

    /**
     * The CRC CUPTI gives a module's cubin ({@code cuptiGetCubinCrc}), the {@code cubinCrc} its PC records
     * carry: the key that says which loaded module a sample's PC is in. Runs without a GPU.
     */
    public static long cubinCrc(Path library, byte[] cubin) throws SamplingException {
        loadLibrary(library);
        return new CuptiShim(Context.fixed(0), JNI).cubinCrc(cubin).getAsLong();
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
        if (mode == SamplingMode.OFF) {
            throw new SamplingException("configure(OFF): sampling that is off never configures CUPTI");
        }
        configureOn(context.handle(), context.generation(), mode);
    }

    private void configureOn(long handle, long generation, SamplingMode m) throws SamplingException {
        int collection = switch (m) {
            case CONTINUOUS -> 1;   // CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS
            case SERIALIZED -> 2;   // CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED
            case OFF -> throw new SamplingException("configure(OFF): sampling that is off never configures CUPTI");
        };
        Object[] names = new Object[1];
        String[] message = new String[1];
        check(natives.configure(handle, collection, names, message), message);
        stallReasons = Arrays.asList((String[]) names[0]);
        mode = m;
        configuredHandle = handle;
        configuredGeneration = generation;
    }

    /**
     * The context was reset since sampling was configured: the configuration died with the old context, so
     * the new one is configured as the old one was before anything else goes to CUPTI.
     */
    private void follow() throws SamplingException {
        long g = context.generation();
        if (mode != null && g != configuredGeneration) {
            long old = configuredHandle;
            configureOn(context.handle(), g, mode);
            running = false; // a burst of the old context ended with it
            reconfigurations++;
            LOG.warn("the CUDA context was reset (0x{} -> 0x{}): PC sampling now runs on the new context",
                    Long.toHexString(old), Long.toHexString(configuredHandle));
        }
    }

    /** True when the context sampling was configured on has been destroyed (and not yet followed). */
    private boolean stale() {
        return mode != null && context.generation() != configuredGeneration;
    }

    @Override
    public void start() throws SamplingException {
        follow();
        String[] message = new String[1];
        check(natives.start(configuredHandle, message), message);
        running = true;
    }

    @Override
    public void stop() throws SamplingException {
        if (stale() || !running) {
            // the burst ended with its context (a sticky error reset it): nothing is left to stop there, and
            // CUPTI must not be handed the destroyed context; its samples are lost with it
            LOG.warn("a PC-sampling burst ended with its CUDA context (reset after a sticky error); its samples are lost");
            return;
        }
        running = false;
        String[] message = new String[1];
        check(natives.stop(configuredHandle, message), message);
    }

    @Override
    public Drained drain() throws SamplingException {
        follow();
        String[] message = new String[1];
        check(natives.drain(configuredHandle, new Sink(), message), message);
        long dropped = natives.kernelsDropped();
        if (dropped > droppedReported) {
            LOG.warn("{} kernel activity record(s) lost since the last drain (the CUPTI shim's kernel queue was full): "
                    + "those executions have no device timing", dropped - droppedReported);
            droppedReported = dropped;
        }
        return Drained.takeFrom(pcs, kernels);
    }

    @Override
    public List<String> stallReasons() {
        return stallReasons;
    }

    @Override
    public long timestampNs() {
        return natives.timestamp();
    }

    @Override
    public OptionalLong cubinCrc(byte[] cubin) throws SamplingException {
        if (cubin.length == 0) {
            throw new SamplingException("cuptiGetCubinCrc: an empty cubin has no CRC");
        }
        long[] crc = new long[1];
        String[] message = new String[1];
        check(nativeCubinCrc(cubin, crc, message), message);
        return OptionalLong.of(crc[0]);
    }

    /** Kernel records the shim's queue had no room for (counted, never silent). */
    public long kernelsDropped() {
        return natives.kernelsDropped();
    }

    /** The context handle sampling is configured on now (0 before {@link #configure}). */
    public long configuredContext() {
        return configuredHandle;
    }

    /** How many times a context reset made the shim configure the new context. */
    public long reconfigurations() {
        return reconfigurations;
    }

    /** Called back by the shim during a drain. */
    private final class Sink {
        @SuppressWarnings("unused")
        void pc(String function, long cubinCrc, long pcOffset, int stallReasonIndex, int samples, int correlationId) {
            pcs.add(new PcRecord(function, cubinCrc, pcOffset, stallReasonIndex, samples, correlationId));
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

    private static native int nativeCubinCrc(byte[] cubin, long[] crcOut, String[] messageOut);
}
