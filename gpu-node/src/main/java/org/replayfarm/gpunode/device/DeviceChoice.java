package org.replayfarm.gpunode.device;

import java.util.List;
import java.util.Optional;
import org.replayfarm.gpunode.cuda.LocalGpu;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.RecordedRun;

/**
 * Which device a comparison uses, as {@code --device} spells it: {@code auto} (a GPU when this node has
 * one, else the capture's first recorded run, else none), {@code recorded} (the first recorded run),
 * {@code recorded:LABEL} (the run with that label), {@code dir:PATH} (a folder of guest-&lt;n&gt;.bin and
 * image-&lt;k&gt;.raw another tool wrote, {@link DirectoryBackend}), {@code cuda-cpu} (the translation to CUDA C, built
 * with g++ and run on the CPU: {@link CudaCpuBackend}), {@code cuda} (the translation launched on a GPU:
 * this node's, or in a cluster a GPU node's, as {@code gpu} offers it), {@code exec:COMMAND} (a program that runs
 * the capture and writes that folder: {@link ExecBackend}, for at most {@code timeoutSeconds}) or {@code none} (host
 * only). {@link #resolve} says which it took and why.
 */
public record DeviceChoice(Kind kind, String label, GpuSource gpu, long timeoutSeconds) {
    public enum Kind { AUTO, RECORDED, NONE, CUDA_CPU, CUDA, DIR, EXEC }

    /** {@code cuda-cpu:DIR} or {@code cuda:DIR}: a translation folder built and run as it lies (the label holds it). */
    public boolean folderTranslation() {
        return (kind == Kind.CUDA_CPU || kind == Kind.CUDA) && !label.isEmpty();
    }

    /** How long an {@code exec:} program may run unless {@code --device-timeout} says otherwise. */
    public static final long DEFAULT_TIMEOUT_SECONDS = 600;

    public DeviceChoice {
        if (timeoutSeconds <= 0) {
            throw new IllegalArgumentException("--device-timeout must be a positive number of seconds, not " + timeoutSeconds);
        }
    }

    /** A choice whose GPU is this node's own ({@link LocalGpu}), with the default time limit. */
    public DeviceChoice(Kind kind, String label) {
        this(kind, label, LocalGpu.get(), DEFAULT_TIMEOUT_SECONDS);
    }

    /** The same choice with its GPU taken from {@code source} (a cluster's GPU nodes). */
    public DeviceChoice withGpu(GpuSource source) {
        return new DeviceChoice(kind, label, source, timeoutSeconds);
    }

    /** The same choice with an {@code exec:} program's time limit ({@code --device-timeout}). */
    public DeviceChoice withTimeoutSeconds(long seconds) {
        return new DeviceChoice(kind, label, gpu, seconds);
    }

    /** The resolved choice: the backend (empty for none) and a line saying what was taken and why. */
    public record Resolved(Optional<DeviceBackend> backend, String reason) {
    }

    /** Every spelling {@link #parse} takes, as its error lists them. */
    public static final String SPELLINGS = "auto, recorded, recorded:LABEL, dir:PATH, exec:COMMAND, cuda, cuda:DIR, cuda-cpu, cuda-cpu:DIR or none";

    public static DeviceChoice parse(String spec) {
        if (spec == null || spec.equals("auto")) {
            return new DeviceChoice(Kind.AUTO, "");
        }
        if (spec.equals("none")) {
            return new DeviceChoice(Kind.NONE, "");
        }
        if (spec.equals("cuda")) {
            return new DeviceChoice(Kind.CUDA, "");
        }
        if (spec.startsWith("cuda:") && spec.length() > "cuda:".length()) {
            return new DeviceChoice(Kind.CUDA, spec.substring("cuda:".length())); // a translation folder on this GPU
        }
        if (spec.equals("cuda-cpu")) {
            return new DeviceChoice(Kind.CUDA_CPU, "");
        }
        if (spec.equals("recorded")) {
            return new DeviceChoice(Kind.RECORDED, "");
        }
        if (spec.startsWith("cuda-cpu:") && spec.length() > "cuda-cpu:".length()) {
            return new DeviceChoice(Kind.CUDA_CPU, spec.substring("cuda-cpu:".length())); // the label holds the folder
        }
        if (spec.startsWith("recorded:") && spec.length() > "recorded:".length()) {
            return new DeviceChoice(Kind.RECORDED, spec.substring("recorded:".length()));
        }
        if (spec.startsWith("dir:") && spec.length() > "dir:".length()) {
            return new DeviceChoice(Kind.DIR, spec.substring("dir:".length())); // the label holds the folder
        }
        if (spec.startsWith("exec:") && !spec.substring("exec:".length()).isBlank()) {
            try {
                ShellWords.split(spec.substring("exec:".length())); // an open quote is refused now, not after evaluating
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--device '" + spec + "': " + e.getMessage());
            }
            return new DeviceChoice(Kind.EXEC, spec.substring("exec:".length())); // the label holds the command
        }
        throw new IllegalArgumentException("--device '" + spec + "': expected " + SPELLINGS);
    }

    /**
     * The folder of {@code cuda-cpu:DIR} / {@code cuda:DIR}; one without a kernel.cu, or none, is an
     * IllegalArgumentException naming the spelling.
     */
    private java.nio.file.Path translationFolder() {
        java.nio.file.Path dir = java.nio.file.Path.of(label);
        if (!java.nio.file.Files.isRegularFile(dir.resolve("kernel.cu"))) {
            throw new IllegalArgumentException("--device " + spelling() + ": " + (java.nio.file.Files.isDirectory(dir)
                    ? "the folder holds no kernel.cu (replay translate CAPTURE --out DIR writes one)"
                    : "no such folder"));
        }
        return dir;
    }

