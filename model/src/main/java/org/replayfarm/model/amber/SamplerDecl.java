package org.replayfarm.model.amber;

/**
 * A {@code SAMPLER} with Amber's defaults for what it leaves out (AmberScript docs, "Samplers"): filters
 * {@code nearest}, mipmap mode {@code nearest}, address modes {@code repeat}, border color
 * {@code float_transparent_black}, MIN_LOD 0.0, MAX_LOD 1.0, normalized coordinates. As Amber documents,
 * UNNORMALIZED_COORDS sets both LODs to 0.0. Each enum carries its Vulkan value ({@code VkFilter},
 * {@code VkSamplerMipmapMode}, {@code VkSamplerAddressMode}, {@code VkBorderColor}).
 */
public record SamplerDecl(String name, Filter magFilter, Filter minFilter, MipmapMode mipmapMode,
        AddressMode addressModeU, AddressMode addressModeV, AddressMode addressModeW, BorderColor borderColor,
        float minLod, float maxLod, boolean normalizedCoords, int line) {

    /** {@code VkFilter}. */
    public enum Filter {
        NEAREST(0), LINEAR(1);

        private final int vk;

        Filter(int vk) {
            this.vk = vk;
        }

        public int vk() {
            return vk;
        }
    }

    /** {@code VkSamplerMipmapMode}. */
    public enum MipmapMode {
        NEAREST(0), LINEAR(1);

        private final int vk;

        MipmapMode(int vk) {
            this.vk = vk;
        }

        public int vk() {
            return vk;
        }
    }

    /** {@code VkSamplerAddressMode}. */
    public enum AddressMode {
        REPEAT(0), MIRRORED_REPEAT(1), CLAMP_TO_EDGE(2), CLAMP_TO_BORDER(3), MIRROR_CLAMP_TO_EDGE(4);

        private final int vk;

        AddressMode(int vk) {
            this.vk = vk;
        }

        public int vk() {
            return vk;
        }
    }

    /** {@code VkBorderColor}. */
    public enum BorderColor {
        FLOAT_TRANSPARENT_BLACK(0), INT_TRANSPARENT_BLACK(1), FLOAT_OPAQUE_BLACK(2), INT_OPAQUE_BLACK(3),
        FLOAT_OPAQUE_WHITE(4), INT_OPAQUE_WHITE(5);

        private final int vk;

        BorderColor(int vk) {
            this.vk = vk;
        }

        public int vk() {
            return vk;
        }
    }
}
