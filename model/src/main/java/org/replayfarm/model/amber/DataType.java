package org.replayfarm.model.amber;

import java.util.ArrayList;
import java.util.List;

/**
 * An AmberScript {@code DATA_TYPE}: a scalar, {@code vecN<T>} (N rows, one column) or {@code matCxR<T>}
 * (C columns of R rows, column-major), optionally with Amber's {@code []} suffix (a runtime array).
 *
 * <p>Layout, as Amber lays a buffer element out (Amber's {@code Format::AddSegmentsForType}, checked against
 * the GLSL std140/std430 rules): each column holds R components of the scalar's size; a column is padded up
 * to 4 components when R is 3 (a vec3 takes a vec4's size, std430 and std140 alike) or when the layout is
 * std140 and the type is a matrix or a {@code []} array (std140 rounds matrix columns and array elements up
 * to a vec4). So {@code float[]} STD140 has a 16-byte stride, {@code vec2<float>[]} STD140 16,
 * {@code mat2x2<float>} STD430 16 and STD140 32, {@code mat3x3<float>} 48 in both; a plain {@code float} or
 * {@code vec2<float>} is not padded even with STD140 (Amber pads scalars and vec2 only as {@code []} arrays).
 * Amber pads with components of the scalar's own size, so {@code double[]} STD140 has stride 32 and
 * {@code float16[]} STD140 stride 8 (GLSL would give 16 to both); this follows Amber, since its upload is
 * what a script's expectations were written against.
 */
public record DataType(Scalar scalar, int rows, int columns, boolean array) {
    /** The scalar types. */
    public enum Scalar {
        INT8("int8", 1, ValueSlot.Kind.SINT),
        INT16("int16", 2, ValueSlot.Kind.SINT),
        INT32("int32", 4, ValueSlot.Kind.SINT),
        INT64("int64", 8, ValueSlot.Kind.SINT),
        UINT8("uint8", 1, ValueSlot.Kind.UINT),
        UINT16("uint16", 2, ValueSlot.Kind.UINT),
        UINT32("uint32", 4, ValueSlot.Kind.UINT),
        UINT64("uint64", 8, ValueSlot.Kind.UINT),
        FLOAT16("float16", 2, ValueSlot.Kind.FLOAT),
        FLOAT("float", 4, ValueSlot.Kind.FLOAT),
        DOUBLE("double", 8, ValueSlot.Kind.FLOAT);

        private final String amberName;
        private final int bytes;
        private final ValueSlot.Kind kind;

        Scalar(String amberName, int bytes, ValueSlot.Kind kind) {
            this.amberName = amberName;
            this.bytes = bytes;
            this.kind = kind;
        }

        /** The name AmberScript uses. */
        public String amberName() {
            return amberName;
        }

        /** Size in bytes. */
        public int bytes() {
            return bytes;
        }

        /** How its bits are read. */
        public ValueSlot.Kind kind() {
            return kind;
        }

        static Scalar byName(String name) {
            for (Scalar s : values()) {
                if (s.amberName.equals(name)) {
                    return s;
                }
            }
            return null;
        }
    }

    /** The type an AmberScript type name names, or null when it names none. */
    public static DataType parse(String name) {
        String n = name;
        boolean array = n.endsWith("[]");
        if (array) {
            n = n.substring(0, n.length() - 2);
        }
        Scalar s = Scalar.byName(n);
        if (s != null) {
            return new DataType(s, 1, 1, array);
        }
        if (n.length() > 6 && n.startsWith("vec") && n.charAt(4) == '<' && n.endsWith(">")) {
            int rows = n.charAt(3) - '0';
            Scalar inner = Scalar.byName(n.substring(5, n.length() - 1));
            if (rows >= 2 && rows <= 4 && inner != null) {
                return new DataType(inner, rows, 1, array);
            }
            return null;
        }
        if (n.length() > 8 && n.startsWith("mat") && n.charAt(4) == 'x' && n.charAt(6) == '<' && n.endsWith(">")) {
            int cols = n.charAt(3) - '0';
            int rows = n.charAt(5) - '0';
            Scalar inner = Scalar.byName(n.substring(7, n.length() - 1));
            if (cols >= 2 && cols <= 4 && rows >= 2 && rows <= 4 && inner != null) {
                return new DataType(inner, rows, cols, array);
            }
            return null;
        }
        return null;
    }

    /** Whether this is a matrix. */
    public boolean matrix() {
        return columns > 1;
    }

    /** Whether this is a vector (one column of 2..4 rows). */
    public boolean vector() {
        return columns == 1 && rows > 1;
    }

    /** Values one element takes in DATA/EXPECT lists (rows x columns; padding is never listed). */
    public int componentCount() {
        return rows * columns;
    }

    /** Components (the scalar's size each) one column takes in memory, padding included. */
    int paddedRows(Layout layout) {
        boolean pad = rows == 3 || layout == Layout.STD140 && (matrix() || array);
        return pad ? 4 : rows;
    }

    /** Bytes one element takes (the buffer's stride) under {@code layout}. */
    public int stride(Layout layout) {
        return columns * paddedRows(layout) * scalar.bytes();
    }

    /** The element's value slots under {@code layout}, column by column, row by row. */
    public List<ValueSlot> slots(Layout layout) {
        List<ValueSlot> slots = new ArrayList<>();
        int padded = paddedRows(layout);
        for (int c = 0; c < columns; c++) {
            for (int r = 0; r < rows; r++) {
                slots.add(new ValueSlot((c * padded + r) * scalar.bytes(), 0, scalar.bytes() * 8, scalar.kind()));
            }
        }
        return List.copyOf(slots);
    }

    /** The AmberScript spelling of the type. */
    public String amberName() {
        String base = matrix() ? "mat" + columns + "x" + rows + "<" + scalar.amberName() + ">"
                : vector() ? "vec" + rows + "<" + scalar.amberName() + ">" : scalar.amberName();
        return array ? base + "[]" : base;
    }

    /** A buffer's memory layout rules. */
    public enum Layout {
        STD140, STD430
    }
}
