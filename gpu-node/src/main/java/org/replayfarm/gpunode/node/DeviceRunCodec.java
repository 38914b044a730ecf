package org.replayfarm.gpunode.node;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.device.ExecutionRecord;
import org.replayfarm.proto.DeviceImageTexels;
import org.replayfarm.proto.DeviceLaunch;
import org.replayfarm.proto.DeviceRangeBytes;
import org.replayfarm.proto.DeviceRunChunk;
import org.replayfarm.proto.DeviceRunOutput;

/** A device run on the wire: DeviceRun to DeviceRunOutput and back, cut into and joined from chunks. */
public final class DeviceRunCodec {
    /** At most this many payload bytes per chunk (Artery's default frame is 256 KiB). */
    public static final int CHUNK = 128 * 1024;

    private DeviceRunCodec() {
    }

    public static DeviceLaunch launch(ExecutionRecord e) {
        return DeviceLaunch.newBuilder().setExecutionId(e.id()).setDurationNs(e.durationNanos())
                .setSerialized(e.serialized().name().toLowerCase(java.util.Locale.ROOT)).build();
    }

    static ExecutionRecord execution(DeviceLaunch l) {
        ExecutionRecord.Serialized s = switch (l.getSerialized()) {
            case "true" -> ExecutionRecord.Serialized.TRUE;
            case "false" -> ExecutionRecord.Serialized.FALSE;
            default -> ExecutionRecord.Serialized.UNKNOWN;
        };
        return new ExecutionRecord(l.getExecutionId(), l.getDurationNs(), s);
    }

    /** The outputs of a run (ranges, images, executions, fidelity, hotspots and PC sample counts) into {@code out}. */
    public static DeviceRunOutput.Builder output(DeviceRun run, DeviceRunOutput.Builder out) {
        out.setKind(run.kind()).setLabel(run.label());
        run.ranges().forEach((i, b) -> out.addRanges(DeviceRangeBytes.newBuilder().setIndex(i)
                .setData(ByteString.copyFrom(b.duplicate()))));
        run.images().forEach((i, b) -> out.addImages(DeviceImageTexels.newBuilder().setIndex(i)
                .setTexels(ByteString.copyFrom(b.duplicate()))));
        run.executions().forEach(e -> out.addExecutions(launch(e)));
        out.addAllHotspots(run.hotspots());
        out.setSamplesAttributed(run.samplesAttributed()).setSamplesUnattributed(run.samplesUnattributed());
        DeviceRun.Fidelity f = run.fidelity();
        if (f != null) {
            out.setFidelity(org.replayfarm.proto.DeviceFidelity.newBuilder().setTranslatedExact(f.translatedExact())
                    .setTranslatedApproximate(f.translatedApproximate()).setRefused(f.refused()).setUnreached(f.unreached())
                    .setWaveInstructions(f.waveInstructions()).setLaneInstructions(f.laneInstructions())
                    .setFaultedGroups(f.faultedGroups()));
        }
        return out;
    }

    /** The DeviceRun an output describes (its error must be empty). */
    public static DeviceRun run(DeviceRunOutput o, String labelSuffix) {
        TreeMap<Integer, ByteBuffer> ranges = new TreeMap<>();
        o.getRangesList().forEach(r -> ranges.put(r.getIndex(), r.getData().asReadOnlyByteBuffer()));
        TreeMap<Integer, ByteBuffer> images = new TreeMap<>();
        o.getImagesList().forEach(i -> images.put(i.getIndex(), i.getTexels().asReadOnlyByteBuffer()));
        List<ExecutionRecord> execs = o.getExecutionsList().stream().map(DeviceRunCodec::execution).toList();
        DeviceRun.Fidelity fidelity = null;
        if (o.hasFidelity()) {
            var f = o.getFidelity();
            fidelity = new DeviceRun.Fidelity(f.getTranslatedExact(), f.getTranslatedApproximate(), f.getRefused(),
                    f.getUnreached(), f.getWaveInstructions(), f.getLaneInstructions(), f.getFaultedGroups());
        }
        return new DeviceRun(o.getKind(), o.getLabel() + labelSuffix, ranges, images, execs, fidelity, o.getHotspotsList(),
                o.getSamplesAttributed(), o.getSamplesUnattributed());
    }

    public static List<DeviceRunChunk> chunks(DeviceRunOutput o) {
        byte[] all = o.toByteArray();
        List<DeviceRunChunk> out = new ArrayList<>();
        int seq = 0;
        for (int at = 0; at < all.length || seq == 0; at += CHUNK) {
            int n = Math.min(CHUNK, all.length - at);
            out.add(DeviceRunChunk.newBuilder().setJobId(o.getJobId()).setAttempt(o.getAttempt())
                    .setNodeAddress(o.getNodeAddress()).setSequence(seq++).setLast(at + n >= all.length)
                    .setPayload(ByteString.copyFrom(all, at, Math.max(n, 0))).build());
        }
        return out;
    }

    /** Joins a run's chunks (any order); a missing or duplicate one is an IllegalArgumentException. */
    public static DeviceRunOutput join(List<DeviceRunChunk> chunks) {
        List<DeviceRunChunk> sorted = new ArrayList<>(chunks);
        sorted.sort(Comparator.comparingInt(DeviceRunChunk::getSequence));
        ByteString all = ByteString.EMPTY;
        for (int i = 0; i < sorted.size(); i++) {
            if (sorted.get(i).getSequence() != i) {
                throw new IllegalArgumentException("device run chunks: expected sequence " + i + ", got "
                        + sorted.get(i).getSequence());
            }
            all = all.concat(sorted.get(i).getPayload());
        }
        if (sorted.isEmpty() || !sorted.get(sorted.size() - 1).getLast()) {
            throw new IllegalArgumentException("device run chunks: the last chunk is missing");
        }
        try {
            return DeviceRunOutput.parseFrom(all);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("device run chunks do not parse: " + e.getMessage(), e);
        }
    }
}
