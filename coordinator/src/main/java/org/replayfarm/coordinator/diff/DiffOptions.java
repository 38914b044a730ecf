package org.replayfarm.coordinator.diff;

/**
 * How host and device are compared. Exact by default: every channel bit for bit. {@code ulp} &gt; 0
 * accepts a float channel within that many units in the last place (an infinity or NaN only equal to
 * itself); {@code approximate} accepts a texel whose storing group executed at least one instruction
 * classified approximate (the only instructions whose results host and device may round differently)
 * when every channel is at most one unit in its last place off (or {@code ulp} for float channels, if
 * larger). Memory bytes carry no type, so {@code approximate} never accepts a differing byte.
 * {@code everyGroup}: the host ran every group, so whole images and ranges are compared; otherwise
 * device-only changes count only inside the selected groups' footprint ({@link Diff}).
 */
public record DiffOptions(boolean everyGroup, int ulp, boolean approximate) {
    public DiffOptions {
        if (ulp < 0) {
            throw new IllegalArgumentException("--ulp must be 0 or more, not " + ulp);
        }
    }

    public static DiffOptions exact(boolean everyGroup) {
        return new DiffOptions(everyGroup, 0, false);
    }

    /** "exact", or the tolerances in words. */
    public String describe() {
        if (ulp == 0 && !approximate) {
            return "exact";
        }
        return (ulp > 0 ? "float channels within " + ulp + " ulp" : "")
                + (ulp > 0 && approximate ? "; " : "")
                + (approximate ? "texels one unit in the last place off, stored by groups that executed approximate "
                        + "instructions, accepted" : "");
    }
}
