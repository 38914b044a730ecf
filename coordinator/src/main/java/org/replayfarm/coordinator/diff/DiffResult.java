package org.replayfarm.coordinator.diff;

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
     * One image: {@code recorded} false when the device run has no texels for it (nothing compared).
     * {@code compared}: texels a host store wrote; {@code differing}: of those, beyond the tolerances;
     * {@code toleratedUlp}/{@code toleratedApproximate}: accepted by {@code --ulp}/{@code --approximate};
     * {@code deviceOnly}: texels the device changed that no host store wrote, inside the footprint.
     * {@code differingTexels}/{@code deviceOnlyTexels}: by texel index, for drawing. {@code regions} holds
     * at most {@link Diff#REGIONS_KEPT} of {@code regionCount}.
     */
    public record ImageDiff(int index, String name, boolean recorded, long texels, long compared, long differing,
                            long deviceOnly, long toleratedUlp, long toleratedApproximate, String footprint,
                            long regionCount, List<TexelRegion> regions, BitSet differingTexels,
                            BitSet deviceOnlyTexels, List<ElementValue> values) {
        public ImageDiff withValues(List<ElementValue> v) {
            return new ImageDiff(index, name, recorded, texels, compared, differing, deviceOnly, toleratedUlp,
                    toleratedApproximate, footprint, regionCount, regions, differingTexels, deviceOnlyTexels, List.copyOf(v));
        }

        public boolean equal() {
            return differing == 0 && deviceOnly == 0;
        }
    }

    /**
     * One memory range, as {@link ImageDiff} with bytes for texels: {@code compared}, {@code differing} and
     * {@code deviceOnly} count bytes; for a typed range ({@link RangeView}) the element counts say the same per
     * element ({@code elements} in all), the tolerances apply to float elements and {@code differing} counts
     * the differing bytes of elements beyond them. {@code name} is the parameter's name when the metadata has
     * it; {@code heatMap} whether a 2-D view's heat map was drawn.
     */
    public record RangeDiff(int index, String name, boolean recorded, long bytes, long compared, long differing,
                            long deviceOnly, long toleratedApproximate, String footprint, long regionCount,
                            List<ByteRun> regions, RangeView view, long elements, long comparedElements,
                            long differingElements, long deviceOnlyElements, long toleratedUlp, List<ElementValue> values,
                            BitSet differingElementSet, double[] distance) {
        public RangeDiff withValues(List<ElementValue> v) {
            return new RangeDiff(index, name, recorded, bytes, compared, differing, deviceOnly, toleratedApproximate,
                    footprint, regionCount, regions, view, elements, comparedElements, differingElements,
                    deviceOnlyElements, toleratedUlp, List.copyOf(v), differingElementSet, distance);
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

    /** Whether nothing compared differs. */
    public boolean equal() {
        return images.stream().allMatch(ImageDiff::equal) && ranges.stream().allMatch(RangeDiff::equal);
    }
}
