package org.replayfarm.cli.commands;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureWriter;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.proto.BlobRef;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageContents;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.RangeContents;
import org.replayfarm.proto.RecordedRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;

@Command(name = "add-run", mixinStandardHelpOptions = true,
        description = {"Attach the outputs of a run made elsewhere (a GPU, a native build) to a capture as a recorded "
                + "run: DIR/guest-<n>.bin (range n's final bytes) and DIR/image-<k>.raw (image k's final texels, in the "
                + "capture's layout), or the same files under DIR/host/ (the layout replay eval and run write).",
                "--from-device cuda-cpu runs the capture's dispatch through the translation to CUDA C on this "
                        + "machine's CPU instead (g++, a separate process) and records its outputs, labelled with what "
                        + "ran unless --label says otherwise.",
                "Every file must have its range's or image's exact size; ranges and images without a file are not "
                        + "recorded (and not compared). The capture is rewritten deterministically: the same inputs give "
                        + "the same bytes."})
final class CaptureAddRunCommand implements Callable<Integer> {
    private static final Pattern RANGE = Pattern.compile("guest-(\\d+)\\.bin");
    private static final Pattern IMAGE = Pattern.compile("image-(\\d+)\\.raw");

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE")
    Path capture;

    @Option(names = "--label", paramLabel = "TEXT",
            description = "What produced the run, e.g. \"native x86-64 (clang-19)\" (required with --from).")
    String label;

    @Option(names = "--from", paramLabel = "DIR", description = "Directory holding the run's outputs.")
    Path from;

    @Option(names = "--from-device", paramLabel = "cuda|cuda-cpu",
            description = "Run the dispatch on this device and record its outputs (instead of --from): cuda (the "
                    + "translation launched on this machine's GPU; exit 2 naming why when there is none) or cuda-cpu. "
                    + "The label defaults to the device, its driver and the translation's hash.")
    String fromDevice;

    @Option(names = {"-o", "--out"}, paramLabel = "OUT.capture", description = "Write here instead of rewriting CAPTURE.")
    Path out;

    @Option(names = "--replace", description = "Replace a run with the same label instead of refusing.")
    boolean replace;

