package org.replayfarm.model.amber;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * Initial bytes of DATA_TYPE buffers, byte for byte. Expected bytes are built here with a little-endian
 * ByteBuffer at offsets from the GLSL std430/std140 rules (std140 rule 4: an array of scalars or vectors has its
 * stride rounded up to a vec4's 16 bytes; rule 5: a column-major matrix is an array of its column vectors; a
 * vec3 takes a vec4's alignment), float16 bit patterns from IEEE 754 binary16 by hand.
 */
@Tag("unit")
class BufferLayoutTest {
    static BufferDecl buffer(String decl) throws AmberException {
        AmberScript s = AmberScript.parse("#!amber\n" + decl + "\n", "test.amber");
        return s.buffers().values().iterator().next();
    }

    static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void int32_data_is_packed_little_endian() throws AmberException {
        BufferDecl b = buffer("BUFFER b DATA_TYPE int32 DATA 1 -2 0x7fffffff END");
        ByteBuffer e = le(12).putInt(1).putInt(-2).putInt(0x7fffffff);
        assertArrayEquals(e.array(), b.initialBytes());
        assertEquals(3, b.elementCount());
        assertEquals(4, b.stride());
        assertEquals(DataType.Layout.STD430, b.layout());
        assertNull(b.format());
    }

    @Test
    void every_scalar_width() throws AmberException {
        assertArrayEquals(new byte[] {(byte) 0xFF, 2, (byte) 0x80}, buffer("BUFFER b DATA_TYPE int8 DATA -1 2 -128 END")
                .initialBytes());
        assertArrayEquals(new byte[] {(byte) 255, 0}, buffer("BUFFER b DATA_TYPE uint8 DATA 255 0 END").initialBytes());
        assertArrayEquals(le(4).putShort((short) -3).putShort((short) 0xBEEF).array(),
                buffer("BUFFER b DATA_TYPE int16 DATA -3 0xBEEF END").initialBytes());
        assertArrayEquals(le(2).putShort((short) 65535).array(),
                buffer("BUFFER b DATA_TYPE uint16 DATA 65535 END").initialBytes());
        assertArrayEquals(le(4).putInt(0xFFFFFFFF).array(),
                buffer("BUFFER b DATA_TYPE uint32 DATA 4294967295 END").initialBytes());
        assertArrayEquals(le(16).putLong(-2).putLong(-1).array(),
                buffer("BUFFER b DATA_TYPE int64 DATA -2 -1 END").initialBytes());
        assertArrayEquals(le(8).putLong(-1).array(),
                buffer("BUFFER b DATA_TYPE uint64 DATA 18446744073709551615 END").initialBytes());
        assertArrayEquals(le(8).putFloat(0.1f).putFloat(-2.5f).array(),
                buffer("BUFFER b DATA_TYPE float DATA 0.1 -2.5 END").initialBytes());
        assertArrayEquals(le(8).putDouble(0.1).array(), buffer("BUFFER b DATA_TYPE double DATA 0.1 END").initialBytes());
    }

    @Test
    void float16_rounds_to_nearest_even() throws AmberException {
        // 1.0 = 0x3C00, -2 = 0xC000, 0.5 = 0x3800, 65504 = 0x7BFF (largest), 2^-24 = 0x0001 (smallest denormal),
        // 0.1 -> 0x2E66 (0.0999755859375, the nearer of 0x2E66 and 0x2E67),
        // 1 + 2^-11 is halfway between 0x3C00 and 0x3C01: the even 0x3C00;
        // 1 + 3 * 2^-11 is halfway between 0x3C01 and 0x3C02: the even 0x3C02
        BufferDecl b = buffer("BUFFER b DATA_TYPE float16 DATA 1.0 -2 0.5 65504 5.9604644775390625e-8 0.1 "
                + "1.00048828125 1.00146484375 END");
        ByteBuffer e = le(16);
        for (int h : new int[] {0x3C00, 0xC000, 0x3800, 0x7BFF, 0x0001, 0x2E66, 0x3C00, 0x3C02}) {
            e.putShort((short) h);
        }
        assertArrayEquals(e.array(), b.initialBytes());
        assertEquals(2, b.stride());
    }

    @Test
    void data_may_span_lines_with_comments() throws AmberException {
        BufferDecl b = buffer("BUFFER b DATA_TYPE uint32 DATA\n1 2 # first\n# a comment line\n\n3\nEND");
        assertArrayEquals(le(12).putInt(1).putInt(2).putInt(3).array(), b.initialBytes());
    }

    @Test
    void vec_data_lists_every_component() throws AmberException {
        BufferDecl b = buffer("BUFFER b DATA_TYPE vec2<int32> DATA 1 2 3 4 END");
        assertEquals(2, b.elementCount());
        assertArrayEquals(le(16).putInt(1).putInt(2).putInt(3).putInt(4).array(), b.initialBytes());
        BufferDecl v4 = buffer("BUFFER b DATA_TYPE vec4<float> DATA 1 2 3 4 END");
        assertArrayEquals(le(16).putFloat(1).putFloat(2).putFloat(3).putFloat(4).array(), v4.initialBytes());
    }

    @Test
    void vec3_takes_a_vec4_stride_in_both_layouts() throws AmberException {
        ByteBuffer e = le(32).putFloat(0, 1).putFloat(4, 2).putFloat(8, 3).putFloat(16, 4).putFloat(20, 5)
                .putFloat(24, 6);
        assertArrayEquals(e.array(), buffer("BUFFER b DATA_TYPE vec3<float> DATA 1 2 3 4 5 6 END").initialBytes());
        assertArrayEquals(e.array(),
                buffer("BUFFER b DATA_TYPE vec3<float> STD140 DATA 1 2 3 4 5 6 END").initialBytes());
        BufferDecl h = buffer("BUFFER b DATA_TYPE vec3<float16> DATA 1 1 1 END");
        assertEquals(8, h.stride()); // 3 halves padded to 4
        assertArrayEquals(le(8).putShort((short) 0x3C00).putShort((short) 0x3C00).putShort((short) 0x3C00).array(),
                h.initialBytes());
    }

    @Test
    void std140_pads_array_elements_to_16_bytes_and_std430_does_not() throws AmberException {
        BufferDecl a140 = buffer("BUFFER b DATA_TYPE float[] STD140 DATA 1 2 END");
        assertEquals(16, a140.stride());
        assertArrayEquals(le(32).putFloat(0, 1).putFloat(16, 2).array(), a140.initialBytes());
        BufferDecl a430 = buffer("BUFFER b DATA_TYPE float[] STD430 DATA 1 2 END");
        assertArrayEquals(le(8).putFloat(1).putFloat(2).array(), a430.initialBytes());
        BufferDecl v2 = buffer("BUFFER b DATA_TYPE vec2<int32>[] STD140 DATA 1 2 3 4 END");
        assertArrayEquals(le(32).putInt(0, 1).putInt(4, 2).putInt(16, 3).putInt(20, 4).array(), v2.initialBytes());
        // Amber pads a scalar or vec2 only when it is declared as an array ([]): a plain float stays 4 bytes
        assertArrayEquals(le(8).putFloat(1).putFloat(2).array(),
                buffer("BUFFER b DATA_TYPE float STD140 DATA 1 2 END").initialBytes());
        assertEquals(DataType.Layout.STD140, buffer("BUFFER b DATA_TYPE float STD140 DATA 1 END").layout());
    }

    @Test
    void matrices_are_column_major_columns_padded_as_vectors() throws AmberException {
        // mat2x2 std430: two vec2 columns, 8-byte column stride
        assertArrayEquals(le(16).putFloat(1).putFloat(2).putFloat(3).putFloat(4).array(),
                buffer("BUFFER b DATA_TYPE mat2x2<float> DATA 1 2 3 4 END").initialBytes());
        // mat2x2 std140: columns rounded up to 16 bytes
        assertArrayEquals(le(32).putFloat(0, 1).putFloat(4, 2).putFloat(16, 3).putFloat(20, 4).array(),
                buffer("BUFFER b DATA_TYPE mat2x2<float> STD140 DATA 1 2 3 4 END").initialBytes());
        // mat2x3 (2 columns of 3 rows): each column a vec3, 16 bytes, in both layouts
        ByteBuffer m23 = le(32).putFloat(0, 1).putFloat(4, 2).putFloat(8, 3).putFloat(16, 4).putFloat(20, 5)
                .putFloat(24, 6);
        BufferDecl b23 = buffer("BUFFER b DATA_TYPE mat2x3<float> DATA 1 2 3 4 5 6 END");
        assertArrayEquals(m23.array(), b23.initialBytes());
        assertEquals(6, b23.slots().size());
        // mat3x2 std430 (3 columns of vec2): 24 bytes; std140: 48
        assertEquals(24, buffer("BUFFER b DATA_TYPE mat3x2<float> DATA 1 2 3 4 5 6 END").stride());
        assertEquals(48, buffer("BUFFER b DATA_TYPE mat3x2<float> STD140 DATA 1 2 3 4 5 6 END").stride());
        // mat4x4<double>: 4 columns of 4 doubles
        assertEquals(128, buffer("BUFFER b DATA_TYPE mat4x4<double> SIZE 1 FILL 0").stride());
    }

    @Test
    void fill_sets_every_component_of_size_elements() throws AmberException {
        BufferDecl b = buffer("BUFFER b DATA_TYPE vec3<int32> SIZE 2 FILL 7");
        assertEquals(2, b.elementCount());
        ByteBuffer e = le(32).putInt(0, 7).putInt(4, 7).putInt(8, 7).putInt(16, 7).putInt(20, 7).putInt(24, 7);
        assertArrayEquals(e.array(), b.initialBytes());
        assertArrayEquals(le(12).putFloat(0.25f).putFloat(0.25f).putFloat(0.25f).array(),
                buffer("BUFFER b DATA_TYPE float SIZE 3 FILL 0.25").initialBytes());
        assertArrayEquals(new byte[4 * 16], buffer("BUFFER b DATA_TYPE float[] STD140 SIZE 4 FILL 0").initialBytes());
    }

    @Test
    void series_adds_the_increment_per_element() throws AmberException {
        assertArrayEquals(le(16).putInt(5).putInt(2).putInt(-1).putInt(-4).array(),
                buffer("BUFFER b DATA_TYPE int32 SIZE 4 SERIES_FROM 5 INC_BY -3").initialBytes());
        assertArrayEquals(le(12).putFloat(1.5f).putFloat(1.75f).putFloat(2.0f).array(),
                buffer("BUFFER b DATA_TYPE float SIZE 3 SERIES_FROM 1.5 INC_BY 0.25").initialBytes());
        assertArrayEquals(le(6).putShort((short) 0x3C00).putShort((short) 0x4000).putShort((short) 0x4200).array(),
                buffer("BUFFER b DATA_TYPE float16 SIZE 3 SERIES_FROM 1 INC_BY 1").initialBytes());
        assertArrayEquals(le(3 * 16).putInt(0, 10).putInt(16, 11).putInt(32, 12).array(),
                buffer("BUFFER b DATA_TYPE uint32[] STD140 SIZE 3 SERIES_FROM 10 INC_BY 1").initialBytes());
    }

    @Test
    void format_buffers_take_raw_component_values_in_memory_order() throws AmberException {
        BufferDecl b = buffer("BUFFER b FORMAT R8G8B8A8_UNORM DATA 255 128 0 1 END");
        assertArrayEquals(new byte[] {(byte) 255, (byte) 128, 0, 1}, b.initialBytes());
        assertEquals(1, b.elementCount());
        BufferDecl f = buffer("BUFFER b FORMAT R32G32B32A32_SFLOAT SIZE 2 FILL 0.5");
        ByteBuffer e = le(32);
        for (int i = 0; i < 8; i++) {
            e.putFloat(0.5f);
        }
        assertArrayEquals(e.array(), f.initialBytes());
        BufferDecl none = buffer("BUFFER fb FORMAT B8G8R8A8_UNORM");
        assertEquals(0, none.elementCount());
        assertEquals(0, none.initialBytes().length);
    }
}
