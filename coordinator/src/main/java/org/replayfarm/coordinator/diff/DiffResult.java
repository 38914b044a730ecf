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

    /** A run of consecutive differing or device-only bytes of range n, and the groups that stored them. */
    public record ByteRun(int range, long offset, long length, long differing, long deviceOnly, List<GroupTrace> groups) {
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
                            BitSet deviceOnlyTexels) {
        public boolean equal() {
            return differing == 0 && deviceOnly == 0;
        }
    }

    /** One memory range, as {@link ImageDiff} with bytes for texels. */
    public record RangeDiff(int index, String name, boolean recorded, long bytes, long compared, long differing,
                            long deviceOnly, long toleratedApproximate, String footprint, long regionCount,
                            List<ByteRun> regions) {
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
