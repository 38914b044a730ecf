package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.replayfarm.coordinator.report.SyntheticCapture.f32;
import static org.replayfarm.coordinator.report.SyntheticCapture.group;
import static org.replayfarm.coordinator.report.SyntheticCapture.rgba;
import static org.replayfarm.coordinator.report.SyntheticCapture.texel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.report.DiffResult.ImageDiff;
import org.replayfarm.coordinator.report.DiffResult.RangeDiff;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.gpunode.device.DeviceRun;

/**
 * --abs, --rel and --ulp, globally and per view, on a synthetic capture whose stores the test chose: range 0
 * ("out") typed as f32 by a view holds group (0, 0)'s 1.0, 0.5, 0.0, 3.0 (elements 0..3; the group executed no
 * approximate instruction) and group (1, 0)'s 0.025, 1000, NaN, +inf (elements 4..7; 3 approximate instructions);
 * range 1 ("bins") holds group (0, 0)'s integer 7; image 0 (UNORM) texel (0, 0) is group (0, 0)'s, image 1 (R32
 * float, "depth") holds 1.0 at (0, 0) from group (0, 0) and 2.0 at (1, 0) from group (1, 0). Each test plants
 * differences in a copy of the host's outputs and checks what each tolerance accepts, counts and suggests.
 */
@Tag("unit")
class ToleranceDiffTest {
    @TempDir
    Path dir;

    private SyntheticCapture capture;
    private Evaluation.Outcome host;

    /** 0.025 + 128 ulps: 2^-22 = 2.384e-7 apart, the cancellation of issue 39. */
    private static final float NEAR_ZERO = 0.025f;
    private static final float OFF_128 = Float.intBitsToFloat(Float.floatToRawIntBits(NEAR_ZERO) + 128);

    @BeforeEach
    void evaluate() throws Exception {
        capture = new SyntheticCapture(dir);
        ByteBuffer first = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putFloat(1.0f).putFloat(0.5f)
                .putFloat(0.0f).putFloat(3.0f);
        ByteBuffer second = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putFloat(NEAR_ZERO).putFloat(1000f)
                .putInt(0x7FC0_0000).putFloat(Float.POSITIVE_INFINITY);
        byte[] seven = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(7).array();
        capture.totals.add(group(0, 0, List.of(new StoreRun(0, 0, first.array()), new StoreRun(1, 0, seven)),
                List.of(texel(0, 0, 0, rgba(200, 100, 50, 255)), texel(1, 0, 0, f32(1.0f))), List.of(), 0, null));
        capture.totals.add(group(1, 0, List.of(new StoreRun(0, 16, second.array())),
                List.of(texel(1, 1, 0, f32(2.0f))), List.of(), 3, null));
        host = capture.totals.outcome(Duration.ofMillis(2), 1);
    }

    /** The host's outputs as a device run, with range 0's f32 elements, range 1's word and image 1's texels set. */
    private final class Planted {
        final byte[] range0 = host.memory().range(0).clone();
        final byte[] range1 = host.memory().range(1).clone();
        final byte[] image0 = host.images().texels(0).clone();
        final byte[] image1 = host.images().texels(1).clone();

        Planted element(int e, float v) {
            ByteBuffer.wrap(range0).order(ByteOrder.LITTLE_ENDIAN).putFloat(e * 4, v);
            return this;
        }

        Planted elementBits(int e, int bits) {
            ByteBuffer.wrap(range0).order(ByteOrder.LITTLE_ENDIAN).putInt(e * 4, bits);
            return this;
        }

        Planted bin(int v) {
            ByteBuffer.wrap(range1).order(ByteOrder.LITTLE_ENDIAN).putInt(0, v);
            return this;
        }

        Planted depth(int x, float v) {
            ByteBuffer.wrap(image1).order(ByteOrder.LITTLE_ENDIAN).putFloat(x * 4, v);
            return this;
        }

        DeviceRun run() {
            return SyntheticCapture.device(range0, range1, image0, image1);
        }
    }

    private static DiffOptions options(int ulp, double abs, double rel, String... views) {
        return new DiffOptions(true, ulp, abs, rel, false, List.of(views), 10, "");
    }

