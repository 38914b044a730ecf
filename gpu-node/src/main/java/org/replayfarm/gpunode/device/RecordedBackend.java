package org.replayfarm.gpunode.device;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.TreeMap;
import org.replayfarm.proto.ImageContents;
import org.replayfarm.proto.RangeContents;
import org.replayfarm.proto.RecordedRun;

/**
 * The {@code recorded} backend: the outputs of a run made elsewhere (a GPU, a native build), carried in
 * the capture as a {@link RecordedRun}; its label says what produced it. Nothing executes, so the run
 * has no executions.
 */
public final class RecordedBackend implements DeviceBackend {
    private final RecordedRun run;

    public RecordedBackend(RecordedRun run) {
        this.run = run;
    }

    @Override
    public String kind() {
        return "recorded";
    }

    @Override
    public String label() {
        return run.getLabel();
    }

    @Override
    public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
        events.on(new DeviceEvent.Started(kind(), label()));
        TreeMap<Integer, ByteBuffer> ranges = new TreeMap<>();
        TreeMap<Integer, ByteBuffer> images = new TreeMap<>();
        // the capture was validated when it was opened: indices and lengths are the capture's own
        for (RangeContents r : run.getRangesList()) {
            ranges.put(r.getRangeIndex(), blob(request, r.getData(), "range " + r.getRangeIndex()));
        }
        for (ImageContents i : run.getImagesList()) {
            images.put(i.getImageIndex(), blob(request, i.getTexels(), "image " + i.getImageIndex()));
        }
        DeviceRun out = new DeviceRun(kind(), label(), ranges, images, List.of());
        events.on(new DeviceEvent.Finished(ranges.size(), images.size()));
        return out;
    }

    private ByteBuffer blob(DeviceRequest request, org.replayfarm.proto.BlobRef ref, String what) throws DeviceException {
        try {
            return request.capture().blob(ref, "recorded run '" + label() + "' " + what);
        } catch (org.replayfarm.model.capture.CaptureFormatException e) {
            throw new DeviceException("recorded run '" + label() + "': " + what + ": " + e.getMessage(), e);
        }
    }
}
