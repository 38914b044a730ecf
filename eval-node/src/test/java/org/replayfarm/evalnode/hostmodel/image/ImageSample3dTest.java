package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    /** Lane l samples the cube at (s, t, face) from the coordinate buffer (arg 3) and stores the result at 16 * l. */
    private static final String CUBE = ImageUnitTest.PROLOGUE + """
            s_load_dwordx4 s[16:19], s[6:7], 0x0
            s_load_dwordx2 s[24:25], s[0:1], 0x18
            s_waitcnt lgkmcnt(0)
            global_load_dwordx3 v[4:6], v3, s[24:25]
            s_waitcnt vmcnt(0)
            image_sample_lz v7, v[4:6], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_CUBE
            s_waitcnt vmcnt(0)
            global_store_dword v3, v7, s[2:3]
            """;

    /** A 2x2 cube of 32_FLOAT, face f's texel (x, y) holding 10 f + 2 y + x + 1. */
    private Path cubeFaces(GuestAsm runner) throws Exception {
        float[] faces = new float[6 * 4];
        for (int i = 0; i < faces.length; i++) {
            faces[i] = 10 * (i / 4) + i % 4 + 1;
        }
        return runner.file("cube.raw", GuestAsm.floats(faces));
    }

    @Test
    void a_cube_is_sampled_as_its_face_layer_at_s_and_t_less_one_clamped_to_the_face() throws Exception {
        // s and t as RADV's code gives them: [1, 2] across the face (v_cubesc / |v_cubema| + 1.5); past the
        // face's edge they clamp to its edge texels whatever the S# says (a cube has no address modes)
        float[][] at = {{1.25f, 1.75f, 2}, {1.75f, 1.25f, 5}, {0.9f, 1.5f, 1}, {2.2f, 1.1f, 4}};
        float[] want = {10 * 2 + 2 + 0 + 1, 10 * 5 + 0 + 1 + 1, 10 * 1 + 2 + 0 + 1, 10 * 4 + 0 + 1 + 1};
        float[] coords = new float[4 * 4];
        for (int i = 0; i < 4; i++) {
            System.arraycopy(at[i], 0, coords, 4 * i, 3);
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(4);
        Path in = runner.file("coords.bin", GuestAsm.floats(coords));
        var out = runner.arg("zeros:64").arg("image:raw:" + cubeFaces(runner) + ",2x2,layers=6,format=32_FLOAT")
                .arg("sampler:point,wrap").arg("buffer:" + in).execute(CUBE).ok();
        ByteBuffer b = out.bufferView(0);
        for (int i = 0; i < 4; i++) {
            assertEquals(want[i], b.getFloat(16 * i), "lane " + i + " at " + java.util.Arrays.toString(at[i]));
        }
    }

    @Test
    void a_bilinear_cube_sample_across_a_face_edge_or_corner_reads_the_neighbouring_faces() throws Exception {
        // lanes 0, 1: face centres (the four texels of the face); lane 2: face +Y at texel (0.2, 0.2), past a
        // corner; lane 3: face -Y at (0.2, 1.0), past its left edge
        float[][] at = {{1.5f, 1.5f, 0}, {1.5f, 1.5f, 4}, {1.1f, 1.1f, 2}, {1.1f, 1.5f, 3}};
        float[] coords = new float[4 * 4];
        for (int i = 0; i < 4; i++) {
            System.arraycopy(at[i], 0, coords, 4 * i, 3);
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(4);
        Path in = runner.file("coords.bin", GuestAsm.floats(coords));
        var out = runner.arg("zeros:64").arg("image:raw:" + cubeFaces(runner) + ",2x2,layers=6,format=32_FLOAT")
                .arg("sampler:bilinear,clamp").arg("buffer:" + in).execute(CUBE).ok();
        ByteBuffer b = out.bufferView(0);
        double f = 179 / 256.0; // 0.2 texels past the edge: 0.7 toward the upper tap, in eight bits
        // face +Y's (0, 0) is 21; past its top edge, (0, -1) is face -Z's (1, 0) = 52; past its left edge,
        // (-1, 0) is face -X's (0, 0) = 11; the corner (-1, -1) is their average with 21
        double corner = (21 + 52 + 11) / 3.0;
        double lane2 = (1 - f) * (1 - f) * corner + f * (1 - f) * 52 + (1 - f) * f * 11 + f * f * 21;
        // face -Y's (0, 0) = 31 and (0, 1) = 33; past its left edge, rows 0 and 1 are face -X's (1, 1) = 14 and
        // (0, 1) = 13
        double lane3 = 0.5 * ((1 - f) * 14 + f * 31) + 0.5 * ((1 - f) * 13 + f * 33);
        float[] want = {2.5f, 42.5f, (float) lane2, (float) lane3};
        for (int i = 0; i < 4; i++) {
            assertEquals(want[i], b.getFloat(16 * i), 2e-5f, "lane " + i + " at " + java.util.Arrays.toString(at[i]));
        }
    }
}