    private DiffResult diff(Planted device, DiffOptions options) {
        return Diff.compare(host.memory(), host.images(), device.run(), options);
    }

    private RangeDiff out(Planted device, int ulp, double abs, double rel, String... views) {
        String[] all = new String[views.length + 1];
        all[0] = "out=f32";
        System.arraycopy(views, 0, all, 1, views.length);
        return diff(device, options(ulp, abs, rel, all)).ranges().get(0);
    }

    @Test
    void an_element_near_zero_after_cancellation_is_accepted_by_abs_rel_or_enough_ulps() {
        Planted d = new Planted().element(4, OFF_128);
        assertEquals(1, out(d, 0, 0, 0).differingElements(), "exact by default");
        assertEquals(1, out(d, 16, 0, 0).differingElements(), "--ulp 16 is not enough: 128 ulps");
        RangeDiff abs = out(d, 0, 2.4e-7, 0);
        assertEquals(0, abs.differingElements());
        assertEquals(new DiffResult.Tolerated(0, 1, 0, 0), abs.tolerated());
        assertEquals(1, out(d, 0, 2.3e-7, 0).differingElements());
        assertEquals(new DiffResult.Tolerated(0, 0, 1, 0), out(d, 0, 0, 1e-5).tolerated());
        assertEquals(new DiffResult.Tolerated(1, 0, 0, 0), out(d, 128, 1, 0).tolerated(), "counted under the first rule");
        assertTrue(diff(d, options(0, 2.4e-7, 0, "out=f32")).equal());
    }

    @Test
    void a_views_tolerance_replaces_the_commands_for_its_range_only() {
        Planted d = new Planted().element(4, OFF_128);
        RangeDiff own = out(d, 0, 0, 0, "out=abs=2.4e-7");
        assertEquals(0, own.differingElements(), "the view's abs, the command exact");
        assertEquals(1, own.tolerated().abs());
        assertEquals(new Tolerance(0, 2.4e-7, 0), own.tolerance());
        RangeDiff typedAndOwn = diff(d, options(0, 0, 0, "0=f32,abs=2.4e-7")).ranges().get(0);
        assertEquals(0, typedAndOwn.differingElements(), "a type and a tolerance in one view, by index");
        assertEquals(1, out(d, 0, 1, 0, "out=abs=1e-9").differingElements(), "the view's abs replaces --abs 1");
        assertEquals(1, out(d, 128, 0, 0, "out=ulp=0").differingElements(), "ulp=0 turns --ulp 128 off there");
        assertEquals(new DiffResult.Tolerated(0, 0, 1, 0), out(d, 0, 1e-9, 0, "out=rel=1e-5").tolerated(),
                "the command's abs stays where the view names only rel");
        assertEquals(new Tolerance(0, 1e-9, 1e-5), out(d, 0, 1e-9, 0, "out=rel=1e-5").tolerance());
    }

    @Test
    void nan_matches_only_nan_infinity_only_itself_and_negative_zero_is_zero_apart() {
        Planted d = new Planted().element(2, -0.0f).elementBits(6, 0xFFC0_0000).element(7, Float.NEGATIVE_INFINITY);
        assertEquals(3, out(d, 0, 0, 0).differingElements(), "exactly: -0, another NaN and -inf all differ");
        RangeDiff abs = out(d, 0, 1e-30, 0);
        assertEquals(2, abs.tolerated().abs(), "-0 against 0 and a NaN against a NaN: no distance");
        assertEquals(1, abs.differingElements());
        assertEquals(7, abs.values().get(0).index(), "+inf against -inf is beyond any tolerance");
        Planted number = new Planted().element(6, 1.0f).element(7, Float.MAX_VALUE);
        assertEquals(2, out(number, 1_000_000, 1e30, 1e6).differingElements(), "NaN against 1, +inf against MAX_VALUE");
    }

