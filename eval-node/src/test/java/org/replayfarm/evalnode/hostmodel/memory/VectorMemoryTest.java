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
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/** FLAT, GLOBAL and SCRATCH loads, stores and atomics. */
@Tag("unit")
class VectorMemoryTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void global_addresses_add_saddr_vaddr_offset_and_signed_offsets(int ws) throws Exception {
        var out = new GuestAsm(dir).waveSize(ws).buffer(GuestAsm.pattern(256)).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 4 * l + 256);
            }
        }).run("global_load_dword v2, v1, s[0:1] offset:-256\nglobal_load_dword v3, v1, s[0:1] offset:8").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < ws; l++) {
            assertEquals(l * 3 + 1, w.vgpr(2, l));
            assertEquals((l + 66) * 3 + 1, w.vgpr(3, l));
        }
    }

    @Test
    void global_offsets_reach_back_and_forward_within_the_buffer() throws Exception {
        var out = new GuestAsm(dir).buffer(GuestAsm.pattern(2048)).setup(w -> {
            long base = w.sgpr64(0);
            for (int l = 0; l < 32; l++) {
                w.setVgpr64(4, l, base + 4096 + 4L * l);
            }
        }).run("global_load_dword v6, v[4:5], off offset:-2048\nglobal_load_dword v7, v[4:5], off offset:2044\n"
                + "flat_load_dword v8, v[4:5] offset:2044").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < 32; l++) {
            assertEquals((512 + l) * 3 + 1, w.vgpr(6, l));
            assertEquals((1024 + 511 + l) * 3 + 1, w.vgpr(7, l));
            assertEquals((1024 + 511 + l) * 3 + 1, w.vgpr(8, l));
        }
    }

    @Test
    void an_access_outside_every_range_faults() throws Exception {
        var out = new GuestAsm(dir).buffer(GuestAsm.pattern(4)).setup(w -> {
            w.setExec(1);
            w.setVgpr(1, 0, 16);
        }).runToFault("global_load_dword v2, v1, s[0:1]");
        assertNotNull(out.fault());
        assertTrue(out.fault().message().contains("outside every memory range"), out.fault().message());
    }

    @Test
    void sub_dword_loads_extend_and_stores_take_the_right_bytes_and_wide_forms_move_dwords() throws Exception {
        var out = new GuestAsm(dir).buffer(GuestAsm.dwords(0x8281F0F1, 0, 0, 0, 0, 0, 0, 0, 11, 12, 13, 14))
                .setup(w -> {
                    w.setExec(1);
                    w.setVgpr(1, 0, 0);
                    for (int r = 2; r < 12; r++) {
                        w.setVgpr(r, 0, 0x12345678);
                    }
                    w.setVgpr(20, 0, 0xAABBCCDD);
                    w.setVgpr(21, 0, 0x12345678);
                }).run("global_load_sbyte v2, v1, s[0:1]\nglobal_load_ubyte v3, v1, s[0:1]\n"
                        + "global_load_sshort v4, v1, s[0:1] offset:2\nglobal_load_ushort v5, v1, s[0:1] offset:2\n"
                        + "global_load_short_d16_hi v6, v1, s[0:1]\nglobal_load_sbyte_d16 v7, v1, s[0:1] offset:1\n"
                        + "global_load_ubyte_d16_hi v8, v1, s[0:1] offset:3\n"
                        + "global_load_dwordx3 v[9:11], v1, s[0:1] offset:33\n"
                        + "global_store_byte v1, v20, s[0:1] offset:4\nglobal_store_byte_d16_hi v1, v20, s[0:1] offset:5\n"
                        + "global_store_short v1, v20, s[0:1] offset:8\nglobal_store_short_d16_hi v1, v20, s[0:1] offset:13\n"
                        + "global_store_dwordx2 v1, v[20:21], s[0:1] offset:17").ok();
        Wave w = out.wave(0);
        assertEquals(0xFFFFFFF1, w.vgpr(2, 0));
        assertEquals(0xF1, w.vgpr(3, 0));
        assertEquals(0xFFFF8281, w.vgpr(4, 0));
        assertEquals(0x8281, w.vgpr(5, 0));
        assertEquals(0xF0F15678, w.vgpr(6, 0));
        assertEquals(0x1234FFF0, w.vgpr(7, 0));
        assertEquals(0x00825678, w.vgpr(8, 0));
        // unaligned x3 at byte 33: bytes 33..44 of dwords 8..11 = 11, 12, 13, 14
        assertEquals(12 << 24 | 11 >>> 8, w.vgpr(9, 0));
        assertEquals(13 << 24, w.vgpr(10, 0));
        assertEquals(14 << 24, w.vgpr(11, 0));
        byte[] b = out.buffer(0);
        assertEquals((byte) 0xDD, b[4]);
        assertEquals((byte) 0xBB, b[5]);
        assertEquals(0xCCDD, MemoryOps.dword(b, 8));
        assertEquals((byte) 0xBB, b[13]);
        assertEquals((byte) 0xAA, b[14]);
        assertEquals((byte) 0xDD, b[17]);
        assertEquals(0x12345678, MemoryOps.dword(b, 21));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void global_atomics_with_glc_return_pre_op_values_in_lane_order_and_record_contributions(int ws) throws Exception {
        var out = new GuestAsm(dir).waveSize(ws).buffer(GuestAsm.dwords(100, 0, 7, 7, 0, 0)).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 0);
                w.setVgpr(2, l, 2);
                w.setVgpr(3, l, 9); // new value for cmpswap
                w.setVgpr(4, l, 7); // comparand
            }
        }).run("global_atomic_add v5, v1, v2, s[0:1] glc\nglobal_atomic_cmpswap v6, v1, v[3:4], s[0:1] offset:8 glc\n"
                + "global_atomic_umax v1, v2, s[0:1] offset:4").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < ws; l++) {
            assertEquals(100 + 2 * l, w.vgpr(5, l));
            assertEquals(l == 0 ? 7 : 9, w.vgpr(6, l), "only lane 0 finds the comparand 7");
        }
        assertEquals(100 + 2 * ws, out.bufferDword(0, 0));
        assertEquals(9, out.bufferDword(0, 8));
        assertEquals(2, out.bufferDword(0, 4));
        var atomics = out.group().memory().atomics();
        assertEquals(3 * ws, atomics.size());
        assertEquals(new AtomicContribution(0, 0, "add", 4, 2, 0, 100), atomics.get(0));
        assertEquals(new AtomicContribution(0, 8, "cmpswap", 4, 9, 7, 7), atomics.get(ws));
    }

    @Test
    void sixty_four_bit_atomics_and_misaligned_atomics_fault() throws Exception {
        var out = new GuestAsm(dir).buffer(new byte[64]).setup(w -> {
            w.setExec(1);
            w.setVgpr(1, 0, 8);
            w.setVgpr64(2, 0, 0xFFFF_FFFFL);
            w.setVgpr64(4, 0, 0x5_0000_0000L);
            w.setVgpr64(6, 0, 0);
        }).runToFault("global_atomic_add_x2 v1, v[2:3], s[0:1]\nglobal_atomic_add_x2 v[10:11], v1, v[2:3], s[0:1] glc\n"
                + "global_atomic_cmpswap_x2 v[12:13], v1, v[4:7], s[0:1] offset:8 glc\n"
                + "global_atomic_add v1, v2, s[0:1] offset:2");
        assertNotNull(out.fault());
        assertTrue(out.fault().message().contains("misaligned"));
        Wave w = out.wave(0);
        assertEquals(0xFFFF_FFFFL, w.vgpr64(10, 0));
        assertEquals(0, w.vgpr64(12, 0));
        byte[] b = out.buffer(0);
        assertEquals(2 * 0xFFFF_FFFFL, MemoryOps.littleEndian(b, 8, 8));
        assertEquals(0x5_0000_0000L, MemoryOps.littleEndian(b, 16, 8), "16 held 0 = the comparand");
    }

    /**
     * The most scratch a gfx1030 wave may have (8,387,584 bytes), on a group of 32 waves: 256 MiB declared, held as
     * pages when written (one array per group ran two evaluator threads out of heap); the last dword of every lane
     * is where the layout puts it, and a byte past the group's scratch still faults.
     */
    @Test
    void the_largest_scratch_a_wave_may_have_is_held_as_the_pages_written() throws Exception {
        int perLane = (int) (org.replayfarm.model.capture.CaptureValidator.WAVE_SCRATCH_LIMIT / 32);
        int waves = 32;
        var out = new GuestAsm(dir).waveSize(32).groupSize(32 * waves).scratch(perLane).setup(w -> {
            for (int l = 0; l < 32; l++) {
                w.setVgpr(1, l, perLane - 4);
                w.setVgpr(2, l, 1000 * w.index() + l);
            }
        }).run("scratch_store_dword v1, v2, off\nscratch_load_dword v3, v1, off\nscratch_load_dword v4, v1, off offset:-8").ok();
        var scratch = out.group().scratch();
        assertEquals((long) perLane * 32 * waves, scratch.length(), "the declared size");
        for (int wave = 0; wave < waves; wave++) {
            Wave w = out.wave(wave);
            for (int l = 0; l < 32; l++) {
                assertEquals(1000 * wave + l, w.vgpr(3, l));
                assertEquals(0, w.vgpr(4, l), "never written: zero");
                assertEquals(1000 * wave + l, scratch.dword(wave * perLane * 32 + ((perLane / 4 - 1) * 32 + l) * 4));
            }
        }
        assertEquals(waves, scratch.pagesMade(), "one page per wave written: "
                + scratch.pagesMade() * (long) org.replayfarm.evalnode.hostmodel.wave.Scratch.PAGE_BYTES + " bytes of "
                + scratch.length());
        var past = new GuestAsm(dir).waveSize(32).groupSize(32).scratch(perLane).setup(w -> w.setVgpr(1, 0, perLane))
                .runToFault("scratch_store_dword v1, v1, off");
        assertTrue(past.fault().message().contains("outside the group's " + (long) perLane * 32 + " bytes of scratch"),
                past.fault().message());
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void scratch_arrays_are_private_per_lane_and_dword_interleaved_per_wave(int ws) throws Exception {
        int perLane = 64;
        var out = new GuestAsm(dir).waveSize(ws).groupSize(2 * ws).scratch(perLane).setup(w -> {
            w.setSgpr(5, 8);
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 4 * (l % 5));
                w.setVgpr(2, l, 1000 * w.index() + l);
                w.setVgpr(3, l, 77 + l);
            }
        }).run("scratch_store_dword v1, v2, off offset:16\nscratch_store_dword off, v3, s5 offset:-4\n"
                + "scratch_load_dword v4, v1, off offset:16\nscratch_load_dword v5, off, s5 offset:-4\n"
                + "scratch_store_short v1, v3, off offset:41\nscratch_load_ushort v6, v1, off offset:41").ok();
        var scratch = out.group().scratch();
        for (int wave = 0; wave < 2; wave++) {
            Wave w = out.wave(wave);
            for (int l = 0; l < ws; l++) {
                assertEquals(1000 * wave + l, w.vgpr(4, l));
                assertEquals(77 + l, w.vgpr(5, l));
                assertEquals(77 + l, w.vgpr(6, l));
                // layout: wave part (perLane * ws bytes each), then dword d of lane l at (d * ws + l) * 4
                int d = (16 + 4 * (l % 5)) / 4;
                assertEquals(1000 * wave + l, scratch.dword(wave * perLane * ws + (d * ws + l) * 4));
                assertEquals(77 + l, scratch.dword(wave * perLane * ws + (1 * ws + l) * 4));
            }
        }
    }

    @Test
    void flat_addresses_in_the_shared_aperture_go_to_lds_and_in_the_private_aperture_to_scratch() throws Exception {
        var out = new GuestAsm(dir).lds(256).scratch(16).buffer(GuestAsm.pattern(64)).setup(w -> {
            long base = w.sgpr64(0);
            for (int l = 0; l < 32; l++) {
                w.setVgpr64(2, l, Wave.SHARED_BASE + 4L * l);
                w.setVgpr64(4, l, Wave.PRIVATE_BASE + 8);
                w.setVgpr64(6, l, base + 4L * l);
                w.setVgpr(8, l, 300 + l);
                w.setVgpr(9, l, 1);
            }
        }).run("flat_store_dword v[2:3], v8 offset:4\nflat_store_dword v[4:5], v8\n"
                + "scratch_load_dword v10, off, off offset:8\nflat_load_dword v11, v[6:7]\n"
                + "flat_atomic_add v12, v[2:3], v9 offset:4 glc\nflat_atomic_add v13, v[4:5], v9 glc\n"
                + "flat_load_dword v14, v[2:3] offset:4").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < 32; l++) {
            assertEquals(300 + l, w.vgpr(10, l));
            assertEquals(l * 3 + 1, w.vgpr(11, l));
            assertEquals(300 + l, w.vgpr(12, l));
            assertEquals(300 + l, w.vgpr(13, l));
            assertEquals(301 + l, w.vgpr(14, l));
            assertEquals(301 + l, out.group().lds().getInt(4 + 4 * l));
        }
        assertTrue(out.group().memory().atomics().isEmpty(), "LDS and scratch atomics are not guest-memory contributions");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void addtid_forms_address_saddr_plus_offset_plus_four_per_lane(int ws) throws Exception {
        var out = new GuestAsm(dir).waveSize(ws).buffer(GuestAsm.pattern(80)).buffer(new byte[320]).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, l + 5);
            }
        }).run("global_load_dword_addtid v2, s[0:1] offset:8\nglobal_store_dword_addtid v1, s[2:3] offset:4").ok();
        for (int l = 0; l < ws; l++) {
            assertEquals((l + 2) * 3 + 1, out.wave(0).vgpr(2, l));
            assertEquals(l + 5, out.bufferDword(1, 4 + 4 * l));
        }
    }
}
