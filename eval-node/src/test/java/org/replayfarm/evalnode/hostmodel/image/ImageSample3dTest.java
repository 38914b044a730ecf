package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;

/** image_sample_lz on a 3D image against {@link ReferenceFilter#sample3d}, point and bilinear, in several address modes. */
@Tag("unit")
class ImageSample3dTest {
    @TempDir
    Path dir;

    private static final float[] US = {-0.3f, 0.3f, 0.55f, 1.2f};
    private static final float[] VS = {0.1f, 0.6f};
    private static final float[] RS = {-0.4f, 0.05f, 0.45f, 0.7f, 1.1f, 0.93f, 0.2f, 0.62f};

    /** Lane l samples (u, v, r) from the coordinate buffer (arg 3) at 16 * l and stores the result at 16 * l. */
    private static final String PROGRAM = ImageUnitTest.PROLOGUE + """
            s_load_dwordx4 s[16:19], s[6:7], 0x0
            s_load_dwordx2 s[24:25], s[0:1], 0x18
            s_waitcnt lgkmcnt(0)
            global_load_dwordx3 v[4:6], v3, s[24:25]
            s_waitcnt vmcnt(0)
            image_sample_lz v7, v[4:6], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_3D
            s_waitcnt vmcnt(0)
            global_store_dword v3, v7, s[2:3]
            """;

    private float[][][] image() {
        float[][][] image = new float[3][2][4];
        for (int z = 0; z < 3; z++) {
            for (int y = 0; y < 2; y++) {
                for (int x = 0; x < 4; x++) {
                    image[z][y][x] = 1 + x * 2 + y * 5 + z * 11 + (x == 2 ? 0.37f : 0);
                }
            }
        }
        return image;
    }

    @ParameterizedTest
    @CsvSource({"point,wrap", "point,clamp", "point,border", "bilinear,wrap", "bilinear,mirror", "bilinear,clamp",
            "bilinear,mirror_once", "bilinear,border", "bilinear,clamp_half_border"})
    void samples_of_a_3d_image_match_the_reference_filter(String filter, String mode) throws Exception {
        float[][][] image = image();
        float[] flat = new float[24];
        for (int z = 0; z < 3; z++) {
            for (int y = 0; y < 2; y++) {
                System.arraycopy(image[z][y], 0, flat, (z * 2 + y) * 4, 4);
            }
        }
        float[] coords = new float[32 * 4];
        for (int i = 0; i < 32; i++) {
            coords[4 * i] = US[i % 4];
            coords[4 * i + 1] = VS[i / 4 % 2];
            coords[4 * i + 2] = RS[i / 4];
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(32);
        Path raw = runner.file("v.raw", GuestAsm.floats(flat));
        Path in = runner.file("coords.bin", GuestAsm.floats(coords));
        var out = runner.arg("zeros:1024").arg("image:raw:" + raw + ",4x2x3,format=32_FLOAT")
                .arg("sampler:" + filter + "," + mode).arg("buffer:" + in).execute(PROGRAM).ok();
        ByteBuffer b = out.bufferView(0);
        for (int i = 0; i < 32; i++) {
            float want = ReferenceFilter.sample3d(image, filter.equals("bilinear"), mode, coords[4 * i], coords[4 * i + 1],
                    coords[4 * i + 2]);
            assertEquals(want, b.getFloat(16 * i), 2e-5f,
                    "lane " + i + " at (" + coords[4 * i] + ", " + coords[4 * i + 1] + ", " + coords[4 * i + 2] + ")");
        }
    }

    @Test
    void cube_sampling_still_faults_by_name() throws Exception {
        GuestAsm runner = new GuestAsm(dir).groupSize(4);
        Path raw = runner.file("c.raw", GuestAsm.floats(new float[8]));
        var out = runner.arg("zeros:256").arg("image:raw:" + raw + ",4x2,format=32_FLOAT").arg("sampler:point,clamp")
                .execute(ImageUnitTest.PROLOGUE + """
                        s_load_dwordx4 s[16:19], s[6:7], 0x0
                        s_waitcnt lgkmcnt(0)
                        image_sample_lz v7, v[4:6], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_CUBE
                        """);
        assertNotNull(out.result().fault().orElse(null));
        assertTrue(out.result().fault().get().message().contains("cube"), out.result().fault().get().message());
    }
}
