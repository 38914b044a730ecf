package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/** image_sample_lz and image_sample_l against {@link ReferenceFilter}, in every address mode, point and bilinear. */
@Tag("unit")
class ImageSampleTest {
    @TempDir
    Path dir;

    private static final float[] US = {-0.7f, -0.3f, 0.05f, 0.3f, 0.55f, 0.8f, 1.2f, 1.45f};
    private static final float[] VS = {0.1f, 0.6f, 1.3f, -0.2f};

    private static final String PROGRAM = ImageUnitTest.PROLOGUE + """
            s_load_dwordx4 s[16:19], s[6:7], 0x0
            s_load_dwordx2 s[24:25], s[0:1], 0x18
            s_waitcnt lgkmcnt(0)
            v_lshlrev_b32 v5, 3, v0
            global_load_dwordx2 v[1:2], v5, s[24:25]
            s_waitcnt vmcnt(0)
            image_sample_lz v4, v[1:2], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
            v_mov_b32 v6, 0
            image_sample_l v7, v[1:3], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
            s_waitcnt vmcnt(0)
            global_store_dwordx2 v3, v[4:5], s[2:3]
            global_store_dword v3, v7, s[2:3] offset:4
            """;

    @ParameterizedTest
    @CsvSource({"point,wrap", "point,mirror", "point,clamp", "point,mirror_once", "point,border",
            "point,clamp_half_border", "bilinear,wrap", "bilinear,mirror", "bilinear,clamp", "bilinear,mirror_once",
            "bilinear,border", "bilinear,clamp_half_border"})
    void samples_match_the_reference_filter(String filter, String mode) throws Exception {
        float[][] image = new float[2][4];
        float[] flat = new float[8];
        for (int y = 0; y < 2; y++) {
            for (int x = 0; x < 4; x++) {
                image[y][x] = 1 + x * 3 + y * 20 + (x == 2 ? 0.37f : 0);
                flat[y * 4 + x] = image[y][x];
            }
        }
        float[] coords = new float[64];
        for (int i = 0; i < 32; i++) {
            coords[2 * i] = US[i % 8];
            coords[2 * i + 1] = VS[i / 8];
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(32);
        Path raw = runner.file("f.raw", GuestAsm.floats(flat));
        Path in = runner.file("coords.bin", GuestAsm.floats(coords));
        var out = runner.arg("zeros:1024").arg("image:raw:" + raw + ",4x2,format=32_FLOAT")
                .arg("sampler:" + filter + "," + mode).arg("buffer:" + in)
                // v3 = 16 * lane; the _l result (lod 0 in v3 after the coordinates) goes at +4
                .execute(PROGRAM.replace("image_sample_l v7, v[1:3]", "v_mov_b32 v8, v3\nv_mov_b32 v3, 0\n"
                        + "image_sample_l v7, v[1:3]").replace("global_store_dwordx2 v3, v[4:5], s[2:3]",
                        "v_mov_b32 v3, v8\nglobal_store_dwordx2 v3, v[4:5], s[2:3]")).ok();
        ByteBuffer b = out.bufferView(0);
        for (int i = 0; i < 32; i++) {
            float want = ReferenceFilter.sample(image, filter.equals("bilinear"), mode, coords[2 * i], coords[2 * i + 1]);
            assertEquals(want, b.getFloat(16 * i), 1e-5f, "lane " + i + " at (" + coords[2 * i] + ", " + coords[2 * i + 1] + ")");
            assertEquals(want, b.getFloat(16 * i + 4), 1e-5f, "image_sample_l at lod 0, lane " + i);
        }
    }
}
