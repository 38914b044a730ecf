package org.replayfarm.evalnode.hostmodel.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.TexelAtomic;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.OpcodeTable;

/**
 * The image unit on real programs (llvm-mc-19 assembled), on captures built from --arg texts. Expected
 * values are derived by hand from the format rules (u / 255, round to nearest even on stores) or by the
 * plain reference filter in {@link ReferenceFilter}, written apart from the unit.
 */
@Tag("unit")
class ImageUnitTest {
    @TempDir
    Path dir;

    /** s[2:3] arg 0 (out buffer), s[4:5] arg 1 (T#), s[6:7] arg 2; T# in s[8:15]; v1 = lane % 4, v2 = lane / 4, v3 = 16 * lane. */
    static final String PROLOGUE = """
            s_load_dwordx2 s[2:3], s[0:1], 0x0
            s_load_dwordx2 s[4:5], s[0:1], 0x8
            s_load_dwordx2 s[6:7], s[0:1], 0x10
            s_waitcnt lgkmcnt(0)
            s_load_dwordx8 s[8:15], s[4:5], 0x0
            s_waitcnt lgkmcnt(0)
            v_and_b32 v1, 3, v0
            v_lshrrev_b32 v2, 2, v0
            v_lshlrev_b32 v3, 4, v0
            """;

