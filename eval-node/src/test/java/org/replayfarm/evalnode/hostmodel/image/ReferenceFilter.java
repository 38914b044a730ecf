package org.replayfarm.evalnode.hostmodel.image;

/**
 * A plain texture filter for one-channel 2D float images, written from the filtering rules (D3D11
 * functional spec §7.18 and the RDNA 2 sampler's documented eight sub-texel bits) without the image
 * unit's code: the test oracle for image_sample.
 */
final class ReferenceFilter {
    private ReferenceFilter() {
    }

    /** {@code image[y][x]}; mode names as --arg sampler takes them; the border is transparent black. */
    static float sample(float[][] image, boolean bilinear, String mode, float u, float v) {
        return sample(image, bilinear, mode, u * (double) image[0].length, v * (double) image.length, 0f);
    }

    /**
     * The same at texel coordinates ({@code x} in [0, width) covers the image), taps outside the image in the
     * border modes reading {@code border}. The half-border modes first bring the coordinate into [-0.5, n + 0.5]
     * (mirrored about 0 first for mirror_once_half_border), so a sample is at most half border.
     */
    static float sample(float[][] image, boolean bilinear, String mode, double x, double y, float border) {
        int h = image.length;
        int w = image[0].length;
        if (mode.equals("clamp_half_border")) {
            x = Math.min(Math.max(x, -0.5), w + 0.5);
            y = Math.min(Math.max(y, -0.5), h + 0.5);
        } else if (mode.equals("mirror_once_half_border")) {
            x = Math.min(x < 0 ? -x : x, w + 0.5);
            y = Math.min(y < 0 ? -y : y, h + 0.5);
        }
        if (!bilinear) {
            return fetch(image, mode, (int) Math.floor(x), (int) Math.floor(y), border);
        }
        double sx = x - 0.5;
        double sy = y - 0.5;
        int x0 = (int) Math.floor(sx);
        int y0 = (int) Math.floor(sy);
        double a = Math.round((sx - x0) * 256) / 256.0; // eight sub-texel bits
        double b = Math.round((sy - y0) * 256) / 256.0;
        double r = fetch(image, mode, x0, y0, border) * (1 - a) * (1 - b) + fetch(image, mode, x0 + 1, y0, border) * a * (1 - b)
                + fetch(image, mode, x0, y0 + 1, border) * (1 - a) * b + fetch(image, mode, x0 + 1, y0 + 1, border) * a * b;
        return (float) r;
    }

    /**
     * A 3D image {@code image[z][y][x]}: the r axis filtered like u and v (its own fold, eight sub-texel
     * bits), as a blend of this filter's 2D samples of the two nearest slices (a border slice reads 0).
     */
    static float sample3d(float[][][] image, boolean bilinear, String mode, float u, float v, float r) {
        int d = image.length;
        double z = r * (double) d;
        if (mode.equals("clamp_half_border")) {
            z = Math.min(Math.max(z, -0.5), d + 0.5);
        }
        if (!bilinear) {
            int k = fold(mode, (int) Math.floor(z), d);
            return k < 0 ? 0f : sample(image[k], false, mode, u, v);
        }
        double sz = z - 0.5;
        int z0 = (int) Math.floor(sz);
        double c = Math.round((sz - z0) * 256) / 256.0;
        int k0 = fold(mode, z0, d);
        int k1 = fold(mode, z0 + 1, d);
        double lower = k0 < 0 ? 0 : sample(image[k0], true, mode, u, v);
        double upper = k1 < 0 ? 0 : sample(image[k1], true, mode, u, v);
        return (float) (lower * (1 - c) + upper * c);
    }

    private static float fetch(float[][] image, String mode, int i, int j, float border) {
        int h = image.length;
        int w = image[0].length;
        int x = fold(mode, i, w);
        int y = fold(mode, j, h);
        return x < 0 || y < 0 ? border : image[y][x];
    }

    /** A texel index in [0, n), or -1 for the border. */
    private static int fold(String mode, int i, int n) {
        switch (mode) {
            case "wrap":
                return ((i % n) + n) % n;
            case "mirror": {
                int k = i;
                while (k < 0 || k >= n) {
                    k = k < 0 ? -k - 1 : 2 * n - 1 - k; // reflect about the nearer edge until inside
                }
                return k;
            }
            case "clamp":
                return i < 0 ? 0 : i >= n ? n - 1 : i;
            case "mirror_once": {
                int k = i < 0 ? -i - 1 : i;
                return k >= n ? n - 1 : k;
            }
            case "border":
            case "clamp_half_border":
                return i >= 0 && i < n ? i : -1;
            case "mirror_once_border":
            case "mirror_once_half_border": {
                int k = i < 0 ? -i - 1 : i; // reflected once about texel 0's left edge, then the border past n
                return k < n ? k : -1;
            }
            default:
                throw new IllegalArgumentException(mode);
        }
    }
}
