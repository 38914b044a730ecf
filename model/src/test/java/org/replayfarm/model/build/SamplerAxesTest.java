package org.replayfarm.model.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.image.SamplerDescriptor;
import org.replayfarm.model.image.SamplerDescriptor.AddressMode;
import org.replayfarm.model.image.SamplerDescriptor.Filter;

/** {@code sampler:MAG/MIN,X/Y/Z}: a filter and an address mode per axis, as Vulkan and Amber samplers have them. */
@Tag("unit")
class SamplerAxesTest {
    private static SamplerDescriptor parse(String text) {
        return ((KernelArg.SamplerArg) KernelArg.parse(text)).sampler();
    }

    @Test
    void perAxisFiltersAndModesLandInTheirFields() {
        SamplerDescriptor s = parse("sampler:point/bilinear,wrap/clamp/mirror");
        assertEquals(Filter.POINT, s.magFilter());
        assertEquals(Filter.BILINEAR, s.minFilter());
        assertEquals(AddressMode.WRAP, s.clampX());
        assertEquals(AddressMode.CLAMP_LAST_TEXEL, s.clampY());
        assertEquals(AddressMode.MIRROR, s.clampZ());
        // S# word 0: CLAMP_X [2:0], CLAMP_Y [5:3], CLAMP_Z [8:6]; word 2: XY_MAG_FILTER [21:20], XY_MIN_FILTER [23:22]
        int[] w = s.encode();
        assertEquals(0 | 2 << 3 | 1 << 6, w[0] & 0x1FF);
        assertEquals(0, w[2] >>> 20 & 3);
        assertEquals(1, w[2] >>> 22 & 3);
    }

    @Test
    void oneFilterAndTwoModesFillTheRest() {
        SamplerDescriptor s = parse("sampler:bilinear,clamp/wrap,unnormalized");
        assertEquals(Filter.BILINEAR, s.magFilter());
        assertEquals(Filter.BILINEAR, s.minFilter());
        assertEquals(AddressMode.WRAP, s.clampZ(), "Z takes Y's mode");
        assertTrue(s.forceUnnormalized());
        assertEquals(SamplerDescriptor.of(Filter.POINT, AddressMode.WRAP, false, SamplerDescriptor.BorderColor.TRANSPARENT_BLACK),
                parse("sampler:point,wrap"), "the one-filter one-mode form is unchanged");
    }

    @Test
    void badAxesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KernelArg.parse("sampler:point,wrap/clamp/mirror/border"));
        assertTrue(e.getMessage().contains("MODE_Y"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KernelArg.parse("sampler:point/cubic,wrap"));
        assertTrue(e.getMessage().contains("cubic"), e.getMessage());
    }

    @Test
    void theMipFilterLandsInMipFilterAndBadOnesAreNamed() {
        // S# word 2: MIP_FILTER [27:26], 0 none, 1 point, 2 linear
        assertEquals(0, parse("sampler:bilinear,clamp").encode()[2] >>> 26 & 3, "none by default");
        assertEquals(1, parse("sampler:bilinear,clamp,mip=nearest").encode()[2] >>> 26 & 3);
        assertEquals(2, parse("sampler:bilinear,clamp,mip=linear").encode()[2] >>> 26 & 3);
        assertEquals(0, parse("sampler:bilinear,clamp,mip=none").mipFilter());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KernelArg.parse("sampler:point,wrap,mip=cubic"));
        assertTrue(e.getMessage().contains("mip filter 'cubic' is not none, nearest or linear"), e.getMessage());
    }
}
