package org.replayfarm.model.amber;

/**
 * A {@code BIND} of a compute pipeline: what is bound (a buffer or image name, or a sampler name for
 * {@link Kind#SAMPLER}), as what, where, the dynamic {@code OFFSET} (0 unless given), {@code DESCRIPTOR_OFFSET}
 * (0 unless given), {@code DESCRIPTOR_RANGE} (-1, VK_WHOLE_SIZE, unless given), {@code BASE_MIP_LEVEL} (0
 * unless given), the sampler of a combined image sampler (null otherwise), the BIND's line, and the array
 * element a {@code BUFFER_ARRAY} or {@code SAMPLER_ARRAY} binds this to (-1 for a plain {@code BIND}).
 */
public record Binding(String what, Kind kind, int set, int binding, long offset, long descriptorOffset,
        long descriptorRange, int baseMipLevel, String samplerName, int line, int element) {

    /** A plain {@code BIND} (no array element). */
    public Binding(String what, Kind kind, int set, int binding, long offset, long descriptorOffset,
                   long descriptorRange, int baseMipLevel, String samplerName, int line) {
        this(what, kind, set, binding, offset, descriptorOffset, descriptorRange, baseMipLevel, samplerName, line, -1);
    }

    /** What a binding binds as, with its {@code VkDescriptorType} value. */
    public enum Kind {
        STORAGE("storage", 7),
        UNIFORM("uniform", 6),
        STORAGE_DYNAMIC("storage_dynamic", 9),
        UNIFORM_DYNAMIC("uniform_dynamic", 8),
        STORAGE_IMAGE("storage_image", 3),
        SAMPLED_IMAGE("sampled_image", 2),
        COMBINED_IMAGE_SAMPLER("combined_image_sampler", 1),
        UNIFORM_TEXEL_BUFFER("uniform_texel_buffer", 4),
        STORAGE_TEXEL_BUFFER("storage_texel_buffer", 5),
        SAMPLER("sampler", 0);

        private final String amberName;
        private final int vkDescriptorType;

        Kind(String amberName, int vkDescriptorType) {
            this.amberName = amberName;
            this.vkDescriptorType = vkDescriptorType;
        }

        /** The name after {@code AS} in AmberScript. */
        public String amberName() {
            return amberName;
        }

        /** The {@code VkDescriptorType} value. */
        public int vkDescriptorType() {
            return vkDescriptorType;
        }

        /** Whether this is a dynamic uniform or storage buffer (which needs an OFFSET). */
        public boolean dynamic() {
            return this == STORAGE_DYNAMIC || this == UNIFORM_DYNAMIC;
        }

        /** Whether this binds an image view. */
        public boolean image() {
            return this == STORAGE_IMAGE || this == SAMPLED_IMAGE || this == COMBINED_IMAGE_SAMPLER;
        }

        static Kind byAmberName(String name) {
            for (Kind k : values()) {
                if (k != SAMPLER && k.amberName.equals(name)) {
                    return k;
                }
            }
            return null;
        }
    }
}