    @Test
    void integers_and_untyped_bytes_stay_exact_whatever_is_asked() {
        Planted d = new Planted().bin(8);
        RangeDiff bins = diff(d, options(100, 10, 1, "bins=u32")).ranges().get(1);
        assertEquals(1, bins.differingElements(), "7 against 8 as u32 under --ulp 100 --abs 10 --rel 1");
        assertEquals(DiffResult.Tolerated.NONE, bins.tolerated());
        assertEquals(Tolerance.EXACT, bins.tolerance());
        assertEquals(1, diff(d, options(100, 10, 1)).ranges().get(1).differing(), "untyped: the byte differs");
        IllegalArgumentException typed = assertThrows(IllegalArgumentException.class,
                () -> diff(d, options(0, 0, 0, "bins=u32,abs=1")));
        assertEquals("--view 'bins=u32,abs=1': range 1 (bins) is u32, compared exactly whatever is asked: tolerances "
                + "apply to float elements", typed.getMessage());
        IllegalArgumentException untyped = assertThrows(IllegalArgumentException.class,
                () -> diff(d, options(0, 0, 0, "bins=abs=1")));
        assertEquals("--view 'bins=abs=1': range 1 (bins) is untyped (bytes), compared exactly whatever is asked: "
                + "tolerances apply to float elements (type it: bins=f32,abs=1)", untyped.getMessage());
        // an image's UNORM channels: exact under any tolerance
        Planted colour = new Planted();
        colour.image0[1] ^= 1;
        assertEquals(1, diff(colour, options(100, 10, 1)).images().get(0).differing());
    }

    @Test
    void an_images_float_channels_take_the_commands_tolerance_or_their_own_by_image_index_or_name() {
        Planted d = new Planted().depth(0, Float.intBitsToFloat(Float.floatToRawIntBits(1.0f) + 8)); // 9.5e-7 apart
        assertEquals(1, diff(d, options(0, 0, 0)).images().get(1).differing());
        ImageDiff abs = diff(d, options(0, 1e-6, 0)).images().get(1);
        assertEquals(new DiffResult.Tolerated(0, 1, 0, 0), abs.tolerated());
        assertFalse(abs.viewTolerance());
        ImageDiff own = diff(d, options(0, 0, 0, "image:1=abs=1e-6")).images().get(1);
        assertEquals(0, own.differing());
        assertTrue(own.viewTolerance());
        assertEquals(new Tolerance(0, 1e-6, 0), own.tolerance());
        assertEquals(1, diff(d, options(0, 0, 0, "image:depth=rel=1e-6")).images().get(1).tolerated().rel());
        assertEquals(1, diff(d, options(0, 0, 0, "image:depth=ulp=8")).images().get(1).tolerated().ulp());
        assertEquals(1, diff(d, options(0, 0, 0, "image:depth=ulp=7")).images().get(1).differing());
        assertEquals("--view 'image:0=abs=1': image 0 (colour) is UNORM, not a float format: its channels are compared "
                + "exactly (or one step off under --approximate)", assertThrows(IllegalArgumentException.class,
                        () -> diff(d, options(0, 0, 0, "image:0=abs=1"))).getMessage());
        assertEquals("--view 'image:9=abs=1': no image '9'; images: [0 (colour), 1 (depth)]",
                assertThrows(IllegalArgumentException.class, () -> diff(d, options(0, 0, 0, "image:9=abs=1")))
                        .getMessage());
    }

