package org.replayfarm.coordinator.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How far a float value of the device may be from the host's and still count as equal: {@code ulp} units in the
 * last place ({@code --ulp N}), {@code abs} absolutely ({@code --abs X}: |host - device| &lt;= X) or {@code rel}
 * relatively ({@code --rel X}: |host - device| &lt;= X * max(|host|, |device|)); 0 turns a rule off, all three 0 is
 * an exact comparison. A float component is accepted ({@link #accepts}) when its bits are equal, or when any rule
 * in force accepts it; under any rule a NaN matches any NaN (never a number or an infinity), an infinity only
 * itself, and +0 matches -0. Integers and untyped bytes never get here: they are compared exactly.
 */
public record Tolerance(int ulp, double abs, double rel) {
    public static final Tolerance EXACT = new Tolerance(0, 0, 0);

    /**
     * What accepted a component or an element, in the order the rules are tried: its bits are equal, or
     * {@code --ulp}, {@code --abs}, {@code --rel} accepted it; {@link #NONE}: it differs. An element is counted
     * under the last rule any of its components needed (each component taking the first that accepts it).
     */
    public enum Rule {
        EXACT, ULP, ABS, REL, NONE;

        /** The rule an element needs when one component needs this and another {@code o}. */
        public Rule and(Rule o) {
            return compareTo(o) >= 0 ? this : o;
        }
    }

    public Tolerance {
        if (ulp < 0) {
            throw new IllegalArgumentException("ulp must be 0 or more, not " + ulp);
        }
        if (!(abs >= 0) || Double.isInfinite(abs)) {
            throw new IllegalArgumentException("abs must be a finite number 0 or more, not " + abs);
        }
        if (!(rel >= 0) || Double.isInfinite(rel)) {
            throw new IllegalArgumentException("rel must be a finite number 0 or more, not " + rel);
        }
    }

    public boolean exact() {
        return ulp == 0 && abs == 0 && rel == 0;
    }

    /**
     * Parses the value of {@code option} ({@code --abs}, {@code abs=} of a view, ...): a finite number 0 or more,
     * in Java's (and C's) decimal spelling ({@code 1e-6}, {@code 0.001}); anything else is an
     * {@link IllegalArgumentException} naming the option and the value.
     */
    public static double parseAmount(String option, String value) {
        String t = value.trim();
        if (NUMBER.matcher(t).matches()) {
            double d = Double.parseDouble(t);
            if (!Double.isInfinite(d)) {
                return d;
            }
        }
        throw new IllegalArgumentException(option + " '" + value + "': expected a finite number 0 or more "
                + "(1e-6, 0.001)");
    }

    private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile(
            "(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    /** Parses an {@code --ulp} or {@code ulp=} value: a whole number 0 or more. */
    public static int parseUlp(String option, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(option + " '" + value + "': expected a whole number of ulps, 0 or more");
    }

    /**
     * Which rule accepts a float component: {@code a} and {@code b} its host and device bits, {@code x} and
     * {@code y} their values, {@code ulps} their distance in units in the last place ({@link Long#MAX_VALUE} for
     * an infinity or NaN against anything but itself).
     */
    public Rule accepts(long a, long b, double x, double y, long ulps) {
        if (a == b) {
            return Rule.EXACT;
        }
        if (exact()) {
            return Rule.NONE;
        }
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Double.isNaN(x) && Double.isNaN(y) ? first() : Rule.NONE; // a NaN is no distance from a NaN
        }
        if (Double.isInfinite(x) || Double.isInfinite(y)) {
            return Rule.NONE; // different bits: another infinity, or a number
        }
        double d = Math.abs(x - y);
        if (ulp > 0 && ulps <= ulp) {
            return Rule.ULP;
        }
        if (Double.isInfinite(d)) {
            return Rule.NONE; // two doubles near the range's ends, of opposite signs
        }
        if (abs > 0 && d <= abs) {
            return Rule.ABS;
        }
        if (rel > 0 && d <= rel * Math.max(Math.abs(x), Math.abs(y))) {
            return Rule.REL;
        }
        return Rule.NONE;
    }

    /** The first rule in force (what accepts a NaN against a NaN, or any two values no distance apart). */
    private Rule first() {
        return ulp > 0 ? Rule.ULP : abs > 0 ? Rule.ABS : Rule.REL;
    }

    /**
     * {@code within 4 ulp}, {@code within 1e-06 absolute or 1e-05 relative}; "exact" when no rule is in force.
     */
    public String describe() {
        if (exact()) {
            return "exact";
        }
        List<String> parts = new ArrayList<>();
        if (ulp > 0) {
            parts.add(ulp + " ulp");
        }
        if (abs > 0) {
            parts.add(number(abs) + " absolute");
        }
        if (rel > 0) {
            parts.add(number(rel) + " relative");
        }
        return "within " + join(parts, "or");
    }

    /** The flags that ask for this tolerance: {@code --ulp 4 --abs 1e-6}. */
    public String flags() {
        List<String> parts = new ArrayList<>();
        if (ulp > 0) {
            parts.add("--ulp " + ulp);
        }
        if (abs > 0) {
            parts.add("--abs " + number(abs));
        }
        if (rel > 0) {
            parts.add("--rel " + number(rel));
        }
        return String.join(" ", parts);
    }

    /**
     * A number as the options spell it, in as few digits as tell it: below 0.001 (and from 10 million) in
     * scientific notation ({@code 1e-6}, {@code 2.4e-7}), else plainly ({@code 0.001}, {@code 0.5}, {@code 1000}).
     */
    public static String number(double d) {
        if (d == 0) {
            return "0";
        }
        BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        String plain = b.toPlainString();
        String sci = new BigDecimal(b.unscaledValue(), b.precision() - 1).toPlainString() + "e"
                + (b.precision() - 1 - b.scale());
        return d < 1e-3 || d >= 1e7 ? sci : plain;
    }

    /**
     * {@code d} rounded up to two significant digits, as {@link #number} spells it: a value to suggest as
     * {@code --abs} or {@code --rel} that accepts a difference of {@code d}.
     */
    public static String roundedUp(double d) {
        if (d == 0) {
            return "0";
        }
        return number(new BigDecimal(d).round(new MathContext(2, RoundingMode.CEILING)).doubleValue());
    }

    /** {@code a}, {@code a or b}, {@code a, b or c}. */
    static String join(List<String> parts, String word) {
        if (parts.size() <= 1) {
            return String.join("", parts);
        }
        return String.join(", ", parts.subList(0, parts.size() - 1)) + " " + word + " " + parts.get(parts.size() - 1);
    }

    /**
     * A view's own tolerances ({@code --view 4=f32,abs=1e-6}): each rule it names (null: not named) replaces the
     * command's for that range or image; the ones it does not name stay the command's.
     */
    public record Override(Integer ulp, Double abs, Double rel) {
        public static final Override NONE = new Override(null, null, null);

        public boolean none() {
            return ulp == null && abs == null && rel == null;
        }

        /** This view's tolerance over the command's {@code global}. */
        public Tolerance over(Tolerance global) {
            return new Tolerance(ulp == null ? global.ulp() : ulp, abs == null ? global.abs() : abs,
                    rel == null ? global.rel() : rel);
        }

        /** {@code o}'s rules over this one's (a later view of the same range replaces what it names). */
        public Override then(Override o) {
            return new Override(o.ulp != null ? o.ulp : ulp, o.abs != null ? o.abs : abs, o.rel != null ? o.rel : rel);
        }

        /** {@code ulp=4,abs=1e-6}: as a view spells it. */
        public String spelling() {
            List<String> parts = new ArrayList<>();
            if (ulp != null) {
                parts.add("ulp=" + ulp);
            }
            if (abs != null) {
                parts.add("abs=" + number(abs));
            }
            if (rel != null) {
                parts.add("rel=" + number(rel));
            }
            return String.join(",", parts);
        }
    }
}
