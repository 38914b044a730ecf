package org.replayfarm.coordinator.report;

import java.util.BitSet;
import java.util.List;

/** What comparing the host's merged outputs with a device run found, image by image and range by range. */
public record DiffResult(List<ImageDiff> images, List<RangeDiff> ranges) {
    /** A group that stored units (texels or bytes) of a region, and how many approximate instructions it executed. */
    public record GroupTrace(String group, long units, long approximateInstructions) {
    }

    /**
     * Connected differing or device-only texels (4-connectivity) of one plane (mip, layer, z): the
     * bounding box (inclusive), how many texels, of which differing and device-only, and the groups that
     * stored them.
     */
    public record TexelRegion(int image, int mip, int layer, int z, int x0, int y0, int x1, int y1, long texels,
                              long differing, long deviceOnly, List<GroupTrace> groups) {
    }

    /**
     * A run of consecutive differing or device-only bytes of range n, and the groups that stored them (every
     * group that contributed to a merged atomic among them, not only the last); for a typed range the
     * elements it covers ({@code firstElement}..{@code lastElement}, -1 for an untyped range).
     */
    public record ByteRun(int range, long offset, long length, long differing, long deviceOnly, List<GroupTrace> groups,
                          long firstElement, long lastElement) {
        public ByteRun(int range, long offset, long length, long differing, long deviceOnly, List<GroupTrace> groups) {
            this(range, offset, length, differing, deviceOnly, groups, -1, -1);
        }
    }

    /**
     * One differing (or device-only) element of a range, or texel of an image, with its values: {@code index}
     * (element index; texel index in the image's layout), {@code row}/{@code col} (a shaped range's, or the
     * texel's y/x; -1 when unshaped), {@code where} in words, per component the host's and the device's bits
     * and their distance in {@code unit}s ({@code ulp} for floats; integers: {@code step}, the difference; {@link Long#MAX_VALUE} for NaN or infinity against
     * another value), the groups that stored it, and {@code stores}: what store tracing found (filled after the
     * comparison, empty when not traced).
     */
    public record ElementValue(long index, long row, long col, String where, String kind, List<String> host,
                               List<String> device, List<String> hostBits, List<String> deviceBits, List<Long> ulps,
                               String unit, List<String> groups, List<StoreTrace.Store> stores) {
        public ElementValue withStores(List<StoreTrace.Store> traced) {
            return new ElementValue(index, row, col, where, kind, host, device, hostBits, deviceBits, ulps, unit, groups,
                    List.copyOf(traced));
        }
    }

    /**
     * Differing texels or float elements accepted by a tolerance, by the rule that accepted them: {@code ulp},
     * {@code abs}, {@code rel} ({@code --ulp}, {@code --abs}, {@code --rel} or a view's own; one needing several
     * rules for its components counts under the last of them in that order) and {@code approximate}
     * ({@code --approximate}, tried after them).
     */
    public record Tolerated(long ulp, long abs, long rel, long approximate, long reassociated, long floatMode) {
        public static final Tolerated NONE = new Tolerated(0, 0, 0, 0, 0, 0);

        public Tolerated(long ulp, long abs, long rel, long approximate) {
            this(ulp, abs, rel, approximate, 0, 0);
        }

        public long total() {
            return ulp + abs + rel + approximate + reassociated + floatMode;
        }
    }

