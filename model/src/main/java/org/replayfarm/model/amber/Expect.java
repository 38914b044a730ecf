package org.replayfarm.model.amber;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An {@code EXPECT}. {@link #check} reads the buffers' bytes after the commands before it (a function from
 * buffer name to bytes, null for a buffer it does not know) and says whether the expectation holds.
 *
 * <p>Semantics, as found in Amber (docs/amber_script.md and src/verifier.cc, src/buffer.cc of google/amber):
 * <ul>
 * <li>{@code IDX x} of a value expectation is a <b>byte offset</b> into the buffer, not an element index:
 * the docs' compute example stores {@code vec2<int32>} values at workgroup (x, y) and probes workgroup
 * (255, 0) at {@code IDX 2040} = 255 * 8 and (0, 255) at {@code IDX 522240} = 255 * 256 * 8; the verifier
 * adds the offset to the buffer's address and refuses an offset that is not a multiple of the element
 * stride (refused here at parse time). The values then run over the element's components in order (padding
 * skipped) and on into the following elements.</li>
 * <li>{@code TOLERANCE t} is absolute: |actual - expected| <= t. {@code TOLERANCE t%} is relative to the
 * expected value: |actual - expected| <= t / 100 * |expected| (verifier.cc, IsEqualWithTolerance). The docs
 * allow 1..4 tolerances "per component", but Amber's verifier applies the first tolerance to every value of a
 * value expectation, and so does this class (the others are kept in {@link Values#tolerances()}).
 * TOLERANCE is only allowed with EQ.</li>
 * <li>EQ/NE without TOLERANCE: integers compare exactly (the expected value truncated to the component's
 * width); floats compare after rounding the expected value to the component's type, with Amber's epsilon:
 * |actual - expected| <= 1e-6 % of |expected|. For float and float16 components this is exact equality (two
 * different floats differ by far more); for double it allows a relative 1e-8. LT/LE/GT/GE compare in the
 * component's type (unsigned for unsigned types).</li>
 * <li>EQ_RGB/EQ_RGBA: each channel value 0..255 is divided by 255 and compared with the texel's channel,
 * itself divided by 2^bits - 1 for UNORM (2^(bits-1) - 1 for SNORM) and taken as is for UINT/SINT/float
 * channels. The default tolerance is 0.002 (absolute); with four tolerances each channel has its own, with
 * fewer the first is used for every channel (verifier.cc); a % tolerance is relative to the texel's value.</li>
 * <li>EQ_BUFFER compares every byte (padding included). RMSE_BUFFER: the root mean square of the differences
 * of the components' values (padding skipped) is at most the tolerance. EQ_HISTOGRAM_EMD_BUFFER (only 4
 * channels of 8-bit unsigned): per channel the earth mover's distance between the two 256-bin histograms
 * (normalized by element count) is the sum over bins of |cumulative difference| / 256; the largest over the
 * channels is at most the tolerance.</li>
 * </ul>
 */
public sealed interface Expect extends Command
        permits Expect.Values, Expect.Probe, Expect.BufferEquals, Expect.Rmse, Expect.HistogramEmd {

    /** The buffer the expectation is about. */
    String buffer();

    /** Whether the expectation holds for these buffer contents. */
    ExpectOutcome check(Function<String, byte[]> contents);

    /** A comparison operator of a value expectation. */
    enum Comparator {
        EQ, NE, LT, LE, GT, GE
    }

    /** A tolerance: absolute, or a percentage of the expected value. */
    record Tolerance(double value, boolean percent) {
        boolean accepts(double actual, double expected) {
            double diff = Math.abs(actual - expected);
            return percent ? diff <= value / 100.0 * Math.abs(expected) : diff <= value;
        }

        @Override
        public String toString() {
            return value + (percent ? "%" : "");
        }
    }

    /**
     * One expected value as written, read for the slot it is compared with: for an integer slot its bits
     * ({@code bits}, two's complement for negatives), for a float slot its value ({@code value}).
     */
    record Literal(String text, long bits, double value) {
    }

    /** {@code EXPECT buf IDX offset [TOLERANCE t...] cmp v...}. */
    record Values(BufferDecl decl, long offset, Comparator comparator, List<Tolerance> tolerances,
            List<Literal> values, int line) implements Expect {
        public Values {
            tolerances = List.copyOf(tolerances);
            values = List.copyOf(values);
        }

        @Override
        public String buffer() {
            return decl.name();
        }

        @Override
        public ExpectOutcome check(Function<String, byte[]> contents) {
            byte[] data = contents.apply(decl.name());
            String where = "EXPECT line " + line + ": buffer '" + decl.name() + "' IDX " + offset;
            if (data == null) {
                return ExpectOutcome.fail(where + ": no contents for the buffer");
            }
            List<ValueSlot> slots = decl.slots();
            int n = slots.size();
            int stride = decl.stride();
            int last = values.size() - 1;
            long end = offset + (long) (last / n) * stride + slots.get(last % n).offset()
                    + (slots.get(last % n).bitShift() + slots.get(last % n).bits() + 7) / 8;
            if (end > data.length) {
                return ExpectOutcome.fail(where + ": " + values.size() + " values reach byte " + end
                        + " of a buffer of " + data.length + " bytes");
            }
            int failed = 0;
            List<String> shown = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                ValueSlot slot = slots.get(i % n);
                int base = (int) (offset + (long) (i / n) * stride);
                Literal lit = values.get(i);
                boolean ok;
                String actualText;
                String expectedText;
                if (slot.isFloat()) {
                    double a = slot.number(data, base);
                    double e = slot.roundToSlot(lit.value());
                    ok = compareFloat(a, e);
                    actualText = Numbers.show(a, slot.bits());
                    expectedText = Numbers.show(e, slot.bits());
                } else {
                    long a = slot.integer(data, base);
                    long e = Numbers.truncate(lit.bits(), slot.bits(), slot.signed());
                    ok = compareInt(a, e, slot.signed());
                    actualText = Numbers.show(a, slot.signed());
                    expectedText = Numbers.show(e, slot.signed());
                }
                if (!ok) {
                    failed++;
                    if (shown.size() < 4) {
                        shown.add("value " + i + " (element " + (offset / stride + i / n) + ", byte " + (base
                                + slot.offset()) + "): expected " + comparator + " " + expectedText
                                + (tolerances.isEmpty() ? "" : " within " + tolerances.get(0)) + ", actual "
                                + actualText);
                    }
                }
            }
            if (failed == 0) {
                return ExpectOutcome.pass();
            }
            return ExpectOutcome.fail(where + ": " + failed + " of " + values.size() + " values failed; "
                    + String.join("; ", shown));
        }

        private boolean compareFloat(double a, double e) {
            if (!tolerances.isEmpty()) {
                return tolerances.get(0).accepts(a, e);
            }
            Tolerance epsilon = new Tolerance(1e-6, true);
            return switch (comparator) {
                case EQ -> epsilon.accepts(a, e);
                case NE -> !epsilon.accepts(a, e);
                case LT -> a < e;
                case LE -> a <= e;
                case GT -> a > e;
                case GE -> a >= e;
            };
        }

        private boolean compareInt(long a, long e, boolean signed) {
            if (!tolerances.isEmpty()) {
                return tolerances.get(0).accepts(Numbers.asDouble(a, signed), Numbers.asDouble(e, signed));
            }
            int c = signed ? Long.compare(a, e) : Long.compareUnsigned(a, e);
            return switch (comparator) {
                case EQ -> c == 0;
                case NE -> c != 0;
                case LT -> c < 0;
                case LE -> c <= 0;
                case GT -> c > 0;
                case GE -> c >= 0;
            };
        }
    }

    /**
     * {@code EXPECT img IDX x y SIZE w h EQ_RGB r g b} or {@code EQ_RGBA r g b a}, with optional tolerances.
     * The frame is the image's WIDTH x HEIGHT (base level, z = 0), or for a FORMAT buffer without size a row of
     * all its texels.
     */
    record Probe(BufferDecl decl, int x, int y, int width, int height, boolean rgba, List<Integer> expected,
            List<Tolerance> tolerances, int line) implements Expect {
        /** Amber's default texel tolerance (absolute, on normalized values). */
        public static final double DEFAULT_TOLERANCE = 0.002;

        public Probe {
            expected = List.copyOf(expected);
            tolerances = List.copyOf(tolerances);
        }

        @Override
        public String buffer() {
            return decl.name();
        }

        @Override
        public ExpectOutcome check(Function<String, byte[]> contents) {
            byte[] data = contents.apply(decl.name());
            String where = "EXPECT line " + line + ": image '" + decl.name() + "'";
            if (data == null) {
                return ExpectOutcome.fail(where + ": no contents for the buffer");
            }
            AmberFormat f = decl.format();
            int texel = f.bytesPerTexel();
            int frameWidth = decl.image() ? decl.width() : data.length / texel;
            int frameHeight = decl.image() ? decl.height() : 1;
            if ((long) x + width > frameWidth || (long) y + height > frameHeight) {
                return ExpectOutcome.fail(where + ": probe " + x + "," + y + " size " + width + "x" + height
                        + " is outside the " + frameWidth + "x" + frameHeight + " frame");
            }
            if ((long) frameWidth * frameHeight * texel > data.length) {
                return ExpectOutcome.fail(where + ": " + data.length + " bytes hold less than a " + frameWidth + "x"
                        + frameHeight + " frame");
            }
            Tolerance[] tol = new Tolerance[4];
            for (int c = 0; c < 4; c++) {
                tol[c] = tolerances.isEmpty() ? new Tolerance(DEFAULT_TOLERANCE, false)
                        : tolerances.get(tolerances.size() == 4 ? c : 0);
            }
            List<ValueSlot> slots = f.channelSlots();
            int failed = 0;
            String first = null;
            for (int j = 0; j < height; j++) {
                for (int i = 0; i < width; i++) {
                    int base = ((y + j) * frameWidth + (x + i)) * texel;
                    double[] actual = {Double.NaN, Double.NaN, Double.NaN, Double.NaN};
                    boolean ok = true;
                    for (int k = 0; k < slots.size(); k++) {
                        int channel = "RGBA".indexOf(f.components().get(k).channel());
                        if (channel < 0) {
                            continue;
                        }
                        double a = channelValue(f, k, slots.get(k).rawBits(data, base));
                        actual[channel] = a;
                        if (channel == 3 && !rgba) {
                            continue;
                        }
                        double e = expected.get(channel) / 255f;
                        // Amber passes the texel as the "expected" side: a % tolerance is of the texel's value
                        if (!tol[channel].accepts(e, a)) {
                            ok = false;
                        }
                    }
                    if (!ok) {
                        if (failed == 0) {
                            first = describe(x + i, y + j, actual, f.normalized());
                        }
                        failed++;
                    }
                }
            }
            if (failed == 0) {
                return ExpectOutcome.pass();
            }
            return ExpectOutcome.fail(where + ": " + first + "; " + failed + " of " + (width * height)
                    + " pixels failed");
        }

        /** A channel as Amber's probe reads it: UNORM/SNORM scaled by 2^bits - 1 / 2^(bits-1) - 1 (unclamped). */
        private static double channelValue(AmberFormat f, int k, long raw) {
            AmberFormat.Component c = f.components().get(k);
            if (c.encoding() == AmberFormat.Encoding.SNORM) {
                long signed = raw << (64 - c.bits()) >> (64 - c.bits());
                return signed / (double) ((1L << (c.bits() - 1)) - 1);
            }
            return f.decode(k, raw);
        }

        private String describe(int px, int py, double[] actual, boolean normalized) {
            double scale = normalized ? 255 : 1;
            int count = rgba ? 4 : 3;
            StringBuilder e = new StringBuilder();
            StringBuilder a = new StringBuilder();
            for (int c = 0; c < count; c++) {
                String sep = c == 0 ? "" : ", ";
                e.append(sep).append(normalized ? String.valueOf(expected.get(c)) : String.valueOf(expected.get(c) / 255.0));
                a.append(sep).append(Double.isNaN(actual[c]) ? "-" : Numbers.show(actual[c] * scale, 32));
            }
            return "probe failed at " + px + ", " + py + ": expected " + (rgba ? "RGBA " : "RGB ") + e + ", actual "
                    + a + (tolerances.isEmpty() ? "" : " (tolerance " + tolerances + ")");
        }
    }

    /** {@code EXPECT a EQ_BUFFER b}: every byte equal. */
    record BufferEquals(BufferDecl decl, BufferDecl other, int line) implements Expect {
        @Override
        public String buffer() {
            return decl.name();
        }

        @Override
        public ExpectOutcome check(Function<String, byte[]> contents) {
            byte[] a = contents.apply(decl.name());
            byte[] b = contents.apply(other.name());
            String where = "EXPECT line " + line + ": buffer '" + decl.name() + "' EQ_BUFFER '" + other.name() + "'";
            String size = sizes(where, a, b);
            if (size != null) {
                return ExpectOutcome.fail(size);
            }
            int differing = 0;
            int first = -1;
            for (int i = 0; i < a.length; i++) {
                if (a[i] != b[i]) {
                    if (differing++ == 0) {
                        first = i;
                    }
                }
            }
            if (differing == 0) {
                return ExpectOutcome.pass();
            }
            return ExpectOutcome.fail(where + ": " + differing + " bytes differ, first at byte " + first
                    + " (element " + first / decl.stride() + "): " + (a[first] & 0xFF) + " != " + (b[first] & 0xFF));
        }
    }

    /** {@code EXPECT a RMSE_BUFFER b TOLERANCE t}. */
    record Rmse(BufferDecl decl, BufferDecl other, double tolerance, int line) implements Expect {
        @Override
        public String buffer() {
            return decl.name();
        }

        @Override
        public ExpectOutcome check(Function<String, byte[]> contents) {
            byte[] a = contents.apply(decl.name());
            byte[] b = contents.apply(other.name());
            String where = "EXPECT line " + line + ": buffer '" + decl.name() + "' RMSE_BUFFER '" + other.name() + "'";
            String size = sizes(where, a, b);
            if (size != null) {
                return ExpectOutcome.fail(size);
            }
            double rmse = rmse(decl, a, b);
            if (rmse <= tolerance) {
                return ExpectOutcome.pass();
            }
            return ExpectOutcome.fail(where + ": root mean square error " + rmse + " is greater than the tolerance "
                    + tolerance);
        }

        /** The root mean square of the component differences (0 for no components). */
        static double rmse(BufferDecl decl, byte[] a, byte[] b) {
            List<ValueSlot> slots = decl.slots();
            int elements = a.length / decl.stride();
            double sum = 0;
            long count = 0;
            for (int e = 0; e < elements; e++) {
                int base = e * decl.stride();
                for (ValueSlot s : slots) {
                    double d = s.number(a, base) - s.number(b, base);
                    sum += d * d;
                    count++;
                }
            }
            return count == 0 ? 0 : Math.sqrt(sum / count);
        }
    }

    /** {@code EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE t} (4 channels of 8-bit unsigned only). */
    record HistogramEmd(BufferDecl decl, BufferDecl other, double tolerance, int line) implements Expect {
        @Override
        public String buffer() {
            return decl.name();
        }

        @Override
        public ExpectOutcome check(Function<String, byte[]> contents) {
            byte[] a = contents.apply(decl.name());
            byte[] b = contents.apply(other.name());
            String where = "EXPECT line " + line + ": buffer '" + decl.name() + "' EQ_HISTOGRAM_EMD_BUFFER '"
                    + other.name() + "'";
            String size = sizes(where, a, b);
            if (size != null) {
                return ExpectOutcome.fail(size);
            }
            double emd = emd(decl, a, b);
            if (emd <= tolerance) {
                return ExpectOutcome.pass();
            }
            return ExpectOutcome.fail(where + ": histogram earth mover's distance " + emd
                    + " is greater than the tolerance " + tolerance);
        }

        /** The largest per-channel EMD of the two buffers' 256-bin histograms. */
        static double emd(BufferDecl decl, byte[] a, byte[] b) {
            List<ValueSlot> slots = decl.slots();
            int elements = a.length / decl.stride();
            if (elements == 0) {
                return 0;
            }
            double max = 0;
            for (ValueSlot s : slots) {
                long[] ha = new long[256];
                long[] hb = new long[256];
                for (int e = 0; e < elements; e++) {
                    ha[(int) s.rawBits(a, e * decl.stride())]++;
                    hb[(int) s.rawBits(b, e * decl.stride())]++;
                }
                double accum = 0;
                double total = 0;
                for (int i = 0; i < 256; i++) {
                    accum += (double) ha[i] / elements - (double) hb[i] / elements;
                    total += Math.abs(accum);
                }
                max = Math.max(max, total / 256);
            }
            return max;
        }
    }

    private static String sizes(String where, byte[] a, byte[] b) {
        if (a == null || b == null) {
            return where + ": no contents for " + (a == null ? "the first" : "the second") + " buffer";
        }
        if (a.length != b.length) {
            return where + ": the buffers differ in size: " + a.length + " vs " + b.length + " bytes";
        }
        return null;
    }
}
