package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.coordinator.report.Tolerance.Rule;

/**
 * The acceptance rule of one float component: exact bits, else the first of --ulp, --abs and --rel in force that
 * accepts it; a NaN only against a NaN, an infinity only itself, +0 against -0 as 0 apart; and how the options'
 * values are read and written.
 */
@Tag("unit")
class ToleranceTest {
    private static final ElementType F32 = ElementType.parseView("f32");
    private static final ElementType F64 = ElementType.parseView("f64");

    /** Which rule accepts host {@code x} against device {@code y}, both as f32 bits. */
    private static Rule f32(Tolerance t, float x, float y) {
        return bits32(t, Float.floatToRawIntBits(x), Float.floatToRawIntBits(y));
    }

    private static Rule bits32(Tolerance t, int x, int y) {
        long a = x & 0xFFFF_FFFFL;
        long b = y & 0xFFFF_FFFFL;
        return t.accepts(a, b, F32.toDouble(a), F32.toDouble(b), F32.ulps(a, b));
    }

    private static Rule f64(Tolerance t, double x, double y) {
        long a = Double.doubleToRawLongBits(x);
        long b = Double.doubleToRawLongBits(y);
        return t.accepts(a, b, x, y, F64.ulps(a, b));
    }

    /** {@code n} ulps above {@code x} (a positive float). */
    private static float up(float x, int n) {
        return Float.intBitsToFloat(Float.floatToRawIntBits(x) + n);
    }

    @Test
    void each_rule_accepts_what_it_names_and_nothing_more() {
        float host = 0.025f;                 // in [2^-6, 2^-5): one ulp is 2^-29
        float device = up(host, 128);        // 128 ulps, 2^-22 = 2.384e-7 apart
        assertEquals(Math.scalb(1.0, -22), (double) device - host);
        assertEquals(Rule.NONE, f32(Tolerance.EXACT, host, device), "exact by default");
        assertEquals(Rule.EXACT, f32(Tolerance.EXACT, host, host));
        assertEquals(Rule.NONE, f32(new Tolerance(16, 0, 0), host, device), "--ulp 16 is not enough near zero");
        assertEquals(Rule.ULP, f32(new Tolerance(128, 0, 0), host, device));
        assertEquals(Rule.ABS, f32(new Tolerance(0, 2.4e-7, 0), host, device));
        assertEquals(Rule.ABS, f32(new Tolerance(0, Math.scalb(1.0, -22), 0), host, device), "at the limit: accepted");
        assertEquals(Rule.NONE, f32(new Tolerance(0, 2.3e-7, 0), host, device));
        // relative to the larger magnitude: 2.384e-7 / 0.025000238 = 9.54e-6
        assertEquals(Rule.REL, f32(new Tolerance(0, 0, 1e-5), host, device));
        assertEquals(Rule.NONE, f32(new Tolerance(0, 0, 9e-6), host, device));
        assertEquals(Rule.REL, f32(new Tolerance(0, 0, 1e-5), device, host), "symmetric");
        // the first rule that accepts it, in the order ulp, abs, rel
        assertEquals(Rule.ULP, f32(new Tolerance(128, 1, 1), host, device));
        assertEquals(Rule.ABS, f32(new Tolerance(16, 1, 1), host, device));
        assertEquals(Rule.REL, f32(new Tolerance(16, 1e-9, 1), host, device));
        // a component needing abs and another needing ulp: the element counts under the later rule
        assertEquals(Rule.ABS, Rule.ULP.and(Rule.ABS));
        assertEquals(Rule.ABS, Rule.ABS.and(Rule.EXACT));
        assertEquals(Rule.NONE, Rule.REL.and(Rule.NONE));
        // far off values: no rule in force accepts them
        assertEquals(Rule.NONE, f32(new Tolerance(4, 1e-6, 1e-6), 1.0f, 2.0f));
        assertEquals(Rule.REL, f64(new Tolerance(0, 0, 1e-12), 1.0, Math.nextUp(1.0)));
    }

    @Test
    void a_nan_matches_only_a_nan_an_infinity_only_itself_and_zero_its_negative() {
        Tolerance abs = new Tolerance(0, 1e-6, 0);
        Tolerance everything = new Tolerance(1_000_000, 1e30, 1e6);
        int quiet = 0x7FC0_0000;
        int x86 = 0xFFC0_0000;           // the default NaN an x86 build produces
        assertEquals(Rule.NONE, bits32(Tolerance.EXACT, quiet, x86), "exactly: different bits differ");
        assertEquals(Rule.ABS, bits32(abs, quiet, x86), "under a tolerance a NaN is no distance from a NaN");
        assertEquals(Rule.ULP, bits32(new Tolerance(1, 0, 0), quiet, x86));
        assertEquals(Rule.NONE, f32(everything, Float.NaN, 1.0f), "never a NaN against a number");
        assertEquals(Rule.NONE, f32(everything, 0.0f, Float.NaN));
        assertEquals(Rule.NONE, f32(everything, Float.NaN, Float.POSITIVE_INFINITY));
        assertEquals(Rule.EXACT, f32(everything, Float.POSITIVE_INFINITY, Float.POSITIVE_INFINITY));
        assertEquals(Rule.NONE, f32(everything, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY));
        assertEquals(Rule.NONE, f32(everything, Float.MAX_VALUE, Float.POSITIVE_INFINITY),
                "an overflow is no rounding: rel * max(|x|, |y|) would be infinite");
        assertEquals(Rule.NONE, f32(new Tolerance(0, 0, 1), Float.NEGATIVE_INFINITY, -Float.MAX_VALUE));
        assertEquals(Rule.NONE, f64(new Tolerance(0, 0, 3), Double.MAX_VALUE, -Double.MAX_VALUE),
                "a difference past the double range is no number");
        assertEquals(Rule.NONE, f32(Tolerance.EXACT, 0.0f, -0.0f), "exactly: +0 and -0 have different bits");
        assertEquals(Rule.ABS, f32(abs, 0.0f, -0.0f));
        assertEquals(Rule.ULP, f32(new Tolerance(1, 0, 0), -0.0f, 0.0f));
        assertEquals(Rule.REL, f32(new Tolerance(0, 0, 1e-9), 0.0f, -0.0f), "0 apart is within any fraction of 0");
        assertEquals(Rule.NONE, f32(new Tolerance(0, 0, 0.5), 0.0f, Float.MIN_VALUE),
                "relative: a denormal against zero is 100% off");
        assertEquals(Rule.ABS, f32(abs, 0.0f, Float.MIN_VALUE));
    }

