package org.replayfarm.evalnode.hostmodel.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.build.GuestLayout;

/** MUBUF and MTBUF through V#s: raw and structured addressing, range checks, swizzled scratch, formats, atomics. */
@Tag("unit")
class BufferMemoryTest {
    @TempDir
    Path dir;

    private static final int XYZW = 4 | 5 << 3 | 6 << 6 | 7 << 9;

    /** Puts a V# in s[4:7]. */
    private static void vsharp(Wave w, long base, int stride, boolean swizzle, long records, int format, int indexStride,
                               boolean addTid, int oob) {
        w.setSgpr(4, (int) base);
        w.setSgpr(5, (int) (base >>> 32 & 0xFFFF) | stride << 16 | (swizzle ? 1 << 31 : 0));
        w.setSgpr(6, (int) records);
        w.setSgpr(7, XYZW | format << 12 | indexStride << 21 | (addTid ? 1 << 23 : 0) | oob << 28);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void raw_buffer_reads_past_num_records_return_zero_per_dword_and_stores_are_dropped(int ws) throws Exception {
        var out = new GuestAsm(dir).waveSize(ws).buffer(GuestAsm.pattern(128)).setup(w -> {
            vsharp(w, w.sgpr64(0), 0, false, 40, 20, 0, false, 3);
            w.setSgpr(8, 4);
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 4 * l);
                w.setVgpr(2, l, -1);
                w.setVgpr(3, l, -1);
                w.setVgpr(10, l, 1000 + l);
            }
        }).run("buffer_load_dword v2, v1, s[4:7], s8 offen offset:4\n"
                + "buffer_load_dwordx2 v[3:4], v1, s[4:7], 0 offen offset:4\n"
                + "buffer_store_dword v10, v1, s[4:7], 0 offen offset:64").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < ws; l++) {
            // checked offset 4l + 4 (SOFFSET not included); the load reads dword l + 2 (SOFFSET 4 added)
            assertEquals(4 * l + 4 + 4 <= 40 ? (l + 2) * 3 + 1 : 0, w.vgpr(2, l), "lane " + l);
            assertEquals(4 * l + 8 <= 40 ? (l + 1) * 3 + 1 : 0, w.vgpr(3, l));
            assertEquals(4 * l + 12 <= 40 ? (l + 2) * 3 + 1 : 0, w.vgpr(4, l), "the second dword is checked alone");
        }
        for (int i = 16; i < 32; i++) {
            assertEquals(i * 3 + 1, out.bufferDword(0, 4 * i), "stores at offset 64 and up are past 40: dropped");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void structured_buffer_index_past_num_records_and_offset_past_stride_read_zero(int ws) throws Exception {
        for (int oob : new int[] {0, 1}) {
            int chosen = oob;
            var r = new GuestAsm(dir).waveSize(ws).buffer(GuestAsm.pattern(512)).setup(w -> {
                vsharp(w, w.sgpr64(0), 12, false, 10, 20, 0, false, chosen);
                for (int l = 0; l < ws; l++) {
                    w.setVgpr(1, l, l);
                    w.setVgpr(2, l, 4 * (l % 4));
                }
            }).run("buffer_load_dword v3, v[1:2], s[4:7], 0 idxen offen offset:0").ok();
            for (int l = 0; l < ws; l++) {
                boolean in = l < 10 && (chosen == 1 || 4 * (l % 4) + 4 <= 12);
                assertEquals(in ? (3 * l + l % 4) * 3 + 1 : 0, r.wave(0).vgpr(3, l), "oob " + chosen + " lane " + l);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void swizzled_scratch_vsharp_accesses_meet_scratch_instructions_per_lane(int ws) throws Exception {
        int perLane = 32;
        var out = new GuestAsm(dir).waveSize(ws).groupSize(2 * ws).scratch(perLane).setup(w -> {
            // what the prolog leaves: the scratch V# base plus the wave's offset
            long waveBase = GuestLayout.SCRATCH_BASE + (long) w.index() * perLane * ws;
            vsharp(w, waveBase, 0, true, (long) perLane * ws * 2, 20, ws == 64 ? 3 : 2, true, 2);
            w.setSgpr(8, 4 * ws); // a wave-level SOFFSET: one dword of every lane
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 4 * (l % 3));
                w.setVgpr(2, l, 100 * w.index() + l);
                w.setVgpr(3, l, 7000 + l);
            }
        }).run("buffer_store_dword v2, v1, s[4:7], 0 offen offset:8\nbuffer_store_dword v3, off, s[4:7], s8 offset:20\n"
                + "scratch_load_dword v4, v1, off offset:8\nscratch_load_dword v5, off, off offset:24\n"
                + "buffer_load_dword v6, v1, s[4:7], 0 offen offset:8").ok();
        for (int wave = 0; wave < 2; wave++) {
            Wave w = out.wave(wave);
            for (int l = 0; l < ws; l++) {
                assertEquals(100 * wave + l, w.vgpr(4, l));
                assertEquals(7000 + l, w.vgpr(5, l), "SOFFSET 4*W plus offset 20 is private offset 24");
                assertEquals(100 * wave + l, w.vgpr(6, l));
            }
        }
    }

    @Test
    void format_loads_convert_components_and_fill_missing_ones() throws Exception {
        byte[] data = new byte[64];
        data[0] = 0;
        data[1] = (byte) 255;
        data[2] = 51;
        data[3] = (byte) 128;
        MemoryOps.putDword(data, 16, 0x3C00 | 0xC000 << 16); // halves 1.0, -2.0
        MemoryOps.putDword(data, 32, Float.floatToRawIntBits(2.5f));
        MemoryOps.putDword(data, 36, 0x8001FF80); // 16_16_SNORM: -128/32767, -32767/32767
        var out = new GuestAsm(dir).buffer(data).setup(w -> {
            w.setExec(1);
            vsharp(w, w.sgpr64(0), 0, false, 64, 56, 0, false, 3); // 8_8_8_8_UNORM
            w.setVgpr(1, 0, 0);
            w.setVgpr(20, 0, 0x11112222);
        }).run("buffer_load_format_xyzw v[2:5], v1, s[4:7], 0 offen\n"
                + "tbuffer_load_format_xyzw v[6:9], v1, s[4:7], 0 format:[BUF_FMT_16_16_FLOAT] offen offset:16\n"
                + "tbuffer_load_format_x v10, v1, s[4:7], 0 format:[BUF_FMT_32_FLOAT] offen offset:32\n"
                + "tbuffer_load_format_xy v[11:12], v1, s[4:7], 0 format:[BUF_FMT_16_16_SNORM] offen offset:36\n"
                + "tbuffer_load_format_d16_xy v13, v1, s[4:7], 0 format:[BUF_FMT_32_FLOAT] offen offset:32\n"
                + "buffer_load_format_d16_hi_x v20, v1, s[4:7], 0 offen offset:1\n"
                + "tbuffer_load_format_xy v[14:15], v1, s[4:7], 0 format:[BUF_FMT_8_8_UINT] offen offset:1").ok();
        Wave w = out.wave(0);
        assertEquals(0f, Float.intBitsToFloat(w.vgpr(2, 0)));
        assertEquals(1f, Float.intBitsToFloat(w.vgpr(3, 0)));
        assertEquals((float) (51 / 255.0), Float.intBitsToFloat(w.vgpr(4, 0)));
        assertEquals((float) (128 / 255.0), Float.intBitsToFloat(w.vgpr(5, 0)));
        assertEquals(1f, Float.intBitsToFloat(w.vgpr(6, 0)));
        assertEquals(-2f, Float.intBitsToFloat(w.vgpr(7, 0)));
        assertEquals(0f, Float.intBitsToFloat(w.vgpr(8, 0)), "z missing: 0");
        assertEquals(1f, Float.intBitsToFloat(w.vgpr(9, 0)), "w missing: 1.0");
        assertEquals(2.5f, Float.intBitsToFloat(w.vgpr(10, 0)));
        assertEquals((float) (-128 / 32767.0), Float.intBitsToFloat(w.vgpr(11, 0)));
        assertEquals(-1f, Float.intBitsToFloat(w.vgpr(12, 0)));
        // 2.5f as half is 0x4100; the second component is missing (0)
        assertEquals(0x4100, w.vgpr(13, 0));
        assertEquals(0x3C00 << 16 | 0x2222, w.vgpr(20, 0), "8_UNORM 255 = 1.0 = half 0x3C00 in the high half");
        assertEquals(255, w.vgpr(14, 0));
        assertEquals(51, w.vgpr(15, 0));
    }

    @Test
    void format_stores_convert_and_a_partial_packed_store_faults() throws Exception {
        var out = new GuestAsm(dir).buffer(new byte[64]).setup(w -> {
            w.setExec(1);
            vsharp(w, w.sgpr64(0), 0, false, 64, 56, 0, false, 3);
            w.setVgpr(1, 0, 0);
            w.setVgpr(2, 0, Float.floatToRawIntBits(0.5f));
            w.setVgpr(3, 0, Float.floatToRawIntBits(2f));
            w.setVgpr(4, 0, Float.floatToRawIntBits(-1f));
            w.setVgpr(5, 0, Float.floatToRawIntBits(Float.NaN));
            w.setVgpr(6, 0, 0x3C00 | 0xBC00 << 16);
        }).runToFault("buffer_store_format_xyzw v[2:5], v1, s[4:7], 0 offen\n"
                + "tbuffer_store_format_xy v[2:3], v1, s[4:7], 0 format:[BUF_FMT_16_16_FLOAT] offen offset:8\n"
                + "tbuffer_store_format_d16_xy v6, v1, s[4:7], 0 format:[BUF_FMT_16_16_SNORM] offen offset:12\n"
                + "tbuffer_store_format_x v2, v1, s[4:7], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:16");
        assertNotNull(out.fault());
        assertTrue(out.fault().message().contains("partial store of a packed element"), out.fault().message());
        byte[] b = out.buffer(0);
        // 0.5 * 255 = 127.5 rounds to even 128; 2.0 clamps to 255; -1 clamps to 0; NaN is 0
        assertEquals(128 | 255 << 8, MemoryOps.dword(b, 0));
        assertEquals(0x3800 | 0x4000 << 16, MemoryOps.dword(b, 8));
        assertEquals(32767 | (-32767 & 0xFFFF) << 16, MemoryOps.dword(b, 12));
    }

    @Test
    void tfe_writes_zero_to_the_vgpr_after_the_data() throws Exception {
        var out = new GuestAsm(dir).buffer(GuestAsm.pattern(8)).setup(w -> {
            vsharp(w, w.sgpr64(0), 0, false, 32, 20, 0, false, 3);
            for (int l = 0; l < 32; l++) {
                w.setVgpr(1, l, 0);
                w.setVgpr(4, l, -1);
            }
        }).run("buffer_load_dwordx2 v[2:4], v1, s[4:7], 0 offen offset:4 tfe").ok();
        assertEquals(4, out.wave(0).vgpr(2, 0));
        assertEquals(7, out.wave(0).vgpr(3, 0));
        assertEquals(0, out.wave(0).vgpr(4, 0));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void buffer_atomics_return_pre_op_values_and_out_of_range_ones_do_nothing(int ws) throws Exception {
        var out = new GuestAsm(dir).waveSize(ws).buffer(GuestAsm.dwords(10, 5, 0, 0)).setup(w -> {
            vsharp(w, w.sgpr64(0), 0, false, 8, 20, 0, false, 3);
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, l < 2 ? 0 : 8);
                w.setVgpr(2, l, 3);
                w.setVgpr(3, l, 42);
                w.setVgpr(4, l, 5);
            }
        }).run("buffer_atomic_add v2, v1, s[4:7], 0 offen glc\nbuffer_atomic_cmpswap v[3:4], v1, s[4:7], 0 offen offset:4 glc")
                .ok();
        Wave w = out.wave(0);
        assertEquals(10, w.vgpr(2, 0));
        assertEquals(13, w.vgpr(2, 1));
        assertEquals(0, w.vgpr(2, 2), "offset 8 is past NUM_RECORDS 8: no atomic, 0 returned");
        assertEquals(16, out.bufferDword(0, 0));
        assertEquals(5, w.vgpr(3, 0));
        assertEquals(42, w.vgpr(3, 1));
        assertEquals(42, out.bufferDword(0, 4));
        assertEquals(0, out.bufferDword(0, 8));
    }
}
