package org.replayfarm.coordinator.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the report suggests when a comparison differs only where a tolerance is meant for: every difference
 * (beyond the tolerances asked for) is a float texel or element whose values are numbers apart (no integer,
 * untyped byte, infinity, NaN against a number or device-only change), and every one was stored by a group that
 * executed approximate instructions (those whose results host and device may round differently). It names the
 * largest differences ({@code count} texels and elements; {@code ulps}, {@code abs}, {@code rel} as
 * {@link DiffResult.Spread} measures them) and the flags that would accept them all: {@code --abs} (rounded up
 * to two significant digits) and {@code --ulp}.
 */
public record ToleranceSuggestion(long count, long ulps, double abs, double rel) {
    /** An image's or a range's comparison, as far as the suggestion reads it. */
    private record Part(long deviceOnly, long differing, boolean floating, DiffResult.Spread spread) {
    }

    /** The suggestion for {@code diff}, when there is one. */
    public static Optional<ToleranceSuggestion> of(DiffResult diff) {
        if (diff == null || diff.equal()) {
            return Optional.empty();
        }
        long count = 0;
        long ulps = 0;
        double abs = 0;
        double rel = 0;
        // images and ranges alike: what differs, whether it is float, and how far
        List<Part> parts = new java.util.ArrayList<>();
        diff.images().forEach(d -> parts.add(new Part(d.deviceOnly(), d.differing(), d.floating(), d.spread())));
        diff.ranges().forEach(d -> parts.add(new Part(d.deviceOnly(), d.differing(), d.floating(), d.spread())));
        for (Part d : parts) {
            if (d.deviceOnly() > 0 || d.differing() > 0 && !(d.floating() && d.spread().floats()
                    && d.spread().approximate())) {
                return Optional.empty();
            }
            if (d.differing() > 0) {
                count += d.spread().count();
                ulps = Math.max(ulps, d.spread().ulps());
                abs = Math.max(abs, d.spread().abs());
                rel = Math.max(rel, d.spread().rel());
            }
        }
        return count == 0 ? Optional.empty() : Optional.of(new ToleranceSuggestion(count, ulps, abs, rel));
    }

    /**
     * The flags that would each accept every difference: {@code --abs X} (X the largest absolute difference rounded
     * up to two significant digits; left out when every difference is a zero against a zero or a NaN against a NaN)
     * and {@code --ulp N} (at least 1; left out past 32-bit).
     */
    public List<String> flags() {
        List<String> out = new ArrayList<>();
        if (abs > 0) {
            out.add("--abs " + Tolerance.roundedUp(abs));
        }
        long u = Math.max(1, ulps);
        if (u <= Integer.MAX_VALUE) {
            out.add("--ulp " + u);
        }
        return out;
    }

    /**
     * {@code every difference (1 float element) is within 2.4e-7 absolute / 128 ulps (1 relative), stored by groups
     * that executed approximate instructions: --abs 2.4e-7 or --ulp 128 would accept them}.
     */
    public String text() {
        String what = count + " float " + (count == 1 ? "value" : "values");
        return "every difference (" + what + ") is within " + Tolerance.roundedUp(abs) + " absolute / "
                + ulps + " ulp" + (ulps == 1 ? "" : "s") + " (" + Tolerance.roundedUp(rel)
                + " relative), stored by groups that executed approximate instructions: "
                + Tolerance.join(flags(), "or") + " would accept " + (count == 1 ? "it" : "them");
    }
}
