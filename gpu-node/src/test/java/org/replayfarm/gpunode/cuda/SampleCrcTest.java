package org.replayfarm.gpunode.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.sampling.PcSampler;
import org.replayfarm.gpunode.sampling.SamplingMode;
import org.replayfarm.gpunode.sampling.SamplingSession;
import org.replayfarm.gpunode.sampling.SamplingSettings;
import org.replayfarm.proto.GpuPcSampleBatch;
import org.replayfarm.proto.PcSample;

/**
 * A PC record's cubinCrc reaches the wire: the session keeps samples of two modules apart even at the same
 * function and offset, and a record without a CRC goes out with 0 (the mapping then places it by name).
 */
@Tag("unit")
class SampleCrcTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void samples_of_two_modules_at_one_function_and_offset_stay_apart_on_the_wire() {
        long[] now = {1_000 * MS};
        PcSampler sampler = new PcSampler() {
            @Override
            public void configure(SamplingMode mode) {
            }

            @Override
            public void start() {
            }

            @Override
            public void stop() {
            }

            @Override
            public Drained drain() {
                return new Drained(List.of(new PcRecord("replay_kernel", 0x66f0d086L, 0x80, 0, 4, 1),
                        new PcRecord("replay_kernel", 0x7072d577L, 0x80, 0, 6, 1),
                        new PcRecord("replay_kernel", 0x80, 0, 1, 1)), List.of());
            }

            @Override
            public List<String> stallReasons() {
                return List.of("smsp__pcsamp_warps_issue_stalled_wait");
            }

            @Override
            public long timestampNs() {
                return now[0];
            }
        };
        List<Message> sent = new ArrayList<>();
        SamplingSession s = new SamplingSession(SamplingSettings.of(SamplingMode.SERIALIZED), sampler, sent::add, "n", 1);
        s.onLaunchEnter(false);
        now[0] += 60 * MS;
        s.onLaunchExit(); // drains after the kernel, stops (the burst is over), drains again, sends the batch
        List<PcSample> samples = sent.stream().filter(GpuPcSampleBatch.class::isInstance).map(GpuPcSampleBatch.class::cast)
                .flatMap(b -> b.getSamplesList().stream()).toList();
        assertEquals(List.of(0x66f0d086L, 0x7072d577L, 0L), samples.stream().map(PcSample::getCubinCrc).toList());
        assertEquals(List.of(8, 12, 2), samples.stream().map(PcSample::getSamples).toList(),
                "two drains of the burst add up per (module, PC, stall reason)");
    }
}
