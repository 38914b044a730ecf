package org.replayfarm.evalnode.hostmodel.image;

import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.image.SamplerDescriptor;
import org.replayfarm.model.image.SamplerDescriptor.AddressMode;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * image_sample, image_sample_lz and image_sample_l on 1D, 2D, 3D, 1D array, 2D array and cube images (MSAA
 * sampling faults as not modelled).
 *
 * <p>Level: _lz samples level 0 of the view; _l the address's LOD; image_sample derives the LOD from the
 * coordinates' differences across the lane's quad (lanes 4k..4k+3 as a 2x2 block: lane ^ 1 is the
 * horizontal neighbour, lane ^ 2 the vertical one), {@code log2(max(|d/dx|, |d/dy|))} in texels (the
 * differences' lengths over u, v and, for 3D, r), plus the
 * S#'s LOD_BIAS. The LOD is clamped to the S#'s [MIN_LOD, MAX_LOD] and to the view's levels (the T#'s
 * BASE_LEVEL .. LAST_LEVEL: view level 0 is BASE_LEVEL); MIP_FILTER none takes level 0, point the nearest
 * level, linear blends the two nearest. The XY_MAG_FILTER applies at LOD <= 0, XY_MIN_FILTER above. Integer
 * formats are always point sampled. A level the view holds but the capture does not is a fault (ImageView);
 * so are a view with no level (BASE_LEVEL past LAST_LEVEL) and a T# MIN_LOD clamp, which are not modelled.
 *
 * <p>Filtering, per level: normalised coordinates are scaled by the level's extent (the instruction's
 * UNORM bit or the S#'s FORCE_UNNORMALIZED take them as texels). Point: texel floor(u). Bilinear: u - 0.5
 * split into texel floor and a fraction rounded to eight bits (1/256), the four taps weighted (1 - f) and
 * f per axis (3D: the eight taps of the two nearest slices, the r axis split the same way and its own
 * address mode, CLAMP_Z). Each tap's index is brought back by the axis's address mode: wrap (mod n), mirror (period
 * 2n), clamp to the last texel, mirror once then clamp, half border (the coordinate clamped to
 * [-0.5, n + 0.5] first, taps outside read the border colour), border (taps outside read the border
 * colour), and the mirror-once forms of both. An array slice is floor(slice + 0.5) clamped to the view's
 * layers (BASE_ARRAY .. LAST_ARRAY).
 *
 * <p>Cubes (DIM 3): the address is (s, t, face + 8 * cube) as v_cubesc/v_cubetc/v_cubeid give it once the code has
 * scaled s and t by 1 / |v_cubema| and added 1.5: s and t lie in [1, 2] across the face, so the face is
 * sampled as a layer of a 2D array at (s - 1, t - 1), its coordinates clamped to the face's edge texels
 * (a cube has no address modes: Vulkan's CLAMP_TO_EDGE). A bilinear footprint that crosses a face's edge
 * reads the neighbouring face (seamless filtering, {@link #cubeBilinear}); a cube array's slice is face + 8 *
 * cube. A mipmapped cube (or cube array) chooses its level(s) by LOD as every other image does ({@link #filter}:
 * the S#'s clamp, then the mip filter's nearest level or two levels blended) and filters each level's face
 * seamlessly at that level's size (halved per level, at least 1). A derived LOD (image_sample) on a cube of more
 * than one level, or one that would choose between different magnification and minification filters, is not
 * modelled and faults.
 *
 * <p>Fidelity: approximate. Bound: the blend is computed in double from f32 taps and rounded once to f32;
 * the hardware's blend arithmetic is not published, and its eight-bit fraction may round where this one
 * does (to nearest), or truncate. Per channel the host result is within (max - min of the taps) * 2^-8 +
 * 1 ulp of the device's; point sampling of exactly-representable coordinates is exact.
 */
public final class ImageSampler {
    private ImageSampler() {
    }

    private enum Lod { ZERO, EXPLICIT, DERIVED }

    public static void register(SemanticsTable.Builder b) {
        b.approximate(Encoding.MIMG, "image_sample", (w, i) -> sample(w, i, Lod.DERIVED));
        b.approximate(Encoding.MIMG, "image_sample_lz", (w, i) -> sample(w, i, Lod.ZERO));
        b.approximate(Encoding.MIMG, "image_sample_l", (w, i) -> sample(w, i, Lod.EXPLICIT));
    }

    private static void sample(Wave w, Instruction insn, Lod lodKind) {
        Fields.Mimg m = (Fields.Mimg) insn.fields();
        if (m.dim() >= 6) {
            throw new GuestFault(insn.mnemonic() + " with DIM " + m.dim() + ": the host model samples 1D, 2D, 3D, "
                    + "1D/2D arrays and cubes only (MSAA sampling is not modelled)");
        }
        boolean cube = m.dim() == 3;
        ImageView v = ImageView.of(w, m.srsrc(), m.r128());
        if (v.levels() <= 0) {
            throw new GuestFault(String.format("%s through %s: BASE_LEVEL %d is past LAST_LEVEL %d, the view has no level "
                    + "to sample (not modelled)", insn.mnemonic(), v.descriptor, v.descriptor.baseLevel(),
                    v.descriptor.lastLevel()));
        }
        if (v.descriptor.minLod() != 0) {
            throw new GuestFault(String.format("%s through %s: the T#'s MIN_LOD clamp %.4f (word 1 [19:8]) is not modelled",
                    insn.mnemonic(), v.descriptor, v.descriptor.minLod() / 256.0));
        }
        int[] words = {w.sgpr(m.ssamp()), w.sgpr(m.ssamp() + 1), w.sgpr(m.ssamp() + 2), w.sgpr(m.ssamp() + 3)};
        SamplerDescriptor s = SamplerDescriptor.decode(words);
        if (cube) {
            if (lodKind == Lod.DERIVED && v.levels() != 1) {
                throw new GuestFault(String.format("%s through %s: a derived LOD on a cube of %d levels (implicit-LOD "
                        + "mipmapped cube sampling is not modelled; image_sample_l and _lz are)", insn.mnemonic(),
                        v.descriptor, v.levels()));
            }
            if (lodKind == Lod.DERIVED && s.magFilter() != s.minFilter()) {
                throw new GuestFault(insn.mnemonic() + ": a derived cube LOD choosing between different "
                        + "magnification and minification filters is not modelled");
            }
            s = new SamplerDescriptor(AddressMode.CLAMP_LAST_TEXEL, AddressMode.CLAMP_LAST_TEXEL, s.clampZ(),
                    s.word0Rest(), s.minLod(), s.maxLod(), s.word1Rest(), s.lodBias(), s.magFilter(), s.minFilter(),
                    s.zFilter(), s.mipFilter(), s.word2Rest(), s.borderColorPtr(), s.borderColor(), s.word3Rest());
            if (lodKind == Lod.DERIVED) {
                // one level and one filter (checked above): the derived LOD would change nothing
                lodKind = Lod.ZERO;
            }
        }
        boolean unnormalized = m.unorm() || s.forceUnnormalized();
        int n = ImageUnit.coordinates(m);
        boolean threeD = m.dim() == 2;
        boolean twoD = m.dim() == 1 || m.dim() == 5 || threeD || cube;
        boolean array = m.dim() >= 4 || cube;
        int size = w.waveSize();
        float[] us = new float[size];
        float[] vs = new float[size];
        float[] rs = new float[size];
        float[] slices = new float[size];
        float[] lods = new float[size];
        for (int lane = 0; lane < size; lane++) {
            us[lane] = ImageUnit.floatAddress(w, m, 0, lane);
            vs[lane] = twoD ? ImageUnit.floatAddress(w, m, 1, lane) : 0.5f;
            rs[lane] = threeD ? ImageUnit.floatAddress(w, m, 2, lane) : 0.5f;
            slices[lane] = array ? ImageUnit.floatAddress(w, m, n - 1, lane) : 0;
            lods[lane] = lodKind == Lod.EXPLICIT ? ImageUnit.floatAddress(w, m, n, lane) : 0;
            if (cube) {
                us[lane] -= 1;
                vs[lane] -= 1;
                // the slice is face + 8 * cube (v_cubeid plus 8 times a cube array's index): that cube's faces are
                // layers 6 * cube .. 6 * cube + 5
                double id = Math.floor(slices[lane] + 0.5);
                if (id >= 0 && id < 8 * 8192) {
                    int k = (int) id;
                    slices[lane] = (k >> 3) * 6 + (k & 7);
                }
            }
        }
        float[] border = null;
        for (int lane = 0; lane < size; lane++) {
            if (!w.active(lane)) {
                continue;
            }
            double lod = switch (lodKind) {
                case ZERO -> 0;
                case EXPLICIT -> lods[lane];
                case DERIVED -> derivedLod(v, unnormalized, twoD, threeD, us, vs, rs, lane) + s.lodBias() / 256.0;
            };
            if (border == null) {
                border = borderColour(s, v);
            }
            int[] channels = new int[4];
            if (v.format.integer()) {
                channels = integerPoint(v, s, unnormalized, at(twoD, threeD, cube, us, vs, rs, slices, lane), lod, border);
            } else {
                float[] texel = filter(v, s, unnormalized, at(twoD, threeD, cube, us, vs, rs, slices, lane), lod, border);
                for (int c = 0; c < 4; c++) {
                    channels[c] = Float.floatToRawIntBits(texel[c]);
                }
            }
            ImageUnit.writeData(w, m, lane, v.select(channels), v.format);
        }
    }

    /** Where one lane samples: u, v, r (0.5 on the axes the image lacks), the array slice, and whether on a cube. */
    record At(float u, float v, float r, float slice, boolean twoD, boolean threeD, boolean cube) {
    }

    private static At at(boolean twoD, boolean threeD, boolean cube, float[] us, float[] vs, float[] rs, float[] slices,
                         int lane) {
        return new At(us[lane], vs[lane], rs[lane], slices[lane], twoD, threeD, cube);
    }

    private static float[] borderColour(SamplerDescriptor s, ImageView v) {
        try {
            return s.borderRgba();
        } catch (IllegalArgumentException e) {
            boolean used = false;
            for (AddressMode a : new AddressMode[] {s.clampX(), s.clampY(), s.clampZ()}) {
                used |= a.ordinal() >= AddressMode.CLAMP_HALF_BORDER.ordinal();
            }
            if (used) {
                throw new GuestFault(e.getMessage());
            }
            return new float[4];
        }
    }

    /** log2 of the larger of the quad's horizontal and vertical coordinate differences, in texels of level 0. */
    private static double derivedLod(ImageView v, boolean unnormalized, boolean twoD, boolean threeD, float[] us,
                                     float[] vs, float[] rs, int lane) {
        int level = v.level(0);
        double sw = unnormalized ? 1 : v.width(Math.max(level, 0));
        double sh = unnormalized ? 1 : v.height(Math.max(level, 0));
        double sd = unnormalized ? 1 : v.depth(Math.max(level, 0));
        int h = lane ^ 1;
        int vert = lane ^ 2;
        if (vert >= us.length) {
            return 0;
        }
        double dxu = (us[h] - us[lane]) * sw;
        double dxv = twoD ? (vs[h] - vs[lane]) * sh : 0;
        double dyu = (us[vert] - us[lane]) * sw;
        double dyv = twoD ? (vs[vert] - vs[lane]) * sh : 0;
        double dxr = threeD ? (rs[h] - rs[lane]) * sd : 0;
        double dyr = threeD ? (rs[vert] - rs[lane]) * sd : 0;
        double rho = Math.max(Math.sqrt(dxu * dxu + dxv * dxv + dxr * dxr), Math.sqrt(dyu * dyu + dyv * dyv + dyr * dyr));
        return rho > 0 ? Math.log(rho) / Math.log(2) : -128;
    }

    /** The filtered texel (storage-order channels; integer formats hold their integer values) at a LOD. */
    static float[] filter(ImageView v, SamplerDescriptor s, boolean unnormalized, At at, double lod, float[] border) {
        int levels = v.levels();
        double clamped = Math.max(s.minLodLevel(), Math.min(s.maxLodLevel(), Double.isNaN(lod) ? 0 : lod));
        clamped = Math.max(0, Math.min(levels - 1, clamped));
        boolean integer = v.format.integer();
        SamplerDescriptor.Filter f = lod <= 0 ? s.magFilter() : s.minFilter();
        boolean bilinear = !integer && (f == SamplerDescriptor.Filter.BILINEAR || f == SamplerDescriptor.Filter.ANISO_BILINEAR);
        int layer = (int) Math.max(0, Math.min(v.layers() - 1, Math.floor(at.slice() + 0.5)));
        int mipFilter = integer && s.mipFilter() == 2 ? 1 : s.mipFilter();
        if (mipFilter == 0) {
            return level(v, s, unnormalized, at, bilinear, layer, 0, border);
        }
        if (mipFilter == 1) {
            return level(v, s, unnormalized, at, bilinear, layer, (int) Math.floor(clamped + 0.5), border);
        }
        int lo = (int) Math.floor(clamped);
        double frac = quantize(clamped - lo);
        float[] a = level(v, s, unnormalized, at, bilinear, layer, lo, border);
        if (frac == 0 || lo + 1 >= levels) {
            return a;
        }
        float[] b = level(v, s, unnormalized, at, bilinear, layer, lo + 1, border);
        float[] out = new float[4];
        for (int c = 0; c < 4; c++) {
            out[c] = (float) (a[c] * (1 - frac) + b[c] * frac);
        }
        return out;
    }

    /**
     * An integer format's sample: always point, at the nearest level, the texel's integer channels as they
     * lie (a border tap gives the border colour's 0 or 1 per channel).
     */
    private static int[] integerPoint(ImageView v, SamplerDescriptor s, boolean unnormalized, At at, double lod,
                                      float[] border) {
        int levels = v.levels();
        double clamped = Math.max(s.minLodLevel(), Math.min(s.maxLodLevel(), Double.isNaN(lod) ? 0 : lod));
        int viewLevel = s.mipFilter() == 0 ? 0 : (int) Math.floor(Math.max(0, Math.min(levels - 1, clamped)) + 0.5);
        int level = v.level(viewLevel);
        int w = v.width(level);
        int h = at.twoD() ? v.height(level) : 1;
        int d = at.threeD() ? v.depth(level) : 1;
        double x = halfBorder(s.clampX(), unnormalized ? at.u() : (double) at.u() * w, w);
        double y = at.twoD() ? halfBorder(s.clampY(), unnormalized ? at.v() : (double) at.v() * h, h) : 0.5;
        double z = at.threeD() ? halfBorder(s.clampZ(), unnormalized ? at.r() : (double) at.r() * d, d) : 0.5;
        long xi = address(s.clampX(), (long) Math.floor(x), w);
        long yi = address(s.clampY(), (long) Math.floor(y), h);
        long zi = address(s.clampZ(), (long) Math.floor(z), d);
        int[] out = new int[4];
        if (xi < 0 || yi < 0 || zi < 0) {
            for (int c = 0; c < 4; c++) {
                out[c] = (int) border[c];
            }
            return out;
        }
        int layer = (int) Math.max(0, Math.min(v.layers() - 1, Math.floor(at.slice() + 0.5)));
        long texel = v.texel(level, layer, (int) xi, (int) yi, (int) zi);
        return texel < 0 ? out : v.channels(texel);
    }

    /** A fraction rounded to eight bits. */
    static double quantize(double f) {
        return Math.rint(f * 256) / 256;
    }

    private static float[] level(ImageView v, SamplerDescriptor s, boolean unnormalized, At at, boolean bilinear,
                                 int layer, int viewLevel, float[] border) {
        int level = v.level(viewLevel);
        int[] n = {v.width(level), at.twoD() ? v.height(level) : 1, at.threeD() ? v.depth(level) : 1};
        double x = halfBorder(s.clampX(), unnormalized ? at.u() : (double) at.u() * n[0], n[0]);
        double y = at.twoD() ? halfBorder(s.clampY(), unnormalized ? at.v() : (double) at.v() * n[1], n[1]) : 0.5;
        double z = at.threeD() ? halfBorder(s.clampZ(), unnormalized ? at.r() : (double) at.r() * n[2], n[2]) : 0.5;
        if (!bilinear) {
            return tap(v, s, level, layer, new long[] {(long) Math.floor(x), (long) Math.floor(y), (long) Math.floor(z)},
                    n, border);
        }
        // per axis the lower tap and the eight-bit fraction toward the upper one (0 on axes the image lacks)
        double[] c = {x - 0.5, at.twoD() ? y - 0.5 : 0, at.threeD() ? z - 0.5 : 0};
        long[] lo = new long[3];
        double[] f = new double[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = (long) Math.floor(c[a]);
            f[a] = quantize(c[a] - lo[a]);
        }
        if (at.cube()) {
            return cubeBilinear(v, level, layer, lo, f, n[0]);
        }
        int corners = at.threeD() ? 8 : at.twoD() ? 4 : 2;
        double[] out = new double[4];
        for (int corner = 0; corner < corners; corner++) {
            double weight = 1;
            long[] i = new long[3];
            for (int a = 0; a < 3; a++) {
                int up = corner >>> a & 1;
                weight *= up == 1 ? f[a] : 1 - f[a];
                i[a] = lo[a] + up;
            }
            float[] t = tap(v, s, level, layer, i, n, border);
            for (int ch = 0; ch < 4; ch++) {
                out[ch] += weight * t[ch];
            }
        }
        return new float[] {(float) out[0], (float) out[1], (float) out[2], (float) out[3]};
    }

    /**
     * Seamless cube filtering (the Vulkan specification's cube map edge handling): a tap past one edge of its
     * face reads the texel the neighbouring face holds there (found by taking the tap's centre as a direction
     * and choosing the face again, as v_cubeid would); a tap past a corner (past both edges, where three faces
     * meet) is the average of the footprint's other three taps. The cube is the six layers from the view layer's
     * face 0.
     */
    private static float[] cubeBilinear(ImageView v, int level, int layer, long[] lo, double[] f, int size) {
        int face = layer % 6;
        int first = layer - face;
        float[][] taps = new float[4][];
        int missing = -1;
        for (int corner = 0; corner < 4; corner++) {
            long x = lo[0] + (corner & 1);
            long y = lo[1] + (corner >> 1);
            boolean outX = x < 0 || x >= size;
            boolean outY = y < 0 || y >= size;
            if (outX && outY) {
                missing = corner;
                continue;
            }
            int[] where = outX || outY ? across(face, x, y, size) : new int[] {face, (int) x, (int) y};
            long texel = v.texel(level, first + where[0], where[1], where[2], 0);
            float[] t = new float[4];
            if (texel >= 0) {
                int[] regs = v.channels(texel);
                for (int c = 0; c < 4; c++) {
                    t[c] = Float.intBitsToFloat(regs[c]);
                }
            }
            taps[corner] = t;
        }
        if (missing >= 0) {
            float[] avg = new float[4];
            for (int c = 0; c < 4; c++) {
                double sum = 0;
                for (int k = 0; k < 4; k++) {
                    sum += k == missing ? 0 : taps[k][c];
                }
                avg[c] = (float) (sum / 3);
            }
            taps[missing] = avg;
        }
        double[] out = new double[4];
        for (int corner = 0; corner < 4; corner++) {
            double weight = ((corner & 1) == 1 ? f[0] : 1 - f[0]) * ((corner >> 1) == 1 ? f[1] : 1 - f[1]);
            for (int c = 0; c < 4; c++) {
                out[c] += weight * taps[corner][c];
            }
        }
        return new float[] {(float) out[0], (float) out[1], (float) out[2], (float) out[3]};
    }

    /**
     * The face and texel that a texel position just past one edge of {@code face} lies on: its centre as a
     * direction (Vulkan's face table: +X sc -z tc -y; -X +z -y; +Y +x +z; -Y +x -z; +Z +x -y; -Z -x -y), then the
     * face of its major axis and the texel there.
     */
    static int[] across(int face, long x, long y, int size) {
        double sc = 2 * (x + 0.5) / size - 1;
        double tc = 2 * (y + 0.5) / size - 1;
        double[] d = switch (face) {
            case 0 -> new double[] {1, -tc, -sc};
            case 1 -> new double[] {-1, -tc, sc};
            case 2 -> new double[] {sc, 1, tc};
            case 3 -> new double[] {sc, -1, -tc};
            case 4 -> new double[] {sc, -tc, 1};
            default -> new double[] {-sc, -tc, -1};
        };
        double ax = Math.abs(d[0]);
        double ay = Math.abs(d[1]);
        double az = Math.abs(d[2]);
        int to;
        double s;
        double t;
        double ma;
        if (az >= ax && az >= ay) {
            to = d[2] >= 0 ? 4 : 5;
            ma = az;
            s = d[2] >= 0 ? d[0] : -d[0];
            t = -d[1];
        } else if (ay >= ax) {
            to = d[1] >= 0 ? 2 : 3;
            ma = ay;
            s = d[0];
            t = d[1] >= 0 ? d[2] : -d[2];
        } else {
            to = d[0] >= 0 ? 0 : 1;
            ma = ax;
            s = d[0] >= 0 ? -d[2] : d[2];
            t = -d[1];
        }
        int nx = (int) Math.max(0, Math.min(size - 1, Math.floor((s / ma + 1) / 2 * size)));
        int ny = (int) Math.max(0, Math.min(size - 1, Math.floor((t / ma + 1) / 2 * size)));
        return new int[] {to, nx, ny};
    }

    /** The half-border modes clamp the (mirrored-once) coordinate to [-0.5, n + 0.5] texels. */
    private static double halfBorder(AddressMode mode, double x, int n) {
        return switch (mode) {
            case CLAMP_HALF_BORDER -> Math.max(-0.5, Math.min(n + 0.5, x));
            case MIRROR_ONCE_HALF_BORDER -> Math.min(n + 0.5, Math.abs(x));
            default -> x;
        };
    }

    /** A tap's texel index brought back into [0, n) by the address mode, or -1 for the border. */
    static long address(AddressMode mode, long i, int n) {
        return switch (mode) {
            case WRAP -> Math.floorMod(i, n);
            case MIRROR -> {
                long k = Math.floorMod(i, 2L * n);
                yield k < n ? k : 2L * n - 1 - k;
            }
            case CLAMP_LAST_TEXEL -> Math.max(0, Math.min(n - 1, i));
            case MIRROR_ONCE_LAST_TEXEL -> Math.min(n - 1, i < 0 ? -1 - i : i);
            case CLAMP_HALF_BORDER, CLAMP_BORDER -> i >= 0 && i < n ? i : -1;
            case MIRROR_ONCE_HALF_BORDER, MIRROR_ONCE_BORDER -> {
                long k = i < 0 ? -1 - i : i;
                yield k < n ? k : -1;
            }
        };
    }

    private static float[] tap(ImageView v, SamplerDescriptor s, int level, int layer, long[] i, int[] n, float[] border) {
        long x = address(s.clampX(), i[0], n[0]);
        long y = address(s.clampY(), i[1], n[1]);
        long z = address(s.clampZ(), i[2], n[2]);
        if (x < 0 || y < 0 || z < 0) {
            return border.clone();
        }
        long texel = v.texel(level, layer, (int) x, (int) y, (int) z);
        float[] out = new float[4];
        if (texel < 0) {
            return out;
        }
        int[] regs = v.channels(texel);
        for (int c = 0; c < 4; c++) {
            out[c] = v.format.integer() ? regs[c] : Float.intBitsToFloat(regs[c]);
        }
        return out;
    }
}
