package org.replayfarm.coordinator.report;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.replayfarm.coordinator.report.DiffResult.ByteRun;
import org.replayfarm.coordinator.report.DiffResult.GroupTrace;
import org.replayfarm.coordinator.report.DiffResult.ImageDiff;
import org.replayfarm.coordinator.report.DiffResult.RangeDiff;
import org.replayfarm.coordinator.report.DiffResult.TexelRegion;
import org.replayfarm.evalnode.eval.ImageMerge;
import org.replayfarm.evalnode.eval.MemoryMerge;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.model.compare.Ulps;
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
    /** The tolerances {@code image:K} views give each image (by index). */
    private final List<Tolerance.Override> imageTolerances;

    /** What the last storers of differing float elements store with denormals kept (null: not asked). */
    private final FloatModeCheck.Alternate floatMode;

    private Diff(MemoryMerge memory, ImageMerge images, DiffOptions options, FloatModeCheck.Alternate floatMode) {
        this.memory = memory;
        this.images = images;
        this.options = options;
        this.imageTolerances = RangeViews.images(images.initial(), options.views());
        this.floatMode = floatMode;
    }

    /** Compares every range and image with untyped ranges and the {@code --view}s alone (no kernel metadata). */
    public static DiffResult compare(MemoryMerge memory, ImageMerge images, DeviceRun device, DiffOptions options) {
        return compare(memory, images, device, options, RangeViews.of(memory.initial(), "", options.views()));
    }

    /**
     * Compares every range and image; ones the device run did not record are listed as not recorded. A range
     * is compared as its view says ({@link RangeViews}): typed ranges element by element, the rest byte by byte.
     */
    public static DiffResult compare(MemoryMerge memory, ImageMerge images, DeviceRun device, DiffOptions options,
                                     List<RangeView> views) {
        return compare(memory, images, device, options, views, null);
    }

    /**
     * As above; a float element whose bytes {@code floatMode} (not null) has as the device's is counted as differing
     * only by the float mode ({@link FloatModeCheck}).
     */
    static DiffResult compare(MemoryMerge memory, ImageMerge images, DeviceRun device, DiffOptions options,
                              List<RangeView> views, FloatModeCheck.Alternate floatMode) {
        Diff d = new Diff(memory, images, options, floatMode);
        List<ImageDiff> imageDiffs = new ArrayList<>();
        for (InitialImages.Entry e : images.initial().images()) {
            imageDiffs.add(d.image(e, device.imageTexels(e.index())));
        }
        List<RangeDiff> rangeDiffs = new ArrayList<>();
        for (InitialMemory.Range r : memory.initial().ranges()) {
            rangeDiffs.add(d.range(r, device.rangeBytes(r.index()), views.get(r.index())));
        }
        return new DiffResult(imageDiffs, rangeDiffs);
    }

    // ---- images ----

    private ImageDiff image(InitialImages.Entry e, byte[] device) {
        Image image = e.image();
        long count = e.texelCount();
        Tolerance.Override own = imageTolerances.get(e.index());
        boolean floating = image.getNumericFormat() == NumericFormat.NUM_FLOAT;
        Tolerance tolerance = floating ? own.over(options.tolerance()) : Tolerance.EXACT;
        if (device == null) {
            return new ImageDiff(e.index(), image.getName(), false, count, 0, 0, 0, DiffResult.Tolerated.NONE,
                    "not recorded", 0, List.of(), new BitSet(), new BitSet(), List.of(), floating, tolerance, !own.none(),
                    DiffResult.Spread.NONE);
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
        long[] byRule = new long[Tolerance.Rule.values().length];
        long approxOk = 0;
        DiffResult.Spread spread = DiffResult.Spread.NONE;
        for (int t = 0; t < count; t++) {
            int at = t * bpt;
            boolean same = Arrays.equals(host, at, at + bpt, device, at, at + bpt);
            if (storer[t] != 0) {
                compared++;
                if (same) {
                    continue;
                }
                Tolerance.Rule rule = texelRule(format, host, device, at, tolerance);
                if (rule != Tolerance.Rule.NONE) {
                    byRule[rule.ordinal()]++;
                    continue;
                }
                boolean approximate = texelWriters(e.index(), t, storer).stream()
                        .anyMatch(k -> memory.approximateExecuted(k) > 0);
                if (options.approximate() && approximate
                        && withinLastPlace(format, host, device, at, tolerance.ulp())) {
                    approxOk++;
                } else {
                    differing.set(t);
                    spread = texelSpread(spread, format, host, device, at, approximate);
                }
            } else if (!Arrays.equals(initial, at, at + bpt, device, at, at + bpt)
                    && (footprint == null || footprint.contains(t))) {
                deviceOnly.set(t);
            }
        }
        List<TexelRegion> regions = new ArrayList<>();
        long regionCount = texelRegions(e, storer, differing, deviceOnly, regions);
        List<DiffResult.ElementValue> values = new ArrayList<>();
        BitSet bad = (BitSet) differing.clone();
        bad.or(deviceOnly);
        for (int t = bad.nextSetBit(0); t >= 0 && values.size() < options.values(); t = bad.nextSetBit(t + 1)) {
            values.add(texelValue(e, format, host, device, t, differing.get(t), storer));
        }
        DiffResult.Tolerated tolerated = new DiffResult.Tolerated(byRule[Tolerance.Rule.ULP.ordinal()],
                byRule[Tolerance.Rule.ABS.ordinal()], byRule[Tolerance.Rule.REL.ordinal()], approxOk);
        return new ImageDiff(e.index(), image.getName(), true, count, compared, differing.cardinality(),
                deviceOnly.cardinality(), tolerated, footprint == null ? "whole image" : footprint.toString(),
                regionCount, regions, differing, deviceOnly, values, floating, tolerance, !own.none(), spread);
    }

    /**
     * Which rule accepts a differing texel (the last any channel needs, {@link Tolerance.Rule#NONE} when one is
     * beyond them all): float channels by the tolerance, every other channel only when equal.
     */
    private static Tolerance.Rule texelRule(ImageFormat format, byte[] host, byte[] device, int at, Tolerance tolerance) {
        long[] a = TexelCodec.unpack(format, host, at);
        long[] b = TexelCodec.unpack(format, device, at);
        int[] bits = format.channelBits();
        boolean floats = format.numeric() == NumericFormat.NUM_FLOAT;
        Tolerance.Rule rule = Tolerance.Rule.EXACT;
        for (int c = 0; c < a.length; c++) {
            if (a[c] == b[c]) {
                continue;
            }
            if (!floats) {
                return Tolerance.Rule.NONE;
            }
            rule = rule.and(tolerance.accepts(a[c], b[c], channelValue(bits[c], a[c]), channelValue(bits[c], b[c]),
                    Ulps.between(bits[c], a[c], b[c])));
        }
        if (rule == Tolerance.Rule.EXACT) {
            // the texel's bytes differ where no channel lies: accepted by any tolerance in force, as 0 apart
            return tolerance.exact() ? Tolerance.Rule.NONE : tolerance.accepts(0, 1, 0, 0, 0);
        }
        return rule;
    }

    /** A differing texel added to an image's spread ({@link DiffResult.Spread}). */
    private static DiffResult.Spread texelSpread(DiffResult.Spread spread, ImageFormat format, byte[] host,
                                                 byte[] device, int at, boolean approximate) {
        long[] a = TexelCodec.unpack(format, host, at);
        long[] b = TexelCodec.unpack(format, device, at);
        int[] bits = format.channelBits();
        boolean floats = format.numeric() == NumericFormat.NUM_FLOAT;
        Distance d = floats ? Distance.NONE : Distance.BEYOND; // no tolerance takes another channel's difference
        for (int c = 0; c < a.length; c++) {
            if (a[c] != b[c]) {
                d = floats ? d.and(channelValue(bits[c], a[c]), channelValue(bits[c], b[c]), Ulps.between(bits[c], a[c], b[c]))
                        : Distance.BEYOND;
            }
        }
        return spread.and(d.number, approximate, d.ulps, d.abs, d.rel);
    }

    /** A float channel's value of {@code width} bits (32, 16, 11 or 10). */
    static double channelValue(int width, long raw) {
        return switch (width) {
            case 32 -> Float.intBitsToFloat((int) raw);
            case 16 -> Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits((int) raw));
            case 64 -> Double.longBitsToDouble(raw);
            default -> TexelCodec.fromSmallFloat((int) raw, width - 5);
        };
    }

    /**
     * The distance of the differing float components of one element or texel: whether all are numbers (or a NaN
     * against a NaN: no distance), and their largest ulps, absolute and relative differences.
     */
    record Distance(boolean number, long ulps, double abs, double rel) {
        static final Distance NONE = new Distance(true, 0, 0, 0);
        static final Distance BEYOND = new Distance(false, 0, 0, 0);

        Distance and(double x, double y, long u) {
            if (!number) {
                return this;
            }
            if (Double.isNaN(x) && Double.isNaN(y)) {
                return this;
            }
            if (Double.isNaN(x) || Double.isNaN(y) || Double.isInfinite(x) || Double.isInfinite(y)
                    || Double.isInfinite(x - y)) {
                return BEYOND;
            }
            double d = Math.abs(x - y);
            double m = Math.max(Math.abs(x), Math.abs(y));
            return new Distance(true, Math.max(ulps, u), Math.max(abs, d), Math.max(rel, m == 0 ? 0 : d / m));
        }
    }

    /** A differing texel's channels: the host's and the device's bits and values, and their ulps (floats) or steps. */
    private DiffResult.ElementValue texelValue(InitialImages.Entry e, ImageFormat format, byte[] host, byte[] device,
                                               int t, boolean differs, int[] storers) {
        int at = t * e.bytesPerTexel();
        long[] a = TexelCodec.unpack(format, host, at);
        long[] b = TexelCodec.unpack(format, device, at);
        int[] bits = format.channelBits();
        boolean floats = format.numeric() == NumericFormat.NUM_FLOAT;
        List<String> hv = new ArrayList<>();
        List<String> dv = new ArrayList<>();
        List<String> hb = new ArrayList<>();
        List<String> db = new ArrayList<>();
        List<Long> u = new ArrayList<>();
        for (int c = 0; c < a.length; c++) {
            hv.add(channelText(format, bits[c], a[c]));
            dv.add(channelText(format, bits[c], b[c]));
            String f = "0x%0" + ((bits[c] + 3) / 4) + "x";
            hb.add(String.format(f, a[c]));
            db.add(String.format(f, b[c]));
            u.add(floats ? Ulps.between(bits[c], a[c], b[c]) : Math.abs(a[c] - b[c]));
        }
        TexelLayout.Texel p = TexelLayout.texelAt(e.image(), t);
        String where = "texel (" + p.x() + ", " + p.y() + ")" + (p.mip() > 0 ? " mip " + p.mip() : "")
                + (p.layer() > 0 ? " layer " + p.layer() : "") + (p.z() > 0 ? " z " + p.z() : "");
        return new DiffResult.ElementValue(t, p.y(), p.x(), where, differs ? "differing" : "device-only", hv, dv, hb, db,
                u, floats ? "ulp" : "step", texelWriters(e.index(), t, storers).stream().map(memory::groupName).toList(),
                List.of());
    }

    /**
     * A texel's channels as {@code replay explain} prints them: each channel's value and its bits, e.g.
     * {@code 0.501961 (0x80), 0 (0x00)}; {@code at} is the texel's byte offset in {@code texels}.
     */
    public static String texelText(ImageFormat format, byte[] texels, int at) {
        long[] raw = TexelCodec.unpack(format, texels, at);
        int[] bits = format.channelBits();
        List<String> parts = new ArrayList<>();
        for (int c = 0; c < raw.length; c++) {
            parts.add(channelText(format, bits[c], raw[c]) + " (" + String.format("0x%0" + ((bits[c] + 3) / 4) + "x", raw[c])
                    + ")");
        }
        return String.join(", ", parts);
    }

    static String channelText(ImageFormat format, int width, long raw) {
        return switch (format.numeric()) {
            case NUM_FLOAT -> width == 32 ? Float.toString(Float.intBitsToFloat((int) raw))
                    : width == 16 ? Float.toString(Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits((int) raw)))
                    : Float.toString(TexelCodec.fromSmallFloat((int) raw, width - 5));
            case NUM_UNORM, NUM_SRGB -> String.format(java.util.Locale.ROOT, "%.6g", raw / (double) ((1L << width) - 1));
            case NUM_SINT, NUM_SSCALED, NUM_SNORM -> Long.toString(raw << (64 - width) >> (64 - width));
            default -> Long.toString(raw);
        };
    }

    /**
     * What an approximate instruction can explain: every channel at most one unit in its last place apart
     * (one ulp of a float channel, or {@code --ulp} if larger; one step of an integer or normalised
     * channel), never an infinity or NaN against another value. A texel further off is a difference
     * even if its group executed approximate instructions (a wrong BVH hit is not a rounding).
     */
    private static boolean withinLastPlace(ImageFormat format, byte[] host, byte[] device, int at, int ulp) {
        long[] a = TexelCodec.unpack(format, host, at);
        long[] b = TexelCodec.unpack(format, device, at);
        int[] bits = format.channelBits();
        boolean floats = format.numeric() == NumericFormat.NUM_FLOAT;
        for (int c = 0; c < a.length; c++) {
            long apart = floats ? Ulps.between(bits[c], a[c], b[c]) : Math.abs(a[c] - b[c]);
            if (apart > Math.max(1, floats ? ulp : 1)) {
                return false;
            }
        }
        return true;
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
                for (int key : texelWriters(e.index(), index, storer)) {
                    byGroup.merge(key, 1L, Long::sum);
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

    private RangeDiff range(InitialMemory.Range r, byte[] device, RangeView view) {
        String name = view.displayName();
        boolean floatingView = view.typed() && view.type().floating();
        Tolerance tolerance = floatingView ? view.tolerance().over(options.tolerance()) : Tolerance.EXACT;
        if (device == null) {
            return new RangeDiff(r.index(), name, false, r.size(), 0, 0, 0, "not recorded", 0, List.of(), view, 0, 0, 0,
                    0, DiffResult.Tolerated.NONE, List.of(), new BitSet(), null, tolerance, DiffResult.Spread.NONE);
        }
        byte[] host = memory.range(r.index());
        int[] storer = memory.storers(r.index());
        byte[] initial = new byte[host.length];
        r.initial().duplicate().get(initial);
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
        // an untyped range is a range of u8 elements compared exactly
        ElementType type = view.typed() ? view.type() : new ElementType(ElementType.Scalar.U8, 1);
        int eb = type.bytes();
        int elements = host.length / eb;
        boolean floating = view.typed() && type.floating();
        long compared = 0;
        long comparedElements = 0;
        long[] byRule = new long[Tolerance.Rule.values().length];
        long approxOk = 0;
        long reassociated = 0;
        long floatModeOk = 0;
        DiffResult.Ordered ordered = DiffResult.Ordered.NONE;
        DiffResult.Spread spread = DiffResult.Spread.NONE;
        BitSet differing = new BitSet();   // bytes
        BitSet deviceOnly = new BitSet();  // bytes
        BitSet badElements = new BitSet();
        BitSet differingElements = new BitSet();
        double[] distance = view.shaped() ? new double[view.rows() * view.cols()] : null;
        if (distance != null) {
            Arrays.fill(distance, Double.NaN);
        }
        for (int e = 0; e <= elements; e++) {
            int at = e * eb;
            int end = e == elements ? host.length : at + eb; // the tail after the last whole element: bytes
            if (at >= end) {
                break;
            }
            boolean tail = e == elements;
            int stored = 0;
            int storedBy = 0;
            for (int i = at; i < end; i++) {
                if (storer[i] != 0) {
                    stored++;
                    storedBy = storer[i];
                }
            }
            compared += stored;
            boolean same = Arrays.equals(host, at, end, device, at, end);
            MemoryMerge.OrderDependent od = stored > 0 && !tail && memory.hasOrderDependent(r.index())
                    ? memory.orderDependentAt(r.index(), at) : null;
            if (od != null && od.offset() == at) {
                // a location the groups' order decides, compared whole: equal, or as another order of a float sum
                int w = od.bytes();
                boolean asFloat = (w == 4 || w == 8) && at + w <= host.length
                        && (!view.typed() || (floating && eb == w && type.components() == 1));
                boolean whole = Arrays.equals(host, at, at + Math.min(w, host.length - at), device, at,
                        at + Math.min(w, host.length - at));
                double bound = asFloat ? od.reassociationBound(w) : Double.NaN;
                if (whole) {
                    ordered = ordered.with(1, 0, 0, bound, Double.NaN, od.op(), od.groups().size(), od.changes());
                } else {
                    double h = asFloat ? floatAt(host, at, w) : Double.NaN;
                    double v = asFloat ? floatAt(device, at, w) : Double.NaN;
                    double apartBy = Math.abs(h - v);
                    boolean exchanged = w <= 8 && at + w <= host.length && od.anotherOrderGives(MemoryOps.littleEndian(device, at, w));
                    if (exchanged) {
                        // every contribution an exchange: the device kept another group's value, as another order does
                        ordered = ordered.with(0, 0, 0, Double.NaN, Double.NaN, od.op(), od.groups().size(), od.changes())
                                .plusExchanged();
                        reassociated++;
                        comparedElements += Math.max(1, w / eb);
                        for (int i = at + eb; i < at + w; i++) {
                            compared += storer[i] != 0 ? 1 : 0;
                        }
                        e += Math.max(1, w / eb) - 1;
                        continue;
                    }
                    if (asFloat && Double.isFinite(h) && Double.isFinite(v) && apartBy <= bound) {
                        ordered = ordered.with(0, 1, 0, bound, apartBy, od.op(), od.groups().size(), od.changes());
                        reassociated++;
                        comparedElements += Math.max(1, w / eb);
                        for (int i = at + eb; i < at + w; i++) {
                            compared += storer[i] != 0 ? 1 : 0; // the bytes of the location's other elements
                        }
                        e += Math.max(1, w / eb) - 1; // the location's other elements are taken with it
                        continue;
                    }
                    ordered = ordered.with(0, 0, 1, bound, apartBy, od.op(), od.groups().size(), od.changes());
                }
            }
            if (stored > 0) {
                comparedElements += tail ? 0 : 1;
                if (distance != null && e < distance.length) {
                    distance[e] = 0;
                }
                if (same) {
                    continue;
                }
                long worst = 0;
                boolean integerDiffers = false;
                Tolerance.Rule rule = Tolerance.Rule.EXACT;
                Distance apart = Distance.NONE;
                if (!tail) {
                    for (int c = 0; c < type.components(); c++) {
                        long a = type.bits(host, at, c);
                        long b = type.bits(device, at, c);
                        long d = type.ulps(a, b);
                        if (floating) {
                            worst = Math.max(worst, d);
                            if (a != b) {
                                double x = type.toDouble(a);
                                double y = type.toDouble(b);
                                rule = rule.and(tolerance.accepts(a, b, x, y, d));
                                apart = apart.and(x, y, d);
                            }
                        } else if (d != 0) {
                            integerDiffers = true;
                        }
                    }
                }
                if (distance != null && e < distance.length) {
                    distance[e] = floating ? (worst == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : worst) : 1;
                }
                if (!tail && floating && !integerDiffers && rule == Tolerance.Rule.EXACT && !tolerance.exact()) {
                    // the components are equal, the padding of a 3-vector is not: 0 apart, as any tolerance takes it
                    rule = tolerance.accepts(0, 1, 0, 0, 0);
                }
                if (!tail && floating && !integerDiffers && rule != Tolerance.Rule.NONE && rule != Tolerance.Rule.EXACT) {
                    byRule[rule.ordinal()]++;
                    continue;
                }
                boolean approximate = approximateStorer(r.index(), at, end, storer);
                if (!tail && floating && !integerDiffers && options.approximate() && worst <= Math.max(1, tolerance.ulp())
                        && approximate) {
                    approxOk++;
                    continue;
                }
                if (!tail && floatMode != null && floatMode.matches(r.index(), at, end, device)) {
                    floatModeOk++; // the device's value is the program's with denormals kept
                    continue;
                }
                spread = spread.and(!tail && floating && !integerDiffers && apart.number(), approximate, apart.ulps(),
                        apart.abs(), apart.rel());
                for (int i = at; i < end; i++) {
                    if (host[i] != device[i] && storer[i] != 0) {
                        differing.set(i);
                    }
                }
                // bytes of a differing element no host store wrote but the device changed are device-only
                for (int i = at; i < end; i++) {
                    if (storer[i] == 0 && device[i] != initial[i] && !differing.get(i)) {
                        deviceOnly.set(i);
                    }
                }
                if (!tail) {
                    badElements.set(e);
                    differingElements.set(e);
                }
            } else if (!same || !Arrays.equals(device, at, end, initial, at, end)) {
                boolean changed = false;
                for (int i = at; i < end; i++) {
                    if (device[i] != initial[i] && i >= lo && i <= hi) {
                        deviceOnly.set(i);
                        changed = true;
                    }
                }
                if (changed && !tail) {
                    badElements.set(e);
                    if (distance != null && e < distance.length) {
                        distance[e] = Double.POSITIVE_INFINITY;
                    }
                }
            }
        }
        BitSet bad = (BitSet) differing.clone();
        bad.or(deviceOnly);
        if (view.typed()) {
            // a typed range's runs cover whole elements
            for (int e = badElements.nextSetBit(0); e >= 0; e = badElements.nextSetBit(e + 1)) {
                bad.set(e * eb, (e + 1) * eb);
            }
        }
        List<ByteRun> runs = new ArrayList<>();
        long count = 0;
        for (int start = bad.nextSetBit(0); start >= 0; start = bad.nextSetBit(start)) {
            int end = bad.nextClearBit(start);
            count++;
            if (runs.size() < REGIONS_KEPT) {
                Map<Integer, Long> byGroup = new TreeMap<>();
                for (int i = start; i < end; i++) {
                    for (int key : writers(r.index(), i, storer)) {
                        byGroup.merge(key, 1L, Long::sum);
                    }
                }
                long diff = differing.get(start, end).cardinality();
                long only = deviceOnly.get(start, end).cardinality();
                long first = view.typed() ? start / eb : -1;
                long last = view.typed() ? (end - 1) / eb : -1;
                runs.add(new ByteRun(r.index(), start, end - start, diff, only, traces(byGroup), first, last));
            }
            start = end;
        }
        bad = (BitSet) differing.clone();
        bad.or(deviceOnly);
        List<DiffResult.ElementValue> values = new ArrayList<>();
        if (view.typed()) {
            for (int e = badElements.nextSetBit(0); e >= 0 && values.size() < options.values(); e = badElements.nextSetBit(e + 1)) {
                values.add(elementValue(r.index(), view, type, host, device, e, differingElements.get(e), storer));
            }
        } else {
            for (int i = bad.nextSetBit(0); i >= 0 && values.size() < options.values(); i = bad.nextSetBit(i + 1)) {
                values.add(elementValue(r.index(), view, type, host, device, i, differing.get(i), storer));
            }
        }
        String footprint = options.everyGroup() ? "whole range"
                : lo < 0 ? "empty (the selected groups wrote no byte)" : "bytes " + lo + ".." + hi;
        long deviceOnlyElements = view.typed() ? badElements.cardinality() - differingElements.cardinality() : deviceOnly.cardinality();
        DiffResult.Tolerated tolerated = new DiffResult.Tolerated(byRule[Tolerance.Rule.ULP.ordinal()],
                byRule[Tolerance.Rule.ABS.ordinal()], byRule[Tolerance.Rule.REL.ordinal()], approxOk, reassociated, floatModeOk);
        return new RangeDiff(r.index(), name, true, r.size(), compared, differing.cardinality(), deviceOnly.cardinality(),
                footprint, count, runs, view, view.typed() ? elements : host.length,
                view.typed() ? comparedElements : compared, view.typed() ? differingElements.cardinality()
                        : differing.cardinality(), deviceOnlyElements, tolerated, values,
                view.typed() ? differingElements : differing, distance, tolerance, spread, ordered);
    }

    /** The little-endian float of {@code width} bytes (4 or 8) at {@code at}. */
    private static double floatAt(byte[] b, int at, int width) {
        long bits = MemoryOps.littleEndian(b, at, width);
        return width == 8 ? Double.longBitsToDouble(bits) : Float.intBitsToFloat((int) bits);
    }

    /** The groups that wrote texel t: every contributor of its merged atomics, else its last storer. */
    private List<Integer> texelWriters(int image, int t, int[] storer) {
        List<Integer> atomic = images.atomicContributors(image, t);
        if (!atomic.isEmpty()) {
            return atomic;
        }
        return storer[t] == 0 ? List.of() : List.of(storer[t]);
    }

    /** Whether a group that wrote any of the bytes (a store's last writer, or any atomic contributor) ran approximate instructions. */
    private boolean approximateStorer(int range, int at, int end, int[] storer) {
        for (int i = at; i < end; i++) {
            for (int key : writers(range, i, storer)) {
                if (memory.approximateExecuted(key) > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The groups that wrote byte i: every contributor of a merged atomic covering it, else its last storer. */
    private List<Integer> writers(int range, int i, int[] storer) {
        List<Integer> atomic = memory.atomicContributors(range, i);
        if (!atomic.isEmpty()) {
            return atomic;
        }
        return storer[i] == 0 ? List.of() : List.of(storer[i]);
    }

    private DiffResult.ElementValue elementValue(int range, RangeView view, ElementType type, byte[] host, byte[] device,
                                                 int e, boolean differs, int[] storer) {
        int at = e * type.bytes();
        List<String> hv = new ArrayList<>();
        List<String> dv = new ArrayList<>();
        List<String> hb = new ArrayList<>();
        List<String> db = new ArrayList<>();
        List<Long> u = new ArrayList<>();
        for (int c = 0; c < type.components(); c++) {
            long a = type.bits(host, at, c);
            long b = type.bits(device, at, c);
            hv.add(type.value(a));
            dv.add(type.value(b));
            hb.add(type.hex(a));
            db.add(type.hex(b));
            u.add(type.ulps(a, b));
        }
        long row = view.shaped() ? e / view.cols() : -1;
        long col = view.shaped() ? e % view.cols() : -1;
        String where = (view.typed() ? "element " + e : "byte " + e) + (view.shaped() ? " [" + row + "][" + col + "]" : "")
                + " (bytes " + at + ".." + (at + type.bytes() - 1) + ")";
        java.util.Set<Integer> keys = new java.util.TreeSet<>();
        for (int i = at; i < at + type.bytes(); i++) {
            keys.addAll(writers(range, i, storer));
        }
        return new DiffResult.ElementValue(e, row, col, where, differs ? "differing" : "device-only", hv, dv, hb, db, u,
                type.floating() ? "ulp" : "step", keys.stream().map(memory::groupName).toList(), List.of());
    }
}