    @Test
    void a_normal_map_with_a_swizzled_channel_order_reads_back_right() throws Exception {
        // The binding hands the device BGRA bytes; the T#'s order ZYXW gives x = R, y = G, z = B.
        byte[] texels = new byte[16 * 4];
        int[][] normals = new int[16][];
        for (int i = 0; i < 16; i++) {
            int r = 20 + 13 * i;
            int g = 250 - 7 * i;
            int b = 128 + i;
            int a = 3 * i;
            normals[i] = new int[] {r, g, b, a};
            texels[4 * i] = (byte) b;
            texels[4 * i + 1] = (byte) g;
            texels[4 * i + 2] = (byte) r;
            texels[4 * i + 3] = (byte) a;
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(16);
        Path raw = runner.file("normals.raw", texels);
        var out = runner.arg("zeros:256").arg("image:raw:" + raw + ",4x4,format=8_8_8_8_UNORM,order=ZYXW").arg("u64:0")
                .execute(PROLOGUE + """
                        image_load v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        s_waitcnt vmcnt(0)
                        v_fma_f32 v4, v4, 2.0, -1.0
                        v_fma_f32 v5, v5, 2.0, -1.0
                        v_fma_f32 v6, v6, 2.0, -1.0
                        global_store_dwordx4 v3, v[4:7], s[2:3]
                        """).ok();
        ByteBuffer b = out.bufferView(0);
        for (int i = 0; i < 16; i++) {
            for (int c = 0; c < 3; c++) {
                float want = Math.fma(normals[i][c] / 255f, 2f, -1f);
                assertEquals(want, b.getFloat(16 * i + 4 * c), "texel " + i + " channel " + c);
            }
            assertEquals(normals[i][3] / 255f, b.getFloat(16 * i + 12), "texel " + i + " alpha");
        }
    }

    @Test
    void stores_are_recorded_per_texel_and_later_loads_in_the_group_see_them() throws Exception {
        GuestAsm runner = new GuestAsm(dir).groupSize(16);
        Path raw = runner.file("img.raw", new byte[16 * 4]);
        var out = runner.arg("zeros:256").arg("image:raw:" + raw + ",4x4,format=8_8_8_8_UNORM").arg("u64:0")
                .execute(PROLOGUE + """
                        v_mov_b32 v4, 1.0
                        v_mov_b32 v5, 0.5
                        v_mov_b32 v6, 0
                        v_mov_b32 v7, 0.25
                        v_cmp_gt_u32 vcc_lo, 4, v0
                        s_and_saveexec_b32 s30, vcc_lo
                        image_store v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        s_mov_b32 exec_lo, s30
                        v_add_nc_u32 v9, 100, v1
                        image_store v[4:7], [v9, v2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        image_load v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        s_waitcnt vmcnt(0)
                        global_store_dwordx4 v3, v[4:7], s[2:3]
                        """).ok();
        // row 0 stored: 1.0 -> 255, 0.5 -> 127.5 -> 128 (nearest even), 0 -> 0, 0.25 -> 63.75 -> 64
        assertEquals(4, out.result().texels().size(), "the out-of-range stores at x >= 100 are dropped");
        for (TexelStore t : out.result().texels()) {
            assertEquals(0, t.image());
            assertTrue(t.texel() < 4);
            assertArrayEquals(new byte[] {(byte) 255, (byte) 128, 0, 64}, t.value());
        }
        ByteBuffer b = out.bufferView(0);
        for (int i = 0; i < 16; i++) {
            boolean stored = i < 4;
            assertEquals(stored ? 1f : 0f, b.getFloat(16 * i));
            assertEquals(stored ? 128 / 255f : 0f, b.getFloat(16 * i + 4));
            assertEquals(stored ? 64 / 255f : 0f, b.getFloat(16 * i + 12));
        }
    }

    @Test
    void loads_outside_the_image_return_zero_and_dmask_d16_a16_and_nsa_pick_and_pack() throws Exception {
        // 16_16_16_16_UINT 4x4: texel (x, y) holds x, y, 100 + x, 200 + y
        ByteBuffer t = ByteBuffer.allocate(16 * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < 4; x++) {
                t.putShort((short) x).putShort((short) y).putShort((short) (100 + x)).putShort((short) (200 + y));
            }
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(16);
        Path raw = runner.file("u16.raw", t.array());
        var out = runner.arg("zeros:1024").arg("image:raw:" + raw + ",4x4,format=16_16_16_16_UINT").arg("u64:0")
                .execute(PROLOGUE + """
                        image_load v[4:5], v[1:2], s[8:15] dmask:0xa dim:SQ_RSRC_IMG_2D unorm
                        v_lshlrev_b32 v9, 16, v2
                        v_or_b32 v9, v9, v1
                        image_load v6, v9, s[8:15] dmask:0xc dim:SQ_RSRC_IMG_2D unorm a16 d16
                        v_add_nc_u32 v10, 4, v1
                        image_load v7, [v10, v2], s[8:15] dmask:0x4 dim:SQ_RSRC_IMG_2D unorm
                        s_waitcnt vmcnt(0)
                        global_store_dwordx4 v3, v[4:7], s[2:3]
                        image_get_resinfo v[4:7], v11, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        v_mov_b32 v11, 0
                        image_get_resinfo v[4:7], v11, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        v_add_nc_u32 v3, 0x200, v3
                        s_waitcnt vmcnt(0)
                        global_store_dwordx4 v3, v[4:7], s[2:3]
                        """).ok();
        ByteBuffer b = out.bufferView(0);
        for (int i = 0; i < 16; i++) {
            int x = i % 4;
            int y = i / 4;
            assertEquals(y, b.getInt(16 * i), "dmask 0xa: y first");
            assertEquals(200 + y, b.getInt(16 * i + 4), "then w");
            assertEquals((100 + x) | (200 + y) << 16, b.getInt(16 * i + 8), "d16 a16: z and w packed");
            assertEquals(0, b.getInt(16 * i + 12), "x + 4 is outside the image: 0");
            assertEquals(4, b.getInt(0x200 + 16 * i));
            assertEquals(4, b.getInt(0x200 + 16 * i + 4));
            assertEquals(1, b.getInt(0x200 + 16 * i + 8));
            assertEquals(1, b.getInt(0x200 + 16 * i + 12));
        }
    }

    @Test
    void an_integer_atomic_on_a_normalised_image_faults_instead_of_adding_to_its_bits() throws Exception {
        GuestAsm runner = new GuestAsm(dir).groupSize(32);
        Path raw = runner.file("rgba.raw", new byte[16 * 4]);
        var out = runner.arg("zeros:1024").arg("image:raw:" + raw + ",4x4,format=8_8_8_8_UNORM").arg("u64:0")
                .execute(PROLOGUE + """
                        v_and_b32 v2, 3, v2
                        v_mov_b32 v4, 5
                        image_atomic_add v4, v[1:2], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc
                        s_waitcnt vmcnt(0)
                        """);
        var fault = out.run().result().fault();
        assertTrue(fault.isPresent(), "an 8_8_8_8 UNORM texel is not a 32-bit integer");
        assertTrue(fault.get().message().contains("32 or 32_32 format, UINT or SINT"), fault.get().message());
    }

    @Test
    void image_atomics_return_the_old_value_and_leave_the_new_one() throws Exception {
        ByteBuffer t = ByteBuffer.allocate(16 * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 16; i++) {
            t.putInt(1000 + i);
        }
        GuestAsm runner = new GuestAsm(dir).groupSize(32);
        Path raw = runner.file("u32.raw", t.array());
        var out = runner.arg("zeros:1024").arg("image:raw:" + raw + ",4x4,format=32_UINT").arg("u64:0")
                .execute(PROLOGUE + """
                        v_and_b32 v2, 3, v2
                        v_mov_b32 v4, 5
                        image_atomic_add v4, v[1:2], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc
                        s_waitcnt vmcnt(0)
                        global_store_dword v3, v4, s[2:3]
                        """).ok();
        ByteBuffer b = out.bufferView(0);
        // lanes 0..15 then 16..31 hit the same 16 texels: the first sees the initial value, the second it + 5
        for (int i = 0; i < 32; i++) {
            assertEquals(1000 + i % 16 + (i >= 16 ? 5 : 0), b.getInt(16 * i), "lane " + i);
        }
        // recorded as 32 atomic contributions (no stores); the group itself sees each texel + 10
        assertEquals(0, out.result().texels().size());
        assertEquals(32, out.result().texelAtomics().size());
        for (TexelAtomic a : out.result().texelAtomics()) {
            assertEquals("add", a.op());
            assertEquals(5, a.operand());
        }
        for (int texel = 0; texel < 16; texel++) {
            byte[] own = out.run().group().memory().ownTexel(0, texel);
            assertEquals(1000 + texel + 10, ByteBuffer.wrap(own).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt());
        }
    }

    @Test
    void load_mip_reads_the_level_the_address_names() throws Exception {
        // 4x2 32_FLOAT with 3 levels: level 0 holds 0..7, level 1 (2x1) 100, 101, level 2 (1x1) 200
        byte[] texels = GuestAsm.floats(0, 1, 2, 3, 4, 5, 6, 7, 100, 101, 200);
        GuestAsm runner = new GuestAsm(dir).groupSize(4);
        Path raw = runner.file("m.raw", texels);
        var out = runner.arg("zeros:256").arg("image:raw:" + raw + ",4x2,format=32_FLOAT,mips=3").arg("u64:0")
                .execute(PROLOGUE + """
                        v_mov_b32 v2, 0
                        v_mov_b32 v4, v1
                        v_mov_b32 v5, 0
                        v_mov_b32 v6, v1
                        image_load_mip v7, v[4:6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                        v_mov_b32 v6, 1
                        image_load_mip v8, v[4:6], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                        s_waitcnt vmcnt(0)
                        global_store_dwordx2 v3, v[7:8], s[2:3]
                        """).ok();
        ByteBuffer b = out.bufferView(0);
        float[] viaLevelLane = {0, 101, 0, 0}; // (1, 0) of level 1; x 2 is past level 2's 1x1; level 3 does not exist
        float[] level1 = {100, 101, 0, 0};
        for (int i = 0; i < 4; i++) {
            assertEquals(viaLevelLane[i], b.getFloat(16 * i), "lane " + i + " at (x " + i + ", level " + i + ")");
            assertEquals(level1[i], b.getFloat(16 * i + 4), "lane " + i + " at level 1");
        }
        assertEquals(11, TexelLayout.totalTexels(out.kernel().capture().getImages(0)));
    }

    @Test
    void the_image_instructions_are_classified() {
        SemanticsTable t = SemanticsTable.gfx1030();
        OpcodeTable o = OpcodeTable.gfx1030();
        for (String m : new String[] {"image_load", "image_load_mip", "image_store", "image_store_mip",
                "image_get_resinfo", "image_atomic_add", "image_atomic_cmpswap"}) {
            assertEquals(Fidelity.EXACT, t.fidelity(o.byMnemonic(Encoding.MIMG, m)), m);
        }
        for (String m : new String[] {"image_sample", "image_sample_lz", "image_sample_l"}) {
            assertEquals(Fidelity.APPROXIMATE, t.fidelity(o.byMnemonic(Encoding.MIMG, m)), m);
        }
    }
}
