package org.replayfarm.gpunode.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.MemoryRange;

/**
 * The {@code dir:PATH} backend: a device run made by another tool, as a folder of {@code guest-<n>.bin}
 * (range n's final bytes) and {@code image-<k>.raw} (image k's final texels in the capture's layout), the
 * files {@code replay capture export} describes. The capture is not touched. A range or image without its
 * file was not recorded; a file of the wrong size is an error naming it and both sizes.
 */
public final class DirectoryBackend implements DeviceBackend {
    private final Path dir;

    public DirectoryBackend(Path dir) {
        this.dir = dir;
    }

    @Override
    public String kind() {
        return "dir";
    }

    @Override
    public String label() {
        return dir.toString();
    }

    @Override
    public DeviceRun run(DeviceRequest request, DeviceEvents events) throws DeviceException {
        events.on(new DeviceEvent.Started(kind(), label()));
        TreeMap<Integer, ByteBuffer> ranges = new TreeMap<>();
        TreeMap<Integer, ByteBuffer> images = new TreeMap<>();
        for (MemoryRange r : request.capture().metadata().getRangesList()) {
            read(dir.resolve("guest-" + r.getIndex() + ".bin"), r.getSize(), "range " + r.getIndex() + " ('" + r.getName()
                    + "')").ifPresent(b -> ranges.put(r.getIndex(), b));
        }
        for (Image i : request.capture().metadata().getImagesList()) {
            read(dir.resolve("image-" + i.getIndex() + ".raw"), TexelLayout.totalBytes(i), "image " + i.getIndex() + " ('"
                    + i.getName() + "')").ifPresent(b -> images.put(i.getIndex(), b));
        }
        if (ranges.isEmpty() && images.isEmpty()) {
            throw new DeviceException("--device dir:" + dir + ": the folder holds no guest-<n>.bin and no image-<k>.raw "
                    + "of this capture");
        }
        DeviceRun out = new DeviceRun(kind(), label(), ranges, images, List.of());
        events.on(new DeviceEvent.Finished(ranges.size(), images.size()));
        return out;
    }

    /**
     * Checks the folder's files against the capture without reading them: a file of the wrong size is an error
     * naming it and both sizes (what {@link #run} would meet after the whole evaluation).
     */
    public static void checkSizes(Path dir, org.replayfarm.model.capture.CaptureFile capture) throws DeviceException {
        for (MemoryRange r : capture.metadata().getRangesList()) {
            size(dir.resolve("guest-" + r.getIndex() + ".bin"), r.getSize(), "range " + r.getIndex() + " ('"
                    + r.getName() + "')");
        }
        for (Image i : capture.metadata().getImagesList()) {
            size(dir.resolve("image-" + i.getIndex() + ".raw"), TexelLayout.totalBytes(i), "image " + i.getIndex()
                    + " ('" + i.getName() + "')");
        }
    }

    /** The file's size when it is there and has the size wanted; empty when it is not there. */
    private static java.util.OptionalLong size(Path file, long want, String what) throws DeviceException {
        if (!Files.isRegularFile(file)) {
            return java.util.OptionalLong.empty();
        }
        try {
            long size = Files.size(file);
            if (size != want) {
                throw new DeviceException(file + ": " + size + " bytes, but " + what + " of the capture holds " + want);
            }
            return java.util.OptionalLong.of(size);
        } catch (IOException e) {
            throw new DeviceException(file + ": " + e.getMessage(), e);
        }
    }

    private static java.util.Optional<ByteBuffer> read(Path file, long want, String what) throws DeviceException {
        if (size(file, want, what).isEmpty()) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(ByteBuffer.wrap(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new DeviceException(file + ": " + e.getMessage(), e);
        }
    }
}
