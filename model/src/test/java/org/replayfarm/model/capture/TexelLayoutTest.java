package org.replayfarm.model.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;

@Tag("unit")
class TexelLayoutTest {
    private static Image image(ImageType type, int w, int h, int d, int layers, int mips) {
        return Image.newBuilder().setType(type).setDataFormat(DataFormat.FMT_8_8_8_8).setWidth(w).setHeight(h)
                .setDepth(d).setLayers(layers).setMipLevels(mips).build();
    }

    @Test
    void indicesFollowTheDocumentedLayoutAndInvert() {
        Image array = image(ImageType.IMAGE_2D_ARRAY, 5, 3, 1, 2, 3);
        // level 0: 2 layers of 5x3 = 30 texels; level 1: 2 layers of 2x1 = 4; level 2: 2 layers of 1x1 = 2
        assertEquals(36, TexelLayout.totalTexels(array));
        assertEquals(36 * 4, TexelLayout.totalBytes(array));
        assertEquals(0, TexelLayout.texelIndex(array, new TexelLayout.Texel(0, 0, 0, 0, 0)));
        assertEquals(15 + 2 * 5 + 4, TexelLayout.texelIndex(array, new TexelLayout.Texel(0, 1, 4, 2, 0)));
        assertEquals(30 + 2 + 1, TexelLayout.texelIndex(array, new TexelLayout.Texel(1, 1, 1, 0, 0)));
        assertEquals(35, TexelLayout.texelIndex(array, new TexelLayout.Texel(2, 1, 0, 0, 0)));
        Image volume = image(ImageType.IMAGE_3D, 4, 4, 4, 1, 3);
        assertEquals(64 + 8 + 1, TexelLayout.totalTexels(volume));
        assertEquals(16 * 3 + 4 * 2 + 1, TexelLayout.texelIndex(volume, new TexelLayout.Texel(0, 0, 1, 2, 3)));
        for (Image i : new Image[] {array, volume, image(ImageType.IMAGE_CUBE, 3, 3, 1, 6, 2)}) {
            for (long t = 0; t < TexelLayout.totalTexels(i); t++) {
                assertEquals(t, TexelLayout.texelIndex(i, TexelLayout.texelAt(i, t)), "texel " + t + " of " + i);
            }
            long past = TexelLayout.totalTexels(i);
            assertThrows(IllegalArgumentException.class, () -> TexelLayout.texelAt(i, past));
        }
    }

    @Test
    void aMultisampledImageHoldsEachTexelsSamplesInOrder() {
        Image ms = image(ImageType.IMAGE_2D_ARRAY, 3, 2, 1, 2, 1).toBuilder().setSamples(4).build();
        assertEquals(3 * 2 * 2 * 4, TexelLayout.totalTexels(ms));
        assertEquals(3 * 2 * 2 * 4 * 4, TexelLayout.totalBytes(ms));
        // texel (x 2, y 1, layer 1): texel number 6 + 3 + 2 = 11, its sample 0 at 11 * 4
        assertEquals(44, TexelLayout.texelIndex(ms, new TexelLayout.Texel(0, 1, 2, 1, 0)));
        assertEquals(new TexelLayout.Texel(0, 1, 2, 1, 0), TexelLayout.texelAt(ms, 44 + 3));
    }
}
