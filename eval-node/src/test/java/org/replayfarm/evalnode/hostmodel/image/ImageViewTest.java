package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.ImageType;

/**
 * Views a T# takes of a captured image other than the whole of it, as a program patches them in its SGPRs
 * (word 3: BASE_LEVEL [15:12], LAST_LEVEL [19:16], TYPE [31:28]; word 1: MIN_LOD [19:8]; word 4: DEPTH (the
 * last array slice) [13:0], BASE_ARRAY [28:16]): view level l is the image's level BASE_LEVEL + l, view slice
 * s its layer BASE_ARRAY + s; what lies outside the view is out of range (loads 0), what lies inside it but
 * outside the capture is a fault naming it. Expected texels are written down from how the images are filled.
 */
@Tag("unit")
class ImageViewTest {
    @TempDir
    Path dir;

    /** T# in s[8:15] (PROLOGUE), S# in s[16:19], per-lane floats (u, v, w, spare) of argument 3 in v[20:23]. */
    private static final String SETUP = ImageUnitTest.PROLOGUE + """
            s_load_dwordx4 s[16:19], s[6:7], 0x0
            s_load_dwordx2 s[24:25], s[0:1], 0x18
            s_waitcnt lgkmcnt(0)
            global_load_dwordx4 v[20:23], v3, s[24:25]
            s_waitcnt vmcnt(0)
            """;

