package org.replayfarm.coordinator.report;

import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.gpunode.device.DeviceChoice;

/**
 * What a job compares its host results with, as {@code replay run} and {@code replay submit} spell it:
 * the device ({@code --device}) and the tolerances ({@code --ulp}, {@code --abs}, {@code --rel},
 * {@code --approximate}, and those a {@code --view} gives one range or image). Whether whole images are
 * compared follows from the group selection ({@link #options}).
 */
public record CompareWith(DeviceChoice device, int ulp, double abs, double rel, boolean approximate,
                          java.util.List<String> views, int values, String origin) {
    public CompareWith(DeviceChoice device, int ulp, boolean approximate, java.util.List<String> views, int values,
                       String origin) {
        this(device, ulp, 0, 0, approximate, views, values, origin);
    }

    public CompareWith(DeviceChoice device, int ulp, boolean approximate) {
        this(device, ulp, 0, 0, approximate, java.util.List.of(), DiffOptions.DEFAULT_VALUES, "");
    }

    /** With {@code --view} spellings ({@link RangeViews}) and how many differing values each range lists. */
    public CompareWith withViews(java.util.List<String> v, int n) {
        return new CompareWith(device, ulp, abs, rel, approximate, v, n, origin);
    }

    /** With {@code --abs} and {@code --rel} (0: not asked for). */
    public CompareWith withTolerances(double absolute, double relative) {
        return new CompareWith(device, ulp, absolute, relative, approximate, views, values, origin);
    }

    /** The same comparison with another device. */
    public CompareWith withDevice(DeviceChoice d) {
        return new CompareWith(d, ulp, abs, rel, approximate, views, values, origin);
    }

    /** With the path the capture was given by ({@link DiffOptions#origin}). */
    public CompareWith withOrigin(java.nio.file.Path capture) {
        return new CompareWith(device, ulp, abs, rel, approximate, views, values, capture.toAbsolutePath().toString());
    }

    public CompareWith {
        views = java.util.List.copyOf(views);
        origin = origin == null ? "" : origin;
        if (values < 0) {
            throw new IllegalArgumentException("--values must be 0 or more, not " + values);
        }
        if (device == null) {
            throw new IllegalArgumentException("a comparison needs a device choice (auto, recorded[:LABEL] or none)");
        }
        if (ulp < 0) {
            throw new IllegalArgumentException("--ulp must be 0 or more, not " + ulp);
        }
        if (!(abs >= 0) || Double.isInfinite(abs)) {
            throw new IllegalArgumentException("--abs must be a finite number 0 or more, not " + abs);
        }
        if (!(rel >= 0) || Double.isInfinite(rel)) {
            throw new IllegalArgumentException("--rel must be a finite number 0 or more, not " + rel);
        }
    }

    /** {@code --device auto}, exact: what a job compares with when it is not told otherwise. */
    public static CompareWith auto() {
        return new CompareWith(DeviceChoice.parse("auto"), 0, false);
    }

    /** Parses the spellings; a malformed device or a negative ulp is an {@link IllegalArgumentException} naming it. */
    public static CompareWith parse(String device, int ulp, boolean approximate) {
        return new CompareWith(DeviceChoice.parse(device), ulp, approximate);
    }

    public DiffOptions options(GroupSelection selection) {
        return new DiffOptions(selection.every(), ulp, abs, rel, approximate, views, values, origin);
    }

    /** How a report names a selection: {@code every group} or {@code (x, y, z) ...}. */
    public static String describe(GroupSelection selection) {
        return selection.every() ? "every group" : selection.groups().stream()
                .map(g -> "(" + g[0] + ", " + g[1] + ", " + g[2] + ")").collect(java.util.stream.Collectors.joining(" "));
    }
}
