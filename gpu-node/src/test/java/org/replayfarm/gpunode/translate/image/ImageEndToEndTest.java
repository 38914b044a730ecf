package org.replayfarm.gpunode.translate.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.bvh.BvhBuilder;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.ImageType;

/**
 * Image and BVH programs end to end: the translation (ImageEmitter, rt_image.h, the image section) run by
 * the CPU runner against the host model — final images, every VGPR of every lane, faults — bit for bit for
 * the exact instructions, and within the host model's stated bound for sampling and the node tests
 * (approximate; the values that were not bit-equal are counted and printed).
 */
@Tag("corpus")
class ImageEndToEndTest {
    @TempDir
    Path dir;

    /** T# of argument 0 in s[8:15], of argument 1 in s[24:31]; lane (x, y) = (v0 % 4, v0 / 4) in v1, v2. */
    static final String PROLOGUE = """
            s_load_dwordx2 s[2:3], s[0:1], 0x0
            s_load_dwordx2 s[4:5], s[0:1], 0x8
            s_load_dwordx2 s[6:7], s[0:1], 0x10
            s_waitcnt lgkmcnt(0)
            s_load_dwordx8 s[8:15], s[2:3], 0x0
            s_load_dwordx8 s[24:31], s[4:5], 0x0
            s_waitcnt lgkmcnt(0)
            v_and_b32 v1, 3, v0
            v_lshrrev_b32 v2, 2, v0
            """;

