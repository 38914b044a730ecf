package org.replayfarm.coordinator.report;

/**
 * How one memory range is read for comparison: as elements of {@code type} (null: untyped, compared byte
 * by byte), optionally shaped {@code rows} x {@code cols} (row-major, C order: {@code f32[37x50]} is 37 rows
 * of 50; 0 x 0 when unshaped), named by its kernel parameter when the metadata names it. {@code argument}
 * is the explicit kernel argument whose pointer the range is (-1 for none), {@code typeName} its C type
 * ({@code float*}) and {@code source} where the type came from: {@code kernel metadata}, {@code --view} or
 * {@code none}; {@code tolerance} the tolerances a {@code --view} gave the range ({@code abs=1e-6}: over the
 * command's, {@link Tolerance.Override}; none by default).
 */
public record RangeView(int range, String rangeName, int argument, String parameter, String typeName, ElementType type,
                        int rows, int cols, String source, Tolerance.Override tolerance) {
    public RangeView {
        tolerance = tolerance == null ? Tolerance.Override.NONE : tolerance;
    }

    public RangeView(int range, String rangeName, int argument, String parameter, String typeName, ElementType type,
                     int rows, int cols, String source) {
        this(range, rangeName, argument, parameter, typeName, type, rows, cols, source, Tolerance.Override.NONE);
    }

    /** The untyped view of a range no pointer argument or {@code --view} types. */
    public static RangeView bytes(int range, String rangeName) {
        return new RangeView(range, rangeName, -1, "", "", null, 0, 0, "none");
    }

    public boolean typed() {
        return type != null;
    }

    public boolean shaped() {
        return rows > 0;
    }

    /** Bytes per element: the type's, or 1 for an untyped range. */
    public int elementBytes() {
        return type == null ? 1 : type.bytes();
    }

    /**
     * What reports call the range: its parameter ({@code C}), else {@code arg<i>} for an unnamed argument,
     * else the capture's name for the range ({@code kernarg}).
     */
    public String displayName() {
        if (!parameter.isEmpty()) {
            return parameter;
        }
        return argument >= 0 ? "arg" + argument : rangeName;
    }

    /** {@code float* C as f32[37x50]}, {@code bytes}: the view in words. */
    public String describe() {
        if (type == null) {
            return "bytes";
        }
        String t = type.spelling() + (shaped() ? "[" + rows + "x" + cols + "]" : "");
        return (typeName.isEmpty() ? "" : typeName + " ") + "as " + t + " (" + source + ")";
    }

    public RangeView withType(ElementType t, int r, int c, String from) {
        return new RangeView(range, rangeName, argument, parameter, typeName, t, r, c, from, tolerance);
    }

    /** With a view's tolerances over the command's ({@code --view C=f32,abs=1e-6}). */
    public RangeView withTolerance(Tolerance.Override o) {
        return new RangeView(range, rangeName, argument, parameter, typeName, type, rows, cols, source, o);
    }
}