    @Override
    public Integer call() throws Exception {
        Path deviceOutputs = null;
        try {
            if ((from == null) == (fromDevice == null)) {
                throw new ParameterException(spec.commandLine(), "give one of --from DIR and --from-device cuda|cuda-cpu");
            }
            if (fromDevice != null) {
                deviceOutputs = Files.createTempDirectory("replay-add-run");
                String ran = DeviceRunToFiles.run(capture, fromDevice, null, deviceOutputs, spec);
                from = deviceOutputs;
                if (label == null) {
                    label = ran;
                }
            }
            if (label == null || label.isBlank()) {
                throw new ParameterException(spec.commandLine(), "--label must say what produced the run");
            }
            return add();
        } finally {
            if (deviceOutputs != null) {
                try (Stream<Path> walk = Files.walk(deviceOutputs)) {
                    for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    private Integer add() throws Exception {
        CaptureFile file = CaptureFile.open(capture);
        Capture meta = file.metadata();
        Path dir = outputsDir();
        Map<Integer, Path> rangeFiles = new TreeMap<>();
        Map<Integer, Path> imageFiles = new TreeMap<>();
        try (Stream<Path> listing = Files.list(dir)) {
            for (Path f : listing.sorted().toList()) {
                String name = f.getFileName().toString();
                Matcher r = RANGE.matcher(name);
                Matcher i = IMAGE.matcher(name);
                if (r.matches()) {
                    rangeFiles.put(index(f, r.group(1), meta.getRangesCount(), "range"), f);
                } else if (i.matches()) {
                    imageFiles.put(index(f, i.group(1), meta.getImagesCount(), "image"), f);
                }
            }
        }
        if (rangeFiles.isEmpty() && imageFiles.isEmpty()) {
            throw new IllegalArgumentException(dir + " holds no guest-<n>.bin and no image-<k>.raw");
        }
        CaptureWriter writer = new CaptureWriter();
        // the existing blobs first, in file order: they keep their offsets, so the old part of the file is unchanged
        List<BlobRef> refs = new ArrayList<>();
        refs.add(meta.getProgram().getCode());
        meta.getRangesList().forEach(r -> refs.add(r.getInitial()));
        meta.getImagesList().forEach(i -> refs.add(i.getTexels()));
        for (RecordedRun run : meta.getRunsList()) {
            if (!(replace && run.getLabel().equals(label))) {
                run.getRangesList().forEach(r -> refs.add(r.getData()));
                run.getImagesList().forEach(i -> refs.add(i.getTexels()));
            }
        }
        refs.sort(Comparator.comparingLong(BlobRef::getOffset));
        for (BlobRef ref : refs) {
            writer.add(file.blob(ref));
        }
        RecordedRun.Builder run = RecordedRun.newBuilder().setLabel(label);
        for (var e : rangeFiles.entrySet()) {
            MemoryRange range = meta.getRanges(e.getKey());
            byte[] bytes = Files.readAllBytes(e.getValue());
            if (bytes.length != range.getSize()) {
                throw new IllegalArgumentException(e.getValue() + ": " + bytes.length + " bytes, but range " + e.getKey()
                        + (range.getName().isEmpty() ? "" : " (" + range.getName() + ")") + " holds " + range.getSize());
            }
            run.addRanges(RangeContents.newBuilder().setRangeIndex(e.getKey()).setData(writer.add(bytes)));
        }
        for (var e : imageFiles.entrySet()) {
            Image image = meta.getImages(e.getKey());
            byte[] bytes = Files.readAllBytes(e.getValue());
            long expected = TexelLayout.totalBytes(image);
            if (bytes.length != expected) {
                throw new IllegalArgumentException(e.getValue() + ": " + bytes.length + " bytes, but image " + e.getKey()
                        + (image.getName().isEmpty() ? "" : " (" + image.getName() + ")") + " holds " + expected
                        + " (" + image.getWidth() + "x" + image.getHeight() + ", " + image.getMipLevels() + " mip(s), "
                        + image.getDataFormat() + ")");
            }
            run.addImages(ImageContents.newBuilder().setImageIndex(e.getKey()).setTexels(writer.add(bytes)));
        }
        Capture.Builder updated = meta.toBuilder().clearRuns();
        boolean replaced = false;
        for (RecordedRun existing : meta.getRunsList()) {
            if (existing.getLabel().equals(label)) {
                if (!replace) {
                    throw new IllegalArgumentException(capture + " already has a run labelled '" + label
                            + "' (--replace replaces it)");
                }
                updated.addRuns(run);
                replaced = true;
            } else {
                updated.addRuns(existing);
            }
        }
        if (!replaced) {
            updated.addRuns(run);
        }
        Path target = out != null ? out : capture;
        writer.write(updated.build(), target);
        CaptureFile written = CaptureFile.open(target);
        spec.commandLine().getOut().printf("%s run '%s' (%d range(s), %d image(s)) to %s: %d bytes, sha256 %s%n",
                replaced ? "replaced" : "added", label, rangeFiles.size(), imageFiles.size(), target, Files.size(target),
                written.identity());
        return Replay.EXIT_OK;
    }

    /** DIR itself, or DIR/host when DIR holds no outputs but a host/ directory (replay eval's layout). */
    private Path outputsDir() throws java.io.IOException {
        if (!Files.isDirectory(from)) {
            throw new ParameterException(spec.commandLine(), "--from " + from + ": no such directory");
        }
        Path host = from.resolve("host");
        if (Files.isDirectory(host)) {
            try (Stream<Path> listing = Files.list(from)) {
                if (listing.noneMatch(p -> RANGE.matcher(p.getFileName().toString()).matches()
                        || IMAGE.matcher(p.getFileName().toString()).matches())) {
                    return host;
                }
            }
        }
        return from;
    }

    private static int index(Path f, String digits, int count, String what) {
        long n;
        try {
            n = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            n = Long.MAX_VALUE;
        }
        if (n >= count) {
            throw new IllegalArgumentException(f + ": the capture has no " + what + " " + digits + " (it has " + count
                    + " " + what + (count == 1 ? "" : "s") + ")");
        }
        return (int) n;
    }
}
