package org.replayfarm.coordinator.report;

import java.util.List;

/**
 * How host and device are compared. Exact by default: every channel and element bit for bit. The tolerance
 * ({@code ulp}, {@code abs}, {@code rel}: {@link Tolerance}) accepts a float channel of an image, or a float
 * component of an element of a typed range, within that many units in the last place, that absolute
 * difference or that difference relative to the larger magnitude (a NaN only matching a NaN, an infinity only
 * itself); a {@code --view} may give a range or image tolerances of its own ({@link RangeViews}).
 * {@code approximate} accepts a texel or float element whose storing group executed at least one instruction
 * classified approximate (the only instructions whose results host and device may round differently) when
 * every float value is at most one unit in its last place off (or {@code ulp}, if larger); integer elements
 * and untyped bytes are always compared exactly. {@code everyGroup}: the host ran every group, so whole
 * images and ranges are compared; otherwise device-only changes count only inside the selected groups'
 * footprint ({@link Diff}). {@code views} are {@code --view RANGE=TYPE[ROWSxCOLS][,abs=X,rel=X,ulp=N]} spellings
 * over the types the kernel metadata gives ({@link RangeViews}); {@code values} is how many differing elements
 * or texels each range and image lists with their values; {@code origin} the path the capture was given by
 * (where the code object with line info is looked for, and what {@code replay explain} reopens; "" unknown).
 */
public record DiffOptions(boolean everyGroup, int ulp, double abs, double rel, boolean approximate, List<String> views,
                          int values, String origin) {
    /** Differing elements or texels listed per range or image unless told otherwise. */
    public static final int DEFAULT_VALUES = 10;

    public DiffOptions {
        if (ulp < 0) {
            throw new IllegalArgumentException("--ulp must be 0 or more, not " + ulp);
        }
        if (!(abs >= 0) || Double.isInfinite(abs)) {
            throw new IllegalArgumentException("--abs must be a finite number 0 or more, not " + abs);
        }
        if (!(rel >= 0) || Double.isInfinite(rel)) {
            throw new IllegalArgumentException("--rel must be a finite number 0 or more, not " + rel);
        }
        if (values < 0) {
            throw new IllegalArgumentException("--values must be 0 or more, not " + values);
        }
        views = List.copyOf(views);
        origin = origin == null ? "" : origin;
    }

    public DiffOptions(boolean everyGroup, int ulp, boolean approximate, List<String> views, int values, String origin) {
        this(everyGroup, ulp, 0, 0, approximate, views, values, origin);
    }

    public DiffOptions(boolean everyGroup, int ulp, boolean approximate) {
        this(everyGroup, ulp, 0, 0, approximate, List.of(), DEFAULT_VALUES, "");
    }

    /** With the tolerance {@code t} (and these views) instead. */
    public DiffOptions with(Tolerance t, List<String> v) {
        return new DiffOptions(everyGroup, t.ulp(), t.abs(), t.rel(), approximate, v, values, origin);
    }

    public static DiffOptions exact(boolean everyGroup) {
        return new DiffOptions(everyGroup, 0, false);
    }

    /** The command's tolerance, for every range and image no view gives one of its own. */
    public Tolerance tolerance() {
        return new Tolerance(ulp, abs, rel);
    }

    /** "exact", or the tolerances asked for in words (what each was applied to is in the report's statement). */
    public String describe() {
        Tolerance t = tolerance();
        if (t.exact() && !approximate) {
            return "exact";
        }
        return (t.exact() ? "" : "float values " + t.describe())
                + (!t.exact() && approximate ? "; " : "")
                + (approximate ? "float values one unit in the last place off (" + Math.max(1, ulp) + " ulp), stored by "
                        + "groups that executed approximate instructions, accepted" : "");
    }
}
