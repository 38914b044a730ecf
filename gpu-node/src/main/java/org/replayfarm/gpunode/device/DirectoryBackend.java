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
        Outputs read = read(dir, request.capture(), false);
        if (read.ranges().isEmpty() && read.images().isEmpty()) {
            throw new DeviceException("--device dir:" + dir + ": the folder holds no guest-<n>.bin and no image-<k>.raw "
                    + "of this capture");
        }
        DeviceRun out = new DeviceRun(kind(), label(), read.ranges(), read.images(), List.of());
        events.on(new DeviceEvent.Finished(read.ranges().size(), read.images().size()));
        return out;
    }

    /** A folder's outputs: range n's bytes by n, image k's texels by k. */
    record Outputs(TreeMap<Integer, ByteBuffer> ranges, TreeMap<Integer, ByteBuffer> images) {
    }

    /**
     * Reads a folder in this layout (what {@code dir:} and {@code exec:}'s output folder hold): a file of the wrong
     * size is an error naming it and both sizes; a missing file is "not recorded", or with {@code everyFile} an error
     * naming it.
     */
    static Outputs read(Path dir, org.replayfarm.model.capture.CaptureFile capture, boolean everyFile)
            throws DeviceException {
        TreeMap<Integer, ByteBuffer> ranges = new TreeMap<>();
        TreeMap<Integer, ByteBuffer> images = new TreeMap<>();
        for (Expected e : expected(dir, capture)) {
            java.util.Optional<ByteBuffer> b = read(e);
            if (b.isPresent()) {
                (e.image() ? images : ranges).put(e.index(), b.get());
            } else if (everyFile) {
                throw new DeviceException("no " + e.file().getFileName() + " (" + e.what() + " of the capture, "
                        + e.bytes() + " bytes) in " + dir + ", which is to hold every range's and image's final contents");
            }
        }
        return new Outputs(ranges, images);
    }

    /**
     * Checks the folder's files against the capture without reading them: a file of the wrong size is an error
     * naming it and both sizes (what {@link #run} would meet after the whole evaluation).
     */
    public static void checkSizes(Path dir, org.replayfarm.model.capture.CaptureFile capture) throws DeviceException {
        for (Expected e : expected(dir, capture)) {
            present(e);
        }
    }

    /** The file of one range ({@code guest-<n>.bin}) or image ({@code image-<k>.raw}), and its size in the capture. */
    private record Expected(boolean image, int index, Path file, long bytes, String what) {
    }

    /** Every file the folder may hold for the capture: its ranges', then its images'. */
    private static List<Expected> expected(Path dir, org.replayfarm.model.capture.CaptureFile capture) {
        List<Expected> all = new java.util.ArrayList<>();
        for (MemoryRange r : capture.metadata().getRangesList()) {
            all.add(new Expected(false, r.getIndex(), dir.resolve("guest-" + r.getIndex() + ".bin"), r.getSize(),
                    "range " + r.getIndex() + " ('" + r.getName() + "')"));
        }
        for (Image i : capture.metadata().getImagesList()) {
            all.add(new Expected(true, i.getIndex(), dir.resolve("image-" + i.getIndex() + ".raw"),
                    TexelLayout.totalBytes(i), "image " + i.getIndex() + " ('" + i.getName() + "')"));
        }
        return all;
    }

    /** Whether the file is there (not: not recorded); a file of the wrong size is an error naming both sizes. */
    private static boolean present(Expected e) throws DeviceException {
        if (!Files.isRegularFile(e.file())) {
            return false;
        }
        try {
            long size = Files.size(e.file());
            if (size != e.bytes()) {
                throw new DeviceException(e.file() + ": " + size + " bytes, but " + e.what() + " of the capture holds "
                        + e.bytes());
            }
            return true;
        } catch (IOException x) {
            throw new DeviceException(e.file() + ": " + x.getMessage(), x);
        }
    }

    private static java.util.Optional<ByteBuffer> read(Expected e) throws DeviceException {
        if (!present(e)) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(ByteBuffer.wrap(Files.readAllBytes(e.file())));
        } catch (IOException x) {
            throw new DeviceException(e.file() + ": " + x.getMessage(), x);
        }
    }
}
