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

        /**
         * {@code action} runs before the context is destroyed (a reset after a sticky error), while its handle
         * is still valid: the shim stops, drains and disables sampling there.
         */
        default void beforeDestroy(Runnable action) {
        }

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

    /**
     * The shim's native calls (the JNI library; recording stand-ins in the tests). The order they are called in
     * is CUPTI's (shared/reference/cupti-pc-sampling.md §1): initActivity once, before any configure;
     * configure (Enable, stall reasons, one configuration) right after the context exists, before any module
     * is loaded; synchronize before each start; drain with {@code pcs} only after a stop; stop (if started),
     * drain and disable before the context is destroyed and at exit; disable after every failure.
     */
    public interface Natives {
        /** The hardware buffer was full ({@code CUPTI_ERROR_OUT_OF_MEMORY}): disable, enable and configure again. */
        int BUFFER_FULL = 8;

        int initActivity(String[] messageOut);

        int configure(long context, int collectionMode, Object[] namesOut, String[] messageOut);

        int synchronize(long context, String[] messageOut);

        int start(long context, String[] messageOut);

        int stop(long context, String[] messageOut);

        int drain(long context, boolean pcs, Object sink, String[] messageOut);

        int disable(long context, String[] messageOut);

        long timestamp();

        long kernelsDropped();
    }

    private static final Natives JNI = new Natives() {
        @Override
        public int initActivity(String[] messageOut) {
            return nativeInitActivity(messageOut);
        }

        @Override
        public int configure(long context, int collectionMode, Object[] namesOut, String[] messageOut) {
            return nativeConfigure(context, collectionMode, namesOut, messageOut);
        }

        @Override
        public int synchronize(long context, String[] messageOut) {
            return nativeSynchronize(context, messageOut);
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
        public int drain(long context, boolean pcs, Object sink, String[] messageOut) {
            return nativeDrain(context, pcs, sink, messageOut);
        }

        @Override
        public int disable(long context, String[] messageOut) {
            return nativeDisable(context, messageOut);
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
    private boolean enabled;
    private boolean activityReady;
    private boolean closed;
    private long droppedReported;

    CuptiShim(Context context, Natives natives) {
        this.context = context;
        this.natives = natives;
        context.beforeDestroy(this::retire);
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
        CuptiShim shim = new CuptiShim(context, JNI);
        Runtime.getRuntime().addShutdownHook(new Thread(shim::close, "cupti-shim-exit"));
        return shim;
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
    public synchronized void configure(SamplingMode m) throws SamplingException {
        if (m == SamplingMode.OFF) {
            throw new SamplingException("configure(OFF): sampling that is off never configures CUPTI");
        }
        open();
        if (enabled && m == mode && context.generation() == configuredGeneration) {
            return; // one configuration lives for the session
        }
        configureOn(context.handle(), context.generation(), m);
    }

    private void configureOn(long handle, long generation, SamplingMode m) throws SamplingException {
        int collection = switch (m) {
            case CONTINUOUS -> 1;   // CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS
            case SERIALIZED -> 2;   // CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED
            case OFF -> throw new SamplingException("configure(OFF): sampling that is off never configures CUPTI");
        };
        String[] message = new String[1];
        if (!activityReady) {
            // once per process and before any Enable: after it CUPTI refuses the activity kind (NOT_COMPATIBLE)
            check(natives.initActivity(message), message);
            activityReady = true;
        }
        Object[] names = new Object[1];
        mode = m;
        configuredHandle = handle;
        configuredGeneration = generation;
        running = false;
        check(natives.configure(handle, collection, names, message), message); // the shim disables on failure
        enabled = true;
        stallReasons = Arrays.asList((String[]) names[0]);
    }

    /**
     * The context was reset since sampling was configured: the old configuration was stopped, drained and
     * disabled before the reset ({@link #retire}); the new context is configured as the old one was before
     * anything else goes to CUPTI.
     */
    private void follow() throws SamplingException {
        long g = context.generation();
        if (mode != null && g != configuredGeneration) {
            long old = configuredHandle;
            reconfigurations++;
            configureOn(context.handle(), g, mode);
            LOG.warn("the CUDA context was reset (0x{} -> 0x{}): PC sampling now runs on the new context",
                    Long.toHexString(old), Long.toHexString(configuredHandle));
        }
    }

    /** True when the context sampling was configured on has been destroyed (and not yet followed). */
    private boolean stale() {
        return mode != null && context.generation() != configuredGeneration;
    }

    private void open() throws SamplingException {
        if (closed) {
            throw new SamplingException("the CUPTI shim was closed (sampling disabled at exit)");
        }
    }

    /** The context exists and no module is loaded yet: sampling is (re)configured on it now, if it is on. */
    @Override
    public synchronized void contextReady() throws SamplingException {
        if (mode == null || closed) {
            return;
        }
        follow();
        if (!enabled) {
            configureOn(context.handle(), context.generation(), mode);
        }
    }

    @Override
    public synchronized void start() throws SamplingException {
        open();
        follow();
        if (!enabled) {
            if (mode == null) {
                throw new SamplingException("cuptiPCSamplingStart before the shim was configured");
            }
            configureOn(configuredHandle, configuredGeneration, mode);
        }
        String[] message = new String[1];
        failing(natives.synchronize(configuredHandle, message), message); // CUPTI wants the GPU idle at a start
        failing(natives.start(configuredHandle, message), message);
        running = true;
    }

    @Override
    public synchronized void stop() throws SamplingException {
        if (stale() || !running) {
            // the burst ended with its context (a sticky error reset it): nothing is left to stop there, and
            // CUPTI must not be handed the destroyed context; its samples are lost with it
            LOG.warn("a PC-sampling burst ended with its CUDA context (reset after a sticky error); its samples are lost");
            return;
        }
        running = false;
        String[] message = new String[1];
        failing(natives.stop(configuredHandle, message), message);
    }

    @Override
    public synchronized Drained drain() throws SamplingException {
        open();
        follow();
        String[] message = new String[1];
        boolean withPcs = enabled && !running; // PC data only after a stop
        int r = natives.drain(configuredHandle, withPcs, new Sink(), message);
        if (r == Natives.BUFFER_FULL && withPcs) {
            // the context's sampling is wedged until Disable, Enable and a new configuration
            LOG.warn("PC sampling: the hardware buffer was full ({}); sampling is disabled, enabled and configured again",
                    message[0]);
            disableQuietly();
            configureOn(configuredHandle, configuredGeneration, mode);
        } else {
            failing(r, message);
        }
        long dropped = natives.kernelsDropped();
        if (dropped > droppedReported) {
            LOG.warn("{} kernel activity record(s) lost since the last drain (the CUPTI shim's kernel queue was full): "
                    + "those executions have no device timing", dropped - droppedReported);
            droppedReported = dropped;
        }
        return Drained.takeFrom(pcs, kernels);
    }

    /**
     * Before the context is destroyed (a reset) or at exit: stop an open burst, drain and disable, on the
     * context sampling was configured on while it still exists. The samples of a burst cut off this way are
     * dropped (its window stays open); kernel records are kept for the next drain.
     */
    synchronized void retire() {
        if (!enabled) {
            return;
        }
        String[] message = new String[1];
        if (running) {
            running = false;
            if (natives.stop(configuredHandle, message) != 0) {
                LOG.warn("PC sampling: stop before the context goes: {}", message[0]);
            }
        }
        int before = pcs.size();
        if (natives.drain(configuredHandle, true, new Sink(), message) != 0) {
            LOG.warn("PC sampling: drain before the context goes: {}", message[0]);
        }
        pcs.subList(Math.min(before, pcs.size()), pcs.size()).clear();
        disableQuietly();
    }

    /** At exit: stop, drain and disable; the shim takes no more calls. */
    @Override
    public synchronized void close() {
        retire();
        closed = true;
    }

    private void disableQuietly() {
        if (!enabled) {
            return;
        }
        enabled = false;
        running = false;
        String[] message = new String[1];
        if (natives.disable(configuredHandle, message) != 0) {
            LOG.warn("PC sampling: disable failed: {}", message[0]);
        }
    }

    /** A failed call disables sampling (it is configured again before the next start). */
    private void failing(int result, String[] message) throws SamplingException {
        if (result != 0) {
            disableQuietly();
            check(result, message);
        }
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

    private static native int nativeInitActivity(String[] messageOut);

    private static native int nativeSynchronize(long context, String[] messageOut);

    private static native int nativeDisable(long context, String[] messageOut);

    private static native int nativeStart(long context, String[] messageOut);

    private static native int nativeStop(long context, String[] messageOut);

    private static native int nativeDrain(long context, boolean pcs, Object sink, String[] messageOut);

    private static native long nativeKernelsDropped();

    private static native int nativeCubinCrc(byte[] cubin, long[] crcOut, String[] messageOut);
}
