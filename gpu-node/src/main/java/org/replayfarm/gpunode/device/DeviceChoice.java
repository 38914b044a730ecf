package org.replayfarm.gpunode.device;

import java.util.List;
import java.util.Optional;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.RecordedRun;

/**
 * Which device a comparison uses, as {@code --device} spells it: {@code auto} (a GPU when this node has
 * one, else the capture's first recorded run, else none), {@code recorded} (the first recorded run),
 * {@code recorded:LABEL} (the run with that label), {@code cuda-cpu} (the translation to CUDA C, built
 * with g++ and run on the CPU: {@link CudaCpuBackend}) or {@code none} (host only). {@link #resolve} says
 * which it took and why.
 */
public record DeviceChoice(Kind kind, String label) {
    public enum Kind { AUTO, RECORDED, NONE, CUDA_CPU }

    /** The resolved choice: the backend (empty for none) and a line saying what was taken and why. */
    public record Resolved(Optional<DeviceBackend> backend, String reason) {
    }

    public static DeviceChoice parse(String spec) {
        if (spec == null || spec.equals("auto")) {
            return new DeviceChoice(Kind.AUTO, "");
        }
        if (spec.equals("none")) {
            return new DeviceChoice(Kind.NONE, "");
        }
        if (spec.equals("cuda-cpu")) {
            return new DeviceChoice(Kind.CUDA_CPU, "");
        }
        if (spec.equals("recorded")) {
            return new DeviceChoice(Kind.RECORDED, "");
        }
        if (spec.startsWith("recorded:") && spec.length() > "recorded:".length()) {
            return new DeviceChoice(Kind.RECORDED, spec.substring("recorded:".length()));
        }
        throw new IllegalArgumentException("--device '" + spec + "': expected auto, recorded, recorded:LABEL, cuda-cpu or none");
    }

    /** The spelling {@link #parse} reads back. */
    public String spelling() {
        return switch (kind) {
            case AUTO -> "auto";
            case NONE -> "none";
            case CUDA_CPU -> "cuda-cpu";
            case RECORDED -> label.isEmpty() ? "recorded" : "recorded:" + label;
        };
    }

    /**
     * Picks the backend for this capture. No GPU backend exists yet, so {@code auto} falls to the
     * recorded runs.
     *
     * @throws IllegalArgumentException when a recorded run is asked for and the capture has none (or none
     *         with that label); the message lists the labels it has
     */
    public Resolved resolve(CaptureFile capture) {
        List<RecordedRun> runs = capture.metadata().getRunsList();
        return switch (kind) {
            case NONE -> new Resolved(Optional.empty(), "none (asked for): the host model only, nothing compared");
            case CUDA_CPU -> new Resolved(Optional.of(new CudaCpuBackend()), "cuda-cpu (asked for): the program "
                    + "translated to CUDA C, built with g++ and run on this node's CPU");
            case AUTO -> runs.isEmpty()
                    ? new Resolved(Optional.empty(), "none: no GPU on this node and the capture holds no recorded run; "
                            + "the host model only, nothing compared")
                    : new Resolved(Optional.of(new RecordedBackend(runs.get(0))), "recorded run '" + runs.get(0).getLabel()
                            + "' (auto: no GPU on this node; the capture's first recorded run)");
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