    /** The spelling {@link #parse} reads back. */
    public String spelling() {
        return switch (kind) {
            case AUTO -> "auto";
            case NONE -> "none";
            case CUDA_CPU -> label.isEmpty() ? "cuda-cpu" : "cuda-cpu:" + label;
            case CUDA -> label.isEmpty() ? "cuda" : "cuda:" + label;
            case RECORDED -> label.isEmpty() ? "recorded" : "recorded:" + label;
            case DIR -> "dir:" + label;
            case EXEC -> "exec:" + label;
        };
    }

    /**
     * Picks the backend for this capture: {@code auto} takes the GPU when one is offered, else the
     * capture's first recorded run, else none.
     *
     * @throws IllegalArgumentException when a recorded run is asked for and the capture has none (or none
     *         with that label; the message lists the labels it has), or {@code cuda} is asked for and no GPU
     *         is offered (the message says why)
     */
    public Resolved resolve(CaptureFile capture) {
        List<RecordedRun> runs = capture.metadata().getRunsList();
        String noGpu = "";
        if (kind == Kind.CUDA || kind == Kind.AUTO) {
            GpuSource.Offer offer = gpu.offer();
            noGpu = offer.why();
            if (offer.backend().isPresent() && kind == Kind.CUDA && !label.isEmpty()) {
                java.nio.file.Path dir = translationFolder();
                if (!(offer.backend().get() instanceof org.replayfarm.gpunode.cuda.CudaBackend local)) {
                    throw new IllegalArgumentException("--device " + spelling() + ": a translation folder runs on this "
                            + "machine's GPU; the GPU offered is another node's, which does not have the folder");
                }
                return new Resolved(Optional.of(local.forFolder(dir)), spelling() + " (asked for): the translation in "
                        + "that folder, built with nvcc as it lies, on " + offer.why());
            }
            if (offer.backend().isPresent()) {
                return new Resolved(offer.backend(), "cuda (" + (kind == Kind.AUTO ? "auto" : "asked for") + "): "
                        + offer.why());
            }
            if (kind == Kind.CUDA) {
                throw new IllegalArgumentException("--device cuda: " + offer.why());
            }
        }
        return switch (kind) {
            case CUDA -> throw new IllegalStateException("unreachable");
            case DIR -> {
                java.nio.file.Path dir = java.nio.file.Path.of(label);
                if (!java.nio.file.Files.isDirectory(dir)) {
                    throw new IllegalArgumentException("--device " + spelling() + ": no such folder");
                }
                // the files' sizes now, before any group is evaluated (the run read them only when comparing)
                try {
                    DirectoryBackend.checkSizes(dir, capture);
                } catch (DeviceException e) {
                    throw new IllegalArgumentException("--device " + spelling() + ": " + e.getMessage());
                }
                yield new Resolved(Optional.of(new DirectoryBackend(dir)), "the folder " + label
                        + " (dir: its guest-<n>.bin and image-<k>.raw, asked for)");
            }
            case EXEC -> new Resolved(Optional.of(new ExecBackend(label, timeoutSeconds)), "the program "
                    + ShellWords.split(label).get(0) + " (exec: run on a copy of the capture, its {out} folder read as "
                    + "dir: reads one, asked for)");
            case NONE -> new Resolved(Optional.empty(), "none (asked for): the host model only, nothing compared");
            case CUDA_CPU -> {
                if (label.isEmpty()) {
                    yield new Resolved(Optional.of(new CudaCpuBackend()), "cuda-cpu (asked for): the program "
                            + "translated to CUDA C, built with g++ and run on this node's CPU");
                }
                java.nio.file.Path dir = translationFolder();
                yield new Resolved(Optional.of(CudaCpuBackend.ofFolder(dir)), "cuda-cpu:" + label + " (asked for): "
                        + "the translation in that folder, built with g++ as it lies and run on this node's CPU");
            }
            case AUTO -> runs.isEmpty()
                    ? new Resolved(Optional.empty(), "none: " + noGpu + ", and the capture holds no recorded run; "
                            + "the host model only, nothing compared")
                    : new Resolved(Optional.of(new RecordedBackend(runs.get(0))), "recorded run '" + runs.get(0).getLabel()
                            + "' (auto: " + noGpu + "; the capture's first recorded run)");
            case RECORDED -> {
                if (runs.isEmpty()) {
                    throw new IllegalArgumentException("--device " + spelling() + ": the capture holds no recorded run");
                }
                if (label.isEmpty()) {
                    yield new Resolved(Optional.of(new RecordedBackend(runs.get(0))), "recorded run '"
                            + runs.get(0).getLabel() + "' (the capture's first)");
                }
                for (RecordedRun r : runs) {
                    if (r.getLabel().equals(label)) {
                        yield new Resolved(Optional.of(new RecordedBackend(r)), "recorded run '" + label + "' (asked for)");
                    }
                }
                throw new IllegalArgumentException("--device " + spelling() + ": the capture has no recorded run labelled '"
                        + label + "'; it has " + runs.stream().map(r -> "'" + r.getLabel() + "'").toList());
            }
        };
    }
}