    private Path file(String name, byte[] b) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, b);
        return p;
    }

    private static long[] unequal() {
        return new long[1];
    }

    private void same(String what, String asm, int wave, int lanes, int groups, List<String> args,
                      UnaryOperator<Capture> patch, Set<Integer> approximate, float bound, long[] approx) throws Exception {
        var capture = ImageRig.capture(dir, asm, wave, lanes, groups, args, patch);
        ImageRig.Side host = ImageRig.host(capture);
        ImageRig.Side device = ImageRig.device(capture, dir);
        List<String> diff = ImageRig.differences(host, device, lanes, wave, approximate, bound, approx);
        assertTrue(diff.isEmpty(), what + ":\n  " + String.join("\n  ", diff));
        assertTrue(host.faults().stream().allMatch(String::isEmpty), what + ": the host model faulted " + host.messages());
    }

    /**
     * image_load (every DMASK, D16, TFE), image_store, image_store d16, image_get_resinfo over formats of every
     * data layout and numeric kind, random texels (NaNs, denormals, extremes included): the loaded VGPRs and the
     * stored images equal the host model's.
     */
    @Test
    void loads_and_stores_of_every_layout_and_kind() throws Exception {
        String asm = PROLOGUE + """
                image_load v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                image_load v[8:10], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm tfe d16
                image_load v[11:12], v[1:2], s[8:15] dmask:0x9 dim:SQ_RSRC_IMG_2D unorm
                image_get_resinfo v[13:16], v1, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                image_load v[17:18], v[1:2], s[8:15] dmask:0x0 dim:SQ_RSRC_IMG_2D unorm tfe
                v_add_nc_u32 v19, 3, v1
                image_load v[20:23], v[19:20], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                image_store v[4:7], v[1:2], s[24:31] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                s_waitcnt vmcnt(0)
                """;
        Random r = new Random(5);
        String[] formats = {"8_8_8_8_UNORM", "8_8_8_8_SNORM", "8_8_8_8_SRGB", "8_8_8_8_UINT", "8_SINT", "16_16_FLOAT",
                "16_16_16_16_UNORM", "16_SSCALED", "8_8_USCALED", "32_FLOAT", "32_32_UINT", "32_32_32_32_SINT",
                "32_32_32_FLOAT", "10_11_11_FLOAT", "11_11_10_FLOAT", "2_10_10_10_UNORM", "10_10_10_2_SNORM",
                "2_10_10_10_UINT", "16_16_16_16_FLOAT", "8_8_SRGB"};
        for (String name : formats) {
            ImageFormat f = ImageFormat.parse(name);
            byte[] in = new byte[16 * f.bytesPerTexel()];
            r.nextBytes(in);
            Path a = file(name + ".in", in);
            Path b = file(name + ".out", new byte[in.length]);
            same(name, asm, 32, 16, 1, List.of("image:raw:" + a + ",4x4,format=" + name + ",order=ZYXW",
                    "image:raw:" + b + ",4x4,format=" + name, "zeros:64"), c -> c, Set.of(), 0, unequal());
        }
    }

    /** A16 coordinates, NSA addresses, mip levels (load_mip/store_mip), 1D and 3D and 2D-array views, wave64. */
    @Test
    void mips_arrays_3d_a16_and_nsa_in_wave64() throws Exception {
        String asm = PROLOGUE + """
                v_and_b32 v3, 1, v0
                v_lshlrev_b32 v5, 16, v2
                v_or_b32 v5, v5, v1
                image_load_mip v[6:7], [v1, v2, v3], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm
                image_load v[8:9], v5, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm a16
                image_get_resinfo v[10:13], v3, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                v_mov_b32 v14, 1.0
                v_mov_b32 v15, 0x3e8
                image_store_mip v[14:15], [v1, v2, v3], s[24:31] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm
                image_store v14, v[1:2], s[24:31] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm d16
                s_waitcnt vmcnt(0)
                """;
        Random r = new Random(6);
        byte[] in = new byte[8 * (16 + 4 + 1)];
        r.nextBytes(in);
        Path a = file("m.in", in);
        Path b = file("m.out", new byte[in.length / 2]);
        same("mips", asm, 64, 64, 1, List.of("image:raw:" + a + ",4x4,format=32_32_UINT,mips=3",
                "image:raw:" + b + ",4x4,format=16_16_FLOAT,mips=3", "zeros:64"), c -> c, Set.of(), 0, unequal());

        // a 2x2 image of 3 layers viewed as a 2D array and as 1D / 3D through the T#'s TYPE
        String arrays = PROLOGUE + """
                v_lshrrev_b32 v3, 3, v0
                image_load v[4:5], v[1:3], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D_ARRAY unorm
                image_get_resinfo v[6:9], v3, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY unorm
                image_load v[10:11], v1, s[24:31] dmask:0x3 dim:SQ_RSRC_IMG_1D unorm
                image_load v[12:13], v[1:3], s[24:31] dmask:0x3 dim:SQ_RSRC_IMG_3D unorm
                s_waitcnt vmcnt(0)
                """;
        byte[] layers = new byte[8 * 12];
        r.nextBytes(layers);
        Path l = file("l.in", layers);
        byte[] vol = new byte[8 * 4 * 4 * 2];
        r.nextBytes(vol);
        Path v = file("v.in", vol);
        same("arrays", arrays, 32, 32, 1, List.of("image:raw:" + l + ",2x2x3,format=32_32_FLOAT",
                "image:raw:" + v + ",4x4x2,format=16_16_16_16_UINT", "zeros:64"), c -> {
                    Capture.Builder x = c.toBuilder();
                    x.setImages(0, x.getImages(0).toBuilder().setType(ImageType.IMAGE_2D_ARRAY).setDepth(1).setLayers(3));
                    return x.build();
                }, Set.of(), 0, unequal());
    }

    /** Every image atomic, 32-bit and 64-bit, GLC returns, lanes racing on texels, two groups combining. */
    @Test
    void atomics() throws Exception {
        StringBuilder asm = new StringBuilder(PROLOGUE + """
                v_and_b32 v1, 1, v0
                v_mov_b32 v2, 0
                v_mul_lo_u32 v3, 0x9e3779b9, v0
                v_mov_b32 v4, v3
                """);
        String[] ops = {"add", "sub", "smin", "umin", "smax", "umax", "and", "or", "xor", "inc", "dec", "swap"};
        int reg = 10;
        for (String op : ops) {
            asm.append(String.format("v_mov_b32 v%d, v3%nimage_atomic_%s v%d, v[1:2], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc%n",
                    reg, op, reg));
            reg++;
        }
        asm.append("""
                v_mov_b32 v30, v0
                v_mov_b32 v31, 5
                image_atomic_cmpswap v[30:31], v[1:2], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm glc
                v_mov_b32 v32, v3
                v_mov_b32 v33, v0
                image_atomic_add v[32:33], v[1:2], s[24:31] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm glc
                s_waitcnt vmcnt(0)
                """);
        Path a = file("a.in", new byte[4 * 2]);
        Path b = file("b.in", new byte[8 * 2]);
        List<String> args = List.of("image:raw:" + a + ",2x1,format=32_UINT", "image:raw:" + b + ",2x1,format=32_32_UINT",
                "zeros:64");
        same("atomics, one group", asm.toString(), 32, 32, 1, args, c -> c, Set.of(), 0, unequal());
        // two groups: commutative atomics (no GLC) combine in any order
        String two = PROLOGUE + """
                v_and_b32 v1, 1, v0
                v_mov_b32 v2, 0
                v_add_nc_u32 v3, s20, v0
                image_atomic_add v3, v[1:2], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                image_atomic_umax v3, v[1:2], s[24:31] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                s_waitcnt vmcnt(0)
                """;
        Path c = file("c.in", new byte[4 * 2]);
        same("atomics, two groups", two, 32, 32, 2, List.of("image:raw:" + a + ",2x1,format=32_UINT",
                "image:raw:" + c + ",2x1,format=32_UINT", "zeros:64"), x -> x, Set.of(), 0, unequal());
    }

    private static byte[] floats(float... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : v) {
            b.putFloat(f);
        }
        return b.array();
    }

    /**
     * image_sample_lz, image_sample_l and image_sample (derived LOD over the quad) with point and bilinear
     * filters in every address mode, borders, unnormalised coordinates, a16, mips: within the host model's bound.
     */
    @Test
    void sampling_in_every_address_mode() throws Exception {
        String asm = PROLOGUE + """
                s_load_dwordx4 s[32:35], s[6:7], 0x0
                s_waitcnt lgkmcnt(0)
                v_cvt_f32_u32 v3, v0
                v_mul_f32 v4, 0x3e0f5c29, v3
                v_sub_f32 v4, v4, 0x3fc00000
                v_mul_f32 v5, 0x3d4ccccd, v3
                v_sub_f32 v5, 0x3f000000, v5
                v_mul_f32 v6, 0x3e800000, v3
                image_sample_lz v[8:11], v[4:5], s[8:15], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_2D
                image_sample_l v[12:15], v[4:6], s[8:15], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_2D
                image_sample v[16:19], v[4:5], s[8:15], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_2D
                image_sample_lz v[20:23], v4, s[8:15], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_1D
                v_cvt_f16_f32 v24, v4
                v_cvt_f16_f32 v25, v5
                v_lshl_or_b32 v24, v25, 16, v24
                image_sample_lz v26, v24, s[8:15], s[32:35] dmask:0x3 dim:SQ_RSRC_IMG_2D a16 d16
                s_waitcnt vmcnt(0)
                """;
        Random r = new Random(9);
        float[] tex = new float[4 * (16 + 4 + 1)];
        for (int i = 0; i < tex.length; i++) {
            tex[i] = r.nextFloat() * 2 - 0.5f;
        }
        Path a = file("s.in", floats(tex));
        Set<Integer> approx = new java.util.HashSet<>();
        for (int v = 8; v <= 27; v++) {
            approx.add(v);
        }
        long[] count = unequal();
        int runs = 0;
        String[] modes = {"wrap", "mirror", "clamp", "mirror_once", "clamp_half_border", "mirror_once_half_border",
                "border", "mirror_once_border"};
        for (String filter : new String[] {"point", "bilinear"}) {
            for (String mode : modes) {
                String sampler = "sampler:" + filter + "," + mode + (mode.contains("border") ? ",border=opaque_white" : "");
                // bound: the texels span [-0.5, 1.5): (max - min) * 2^-8 plus an ulp
                same(filter + " " + mode, asm, 32, 32, 1, List.of("image:raw:" + a + ",4x4,format=32_32_32_32_FLOAT,mips=3",
                        "zeros:64", sampler), c -> c, approx, 2f / 256 + 1e-6f, count);
                runs++;
            }
        }
        same("unnormalized", asm, 32, 32, 1, List.of("image:raw:" + a + ",4x4,format=32_32_32_32_FLOAT,mips=3",
                "zeros:64", "sampler:bilinear,wrap,unnormalized"), c -> c, approx, 2f / 256 + 1e-6f, count);
        System.out.printf("sampling: %d runs of 32 lanes x 18 values, %d values not bit-equal (all within the bound)%n",
                runs + 1, count[0]);
    }

    /** 3D (eight taps, CLAMP_Z) and 2D-array sampling (slice rounding and clamping), through T# TYPEs the program sets. */
    @Test
    void sampling_3d_and_arrays() throws Exception {
        String asm = PROLOGUE + """
                s_load_dwordx4 s[32:35], s[6:7], 0x0
                s_waitcnt lgkmcnt(0)
                s_mov_b32 s16, s8
                s_mov_b32 s17, s9
                s_mov_b32 s18, s10
                s_and_b32 s19, s11, 0x0fffffff
                s_or_b32 s19, s19, 0xa0000000
                s_and_b32 s20, s12, 0xffffc000
                s_or_b32 s20, s20, 1
                s_mov_b32 s21, s13
                s_mov_b32 s22, s14
                s_mov_b32 s23, s15
                s_and_b32 s27, s27, 0x0fffffff
                s_or_b32 s27, s27, 0xd0000000
                v_cvt_f32_u32 v3, v0
                v_mul_f32 v4, 0x3e0f5c29, v3
                v_sub_f32 v4, v4, 0x3f400000
                v_mul_f32 v5, 0x3d4ccccd, v3
                v_sub_f32 v5, 0x3f200000, v5
                v_mul_f32 v6, 0x3d8f5c29, v3
                v_sub_f32 v6, v6, 0x3f000000
                image_sample_lz v[8:11], v[4:6], s[16:23], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_3D
                image_sample_lz v[12:15], v[4:6], s[24:31], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY
                v_mov_b32 v7, 0
                image_sample_l v[16:19], v[4:7], s[24:31], s[32:35] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY
                s_waitcnt vmcnt(0)
                """;
        Random r = new Random(19);
        float[] tex = new float[4 * 32];
        for (int i = 0; i < tex.length; i++) {
            tex[i] = r.nextFloat();
        }
        Path a = file("v.in", floats(tex));
        Set<Integer> approx = new java.util.HashSet<>();
        for (int v = 8; v <= 19; v++) {
            approx.add(v);
        }
        long[] count = unequal();
        for (String sampler : new String[] {"sampler:bilinear,wrap", "sampler:bilinear,mirror_once_border,border=opaque_black",
                "sampler:point,clamp", "sampler:bilinear,clamp_half_border"}) {
            // argument 0 the 3D image (its T# made 3D with depth 2 above), 1 the same texels as a 2D array of 2 layers
            same(sampler, asm, 32, 32, 1, List.of("image:raw:" + a + ",4x4x2,format=32_32_32_32_FLOAT",
                    "image:raw:" + a + ",4x4x2,format=32_32_32_32_FLOAT", sampler), c -> {
                        Capture.Builder x = c.toBuilder();
                        x.setImages(1, x.getImages(1).toBuilder().setType(ImageType.IMAGE_2D_ARRAY).setDepth(1).setLayers(2));
                        return x.build();
                    }, approx, 1f / 256 + 1e-6f, count);
        }
        System.out.printf("3D / array sampling: 4 runs of 32 lanes x 12 values, %d values not bit-equal%n", count[0]);
    }

    /** image_bvh_intersect_ray (plain, a16) and image_bvh64_intersect_ray on a built scene, both return modes. */
    @Test
    void bvh_intersections() throws Exception {
        Random r = new Random(11);
        float[] tris = new float[9 * 60];
        for (int i = 0; i < 60; i++) {
            float cx = r.nextFloat() * 10;
            float cy = r.nextFloat() * 10;
            float cz = r.nextFloat() * 10;
            for (int k = 0; k < 3; k++) {
                tris[9 * i + 3 * k] = cx + r.nextFloat() * 2 - 1;
                tris[9 * i + 3 * k + 1] = cy + r.nextFloat() * 2 - 1;
                tris[9 * i + 3 * k + 2] = cz + r.nextFloat() * 2 - 1;
            }
        }
        BvhBuilder.Bvh bvh = BvhBuilder.build(tris, 2);
        ByteBuffer nodes = ByteBuffer.wrap(bvh.nodes()).order(ByteOrder.LITTLE_ENDIAN);
        List<Long> pointers = new ArrayList<>(List.of(5L));
        for (int i = 0; i < pointers.size(); i++) {
            long p = pointers.get(i);
            if ((p & 7) >= 4) {
                for (int k = 0; k < 4; k++) {
                    int c = nodes.getInt((int) ((p >>> 3) << 6) + 4 * k);
                    if (c != -1) {
                        pointers.add(Integer.toUnsignedLong(c));
                    }
                }
            }
        }
        // per lane: node, extent, origin, dir, inv dir (12 dwords, 3 texels of a 32x3 32_32_32_32_UINT image)
        ByteBuffer rays = ByteBuffer.allocate(32 * 3 * 16).order(ByteOrder.LITTLE_ENDIAN);
        int[][] lanes = new int[32][12];
        for (int l = 0; l < 32; l++) {
            float[] o = {r.nextFloat() * 10, r.nextFloat() * 10, r.nextFloat() * 10};
            float[] d = new float[3];
            for (int a = 0; a < 3; a++) {
                int q = r.nextInt(127) - 63;
                d[a] = (q == 0 ? 1 : q) / 64f;
            }
            lanes[l][0] = (int) (long) pointers.get(r.nextInt(pointers.size()));
            lanes[l][1] = Float.floatToRawIntBits(l % 3 == 0 ? 4f : 1000f);
            for (int a = 0; a < 3; a++) {
                lanes[l][2 + a] = Float.floatToRawIntBits(o[a]);
                lanes[l][5 + a] = Float.floatToRawIntBits(d[a]);
                lanes[l][8 + a] = Float.floatToRawIntBits(1f / d[a]);
            }
            lanes[l][11] = 0;
        }
        for (int row = 0; row < 3; row++) {
            for (int l = 0; l < 32; l++) {
                for (int k = 0; k < 4; k++) {
                    rays.putInt(lanes[l][4 * row + k]);
                }
            }
        }
        Path raysFile = file("rays.in", rays.array());
        Path nodesFile = file("nodes.bin", bvh.nodes());
        String asm = """
                s_load_dwordx2 s[2:3], s[0:1], 0x0
                s_load_dwordx2 s[4:5], s[0:1], 0x8
                s_waitcnt lgkmcnt(0)
                s_load_dwordx8 s[8:15], s[2:3], 0x0
                s_load_dwordx4 s[16:19], s[4:5], 0x0
                s_waitcnt lgkmcnt(0)
                v_mov_b32 v1, 0
                v_mov_b32 v2, 1
                v_mov_b32 v3, 2
                image_load v[4:7], [v0, v1], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                image_load v[8:11], [v0, v2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                image_load v[12:15], [v0, v3], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                s_waitcnt vmcnt(0)
                image_bvh_intersect_ray v[20:23], v[4:14], s[16:19]
                v_mov_b32 v15, 0
                image_bvh64_intersect_ray v[24:27], [v4, v15, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14], s[16:19]
                v_cvt_f16_f32 v30, v9
                v_cvt_f16_f32 v31, v10
                v_cvt_f16_f32 v32, v11
                v_cvt_f16_f32 v33, v12
                v_cvt_f16_f32 v34, v13
                v_cvt_f16_f32 v35, v14
                v_lshl_or_b32 v36, v31, 16, v30
                v_lshl_or_b32 v37, v33, 16, v32
                v_lshl_or_b32 v38, v35, 16, v34
                image_bvh_intersect_ray v[40:43], [v4, v5, v6, v7, v8, v36, v37, v38], s[16:19] a16
                s_waitcnt vmcnt(0)
                """;
        Set<Integer> approx = Set.of(20, 21, 22, 23, 24, 25, 26, 27, 40, 41, 42, 43);
        for (String mode : new String[] {"ij", "id"}) {
            long[] count = unequal();
            // bound 0: GPURT's formulation on both sides, each operation rounded once to f32, must agree exactly
            same("bvh return=" + mode, asm, 32, 32, 1, List.of("image:raw:" + raysFile + ",32x3,format=32_32_32_32_UINT",
                    "bvh:" + nodesFile + ",return=" + mode), c -> c, approx, 0f, count);
            assertEquals(0, count[0], "node tests bit-equal");
        }
    }

    /** Every program this class ran through cuda-cpu also compiles with nvcc for sm_90 (ImageRig.nvccCheck). */
    @org.junit.jupiter.api.AfterAll
    static void its_programs_compile_with_nvcc_for_sm_90(@TempDir Path nvcc) throws Exception {
        int n = ImageRig.nvccCheck(nvcc);
        org.junit.jupiter.api.Assertions.assertTrue(n > 0, "no program was run, none compiled");
        System.out.println("[image nvcc] ImageEndToEndTest: " + n + " translations compiled for sm_90");
    }
}
