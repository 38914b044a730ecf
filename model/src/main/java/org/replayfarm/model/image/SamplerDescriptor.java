package org.replayfarm.model.image;

/**
 * A sampler descriptor (S#, 128 bits) in the gfx10.3 layout:
 * <ul>
 * <li>word 0: CLAMP_X [2:0], CLAMP_Y [5:3], CLAMP_Z [8:6], MAX_ANISO_RATIO [11:9], DEPTH_COMPARE_FUNC
 * [14:12], FORCE_UNNORMALIZED [15], ANISO_THRESHOLD [18:16], MC_COORD_TRUNC [19], FORCE_DEGAMMA [20],
 * ANISO_BIAS [26:21], TRUNC_COORD [27], DISABLE_CUBE_WRAP [28], FILTER_MODE [30:29], SKIP_DEGAMMA [31];</li>
 * <li>word 1: MIN_LOD [11:0], MAX_LOD [23:12] (unsigned 4.8 fixed point), PERF_MIP [27:24], PERF_Z [31:28];</li>
 * <li>word 2: LOD_BIAS [13:0] (signed 6.8), LOD_BIAS_SEC [19:14], XY_MAG_FILTER [21:20], XY_MIN_FILTER
 * [23:22] (0 point, 1 bilinear, 2/3 anisotropic), Z_FILTER [25:24], MIP_FILTER [27:26] (0 none, 1 point,
 * 2 linear), MIP_POINT_PRECLAMP [28], ANISO_OVERRIDE [29], BLEND_ZERO_PRT [30], DERIV_ADJUST_EN [31];</li>
 * <li>word 3: BORDER_COLOR_PTR [11:0], BORDER_COLOR_TYPE [31:30] (0 transparent black, 1 opaque black,
 * 2 opaque white, 3 from the border colour table, which a replay does not have).</li>
 * </ul>
 */
public record SamplerDescriptor(AddressMode clampX, AddressMode clampY, AddressMode clampZ, int word0Rest,
                                int minLod, int maxLod, int word1Rest, int lodBias, Filter magFilter, Filter minFilter,
                                int zFilter, int mipFilter, int word2Rest, int borderColorPtr, BorderColor borderColor,
                                int word3Rest) {
    /** SQ_TEX_CLAMP: how a coordinate outside [0, 1) is brought back. */
    public enum AddressMode {
        WRAP, MIRROR, CLAMP_LAST_TEXEL, MIRROR_ONCE_LAST_TEXEL, CLAMP_HALF_BORDER, MIRROR_ONCE_HALF_BORDER,
        CLAMP_BORDER, MIRROR_ONCE_BORDER
    }

    /** SQ_TEX_XY_FILTER. */
    public enum Filter { POINT, BILINEAR, ANISO_POINT, ANISO_BILINEAR }

    /** SQ_TEX_BORDER_COLOR. */
    public enum BorderColor { TRANSPARENT_BLACK, OPAQUE_BLACK, OPAQUE_WHITE, REGISTER }

    private static final int WORD0_FIELDS = 0x1FF | 1 << 15;
    private static final int WORD1_FIELDS = 0xFFFFFF;
    private static final int WORD2_FIELDS = 0x3FFF | 0xFF << 20;
    private static final int WORD3_FIELDS = 0xFFF | 3 << 30;

    /** A plain sampler: one filter for magnification and minification, one address mode for x, y and z. */
    public static SamplerDescriptor of(Filter filter, AddressMode mode, boolean unnormalized, BorderColor border) {
        return new SamplerDescriptor(mode, mode, mode, unnormalized ? 1 << 15 : 0, 0, 15 << 8, 0, 0, filter, filter,
                0, 0, 0, 0, border, 0);
    }

    public static SamplerDescriptor decode(int[] w) {
        if (w.length != 4) {
            throw new IllegalArgumentException("an S# is 4 words, not " + w.length);
        }
        AddressMode[] modes = AddressMode.values();
        Filter[] filters = Filter.values();
        return new SamplerDescriptor(modes[w[0] & 7], modes[w[0] >>> 3 & 7], modes[w[0] >>> 6 & 7],
                w[0] & ~0x1FF, w[1] & 0xFFF, w[1] >>> 12 & 0xFFF, w[1] & ~WORD1_FIELDS,
                w[2] << 18 >> 18, filters[w[2] >>> 20 & 3], filters[w[2] >>> 22 & 3], w[2] >>> 24 & 3,
                w[2] >>> 26 & 3, w[2] & ~WORD2_FIELDS, w[3] & 0xFFF, BorderColor.values()[w[3] >>> 30 & 3],
                w[3] & ~WORD3_FIELDS);
    }

    public int[] encode() {
        int w0 = clampX.ordinal() | clampY.ordinal() << 3 | clampZ.ordinal() << 6 | word0Rest & ~0x1FF;
        int w1 = minLod & 0xFFF | (maxLod & 0xFFF) << 12 | word1Rest & ~WORD1_FIELDS;
        int w2 = lodBias & 0x3FFF | magFilter.ordinal() << 20 | minFilter.ordinal() << 22 | (zFilter & 3) << 24
                | (mipFilter & 3) << 26 | word2Rest & ~WORD2_FIELDS;
        int w3 = borderColorPtr & 0xFFF | borderColor.ordinal() << 30 | word3Rest & ~WORD3_FIELDS;
        return new int[] {w0, w1, w2, w3};
    }

    /** FORCE_UNNORMALIZED: coordinates are in texels, not [0, 1). */
    public boolean forceUnnormalized() {
        return (word0Rest >>> 15 & 1) != 0;
    }

    /** MIN_LOD as a level (4.8 fixed point). */
    public double minLodLevel() {
        return minLod / 256.0;
    }

    /** MAX_LOD as a level (4.8 fixed point). */
    public double maxLodLevel() {
        return maxLod / 256.0;
    }

    /** The border colour's four channels (REGISTER colours are a fault for the caller: no table in a replay). */
    public float[] borderRgba() {
        return switch (borderColor) {
            case TRANSPARENT_BLACK -> new float[] {0, 0, 0, 0};
            case OPAQUE_BLACK -> new float[] {0, 0, 0, 1};
            case OPAQUE_WHITE -> new float[] {1, 1, 1, 1};
            case REGISTER -> throw new IllegalArgumentException("S# border colour from the border colour table "
                    + "(pointer " + borderColorPtr + "): a replay has no table");
        };
    }
}