    /** A 2x2 32_FLOAT image of 3 layers (texel (x, y) of layer k holds 100 k + 2 y + x), captured as a 2D array. */
    private GuestAsm array(float[] coords) throws Exception {
        float[] texels = new float[12];
        for (int i = 0; i < 12; i++) {
            texels[i] = 100 * (i / 4) + i % 4;
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(16);
        Path raw = runner.file("a.raw", GuestAsm.floats(texels));
        Path in = runner.file("c.bin", GuestAsm.floats(coords));
        return runner.arg("zeros:1024").arg("image:raw:" + raw + ",2x2x3,format=32_FLOAT").arg("sampler:point,clamp")
                .arg("buffer:" + in).patch(c -> {
                    Capture.Builder b = c.toBuilder();
                    b.setImages(0, b.getImages(0).toBuilder().setType(ImageType.IMAGE_2D_ARRAY).setDepth(1).setLayers(3));
                    return b.build();
                });
    }

    /** Lane l: texel (l % 2, l / 2 % 2) of slice l / 4; sample coordinates at that texel's centre, the slice from a table. */
    private static float[] arrayCoords() {
        float[] slices = {-0.7f, 0.4f, 0.6f, 5f};
        float[] c = new float[64];
        for (int l = 0; l < 16; l++) {
            c[4 * l] = 0.25f + 0.5f * (l % 2);
            c[4 * l + 1] = 0.25f + 0.5f * (l / 2 % 2);
            c[4 * l + 2] = slices[l / 4];
        }
        return c;
    }

    private static String arrayView(int baseArray, int lastArray) {
        return """
                s_and_b32 s11, s11, 0x0fffffff
                s_or_b32 s11, s11, 0xd0000000
                s_and_b32 s12, s12, 0xe000c000
                s_or_b32 s12, s12, %d
                v_and_b32 v4, 1, v0
                v_bfe_u32 v5, v0, 1, 1
                v_lshrrev_b32 v6, 2, v0
                """.formatted(baseArray << 16 | lastArray);
    }

    @Test
    void a_view_of_layers_1_and_2_reads_them_as_slices_0_and_1_and_slices_past_it_as_zero() throws Exception {
        var out = array(arrayCoords()).execute(SETUP + arrayView(1, 2) + """
                image_load v7, v[4:6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm
                image_sample_lz v8, v[20:22], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY
                v_mov_b32 v9, 0
                image_get_resinfo v[10:13], v9, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY unorm
                s_waitcnt vmcnt(0)
                global_store_dwordx2 v3, v[7:8], s[2:3]
                global_store_dwordx4 v3, v[10:13], s[2:3] offset:512
                """).ok();
        ByteBuffer b = out.bufferView(0);
        int[] sampledLayer = {1, 1, 2, 2}; // slices -0.7, 0.4, 0.6, 5: floor(s + 0.5) clamped to the view's 0..1
        for (int l = 0; l < 16; l++) {
            int slice = l / 4;
            float texel = l % 4;
            assertEquals(slice < 2 ? 100 * (slice + 1) + texel : 0f, b.getFloat(16 * l), "lane " + l + ": load of slice " + slice);
            assertEquals(100 * sampledLayer[slice] + texel, b.getFloat(16 * l + 4), "lane " + l + ": sample");
            assertArrayEquals(new int[] {2, 2, 2, 1}, new int[] {b.getInt(512 + 16 * l), b.getInt(516 + 16 * l),
                b.getInt(520 + 16 * l), b.getInt(524 + 16 * l)}, "resinfo: 2x2, the view's 2 layers, 1 level");
        }
    }

    @Test
    void a_view_reaching_past_the_captured_layers_faults_naming_the_layer() throws Exception {
        var out = array(arrayCoords()).execute(SETUP + arrayView(1, 3) + """
                image_load v7, v[4:6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm
                """);
        Optional<FaultRecord> fault = out.result().fault();
        assertTrue(fault.isPresent(), "slice 2 of the view is layer 3, which the capture lacks");
        assertTrue(fault.get().message().contains("layer 3 (view layer 2) is inside the view but the capture holds 3 layer(s)")
                && fault.get().instruction().startsWith("image_load"), fault.get().message());
    }

    /** A 4x2 32_FLOAT image of 3 levels: level 0 holds 0..7, level 1 (2x1) 100, 101, level 2 (1x1) 200. */
    private GuestAsm mips(float[] coords) throws Exception {
        GuestAsm runner = new GuestAsm(dir).groupSize(4);
        Path raw = runner.file("m.raw", GuestAsm.floats(0, 1, 2, 3, 4, 5, 6, 7, 100, 101, 200));
        Path in = runner.file("c.bin", GuestAsm.floats(coords));
        return runner.arg("zeros:1024").arg("image:raw:" + raw + ",4x2,format=32_FLOAT,mips=3").arg("sampler:point,clamp")
                .arg("buffer:" + in);
    }

    /** The T#'s BASE_LEVEL and LAST_LEVEL set; the S#'s MIP_FILTER (word 2 [27:26]) point, so that LODs pick levels. */
    private static String levels(int base, int last) {
        return """
                s_and_b32 s11, s11, 0xfff00fff
                s_or_b32 s11, s11, %d
                s_or_b32 s18, s18, 0x4000000
                """.formatted(base << 12 | last << 16);
    }

    /** Lane l samples (0.6, 0.5) at LOD l (and reads its level l with image_load_mip at (0, 0)). */
    private static float[] lodCoords() {
        float[] c = new float[16];
        for (int l = 0; l < 4; l++) {
            c[4 * l] = 0.6f;
            c[4 * l + 1] = 0.5f;
            c[4 * l + 2] = l;
        }
        return c;
    }

    @Test
    void a_view_from_base_level_1_reads_level_1_as_its_level_0_and_clamps_to_its_last() throws Exception {
        var out = mips(lodCoords()).execute(SETUP + levels(1, 2) + """
                v_mov_b32 v4, 0
                v_mov_b32 v5, 0
                v_mov_b32 v6, v0
                image_load_mip v7, v[4:6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                image_sample_l v8, v[20:22], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
                image_sample_lz v9, v[20:21], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
                image_get_resinfo v[10:13], v0, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                s_waitcnt vmcnt(0)
                global_store_dwordx3 v3, v[7:9], s[2:3]
                global_store_dwordx4 v3, v[10:13], s[2:3] offset:512
                """).ok();
        ByteBuffer b = out.bufferView(0);
        float[] load = {100, 200, 0, 0}; // view levels 0, 1 are levels 1, 2; view level 2 is past LAST_LEVEL
        float[] sampled = {101, 200, 200, 200}; // (0.6, 0.5) of level 1 (2x1) is texel 1; LODs past the view clamp to it
        int[][] info = {{2, 1, 1, 2}, {1, 1, 1, 2}, {0, 0, 0, 2}, {0, 0, 0, 2}};
        for (int l = 0; l < 4; l++) {
            assertEquals(load[l], b.getFloat(16 * l), "lane " + l + ": image_load_mip of view level " + l);
            assertEquals(sampled[l], b.getFloat(16 * l + 4), "lane " + l + ": image_sample_l at LOD " + l);
            assertEquals(101f, b.getFloat(16 * l + 8), "lane " + l + ": image_sample_lz samples the view's level 0");
            for (int k = 0; k < 4; k++) {
                assertEquals(info[l][k], b.getInt(512 + 16 * l + 4 * k), "lane " + l + ": resinfo of view level " + l + ", " + k);
            }
        }
    }

    @Test
    void levels_the_view_holds_but_the_capture_does_not_fault_and_resinfo_counts_the_views_levels() throws Exception {
        // LAST_LEVEL 4 over 3 captured levels: resinfo says 5 levels (0..4), as the hardware would read the T#
        var info = mips(lodCoords()).execute(SETUP + levels(0, 4) + """
                image_get_resinfo v[10:13], v0, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                s_waitcnt vmcnt(0)
                global_store_dwordx4 v3, v[10:13], s[2:3]
                """).ok();
        assertEquals(5, info.bufferView(0).getInt(12));
        assertEquals(4, info.bufferView(0).getInt(0));
        var load = mips(lodCoords()).execute(SETUP + levels(0, 4) + """
                v_mov_b32 v4, 0
                v_mov_b32 v5, 0
                v_mov_b32 v6, 3
                image_load_mip v7, v[4:6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                """);
        assertTrue(load.result().fault().isPresent());
        assertTrue(load.result().fault().get().message().contains("level 3 (view level 3) is inside the view but the capture"
                + " holds 3 level(s)"), load.result().fault().get().message());
        var sample = mips(lodCoords()).execute(SETUP + levels(0, 4) + """
                image_sample_l v8, v[20:22], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
                """);
        assertTrue(sample.result().fault().isPresent(), "lane 3 samples at LOD 3, a level the capture lacks");
        assertTrue(sample.result().fault().get().message().contains("level 3"), sample.result().fault().get().message());
    }

    @Test
    void an_empty_view_loads_zero_and_sampling_it_or_a_min_lod_clamp_faults_as_not_modelled() throws Exception {
        var load = mips(lodCoords()).execute(SETUP + levels(3, 2) + """
                v_mov_b32 v4, 0
                v_mov_b32 v5, 0
                v_mov_b32 v6, 0
                image_load_mip v7, v[4:6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                s_waitcnt vmcnt(0)
                global_store_dword v3, v7, s[2:3]
                """).ok();
        assertEquals(0, load.bufferView(0).getInt(0), "BASE_LEVEL 3 past LAST_LEVEL 2: every level is out of range");
        var empty = mips(lodCoords()).execute(SETUP + levels(3, 2) + """
                image_sample_lz v9, v[20:21], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
                """);
        assertTrue(empty.result().fault().isPresent());
        assertTrue(empty.result().fault().get().message().contains("BASE_LEVEL 3 is past LAST_LEVEL 2"),
                empty.result().fault().get().message());
        var clamp = mips(lodCoords()).execute(SETUP + """
                s_or_b32 s9, s9, 0x10000
                image_sample_lz v9, v[20:21], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
                """);
        assertTrue(clamp.result().fault().isPresent());
        assertTrue(clamp.result().fault().get().message().contains("MIN_LOD clamp 1.0000"), clamp.result().fault().get().message());
    }

    @Test
    void a_d16_store_to_a_sint_image_sign_extends_its_half_as_the_buffer_format_store_does() throws Exception {
        GuestAsm runner = new GuestAsm(dir).groupSize(2);
        Path raw = runner.file("s.raw", new byte[8]);
        var out = runner.arg("zeros:256").arg("image:raw:" + raw + ",2x1,format=32_SINT").arg("u64:0").execute(
                ImageUnitTest.PROLOGUE + """
                        v_mov_b32 v4, 0xfffb
                        v_mov_b32 v5, 0
                        image_store v4, v[0:1], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm d16
                        """.replace("v[0:1]", "v[5:6]").replace("v_mov_b32 v5, 0", "v_mov_b32 v5, v0\nv_mov_b32 v6, 0")).ok();
        for (TexelStore t : out.result().texels()) {
            assertArrayEquals(new byte[] {(byte) 0xFB, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}, t.value(), "-5 as a 32-bit SINT");
        }
        assertEquals(2, out.result().texels().size());
    }

    @Test
    void a_resource_whose_type_is_not_an_image_or_whose_samples_differ_faults_naming_why() throws Exception {
        for (int type : new int[] {0, 14}) {
            var out = mips(lodCoords()).execute(SETUP + """
                    s_and_b32 s11, s11, 0x0fffffff
                    s_or_b32 s11, s11, %d
                    v_mov_b32 v4, 0
                    image_load v7, v[4:5], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                    """.formatted(type << 28));
            assertTrue(out.result().fault().isPresent(), "TYPE " + type);
            String m = out.result().fault().get().message();
            if (type == 14) {
                // an MSAA T# (4 samples: LAST_LEVEL 2) over a single-sampled capture names both counts
                assertTrue(m.contains("with 4 sample(s): sample counts differ") && m.contains("1 sample(s) a texel"), m);
            } else {
                assertTrue(m.contains("s[8:15] is not an image resource") && m.contains("TYPE field [127:124] is " + type),
                        m);
            }
        }
    }
}
