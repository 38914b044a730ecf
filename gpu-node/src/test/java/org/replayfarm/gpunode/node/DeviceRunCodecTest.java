package org.replayfarm.gpunode.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.device.ExecutionRecord;
import org.replayfarm.proto.DeviceRunChunk;
import org.replayfarm.proto.DeviceRunOutput;
import org.replayfarm.proto.GuestHotspot;
import org.replayfarm.proto.GuestStall;

/**
 * A device run through the wire and back, as a GPU node sends it and the coordinator reads it: DeviceRun to
 * DeviceRunOutput, serialized by protobuf and cut into chunks, each chunk itself serialized and parsed (as
 * Artery carries them), joined in another order and read back. Everything the run held comes back, the PC
 * sample counts (attributed, unattributed) included.
 */
@Tag("unit")
class DeviceRunCodecTest {
    private static DeviceRun sampledRun(int rangeBytes) {
        TreeMap<Integer, ByteBuffer> ranges = new TreeMap<>();
        byte[] big = new byte[rangeBytes];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + 7);
        }
        ranges.put(0, ByteBuffer.wrap(big));
        ranges.put(3, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
        TreeMap<Integer, ByteBuffer> images = new TreeMap<>();
        images.put(1, ByteBuffer.wrap(new byte[] {9, 8, 7, 6, 5, 4, 3, 2}));
        GuestHotspot hot = GuestHotspot.newBuilder().setGuestPc(0x104).setLine(12).setText("v_fma_f32 v1, v2, v3, v4")
                .setSamples(812).addStalls(GuestStall.newBuilder().setReason("wait").setSamples(500)).build();
        return new DeviceRun("cuda", "a test GPU", ranges, images,
                List.of(new ExecutionRecord("e1", 12345, ExecutionRecord.Serialized.TRUE)),
                new DeviceRun.Fidelity(100, 2, 1, 3, 4096, 131072, 0), List.of(hot), 1234, 56);
    }

    /** What the coordinator reads from the chunks a node sent, each over the wire as bytes. */
    private static DeviceRun overTheWire(DeviceRun run) throws Exception {
        DeviceRunOutput out = DeviceRunCodec.output(run, DeviceRunOutput.newBuilder().setJobId("job-7").setAttempt(2)
                .setNodeAddress("akka://farm@127.0.0.1:1")).build();
        List<DeviceRunChunk> received = new ArrayList<>();
        for (DeviceRunChunk c : DeviceRunCodec.chunks(out)) {
            received.add(0, DeviceRunChunk.parseFrom(c.toByteArray())); // reversed: chunks may arrive in any order
        }
        DeviceRunOutput joined = DeviceRunCodec.join(received);
        assertEquals("job-7", joined.getJobId());
        assertEquals(2, joined.getAttempt());
        return DeviceRunCodec.run(joined, " (GPU node x)");
    }

    @Test
    void a_sampled_run_keeps_its_pc_sample_counts_hotspots_and_outputs_across_the_wire() throws Exception {
        DeviceRun sent = sampledRun(3 * DeviceRunCodec.CHUNK + 17); // several chunks
        assertTrue(DeviceRunCodec.chunks(DeviceRunCodec.output(sent, DeviceRunOutput.newBuilder()).build()).size() > 3);
        DeviceRun got = overTheWire(sent);
        assertEquals(1234, got.samplesAttributed());
        assertEquals(56, got.samplesUnattributed());
        assertEquals(sent.hotspots(), got.hotspots());
        assertEquals(sent.fidelity(), got.fidelity());
        assertEquals(sent.executions(), got.executions());
        assertEquals("cuda", got.kind());
        assertEquals("a test GPU (GPU node x)", got.label());
        assertEquals(sent.ranges().keySet(), got.ranges().keySet());
        for (int n : sent.ranges().keySet()) {
            assertArrayEquals(sent.rangeBytes(n), got.rangeBytes(n), "range " + n);
        }
        assertArrayEquals(sent.imageTexels(1), got.imageTexels(1));
    }

    @Test
    void a_run_without_samples_reads_back_zero_counts() throws Exception {
        DeviceRun plain = new DeviceRun("cuda-cpu", "cpu", new TreeMap<>(), new TreeMap<>(), List.of());
        DeviceRun got = overTheWire(plain);
        assertEquals(0, got.samplesAttributed());
        assertEquals(0, got.samplesUnattributed());
        assertTrue(got.hotspots().isEmpty());
        assertEquals(null, got.fidelity());
    }
}
