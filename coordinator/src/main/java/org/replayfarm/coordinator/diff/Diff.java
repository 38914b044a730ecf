package org.replayfarm.coordinator.diff;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.replayfarm.coordinator.diff.DiffResult.ByteRun;
import org.replayfarm.coordinator.diff.DiffResult.GroupTrace;
import org.replayfarm.coordinator.diff.DiffResult.ImageDiff;
import org.replayfarm.coordinator.diff.DiffResult.RangeDiff;
import org.replayfarm.coordinator.diff.DiffResult.TexelRegion;
import org.replayfarm.evalnode.eval.ImageMerge;
import org.replayfarm.evalnode.eval.MemoryMerge;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.NumericFormat;

/**
 * Compares the host's merged outputs with a device run (seed 001: stored images texel by texel, guest
 * memory as guest-&lt;n&gt;.bin).
 *
 * <p>Images: every texel a host store wrote is compared with the device's, channel by channel in the
 * image's format. A texel no host store wrote that the device changed (differs from the capture's
 * initial texel) is a device-only difference. With every group run, device-only texels count over the
 * whole image; with a group selection, only inside the selection's <em>footprint</em>: per mip level,
 * the bounding box (x, y, z and layer) of the texels the selected groups stored (no stores at a level:
 * no footprint there).
 *
 * <p>Memory: per range, every byte a host store or merged atomic wrote is compared with the device's
 * (atomics as their merged final values); bytes the device changed that the host did not write are
 * counted separately as device-only, over the whole range with every group, else inside the footprint
 * (from the lowest to the highest byte the selected groups wrote).
 *
 * <p>Differences are grouped into regions, connected texels (4-connectivity in one plane) and runs of
 * bytes, each traced to the groups that stored them with their approximate instruction counts.
 */
public final class Diff {
    /** Regions listed per image or range (all are counted). */
    public static final int REGIONS_KEPT = 100;

    private final MemoryMerge memory;
    private final ImageMerge images;
    private final DiffOptions options;

    private Diff(MemoryMerge memory, ImageMerge images, DiffOptions options) {
        this.memory = memory;
        this.images = images;
        this.options = options;
    }

    /** Compares every range and image; ones the device run did not record are listed as not recorded. */
    public static DiffResult compare(MemoryMerge memory, ImageMerge images, DeviceRun device, DiffOptions options) {
        Diff d = new Diff(memory, images, options);
        List<ImageDiff> imageDiffs = new ArrayList<>();
        for (InitialImages.Entry e : images.initial().images()) {
            imageDiffs.add(d.image(e, device.imageTexels(e.index())));
        }
        List<RangeDiff> rangeDiffs = new ArrayList<>();
        for (InitialMemory.Range r : memory.initial().ranges()) {
            rangeDiffs.add(d.range(r, device.rangeBytes(r.index())));
        }
        return new DiffResult(imageDiffs, rangeDiffs);
    }

    // ---- images ----

    private ImageDiff image(InitialImages.Entry e, byte[] device) {
        Image image = e.image();
        long count = e.texelCount();
        if (device == null) {
            return new ImageDiff(e.index(), image.getName(), false, count, 0, 0, 0, 0, 0, "not recorded", 0, List.of(),
                    new BitSet(), new BitSet());
        }
        byte[] host = images.texels(e.index());
        int[] storer = images.storers(e.index());
        byte[] initial = new byte[e.texels().remaining()];
        e.texels().duplicate().get(initial);
        int bpt = e.bytesPerTexel();
        ImageFormat format = new ImageFormat(image.getDataFormat(), image.getNumericFormat());
        Footprint footprint = options.everyGroup() ? null : Footprint.of(image, storer);
        BitSet differing = new BitSet();
        BitSet deviceOnly = new BitSet();
        long compared = 0;
        long ulpOk = 0;
        long approxOk = 0;
        for (int t = 0; t < count; t++) {
            int at = t * bpt;
            boolean same = Arrays.equals(host, at, at + bpt, device, at, at + bpt);
            if (storer[t] != 0) {
                compared++;
                if (same) {
                    continue;
                }
                if (options.ulp() > 0 && withinUlps(format, host, device, at)) {
                    ulpOk++;
                } else if (options.approximate() && memory.approximateExecuted(storer[t]) > 0
                        && withinLastPlace(format, host, device, at)) {
                    approxOk++;
                } else {
                    differing.set(t);
                }
            } else if (!Arrays.equals(initial, at, at + bpt, device, at, at + bpt)
                    && (footprint == null || footprint.contains(t))) {
                deviceOnly.set(t);
            }
        }
        List<TexelRegion> regions = new ArrayList<>();
        long regionCount = texelRegions(e, storer, differing, deviceOnly, regions);
        return new ImageDiff(e.index(), image.getName(), true, count, compared, differing.cardinality(),
                deviceOnly.cardinality(), ulpOk, approxOk, footprint == null ? "whole image" : footprint.toString(),
                regionCount, regions, differing, deviceOnly);
    }