    @Test
    void integers_and_untyped_bytes_stay_exact_whatever_is_asked() {
        // the rule is for floats only: an integer element type has no value to measure
        ElementType i32 = ElementType.parseView("i32");
        assertTrue(Double.isNaN(i32.toDouble(7)), "no float value: the diff never asks the rule about integers");
        assertEquals(Tolerance.EXACT, new DiffOptions(true, 0, false).tolerance());
        assertEquals(new Tolerance(3, 1e-6, 1e-5),
                new DiffOptions(true, 3, 1e-6, 1e-5, false, java.util.List.of(), 10, "").tolerance());
    }

    @Test
    void amounts_are_finite_numbers_zero_or_more_and_errors_name_the_option_and_the_value() {
        assertEquals(1e-6, Tolerance.parseAmount("--abs", "1e-6"));
        assertEquals(0.001, Tolerance.parseAmount("--rel", " 0.001 "));
        assertEquals(0.0, Tolerance.parseAmount("--abs", "0"));
        assertEquals(2.5, Tolerance.parseAmount("--abs", "2.5E0"));
        assertEquals(0.5, Tolerance.parseAmount("--abs", ".5"));
        for (String bad : new String[] {"-1e-6", "NaN", "Infinity", "1e400", "abc", "1.5f", "0x1p-3", "", "1e-6,2"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Tolerance.parseAmount("--abs", bad), bad);
            assertEquals("--abs '" + bad + "': expected a finite number 0 or more (1e-6, 0.001)", e.getMessage());
        }
        assertEquals(4, Tolerance.parseUlp("ulp=", "4"));
        assertEquals("ulp= '-4': expected a whole number of ulps, 0 or more",
                assertThrows(IllegalArgumentException.class, () -> Tolerance.parseUlp("ulp=", "-4")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(0, Double.NaN, 0));
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(0, 0, Double.POSITIVE_INFINITY));
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(-1, 0, 0));
        assertEquals("--abs must be a finite number 0 or more, not -1.0", assertThrows(IllegalArgumentException.class,
                () -> new DiffOptions(true, 0, -1, 0, false, java.util.List.of(), 10, "")).getMessage());
    }

    @Test
    void tolerances_are_written_as_the_options_spell_them() {
        assertEquals("1e-6", Tolerance.number(1e-6));
        assertEquals("0.001", Tolerance.number(0.001));
        assertEquals("2.4e-7", Tolerance.number(2.4e-7));
        assertEquals("0.5", Tolerance.number(0.5));
        assertEquals("1000", Tolerance.number(1000));
        assertEquals("2.4e-7", Tolerance.roundedUp(Math.scalb(1.0, -22)), "2.384e-7 rounded up to two digits");
        assertEquals("1", Tolerance.roundedUp(1.0));
        assertEquals("0.0011", Tolerance.roundedUp(0.00100001));
        assertTrue(Math.scalb(1.0, -22) <= Double.parseDouble(Tolerance.roundedUp(Math.scalb(1.0, -22))));
        assertEquals("exact", Tolerance.EXACT.describe());
        assertEquals("within 4 ulp", new Tolerance(4, 0, 0).describe());
        assertEquals("within 4 ulp, 1e-6 absolute or 1e-5 relative", new Tolerance(4, 1e-6, 1e-5).describe());
        assertEquals("--ulp 4 --rel 1e-5", new Tolerance(4, 0, 1e-5).flags());
        assertEquals("float values within 1e-6 absolute", new DiffOptions(true, 0, 1e-6, 0, false, java.util.List.of(),
                10, "").describe());
        // a view's own rules over the command's: what it names replaces, the rest stays
        Tolerance.Override own = new Tolerance.Override(null, 1e-6, null);
        assertEquals(new Tolerance(4, 1e-6, 1e-5), own.over(new Tolerance(4, 1e-3, 1e-5)));
        assertEquals(new Tolerance(0, 1e-6, 0), new Tolerance.Override(0, null, null).then(own)
                .over(new Tolerance(128, 0, 0)), "ulp=0 turns the command's --ulp off for the range");
        assertEquals("ulp=0,abs=1e-6", new Tolerance.Override(0, 1e-6, null).spelling());
    }
}