    /**
     * A range's locations whose final value depends on the order of the groups' atomics (evaluated by the host in
     * group order, memory carried): how many were compared, bit-equal, within the reassociation bound of their
     * float terms (another order of the same sum), or beyond it or not floats and different; the largest bound and
     * the largest difference met, and the op and group count of the first.
     */
    public record Ordered(long locations, long equal, long withinBound, long beyond, double largestBound,
                         double largestDifference, String op, int groups, int terms, long exchanged) {
        public static final Ordered NONE = new Ordered(0, 0, 0, 0, 0, 0, "", 0, 0, 0);

        Ordered with(long eq, long within, long out, double bound, double difference, String firstOp, int firstGroups,
                     int firstTerms) {
            return new Ordered(locations + 1, equal + eq, withinBound + within, beyond + out,
                    Double.isNaN(bound) ? largestBound : Math.max(largestBound, bound),
                    Double.isNaN(difference) ? largestDifference : Math.max(largestDifference, difference),
                    op.isEmpty() ? firstOp : op, op.isEmpty() ? firstGroups : groups, op.isEmpty() ? firstTerms : terms,
                    exchanged);
        }

        /** The last location counted held another group's exchanged value (another order of the exchanges). */
        Ordered plusExchanged() {
            return new Ordered(locations, equal, withinBound, beyond, largestBound, largestDifference, op, groups, terms,
                    exchanged + 1);
        }

        public boolean any() {
            return locations > 0;
        }
    }

    /**
     * What the differences of an image or range that are beyond its tolerances look like: {@code count} differing
     * texels or elements; {@code floats}: each is a float texel or element whose differing channels or components
     * are numbers (or a NaN against a NaN), so some tolerance would accept it (no integer, untyped byte, infinity or
     * NaN against a number); {@code approximate}: a group that executed approximate instructions stored each; the
     * largest distance of their float channels or components in {@code ulps}, absolutely ({@code abs}) and relative
     * to the larger magnitude ({@code rel}), over those that are numbers.
     */
    public record Spread(long count, boolean floats, boolean approximate, long ulps, double abs, double rel) {
        public static final Spread NONE = new Spread(0, true, true, 0, 0, 0);

        /** With one more differing texel or element. */
        public Spread and(boolean isFloat, boolean byApproximate, long u, double a, double r) {
            return new Spread(count + 1, floats && isFloat, approximate && byApproximate, Math.max(ulps, u),
                    Math.max(abs, a), Math.max(rel, r));
        }
    }

    /**
     * One image: {@code recorded} false when the device run has no texels for it (nothing compared).
     * {@code compared}: texels a host store wrote; {@code differing}: of those, beyond the tolerances;
     * {@code tolerated}: accepted by a tolerance, by rule; {@code deviceOnly}: texels the device changed that no
     * host store wrote, inside the footprint. {@code differingTexels}/{@code deviceOnlyTexels}: by texel index,
     * for drawing. {@code regions} holds at most {@link Diff#REGIONS_KEPT} of {@code regionCount}.
     * {@code floating}: its channels are floats ({@code NUM_FLOAT}), the only ones a tolerance applies to;
     * {@code tolerance}: what they were compared with (exact for an image of other channels; {@code viewTolerance}:
     * a view gave it its own); {@code spread}: its differing texels.
     */
    public record ImageDiff(int index, String name, boolean recorded, long texels, long compared, long differing,
                            long deviceOnly, Tolerated tolerated, String footprint,
                            long regionCount, List<TexelRegion> regions, BitSet differingTexels,
                            BitSet deviceOnlyTexels, List<ElementValue> values, boolean floating,
                            Tolerance tolerance, boolean viewTolerance, Spread spread) {
        public ImageDiff withValues(List<ElementValue> v) {
            return new ImageDiff(index, name, recorded, texels, compared, differing, deviceOnly, tolerated, footprint,
                    regionCount, regions, differingTexels, deviceOnlyTexels, List.copyOf(v), floating, tolerance,
                    viewTolerance, spread);
        }

        public long toleratedUlp() {
            return tolerated.ulp();
        }

        public long toleratedApproximate() {
            return tolerated.approximate();
        }

        public boolean equal() {
            return differing == 0 && deviceOnly == 0;
        }
    }