    @Test
    void differences_only_in_floats_stored_by_approximate_groups_suggest_the_flag_from_the_largest() throws Exception {
        Planted d = new Planted().element(4, OFF_128);
        DiffOptions exact = options(0, 0, 0, "out=f32");
        DiffResult diff = diff(d, exact);
        ToleranceSuggestion s = ToleranceSuggestion.of(diff).orElseThrow();
        assertEquals(1, s.count());
        assertEquals(128, s.ulps());
        assertEquals(Math.scalb(1.0, -22), s.abs());
        assertEquals(List.of("--abs 2.4e-7", "--ulp 128"), s.flags());
        String text = "every difference (1 float value) is within 2.4e-7 absolute / 128 ulps (9.6e-6 relative), stored "
                + "by groups that executed approximate instructions: --abs 2.4e-7 or --ulp 128 would accept it";
        assertEquals(text, s.text());
        RunReport.Verdict v = RunReport.verdict(host, diff, 0);
        assertEquals("different", v.status());
        assertEquals(List.of("range 0 (out): 1 of 8 compared f32 elements differ, 0 device-only", text), v.reasons());
        // the flags it suggests accept what it saw
        assertTrue(diff(d, options(0, 2.4e-7, 0, "out=f32")).equal());
        assertTrue(diff(d, options(128, 0, 0, "out=f32")).equal());
        // with --ulp 16 in force the same is left, and suggested
        assertEquals(128, ToleranceSuggestion.of(diff(d, options(16, 0, 0, "out=f32"))).orElseThrow().ulps());
        // a float texel of image 1 stored by group (1, 0), one ulp (2.4e-7) off
        Planted texel = new Planted().depth(1, Math.nextUp(2.0f));
        assertEquals(List.of("--abs 2.4e-7", "--ulp 1"), ToleranceSuggestion.of(diff(texel, exact)).orElseThrow().flags());

        Path out = dir.resolve("report");
        RunReport.write(out, host, capture.kernel, new RunReport.Identity("ab".repeat(32), "synthetic.capture", "job-1",
                "every group"), new RunReport.Device("auto", "recorded run 'synthetic device'", d.run(), 0.001), diff,
                exact, 0, 0.002);
        JsonNode report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
        JsonNode suggestion = report.get("comparison").get("suggestion");
        assertEquals(text, suggestion.get("text").asText());
        assertEquals(128, suggestion.get("ulps").asLong());
        assertEquals("--abs 2.4e-7", suggestion.get("flags").get(0).asText());
        JsonNode range = report.get("comparison").get("ranges").get(0);
        assertEquals(128, range.get("largest_difference").get("ulps").asLong());
        assertTrue(range.get("largest_difference").get("approximate").asBoolean());
        assertTrue(report.get("result").get("reasons").toString().contains("--abs 2.4e-7 or --ulp 128 would accept it"));
        String summary = java.nio.file.Files.readString(out.resolve("summary.txt"));
        assertTrue(summary.contains("result          different (exit status 1)\n  range 0 (out): 1 of 8 compared f32 "
                + "elements differ, 0 device-only\n  " + text + "\n"), summary);
    }

    @Test
    void no_suggestion_when_a_difference_is_no_rounding_or_its_group_ran_no_approximate_instruction() {
        DiffOptions exact = options(0, 0, 0, "out=f32", "bins=u32");
        assertTrue(ToleranceSuggestion.of(diff(new Planted().element(4, OFF_128).element(0, Math.nextUp(1.0f)), exact))
                .isEmpty(), "element 0 is group (0, 0)'s, which executed no approximate instruction");
        assertTrue(ToleranceSuggestion.of(diff(new Planted().element(5, Float.NaN), exact)).isEmpty(),
                "a NaN against a number");
        assertTrue(ToleranceSuggestion.of(diff(new Planted().element(7, Float.MAX_VALUE), exact)).isEmpty(),
                "an infinity against a number");
        assertTrue(ToleranceSuggestion.of(diff(new Planted().element(4, OFF_128).bin(8), exact)).isEmpty(),
                "an integer differs too");
        Planted deviceOnly = new Planted().element(4, OFF_128);
        deviceOnly.range0[100] ^= 1; // no host store wrote byte 100
        assertTrue(ToleranceSuggestion.of(diff(deviceOnly, exact)).isEmpty(), "a device-only change");
        assertTrue(ToleranceSuggestion.of(diff(new Planted(), exact)).isEmpty(), "equal: nothing to suggest");
        assertTrue(RunReport.verdict(host, diff(new Planted().element(0, Math.nextUp(1.0f)), exact), 0).reasons().stream()
                .noneMatch(r -> r.contains("would accept")));
        DiffResult untyped = diff(new Planted().element(4, OFF_128), options(0, 0, 0));
        assertTrue(ToleranceSuggestion.of(untyped).isEmpty(), "untyped bytes: no float to measure");
    }
}
