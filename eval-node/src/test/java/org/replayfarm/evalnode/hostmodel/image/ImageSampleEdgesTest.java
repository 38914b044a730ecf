package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;

/**
 * image_sample_lz on images that are not 4x2: a non-square, non-power-of-two 5x3, a single texel and a 1x4
 * column, in every address mode with an opaque white border, point and bilinear, at coordinates far outside
 * [0, 1) on both sides; unnormalised coordinates (the S#'s FORCE_UNNORMALIZED and the instruction's UNORM bit);
 * the a16 and d16 forms; DMASK with a gap and TFE. Expected values from {@link ReferenceFilter}.
 */
@Tag("unit")
class ImageSampleEdgesTest {
    @TempDir
    Path dir;

    private static final float[] US = {-1.3f, -0.6f, -0.05f, 0.1f, 0.5f, 0.77f, 1.2f, 2.4f};
    private static final float[] VS = {-0.9f, -0.2f, 0f, 0.33f, 0.6f, 0.999f, 1.45f, 3.1f};

    private static float[][] grid(int w, int h, float base) {
        float[][] g = new float[h][w];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                g[y][x] = base + x * 3 + y * 20 + (x == 2 ? 0.37f : 0);
            }
        }
        return g;
    }

    private static float[] flat(float[][] g) {
        float[] f = new float[g.length * g[0].length];
        for (int y = 0; y < g.length; y++) {
            System.arraycopy(g[y], 0, f, y * g[0].length, g[0].length);
        }
        return f;
    }

    /** Arguments: 0 results, 1..3 the three images, 4 the sampler, 5 the coordinates (u, v a lane). */
    private static final String PROGRAM = ImageUnitTest.PROLOGUE + """
            s_load_dwordx2 s[26:27], s[0:1], 0x18
            s_load_dwordx2 s[28:29], s[0:1], 0x20
            s_load_dwordx2 s[24:25], s[0:1], 0x28
            s_waitcnt lgkmcnt(0)
            s_load_dwordx8 s[32:39], s[6:7], 0x0
            s_load_dwordx8 s[40:47], s[26:27], 0x0
            s_load_dwordx4 s[16:19], s[28:29], 0x0
            v_lshlrev_b32 v5, 3, v0
            global_load_dwordx2 v[1:2], v5, s[24:25]
            s_waitcnt vmcnt(0) lgkmcnt(0)
            image_sample_lz v4, v[1:2], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
            image_sample_lz v5, v[1:2], s[32:39], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
            image_sample_lz v6, v[1:2], s[40:47], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
            s_waitcnt vmcnt(0)
            global_store_dwordx3 v3, v[4:6], s[2:3]
            """;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"point,wrap", "point,mirror", "point,clamp", "point,mirror_once", "point,clamp_half_border",
        "point,mirror_once_half_border", "point,border", "point,mirror_once_border", "bilinear,wrap", "bilinear,mirror",
        "bilinear,clamp", "bilinear,mirror_once", "bilinear,clamp_half_border", "bilinear,mirror_once_half_border",
        "bilinear,border", "bilinear,mirror_once_border"})
    void npot_single_texel_and_column_images_sample_as_the_reference_says_far_outside_0_1(String filter, String mode)
            throws Exception {
        float[][][] images = {grid(5, 3, 1), grid(1, 1, 7.5f), grid(1, 4, 10)};
        float[] coords = new float[128];
        for (int l = 0; l < 64; l++) {
            coords[2 * l] = US[l % 8];
            coords[2 * l + 1] = VS[l / 8];
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(64);
        var out = runner.arg("zeros:1024")
                .arg("image:raw:" + runner.file("a.raw", GuestAsm.floats(flat(images[0]))) + ",5x3,format=32_FLOAT")
                .arg("image:raw:" + runner.file("b.raw", GuestAsm.floats(flat(images[1]))) + ",1x1,format=32_FLOAT")
                .arg("image:raw:" + runner.file("c.raw", GuestAsm.floats(flat(images[2]))) + ",1x4,format=32_FLOAT")
                .arg("sampler:" + filter + "," + mode + ",border=opaque_white")
                .arg("buffer:" + runner.file("uv.bin", GuestAsm.floats(coords))).execute(PROGRAM).ok();
        ByteBuffer b = out.bufferView(0);
        for (int l = 0; l < 64; l++) {
            for (int k = 0; k < 3; k++) {
                float[][] img = images[k];
                float want = ReferenceFilter.sample(img, filter.equals("bilinear"), mode, coords[2 * l] * (double) img[0].length,
                        coords[2 * l + 1] * (double) img.length, 1f);
                assertEquals(want, b.getFloat(16 * l + 4 * k), 1e-5f, "image " + img[0].length + "x" + img.length + ", lane " + l
                        + " at (" + coords[2 * l] + ", " + coords[2 * l + 1] + ")");
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"point,clamp", "bilinear,clamp", "bilinear,border", "point,wrap"})
    void unnormalised_coordinates_are_texels_by_the_sampler_or_the_instruction(String filter, String mode) throws Exception {
        float[][] img = grid(5, 3, 1);
        float[] coords = new float[128];
        for (int l = 0; l < 64; l++) {
            coords[2 * l] = US[l % 8] * 5 + 0.25f * (l % 3);
            coords[2 * l + 1] = VS[l / 8] * 3;
        }
        // the S#'s FORCE_UNNORMALIZED for image 1; the instruction's UNORM bit for the same image as image 3
        String program = PROGRAM.replace("s[40:47], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D",
                "s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm").replace("s_waitcnt vmcnt(0) lgkmcnt(0)",
                "s_waitcnt vmcnt(0) lgkmcnt(0)\ns_mov_b64 s[48:49], s[16:17]\ns_mov_b64 s[50:51], s[18:19]\n"
                        + "s_bitset0_b32 s48, 15");
        GuestAsm runner = new GuestAsm(dir).groupSize(64);
        Path raw = runner.file("a.raw", GuestAsm.floats(flat(img)));
        var out = runner.arg("zeros:1024").arg("image:raw:" + raw + ",5x3,format=32_FLOAT")
                .arg("image:raw:" + raw + ",5x3,format=32_FLOAT").arg("image:raw:" + raw + ",5x3,format=32_FLOAT")
                .arg("sampler:" + filter + "," + mode + ",unnormalized")
                .arg("buffer:" + runner.file("uv.bin", GuestAsm.floats(coords))).execute(program).ok();
        ByteBuffer b = out.bufferView(0);
        for (int l = 0; l < 64; l++) {
            float want = ReferenceFilter.sample(img, filter.equals("bilinear"), mode, coords[2 * l], coords[2 * l + 1], 0f);
            assertEquals(want, b.getFloat(16 * l), 1e-5f, "FORCE_UNNORMALIZED, lane " + l);
            assertEquals(want, b.getFloat(16 * l + 8), 1e-5f, "UNORM bit, lane " + l);
        }
    }

    /** IEEE half bits to float, written here from the format. */
    private static float half(int h) {
        int e = h >>> 10 & 0x1F;
        int m = h & 0x3FF;
        double v = e == 0 ? m * Math.pow(2, -24) : (1 + m / 1024.0) * Math.pow(2, e - 15);
        return (float) ((h & 0x8000) != 0 ? -v : v);
    }

    /** The nearest half (ties to even) of a normal-range value, as bits. */
    private static int toHalf(float x) {
        double a = Math.abs(x);
        int e = Math.max(Math.getExponent(a), -14);
        long units = (long) Math.rint(a / Math.scalb(1.0, e - 10));
        int bits = (int) (e == -14 && units < 1024 ? units : ((long) (e + 15) << 10) + units - 1024);
        return (x < 0 ? 0x8000 : 0) | bits;
    }

    @Test
    void a16_coordinates_and_d16_results_pack_two_halves_a_register() throws Exception {
        // u, v as halves in one VGPR (u low); the result as a half in the low half of v4
        float[][] img = grid(5, 3, 1);
        int[] packed = new int[64];
        float[] us = new float[64];
        float[] vs = new float[64];
        for (int l = 0; l < 64; l++) {
            int hu = toHalf(US[l % 8] * 0.7f + 0.1f);
            int hv = toHalf(VS[l / 8] * 0.9f);
            us[l] = half(hu);
            vs[l] = half(hv);
            packed[l] = hu | hv << 16;
        }
        ByteBuffer in = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        for (int p : packed) {
            in.putInt(p);
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(64);
        Path raw = runner.file("a.raw", GuestAsm.floats(flat(img)));
        var out = runner.arg("zeros:1024").arg("image:raw:" + raw + ",5x3,format=32_FLOAT").arg("sampler:bilinear,mirror")
                .arg("buffer:" + runner.file("uv.bin", in.array())).execute(ImageUnitTest.PROLOGUE + """
                        s_load_dwordx4 s[16:19], s[6:7], 0x0
                        s_load_dwordx2 s[24:25], s[0:1], 0x18
                        s_waitcnt lgkmcnt(0)
                        v_lshlrev_b32 v5, 2, v0
                        global_load_dword v1, v5, s[24:25]
                        s_waitcnt vmcnt(0)
                        v_mov_b32 v4, 0x7777
                        image_sample_lz v4, v1, s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D a16 d16
                        s_waitcnt vmcnt(0)
                        global_store_dword v3, v4, s[2:3]
                        """).ok();
        ByteBuffer b = out.bufferView(0);
        for (int l = 0; l < 64; l++) {
            float want = ReferenceFilter.sample(img, true, "mirror", us[l], vs[l]);
            int got = b.getInt(16 * l);
            assertTrue(Math.abs(toHalf(want) - (got & 0xFFFF)) <= 1, "lane " + l + " at (" + us[l] + ", " + vs[l] + "): " + want
                    + " as a half (within one unit: the reference and the unit agree to 1e-5 before rounding), got 0x"
                    + Integer.toHexString(got));
            assertEquals(0, got >>> 16, "one channel: the high half is 0");
        }
    }

    @Test
    void dmask_with_a_gap_packs_the_selected_channels_and_tfe_adds_a_zero_status_register() throws Exception {
        // a 3x2 8_8_8_8_UNORM image, texel i = (10 i, 20 i + 1, 30 i + 2, 255 - i); DMASK 0xa: y then w; TFE: v7 = 0
        byte[] texels = new byte[24];
        for (int i = 0; i < 6; i++) {
            texels[4 * i] = (byte) (10 * i);
            texels[4 * i + 1] = (byte) (20 * i + 1);
            texels[4 * i + 2] = (byte) (30 * i + 2);
            texels[4 * i + 3] = (byte) (255 - i);
        }
        float[] coords = new float[12];
        for (int i = 0; i < 6; i++) {
            coords[2 * i] = (i % 3 + 0.5f) / 3;
            coords[2 * i + 1] = (i / 3 + 0.5f) / 2;
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(6);
        var out = runner.arg("zeros:256").arg("image:raw:" + runner.file("t.raw", texels) + ",3x2,format=8_8_8_8_UNORM")
                .arg("sampler:point,clamp").arg("buffer:" + runner.file("uv.bin", GuestAsm.floats(coords)))
                .execute(ImageUnitTest.PROLOGUE + """
                        s_load_dwordx4 s[16:19], s[6:7], 0x0
                        s_load_dwordx2 s[24:25], s[0:1], 0x18
                        s_waitcnt lgkmcnt(0)
                        v_lshlrev_b32 v9, 3, v0
                        global_load_dwordx2 v[1:2], v9, s[24:25]
                        s_waitcnt vmcnt(0)
                        v_mov_b32 v6, 0x1234
                        v_mov_b32 v7, 0x5678
                        image_sample_lz v[5:7], v[1:2], s[8:15], s[16:19] dmask:0xa dim:SQ_RSRC_IMG_2D tfe
                        s_waitcnt vmcnt(0)
                        global_store_dwordx3 v3, v[5:7], s[2:3]
                        """).ok();
        ByteBuffer b = out.bufferView(0);
        for (int i = 0; i < 6; i++) {
            assertEquals((20 * i + 1) / 255f, b.getFloat(16 * i), "texel " + i + ": y first");
            assertEquals((255 - i) / 255f, b.getFloat(16 * i + 4), "texel " + i + ": then w");
            assertEquals(0, b.getInt(16 * i + 8), "texel " + i + ": TFE status 0 after the data");
        }
    }
}
