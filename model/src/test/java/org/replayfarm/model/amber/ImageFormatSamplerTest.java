package org.replayfarm.model.amber;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * IMAGE declarations (texels tightly packed, x fastest, then y, then z), the Vulkan formats (VkFormat values
 * from the Vulkan specification's enum, component conversions by their definitions) and SAMPLER defaults as the
 * AmberScript docs list them.
 */
@Tag("unit")
class ImageFormatSamplerTest {
    static AmberScript parse(String body) throws AmberException {
        return AmberScript.parse("#!amber\n" + body + "\n", "images.amber");
    }

    static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void image_without_data_is_zeros_of_its_size() throws AmberException {
        BufferDecl img = parse("IMAGE img FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 3 HEIGHT 2").buffers().get("img");
        assertTrue(img.image());
        assertEquals("DIM_2D", img.dimension());
        assertEquals(3, img.width());
        assertEquals(2, img.height());
        assertEquals(1, img.depth());
        assertEquals(6, img.elementCount());
        assertArrayEquals(new byte[24], img.initialBytes());
        assertEquals(AmberFormat.R8G8B8A8_UNORM, img.format());
    }

    @Test
    void image_series_runs_x_fastest_then_y_then_z() throws AmberException {
        BufferDecl img = parse("IMAGE v FORMAT R32_UINT DIM_3D WIDTH 2 HEIGHT 2 DEPTH 2 SERIES_FROM 0 INC_BY 1")
                .buffers().get("v");
        ByteBuffer e = le(32);
        for (int z = 0; z < 2; z++) {
            for (int y = 0; y < 2; y++) {
                for (int x = 0; x < 2; x++) {
                    e.putInt(z * 4 + y * 2 + x);
                }
            }
        }
        assertArrayEquals(e.array(), img.initialBytes());
    }

    @Test
    void image_data_and_fill_and_data_types() throws AmberException {
        AmberScript s = parse("IMAGE a FORMAT R16_SFLOAT DIM_1D WIDTH 2 DATA 1.0 -2 END\n"
                + "IMAGE b FORMAT B8G8R8A8_UNORM MIP_LEVELS 3 DIM_2D WIDTH 1 HEIGHT 1 DATA 1 2 3 4 END\n"
                + "IMAGE c DATA_TYPE vec4<float> DIM_2D WIDTH 2 HEIGHT 1 FILL 1.5\n"
                + "IMAGE d FORMAT A2B10G10R10_UNORM_PACK32 DIM_1D WIDTH 1 DATA 0xC00FFC01 END\n"
                + "IMAGE e FORMAT R8_UINT DIM_2D WIDTH 2 HEIGHT 2 DATA 9 END");
        assertArrayEquals(le(4).putShort((short) 0x3C00).putShort((short) 0xC000).array(),
                s.buffers().get("a").initialBytes());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, s.buffers().get("b").initialBytes());
        assertEquals(3, s.buffers().get("b").mipLevels());
        ByteBuffer c = le(32);
        for (int i = 0; i < 8; i++) {
            c.putFloat(1.5f);
        }
        assertArrayEquals(c.array(), s.buffers().get("c").initialBytes());
        assertArrayEquals(le(4).putInt(0xC00FFC01).array(), s.buffers().get("d").initialBytes());
        assertArrayEquals(new byte[] {9, 0, 0, 0}, s.buffers().get("e").initialBytes()); // the rest stays zero
    }

    @Test
    void format_vk_values_and_sizes() {
        // VkFormat enum values from the Vulkan specification
        assertEquals(37, AmberFormat.R8G8B8A8_UNORM.vkFormat());
        assertEquals(100, AmberFormat.R32_SFLOAT.vkFormat());
        assertEquals(109, AmberFormat.R32G32B32A32_SFLOAT.vkFormat());
        assertEquals(9, AmberFormat.R8_UNORM.vkFormat());
        assertEquals(44, AmberFormat.B8G8R8A8_UNORM.vkFormat());
        assertEquals(64, AmberFormat.A2B10G10R10_UNORM_PACK32.vkFormat());
        assertEquals(76, AmberFormat.R16_SFLOAT.vkFormat());
        assertEquals(97, AmberFormat.R16G16B16A16_SFLOAT.vkFormat());
        assertEquals(98, AmberFormat.R32_UINT.vkFormat());
        assertEquals(122, AmberFormat.B10G11R11_UFLOAT_PACK32.vkFormat());
        assertEquals(126, AmberFormat.D32_SFLOAT.vkFormat());
        assertEquals(4, AmberFormat.R8G8B8A8_SINT.bytesPerTexel());
        assertEquals(8, AmberFormat.R16G16B16A16_UINT.bytesPerTexel());
        assertEquals(16, AmberFormat.R32G32B32A32_SINT.bytesPerTexel());
        assertEquals(4, AmberFormat.B10G11R11_UFLOAT_PACK32.bytesPerTexel());
        assertEquals(3, AmberFormat.B10G11R11_UFLOAT_PACK32.componentCount());
        assertEquals('B', AmberFormat.B8G8R8A8_UNORM.components().get(0).channel());
        assertEquals(AmberFormat.Encoding.SNORM, AmberFormat.R8G8B8A8_SNORM.components().get(3).encoding());
        assertTrue(AmberFormat.D32_SFLOAT.depth());
        assertTrue(AmberFormat.A2B10G10R10_UNORM_PACK32.packed());
        assertFalse(AmberFormat.R8G8_UNORM.packed());
        assertEquals(AmberFormat.R32_SINT, AmberFormat.byName("VK_FORMAT_R32_SINT"));
        assertNull(AmberFormat.byName("R9_UNORM"));
    }

    @Test
    void component_encode_and_decode() {
        AmberFormat u8 = AmberFormat.R8G8B8A8_UNORM;
        assertEquals(128, u8.encode(0, 0.5)); // round(127.5)
        assertEquals(255, u8.encode(1, 2.0)); // clamped
        assertEquals(0, u8.encode(2, -1.0));
        assertEquals(51, u8.encode(3, 0.2)); // 0.2 * 255 = 51
        assertEquals(1.0, u8.decode(0, 255));
        assertEquals(128 / 255.0, u8.decode(0, 128));
        AmberFormat s8 = AmberFormat.R8_SNORM;
        assertEquals(0x81, s8.encode(0, -1.0)); // -127
        assertEquals(0x7F, s8.encode(0, 1.0));
        assertEquals(-1.0, s8.decode(0, 0x80)); // -128 clamps to -1
        assertEquals(-64 / 127.0, s8.decode(0, 0xC0));
        AmberFormat u10 = AmberFormat.A2B10G10R10_UNORM_PACK32;
        assertEquals(1023, u10.encode(0, 1.0));
        assertEquals(3, u10.encode(3, 1.0)); // 2-bit alpha
        assertEquals(1.0 / 3, u10.decode(3, 1));
        AmberFormat h = AmberFormat.R16G16B16A16_SFLOAT;
        assertEquals(0x3C00, h.encode(0, 1.0));
        assertEquals(0xC000, h.encode(1, -2.0));
        assertEquals(0.5, h.decode(2, 0x3800));
        assertEquals(Float.floatToRawIntBits(0.1f), (int) AmberFormat.R32_SFLOAT.encode(0, 0.1));
        assertEquals(-5, AmberFormat.R16_SINT.decode(0, 0xFFFB));
        assertEquals(0xFFFB, AmberFormat.R16_SINT.encode(0, -5));
        assertEquals(65535, AmberFormat.R16_UINT.encode(0, 1e9)); // clamped to the range
        // unsigned 11-bit float: 5 exponent bits (bias 15) over 6 mantissa bits; 10-bit: over 5
        AmberFormat uf = AmberFormat.B10G11R11_UFLOAT_PACK32;
        assertEquals(15 << 6, uf.encode(0, 1.0));
        assertEquals(15 << 5, uf.encode(2, 1.0));
        assertEquals(16 << 6 | 32, uf.encode(1, 3.0)); // 3 = 1.5 * 2^1
        assertEquals(1.0, uf.decode(0, 15 << 6));
        assertEquals(3.0, uf.decode(1, 16 << 6 | 32));
        assertEquals(Math.scalb(1.0, -20), uf.decode(0, 1)); // smallest denormal: 2^-14 * 2^-6
        assertEquals(0, uf.encode(0, -1.0));
    }

    @Test
    void sampler_defaults_follow_amber() throws AmberException {
        SamplerDecl s = parse("SAMPLER smp").samplers().get("smp");
        assertEquals(SamplerDecl.Filter.NEAREST, s.magFilter());
        assertEquals(SamplerDecl.Filter.NEAREST, s.minFilter());
        assertEquals(SamplerDecl.MipmapMode.NEAREST, s.mipmapMode());
        assertEquals(SamplerDecl.AddressMode.REPEAT, s.addressModeU());
        assertEquals(SamplerDecl.AddressMode.REPEAT, s.addressModeV());
        assertEquals(SamplerDecl.AddressMode.REPEAT, s.addressModeW());
        assertEquals(SamplerDecl.BorderColor.FLOAT_TRANSPARENT_BLACK, s.borderColor());
        assertEquals(0.0f, s.minLod());
        assertEquals(1.0f, s.maxLod());
        assertTrue(s.normalizedCoords());
        assertEquals(2, s.line());
    }

    @Test
    void sampler_options_and_vulkan_values() throws AmberException {
        SamplerDecl s = parse("SAMPLER smp MAG_FILTER linear MIN_FILTER linear MIPMAP_MODE linear "
                + "ADDRESS_MODE_U clamp_to_edge ADDRESS_MODE_V clamp_to_border ADDRESS_MODE_W mirror_clamp_to_edge "
                + "BORDER_COLOR int_opaque_white MIN_LOD 0.5 MAX_LOD 4").samplers().get("smp");
        assertEquals(1, s.magFilter().vk());
        assertEquals(1, s.minFilter().vk());
        assertEquals(1, s.mipmapMode().vk());
        assertEquals(2, s.addressModeU().vk());
        assertEquals(3, s.addressModeV().vk());
        assertEquals(4, s.addressModeW().vk());
        assertEquals(5, s.borderColor().vk());
        assertEquals(0.5f, s.minLod());
        assertEquals(4.0f, s.maxLod());
        assertEquals(0, SamplerDecl.AddressMode.REPEAT.vk());
        assertEquals(1, SamplerDecl.AddressMode.MIRRORED_REPEAT.vk());
        assertEquals(2, SamplerDecl.BorderColor.FLOAT_OPAQUE_BLACK.vk());
        assertEquals(0, SamplerDecl.Filter.NEAREST.vk());
        SamplerDecl u = parse("SAMPLER u MAX_LOD 3 UNNORMALIZED_COORDS").samplers().get("u");
        assertFalse(u.normalizedCoords());
        assertEquals(0.0f, u.maxLod()); // Amber: unnormalized coordinates set both LODs to 0
    }
}
