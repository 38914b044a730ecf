package org.replayfarm.model.amber;

import java.util.List;

/**
 * A {@code BUFFER} or {@code IMAGE}: its element type ({@link #dataType()}, for DATA_TYPE) or texel format
 * ({@link #format()}, for FORMAT) - exactly one is non-null - its layout (std430 unless STD140 was given; only
 * DATA_TYPE buffers have padding), its element (texel) count, an image's dimensionality ({@code DIM_1D},
 * {@code DIM_2D}, {@code DIM_3D}, or null for a buffer) and size (1 where not given), the MIP levels
 * declared, an image's SAMPLES (1 unless multisampled), and the bytes Amber would upload before the first
 * command. An image's bytes are its base level, texels tightly packed, x fastest, then y, then z; a
 * multisampled image's elements are its texels' samples, each texel's in order (the farm's layout: Amber
 * names none for compute); an image or FORMAT buffer with no initializer is zeros (a
 * FORMAT buffer with neither SIZE nor data has no elements: its size comes from a graphics pipeline).
 */
public record BufferDecl(String name, Kind kind, DataType dataType, AmberFormat format, DataType.Layout layout,
        int elementCount, String dimension, int width, int height, int depth, int mipLevels, int samples,
        byte[] initialBytes, int line) {
    /** Whether the declaration was a BUFFER or an IMAGE. */
    public enum Kind {
        BUFFER, IMAGE
    }

    public BufferDecl {
        initialBytes = initialBytes.clone();
    }

    /** A copy of the initial bytes. */
    @Override
    public byte[] initialBytes() {
        return initialBytes.clone();
    }

    /** Whether this is an IMAGE. */
    public boolean image() {
        return kind == Kind.IMAGE;
    }

    /** Bytes one element (texel) takes, padding included. */
    public int stride() {
        return dataType != null ? dataType.stride(layout) : format.bytesPerTexel();
    }

    /** The value slots of one element in the order DATA and EXPECT list values (padding skipped). */
    public List<ValueSlot> slots() {
        return dataType != null ? dataType.slots(layout) : format.dataSlots();
    }

    /** The type or format as the script spelled it. */
    public String typeName() {
        return dataType != null ? dataType.amberName() : format.name();
    }

    /** Whether two declarations lay their elements out alike (same type or format, same layout). */
    public boolean sameLayout(BufferDecl other) {
        return java.util.Objects.equals(dataType, other.dataType) && format == other.format
                && (dataType == null || layout == other.layout);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BufferDecl b && name.equals(b.name) && kind == b.kind
                && java.util.Objects.equals(dataType, b.dataType) && format == b.format && layout == b.layout
                && elementCount == b.elementCount && java.util.Objects.equals(dimension, b.dimension)
                && width == b.width && height == b.height && depth == b.depth && mipLevels == b.mipLevels
                && samples == b.samples
                && java.util.Arrays.equals(initialBytes, b.initialBytes) && line == b.line;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + line;
    }

    @Override
    public String toString() {
        return kind + " " + name + " " + typeName() + " " + layout + " x" + elementCount
                + (dimension != null ? " " + dimension + " " + width + "x" + height + "x" + depth : "")
                + " (line " + line + ")";
    }
}
