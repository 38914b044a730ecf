package org.replayfarm.gpunode.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jcuda.driver.CUresult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.sampling.CuptiShim;
import org.replayfarm.gpunode.sampling.RecordingNatives;
import org.replayfarm.gpunode.sampling.SamplingMode;
import org.replayfarm.gpunode.sampling.SamplingSession;
import org.replayfarm.gpunode.sampling.SamplingSettings;
import org.replayfarm.proto.GpuSamplingWindowV1;

/**
 * After a sticky error the cuda backend resets its primary context, which makes a new CUcontext: the PC
 * sampler must configure and sample the new one and never hand CUPTI the destroyed one. Without a GPU, the
 * driver calls under {@link PrimaryContext} and the shim's JNI calls under {@link CuptiShim} are replaced
 * by recorders; the reset path ({@link PrimaryContext#reset}, as {@code CudaBackend} calls it between a
 * failed launch and the hooks' exit), the shim's hand-over and the sampling session driving it are the real ones.
 */
@Tag("unit")
class PrimaryContextTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private final List<String> calls = new ArrayList<>();
    private long now = 1_000 * MS;

    /** The driver: each retain makes a context with a new handle (0xa000, 0xb000, ...). */
    private final class Driver implements PrimaryContext.Driver {
        long next = 0xa000;
        long current;

        @Override
        public void retain() {
            current = next;
            next += 0x1000;
            calls.add("retain 0x" + Long.toHexString(current));
        }

        @Override
        public void makeCurrent() {
        }

        @Override
        public void releaseAndReset() {
            calls.add("reset 0x" + Long.toHexString(current));
            current = 0;
        }

        @Override
        public long handle() {
            return current;
        }
    }

    @Test
    void after_a_reset_the_sampler_configures_and_samples_the_new_context_and_never_the_destroyed_one() throws Exception {
        PrimaryContext primary = new PrimaryContext(new Driver());
        RecordingNatives cupti = new RecordingNatives(calls).clock(() -> now);
        CuptiShim shim = CuptiShim.over(primary, cupti);
        List<Message> sent = new ArrayList<>();
        SamplingSession session = new SamplingSession(SamplingSettings.of(SamplingMode.SERIALIZED), shim, sent::add,
                "akka://farm@gpu:1", 1);

        // a launch in a burst on the first context (the backend: context current, hooks' contextReady, module, enter)
        primary.ensure();
        session.onContextReady();
        session.onLaunchEnter(false);
        now += 60 * MS;
        session.onLaunchExit();
        assertEquals(List.of("retain 0xa000", "initActivity", "configure 0xa000", "synchronize 0xa000", "start 0xa000",
                "drain-activity 0xa000", "stop 0xa000", "drain 0xa000"), calls);
        assertEquals(0xa000, shim.configuredContext());

        // the next burst's launch fails with a sticky error: the backend resets the context before the exit hook
        calls.clear();
        now += 2_000 * MS;
        session.onContextReady();
        session.onLaunchEnter(false);
        assertTrue(primary.reset(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS));
        assertEquals(1, primary.generation());
        now += 60 * MS;
        session.onLaunchExit();
        assertEquals(List.of("synchronize 0xa000", "start 0xa000", "stop 0xa000", "drain 0xa000", "disable 0xa000",
                        "reset 0xa000", "retain 0xb000", "configure 0xb000", "drain 0xb000", "drain 0xb000"), calls,
                "before the reset: stop, drain, disable on the old context; after it the new context is configured, "
                        + "and nothing goes to the destroyed one");

        // sampling goes on, on the new context
        calls.clear();
        now += 2_000 * MS;
        session.onContextReady();
        session.onLaunchEnter(false);
        now += 60 * MS;
        session.onLaunchExit();
        assertEquals(List.of("synchronize 0xb000", "start 0xb000", "drain-activity 0xb000", "stop 0xb000", "drain 0xb000"), calls);
        assertEquals(0xb000, shim.configuredContext());
        assertEquals(1, shim.reconfigurations());
        assertFalse(session.stats().broken(), "a context reset does not end sampling on the node");
        List<GpuSamplingWindowV1> windows = sent.stream().filter(GpuSamplingWindowV1.class::isInstance)
                .map(GpuSamplingWindowV1.class::cast).toList();
        assertEquals(6, windows.size(), "three bursts, each open then closed");
        assertTrue(windows.stream().allMatch(w -> w.getSequence() >= 1 && w.getSequence() <= 3));
    }

    @Test
    void a_reset_whose_new_context_cannot_be_made_is_retried_on_next_use() throws Exception {
        List<String> log = new ArrayList<>();
        PrimaryContext primary = new PrimaryContext(new PrimaryContext.Driver() {
            int retains;

            @Override
            public void retain() throws CudaBackend.CudaCallException {
                retains++;
                log.add("retain");
                if (retains == 2) {
                    throw new CudaBackend.CudaCallException("cuDevicePrimaryCtxRetain", CUresult.CUDA_ERROR_OUT_OF_MEMORY);
                }
            }

            @Override
            public void makeCurrent() {
            }

            @Override
            public void releaseAndReset() {
                log.add("reset");
            }

            @Override
            public long handle() {
                return 0x1000L * retains;
            }
        });
        assertEquals(0x1000, primary.nativeHandle());
        assertFalse(primary.reset(CUresult.CUDA_ERROR_LAUNCH_FAILED), "the fresh context could not be retained");
        assertEquals(0x3000, primary.nativeHandle(), "the next use retains again");
        assertEquals(List.of("retain", "reset", "retain", "retain"), log);
    }
}
