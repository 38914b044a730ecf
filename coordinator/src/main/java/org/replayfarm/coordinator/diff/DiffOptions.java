package org.replayfarm.coordinator.diff;

import java.util.List;

/**
 * How host and device are compared. Exact by default: every channel and element bit for bit. {@code ulp}
 * &gt; 0 accepts a float channel of an image, or a float component of an element of a typed range, within
 * that many units in the last place (an infinity or NaN only equal to itself); {@code approximate} accepts
 * a texel or float element whose storing group executed at least one instruction classified approximate
 * (the only instructions whose results host and device may round differently) when every float value is
 * at most one unit in its last place off (or {@code ulp}, if larger); integer elements and untyped bytes
 * are always compared exactly. {@code everyGroup}: the host ran every group, so whole images and ranges
 * are compared; otherwise device-only changes count only inside the selected groups' footprint
 * ({@link Diff}). {@code views} are {@code --view RANGE=TYPE[ROWSxCOLS]} spellings over the types the
 * kernel metadata gives ({@link RangeViews}); {@code values} is how many differing elements or texels
 * each range and image lists with their values; {@code origin} the path the capture was given by (where
 * the code object with line info is looked for, and what {@code replay explain} reopens; "" unknown).
 */
public record DiffOptions(boolean everyGroup, int ulp, boolean approximate, List<String> views, int values, String origin) {
    /** Differing elements or texels listed per range or image unless told otherwise. */
    public static final int DEFAULT_VALUES = 10;

    public DiffOptions {
        if (ulp < 0) {
            throw new IllegalArgumentException("--ulp must be 0 or more, not " + ulp);
        }
        if (values < 0) {
            throw new IllegalArgumentException("--values must be 0 or more, not " + values);
        }
        views = List.copyOf(views);
        origin = origin == null ? "" : origin;
    }

    public DiffOptions(boolean everyGroup, int ulp, boolean approximate) {
        this(everyGroup, ulp, approximate, List.of(), DEFAULT_VALUES, "");
    }

    public static DiffOptions exact(boolean everyGroup) {
        return new DiffOptions(everyGroup, 0, false);
    }

    /** "exact", or the tolerances asked for in words (what each was applied to is {@link DiffResult#tolerances}). */
    public String describe() {
        if (ulp == 0 && !approximate) {
            return "exact";
        }
        return (ulp > 0 ? "float values within " + ulp + " ulp" : "")
                + (ulp > 0 && approximate ? "; " : "")
                + (approximate ? "float values one unit in the last place off (" + Math.max(1, ulp) + " ulp), stored by "
                        + "groups that executed approximate instructions, accepted" : "");
    }
}