    private boolean withinUlps(ImageFormat format, byte[] host, byte[] device, int at) {
        long[] a = TexelCodec.unpack(format, host, at);
        long[] b = TexelCodec.unpack(format, device, at);
        int[] bits = format.channelBits();
        boolean floats = format.numeric() == NumericFormat.NUM_FLOAT;
        for (int c = 0; c < a.length; c++) {
            if (a[c] != b[c] && !(floats && ulps(bits[c], a[c], b[c]) <= options.ulp())) {
                return false;
            }
        }
        return true;
    }

    /**
     * What an approximate instruction can explain: every channel at most one unit in its last place apart
     * (one ulp of a float channel, or {@code --ulp} if larger; one step of an integer or normalised
     * channel), never an infinity or NaN against another value. A texel further off is a difference
     * even if its group executed approximate instructions (a wrong BVH hit is not a rounding).
     */
    private boolean withinLastPlace(ImageFormat format, byte[] host, byte[] device, int at) {
        long[] a = TexelCodec.unpack(format, host, at);
        long[] b = TexelCodec.unpack(format, device, at);
        int[] bits = format.channelBits();
        boolean floats = format.numeric() == NumericFormat.NUM_FLOAT;
        for (int c = 0; c < a.length; c++) {
            long apart = floats ? ulps(bits[c], a[c], b[c]) : Math.abs(a[c] - b[c]);
            if (apart > Math.max(1, floats ? options.ulp() : 1)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Distance in units in the last place between two float channel values of {@code width} bits: their
     * positions in the ordered sequence of representable values (16- and 32-bit floats are sign-magnitude;
     * 10- and 11-bit floats have no sign). Values equal as numbers (+0 and -0) are 0 apart.
     */
    static long ulps(int width, long a, long b) {
        if (a != b && (special(width, a) || special(width, b))) {
            return Long.MAX_VALUE; // an infinity or NaN is no number of ulps from anything but itself
        }
        return Math.abs(ordered(width, a) - ordered(width, b));
    }

    /** Whether the bits are an infinity or a NaN (exponent all ones) in a float of {@code width} bits. */
    static boolean special(int width, long bits) {
        long exponent = switch (width) {
            case 32 -> 0x7F80_0000L;
            case 16 -> 0x7C00L;
            case 11 -> 0x7C0L;
            case 10 -> 0x3E0L;
            default -> 0;
        };
        return exponent != 0 && (bits & exponent) == exponent;
    }

    private static long ordered(int width, long bits) {
        if (width == 10 || width == 11) {
            return bits;
        }
        long sign = 1L << (width - 1);
        long magnitude = bits & (sign - 1);
        return (bits & sign) != 0 ? -magnitude : magnitude;
    }

    /** Finds the 4-connected regions of differing or device-only texels, plane by plane; returns how many. */
    private long texelRegions(InitialImages.Entry e, int[] storer, BitSet differing, BitSet deviceOnly,
                              List<TexelRegion> out) {
        BitSet bad = (BitSet) differing.clone();
        bad.or(deviceOnly);
        Image image = e.image();
        long regions = 0;
        int[] queue = new int[1024]; // grows with the largest region, never to the plane's size up front
        for (int t = bad.nextSetBit(0); t >= 0; t = bad.nextSetBit(t + 1)) {
            TexelLayout.Texel first = TexelLayout.texelAt(image, t);
            int w = (int) TexelLayout.mipExtent(Integer.toUnsignedLong(image.getWidth()), first.mip());
            int h = (int) TexelLayout.mipExtent(Integer.toUnsignedLong(image.getHeight()), first.mip());
            int planeStart = t - (first.y() * w + first.x());
            // flood fill inside this plane; visited texels leave "bad"
            int head = 0;
            int tail = 0;
            queue[tail++] = t - planeStart;
            bad.clear(t);
            int x0 = first.x();
            int x1 = first.x();
            int y0 = first.y();
            int y1 = first.y();
            long texels = 0;
            long diff = 0;
            long only = 0;
            Map<Integer, Long> byGroup = new TreeMap<>();
            while (head < tail) {
                int p = queue[head++];
                int x = p % w;
                int y = p / w;
                int index = planeStart + p;
                texels++;
                if (differing.get(index)) {
                    diff++;
                } else {
                    only++;
                }
                if (storer[index] != 0) {
                    byGroup.merge(storer[index], 1L, Long::sum);
                }
                x0 = Math.min(x0, x);
                x1 = Math.max(x1, x);
                y0 = Math.min(y0, y);
                y1 = Math.max(y1, y);
                for (int k = 0; k < 4; k++) {
                    int nx = x + (k == 0 ? -1 : k == 1 ? 1 : 0);
                    int ny = y + (k == 2 ? -1 : k == 3 ? 1 : 0);
                    if (nx >= 0 && nx < w && ny >= 0 && ny < h && bad.get(planeStart + ny * w + nx)) {
                        bad.clear(planeStart + ny * w + nx);
                        if (tail == queue.length) {
                            queue = Arrays.copyOf(queue, queue.length * 2);
                        }
                        queue[tail++] = ny * w + nx;
                    }
                }
            }
            regions++;
            if (out.size() < REGIONS_KEPT) {
                out.add(new TexelRegion(e.index(), first.mip(), first.layer(), first.z(), x0, y0, x1, y1, texels, diff,
                        only, traces(byGroup)));
            }
        }
        return regions;
    }

    private List<GroupTrace> traces(Map<Integer, Long> byGroup) {
        List<GroupTrace> list = new ArrayList<>();
        byGroup.forEach((key, units) -> list.add(new GroupTrace(memory.groupName(key), units,
                memory.approximateExecuted(key))));
        return list;
    }

    /** Per mip level, the bounding box of the texels the selected groups stored. */
    private record Footprint(Image image, long[][] boxes) {
        static Footprint of(Image image, int[] storer) {
            int mips = image.getMipLevels();
            long[][] boxes = new long[mips][];
            for (int t = 0; t < storer.length; t++) {
                if (storer[t] == 0) {
                    continue;
                }
                TexelLayout.Texel at = TexelLayout.texelAt(image, t);
                long[] b = boxes[at.mip()];
                if (b == null) {
                    boxes[at.mip()] = new long[] {at.x(), at.x(), at.y(), at.y(), at.z(), at.z(), at.layer(), at.layer()};
                } else {
                    b[0] = Math.min(b[0], at.x());
                    b[1] = Math.max(b[1], at.x());
                    b[2] = Math.min(b[2], at.y());
                    b[3] = Math.max(b[3], at.y());
                    b[4] = Math.min(b[4], at.z());
                    b[5] = Math.max(b[5], at.z());
                    b[6] = Math.min(b[6], at.layer());
                    b[7] = Math.max(b[7], at.layer());
                }
            }
            return new Footprint(image, boxes);
        }

        boolean contains(long texel) {
            TexelLayout.Texel at = TexelLayout.texelAt(image, texel);
            long[] b = boxes[at.mip()];
            return b != null && at.x() >= b[0] && at.x() <= b[1] && at.y() >= b[2] && at.y() <= b[3]
                    && at.z() >= b[4] && at.z() <= b[5] && at.layer() >= b[6] && at.layer() <= b[7];
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            for (int m = 0; m < boxes.length; m++) {
                long[] b = boxes[m];
                if (b == null) {
                    continue;
                }
                if (s.length() > 0) {
                    s.append("; ");
                }
                s.append("mip ").append(m).append(": x ").append(b[0]).append("..").append(b[1]).append(", y ")
                        .append(b[2]).append("..").append(b[3]);
                if (image.getType() == ImageType.IMAGE_3D) {
                    s.append(", z ").append(b[4]).append("..").append(b[5]);
                }
                if (image.getLayers() > 1) {
                    s.append(", layer ").append(b[6]).append("..").append(b[7]);
                }
            }
            return s.length() == 0 ? "empty (the selected groups stored no texel)" : s.toString();
        }
    }

    // ---- memory ----

    private RangeDiff range(InitialMemory.Range r, byte[] device) {
        if (device == null) {
            return new RangeDiff(r.index(), r.name(), false, r.size(), 0, 0, 0, 0, "not recorded", 0, List.of());
        }
        byte[] host = memory.range(r.index());
        int[] storer = memory.storers(r.index());
        ByteBuffer initial = r.initial().duplicate();
        int base = initial.position();
        long lo = 0;
        long hi = host.length - 1L;
        if (!options.everyGroup()) {
            lo = -1;
            hi = -2;
            for (int i = 0; i < storer.length; i++) {
                if (storer[i] != 0) {
                    if (lo < 0) {
                        lo = i;
                    }
                    hi = i;
                }
            }
        }
        long compared = 0;
        long approxOk = 0;
        BitSet differing = new BitSet();
        BitSet deviceOnly = new BitSet();
        for (int i = 0; i < host.length; i++) {
            if (storer[i] != 0) {
                compared++;
                if (host[i] != device[i]) {
                    differing.set(i); // bytes carry no type: no tolerance explains a differing byte
                }
            } else if (device[i] != initial.get(base + i) && i >= lo && i <= hi) {
                deviceOnly.set(i);
            }
        }
        BitSet bad = (BitSet) differing.clone();
        bad.or(deviceOnly);
        List<ByteRun> runs = new ArrayList<>();
        long count = 0;
        for (int start = bad.nextSetBit(0); start >= 0; start = bad.nextSetBit(start)) {
            int end = bad.nextClearBit(start);
            count++;
            if (runs.size() < REGIONS_KEPT) {
                Map<Integer, Long> byGroup = new TreeMap<>();
                for (int i = start; i < end; i++) {
                    if (storer[i] != 0) {
                        byGroup.merge(storer[i], 1L, Long::sum);
                    }
                }
                long diff = differing.get(start, end).cardinality();
                runs.add(new ByteRun(r.index(), start, end - start, diff, end - start - diff, traces(byGroup)));
            }
            start = end;
        }
        String footprint = options.everyGroup() ? "whole range"
                : lo < 0 ? "empty (the selected groups wrote no byte)" : "bytes " + lo + ".." + hi;
        return new RangeDiff(r.index(), r.name(), true, r.size(), compared, differing.cardinality(),
                deviceOnly.cardinality(), approxOk, footprint, count, runs);
    }
}