    /**
     * One memory range, as {@link ImageDiff} with bytes for texels: {@code compared}, {@code differing} and
     * {@code deviceOnly} count bytes; for a typed range ({@link RangeView}) the element counts say the same per
     * element ({@code elements} in all), the tolerances apply to float elements (counted in {@code tolerated}) and
     * {@code differing} counts the differing bytes of elements beyond them. {@code name} is the parameter's name
     * when the metadata has it; {@code tolerance} what its float elements were compared with (its view's own when
     * {@code view.tolerance()} names any); {@code spread} its differing elements (bytes of an untyped range).
     */
    public record RangeDiff(int index, String name, boolean recorded, long bytes, long compared, long differing,
                            long deviceOnly, String footprint, long regionCount,
                            List<ByteRun> regions, RangeView view, long elements, long comparedElements,
                            long differingElements, long deviceOnlyElements, Tolerated tolerated,
                            List<ElementValue> values, BitSet differingElementSet, double[] distance,
                            Tolerance tolerance, Spread spread, Ordered ordered) {
        public RangeDiff(int index, String name, boolean recorded, long bytes, long compared, long differing,
                         long deviceOnly, String footprint, long regionCount, List<ByteRun> regions, RangeView view,
                         long elements, long comparedElements, long differingElements, long deviceOnlyElements,
                         Tolerated tolerated, List<ElementValue> values, BitSet differingElementSet, double[] distance,
                         Tolerance tolerance, Spread spread) {
            this(index, name, recorded, bytes, compared, differing, deviceOnly, footprint, regionCount, regions, view,
                    elements, comparedElements, differingElements, deviceOnlyElements, tolerated, values,
                    differingElementSet, distance, tolerance, spread, Ordered.NONE);
        }

        public RangeDiff withValues(List<ElementValue> v) {
            return new RangeDiff(index, name, recorded, bytes, compared, differing, deviceOnly, footprint, regionCount,
                    regions, view, elements, comparedElements, differingElements, deviceOnlyElements, tolerated,
                    List.copyOf(v), differingElementSet, distance, tolerance, spread, ordered);
        }

        public long toleratedUlp() {
            return tolerated.ulp();
        }

        public long toleratedApproximate() {
            return tolerated.approximate();
        }

        /** Whether its elements are floats (the only ones a tolerance applies to). */
        public boolean floating() {
            return view.typed() && view.type().floating();
        }

        public boolean equal() {
            return differing == 0 && deviceOnly == 0;
        }
    }

    /** Texels a host store wrote, compared with the device's. */
    public long comparedTexels() {
        return images.stream().mapToLong(ImageDiff::compared).sum();
    }

    /** Guest bytes a host store (or merged atomic) wrote, compared with the device's. */
    public long comparedBytes() {
        return ranges.stream().mapToLong(RangeDiff::compared).sum();
    }

    public long differingTexels() {
        return images.stream().mapToLong(ImageDiff::differing).sum();
    }

    public long deviceOnlyTexels() {
        return images.stream().mapToLong(ImageDiff::deviceOnly).sum();
    }

    public long differingBytes() {
        return ranges.stream().mapToLong(RangeDiff::differing).sum();
    }

    public long deviceOnlyBytes() {
        return ranges.stream().mapToLong(RangeDiff::deviceOnly).sum();
    }

    /** Memory compared in elements: a typed range's elements, an untyped range's bytes. */
    public long comparedElements() {
        return ranges.stream().mapToLong(RangeDiff::comparedElements).sum();
    }

    /** Memory elements (an untyped range's bytes) that differ or that only the device changed. */
    public long differingElements() {
        return ranges.stream().mapToLong(r -> r.differingElements() + r.deviceOnlyElements()).sum();
    }

    /** Locations whose final value depends on the order of the groups' atomics, compared. */
    public long orderDependentLocations() {
        return ranges.stream().mapToLong(r -> r.ordered().locations()).sum();
    }

    /** Whether nothing compared differs. */
    public boolean equal() {
        return images.stream().allMatch(ImageDiff::equal) && ranges.stream().allMatch(RangeDiff::equal);
    }
}
