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

/** DS instructions: LDS reads/writes of every width, read2/write2, atomics, swizzle, permutes, append. */
@Tag("unit")
class LdsTest {
    @TempDir
    Path dir;

    private GuestAsm h(int waveSize) {
        return new GuestAsm(dir).waveSize(waveSize).lds(4096);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void any_address_pattern_round_trips_dwords_through_lds_bank_free(int ws) throws Exception {
        // lane i writes i*7+1 at the address (i * 68) % 4000, 4-aligned: many lanes share banks
        var out = h(ws).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, (l * 68) % 4000);
                w.setVgpr(2, l, l * 7 + 1);
            }
        }).run("ds_write_b32 v1, v2 offset:16\nds_read_b32 v3, v1 offset:16").ok();
        for (int l = 0; l < ws; l++) {
            assertEquals(l * 7 + 1, out.wave(0).vgpr(3, l));
            assertEquals(l * 7 + 1, out.group().lds().getInt((l * 68) % 4000 + 16));
        }
    }

    @Test
    void a_base_below_zero_plus_an_offset_wraps_in_32_bits() throws Exception {
        // clang-19 compiles p[63 - l] on a __local pointer at 12 to ds_read_b32 (12 - 4 l) offset:252: the
        // address is ADDR + OFFSET in 32 bits (LLVM folds DS offsets whatever the base's sign from Sea Islands on)
        var out = h(32).setup(w -> {
            w.setExec(0b11);
            w.setVgpr(1, 0, -16); // 0xFFFFFFF0
            w.setVgpr(1, 1, -8);
            w.setVgpr(2, 0, 0x1234);
            w.setVgpr(2, 1, 0x5678);
            w.setVgpr(5, 0, -4);
            w.setVgpr(5, 1, 28);
        }).run("ds_write_b32 v1, v2 offset:32\nds_read_b32 v3, v1 offset:32\n"
                + "ds_write2_b32 v5, v2, v2 offset0:2 offset1:3\nds_read2_b32 v[6:7], v5 offset0:2 offset1:3").ok();
        Wave w = out.wave(0);
        assertEquals(0x1234, out.group().lds().getInt(16));
        assertEquals(0x5678, out.group().lds().getInt(24));
        assertEquals(0x1234, w.vgpr(3, 0));
        assertEquals(0x5678, w.vgpr(3, 1));
        // write2/read2: lane 0's base -4 plus 2 and 3 dwords is 4 and 8; lane 1's 28 gives 36 and 40
        assertEquals(0x1234, out.group().lds().getInt(4));
        assertEquals(0x1234, out.group().lds().getInt(8));
        assertEquals(0x5678, out.group().lds().getInt(36));
        assertEquals(0x1234, w.vgpr(6, 0));
        assertEquals(0x1234, w.vgpr(7, 0));
        assertEquals(0x5678, w.vgpr(6, 1));
        assertEquals(0x5678, w.vgpr(7, 1));
    }

    @Test
    void wide_reads_and_writes_move_consecutive_dwords_even_unaligned() throws Exception {
        var out = h(32).setup(w -> {
            for (int l = 0; l < 32; l++) {
                w.setVgpr(1, l, l * 32 + 2); // unaligned by 2
                for (int d = 0; d < 4; d++) {
                    w.setVgpr(4 + d, l, l * 100 + d);
                }
            }
        }).run("ds_write_b128 v1, v[4:7]\nds_read_b128 v[8:11], v1\nds_read_b96 v[12:14], v1 offset:4\n"
                + "ds_read_b64 v[16:17], v1 offset:8").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < 32; l++) {
            for (int d = 0; d < 4; d++) {
                assertEquals(l * 100 + d, w.vgpr(8 + d, l));
            }
            for (int d = 0; d < 3; d++) {
                assertEquals(l * 100 + d + 1, w.vgpr(12 + d, l));
            }
            assertEquals(l * 100 + 2, w.vgpr(16, l));
            assertEquals(l * 100 + 3, w.vgpr(17, l));
        }
    }

    @Test
    void sub_dword_reads_sign_or_zero_extend_and_d16_forms_keep_the_other_half() throws Exception {
        var out = h(32).setup(w -> {
            w.setExec(1);
            w.setVgpr(1, 0, 0);
            w.setVgpr(2, 0, 0x8281F0F1);
            for (int r = 3; r < 12; r++) {
                w.setVgpr(r, 0, 0x12345678);
            }
        }).run("ds_write_b32 v1, v2\n"
                + "ds_read_u8 v3, v1\nds_read_i8 v4, v1\nds_read_u16 v5, v1 offset:2\nds_read_i16 v6, v1 offset:2\n"
                + "ds_read_u8_d16 v7, v1\nds_read_i8_d16_hi v8, v1\nds_read_u16_d16 v9, v1 offset:2\n"
                + "ds_read_u16_d16_hi v10, v1\nds_read_i8_d16 v11, v1 offset:3\n"
                + "ds_write_b8_d16_hi v1, v2 offset:8\nds_write_b16_d16_hi v1, v2 offset:12\n"
                + "ds_write_b8 v1, v2 offset:16\nds_write_b16 v1, v2 offset:20").ok();
        Wave w = out.wave(0);
        assertEquals(0xF1, w.vgpr(3, 0));
        assertEquals(0xFFFFFFF1, w.vgpr(4, 0));
        assertEquals(0x8281, w.vgpr(5, 0));
        assertEquals(0xFFFF8281, w.vgpr(6, 0));
        assertEquals(0x123400F1, w.vgpr(7, 0), "u8_d16: zero-extended into the low half");
        assertEquals(0xFFF15678, w.vgpr(8, 0), "i8_d16_hi: sign-extended into the high half");
        assertEquals(0x12348281, w.vgpr(9, 0));
        assertEquals(0xF0F15678, w.vgpr(10, 0));
        assertEquals(0x1234FF82, w.vgpr(11, 0));
        var lds = out.group().lds();
        assertEquals(0x81, lds.getInt(8), "b8_d16_hi writes byte 2 of the data");
        assertEquals(0x8281, lds.getInt(12));
        assertEquals(0xF1, lds.getInt(16));
        assertEquals(0xF0F1, lds.getInt(20));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void read2_and_write2_scale_offsets_by_element_size_and_st64_by_64_elements(int ws) throws Exception {
        var out = new GuestAsm(dir).waveSize(ws).lds(65536).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, l * 4);
                w.setVgpr(2, l, 1000 + l);
                w.setVgpr(3, l, 2000 + l);
                w.setVgpr(4, l, 3000 + l);
                w.setVgpr(5, l, 4000 + l);
            }
        }).run("ds_write2_b32 v1, v2, v3 offset0:1 offset1:200\n"
                + "ds_write2st64_b32 v1, v4, v5 offset0:10 offset1:20\n"
                + "ds_read2_b32 v[6:7], v1 offset0:1 offset1:200\n"
                + "ds_read2st64_b32 v[8:9], v1 offset0:10 offset1:20\n"
                + "ds_write2_b64 v1, v[2:3], v[4:5] offset0:100 offset1:150\n"
                + "ds_read2st64_b64 v[10:13], v1 offset0:0 offset1:0\n"
                + "ds_read2_b64 v[14:17], v1 offset0:100 offset1:150").ok();
        var lds = out.group().lds();
        for (int l = 0; l < ws; l++) {
            Wave w = out.wave(0);
            assertEquals(1000 + l, lds.getInt(l * 4 + 4));
            assertEquals(3000 + l, lds.getInt(l * 4 + 10 * 64 * 4));
            assertEquals(4000 + l, lds.getInt(l * 4 + 20 * 64 * 4));
            assertEquals(1000 + l, w.vgpr(6, l));
            assertEquals(2000 + l, w.vgpr(7, l));
            assertEquals(3000 + l, w.vgpr(8, l));
            assertEquals(4000 + l, w.vgpr(9, l));
            // b64 elements at l*4 + 800 and l*4 + 1200 overlap: lane l + 1 (later) overwrites lane l's upper dword
            assertEquals(1000 + l, w.vgpr(14, l));
            assertEquals(l == ws - 1 ? 2000 + l : 1001 + l, w.vgpr(15, l));
            assertEquals(3000 + l, w.vgpr(16, l));
            assertEquals(l == ws - 1 ? 4000 + l : 3001 + l, w.vgpr(17, l));
        }
    }

    @Test
    void accesses_past_the_lds_allocation_read_zero_and_drop_writes() throws Exception {
        var out = new GuestAsm(dir).lds(256).setup(w -> {
            w.setVgpr(1, 0, 252);
            w.setVgpr(2, 0, 0x11111111);
            w.setVgpr(3, 0, 0x22222222);
            w.setVgpr(4, 0, 0xDEAD);
            w.setVgpr(5, 0, 0xDEAD);
            w.setExec(1);
        }).run("ds_write_b32 v1, v2\nds_write_b64 v1, v[2:3]\nds_write_b32 v1, v3 offset:4\n"
                + "ds_read_b32 v4, v1 offset:4\nds_read_b64 v[5:6], v1").ok();
        Wave w = out.wave(0);
        assertEquals(0x11111111, out.group().lds().getInt(252), "the b64 write crossing the end is dropped whole");
        assertEquals(0, w.vgpr(4, 0));
        assertEquals(0, w.vgpr(5, 0));
        assertEquals(0, w.vgpr(6, 0));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void atomics_to_one_address_apply_in_lane_order_and_return_pre_op_values(int ws) throws Exception {
        var out = h(ws).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 64);
                w.setVgpr(2, l, l + 1);
            }
        }).run("ds_add_rtn_u32 v3, v1, v2\nds_max_rtn_i32 v4, v1, v2 offset:4\nds_add_u32 v1, v2 offset:8").ok();
        int sum = 0;
        for (int l = 0; l < ws; l++) {
            assertEquals(sum, out.wave(0).vgpr(3, l), "lane " + l + " sees the sum of the lanes before it");
            assertEquals(l, out.wave(0).vgpr(4, l));
            sum += l + 1;
        }
        assertEquals(ws * (ws + 1) / 2, out.group().lds().getInt(64));
        assertEquals(ws * (ws + 1) / 2, out.group().lds().getInt(72));
        assertEquals(ws, out.group().lds().getInt(68));
    }

    @Test
    void every_32_bit_atomic_computes_the_isa_guide_result() throws Exception {
        // memory starts at 10 (or 0x0F0F for the bitwise ones); one lane, results checked against the formulas
        String[] ops = {"ds_sub_rtn_u32", "ds_rsub_rtn_u32", "ds_inc_rtn_u32", "ds_dec_rtn_u32", "ds_min_rtn_i32",
            "ds_min_rtn_u32", "ds_max_rtn_u32", "ds_and_rtn_b32", "ds_or_rtn_b32", "ds_xor_rtn_b32"};
        StringBuilder asm = new StringBuilder();
        for (int i = 0; i < ops.length; i++) {
            asm.append(ops[i]).append(" v").append(10 + i).append(", v1, v2 offset:").append(4 * i).append('\n');
        }
        asm.append("ds_inc_rtn_u32 v30, v1, v3 offset:100\nds_dec_rtn_u32 v31, v1, v3 offset:104\n"
                + "ds_dec_rtn_u32 v32, v1, v3 offset:108\n"
                + "ds_mskor_rtn_b32 v33, v1, v4, v5 offset:112\n"
                + "ds_cmpst_rtn_b32 v34, v1, v6, v7 offset:116\nds_cmpst_rtn_b32 v35, v1, v7, v6 offset:120\n"
                + "ds_wrap_rtn_b32 v36, v1, v2, v5 offset:124\nds_wrap_rtn_b32 v37, v1, v6, v5 offset:128\n"
                + "ds_wrxchg_rtn_b32 v38, v1, v5 offset:132\n");
        var out = h(32).setup(w -> {
            w.setExec(1);
            w.setVgpr(1, 0, 0);
            w.setVgpr(2, 0, -3);
            w.setVgpr(3, 0, 10);
            w.setVgpr(4, 0, 0xFF00);
            w.setVgpr(5, 0, 0x0033);
            w.setVgpr(6, 0, 10);
            w.setVgpr(7, 0, 99);
            var lds = w.group().lds();
            for (int i = 0; i < 7; i++) {
                lds.putInt(4 * i, 10);
            }
            for (int i = 7; i < 10; i++) {
                lds.putInt(4 * i, 0x0F0F);
            }
            lds.putInt(100, 10).putInt(104, 0).putInt(108, 11).putInt(112, 0x1234).putInt(116, 10).putInt(120, 10)
                    .putInt(124, 10).putInt(128, 10).putInt(132, 77);
        }).run(asm.toString()).ok();
        var lds = out.group().lds();
        int[] expected = {10 - (-3), -3 - 10, 0 /* 10 >= 0xFFFFFFFD? no: 10+1 */, 0, -3, 10, -3, 0x0F0F & -3,
            0x0F0F | -3, 0x0F0F ^ -3};
        expected[2] = 11; // inc: 10 < 0xFFFFFFFD unsigned, so 10 + 1
        expected[3] = 9; // dec: 10 is neither 0 nor above 0xFFFFFFFD, so 10 - 1
        for (int i = 0; i < ops.length; i++) {
            assertEquals(expected[i], lds.getInt(4 * i), ops[i]);
            assertEquals(i < 7 ? 10 : 0x0F0F, out.wave(0).vgpr(10 + i, 0), ops[i] + " returns the old value");
        }
        assertEquals(0, lds.getInt(100), "inc wraps to 0 once memory >= data");
        assertEquals(10, lds.getInt(104), "dec of 0 gives data");
        assertEquals(10, lds.getInt(108), "dec of a value above data gives data");
        assertEquals((0x1234 & ~0xFF00) | 0x33, lds.getInt(112));
        assertEquals(99, lds.getInt(116), "cmpst: DATA0 (10) is the comparand, DATA1 (99) the new value");
        assertEquals(10, lds.getInt(120), "cmpst with comparand 99 does not match 10");
        assertEquals(10 + 0x33, lds.getInt(124), "wrap: 10 < 0xFFFFFFFD, so add DATA1");
        assertEquals(0, lds.getInt(128), "wrap: 10 >= 10, so subtract");
        assertEquals(0x33, lds.getInt(132));
        assertEquals(77, out.wave(0).vgpr(38, 0));
    }

    @Test
    void sixty_four_bit_and_float_atomics() throws Exception {
        var out = h(32).setup(w -> {
            w.setExec(1);
            w.setVgpr(1, 0, 0);
            w.setVgpr64(2, 0, 0x1_0000_0001L);
            w.setVgpr64(4, 0, 0x7FFF_FFFF_FFFF_FFFFL);
            w.setVgpr(6, 0, Float.floatToRawIntBits(1.5f));
            w.setVgpr(7, 0, Float.floatToRawIntBits(Float.NaN));
            w.setVgpr64(8, 0, Double.doubleToRawLongBits(-2.0));
            var lds = w.group().lds();
            lds.putLong(0, 0xFFFF_FFFFL).putLong(8, 5).putInt(16, Float.floatToRawIntBits(2.0f))
                    .putInt(20, Float.floatToRawIntBits(2.0f)).putInt(24, Float.floatToRawIntBits(2.0f))
                    .putLong(32, Double.doubleToRawLongBits(1.0)).putLong(40, 5).putLong(48, 7);
        }).run("ds_add_rtn_u64 v[10:11], v1, v[2:3]\nds_max_i64 v1, v[4:5] offset:8\n"
                + "ds_min_rtn_f32 v12, v1, v6 offset:16\nds_add_rtn_f32 v13, v1, v6 offset:20\n"
                + "ds_max_f32 v1, v7 offset:24\nds_min_rtn_f64 v[14:15], v1, v[8:9] offset:32\n"
                + "ds_cmpst_b64 v1, v[40:41], v[2:3] offset:40\nds_wrxchg2_rtn_b64 v[16:19], v1, v[2:3], v[4:5] "
                + "offset0:6 offset1:5").ok();
        var lds = out.group().lds();
        Wave w = out.wave(0);
        assertEquals(0xFFFF_FFFFL, w.vgpr64(10, 0));
        assertEquals(0xFFFF_FFFFL + 0x1_0000_0001L, lds.getLong(0));
        assertEquals(0x7FFF_FFFF_FFFF_FFFFL, lds.getLong(8));
        assertEquals(1.5f, Float.intBitsToFloat(lds.getInt(16)));
        assertEquals(3.5f, Float.intBitsToFloat(lds.getInt(20)));
        assertEquals(2.0f, Float.intBitsToFloat(w.vgpr(13, 0)));
        assertEquals(2.0f, Float.intBitsToFloat(lds.getInt(24)), "a NaN operand yields the other one");
        assertEquals(-2.0, Double.longBitsToDouble(lds.getLong(32)));
        assertEquals(5, w.vgpr64(18, 0), "cmpst_b64 left 5: its comparand v[40:41] (0) did not match");
        assertEquals(7, w.vgpr64(16, 0), "wrxchg2 returns offset0*8 = 48's old value first");
        assertEquals(0x1_0000_0001L, lds.getLong(48));
        assertEquals(0x7FFF_FFFF_FFFF_FFFFL, lds.getLong(40));
    }

    @Test
    void misaligned_atomics_fault() throws Exception {
        var out = h(32).setup(w -> w.setVgpr(1, 0, 2)).runToFault("ds_add_u32 v1, v2");
        assertNotNull(out.fault());
        assertTrue(out.fault().message().contains("misaligned"), out.fault().message());
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void swizzle_quad_perm_and_bitmask_perm(int ws) throws Exception {
        var out = h(ws).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 100 + l);
            }
            w.setExec(w.exec() & ~(1L << 5));
        }).run("ds_swizzle_b32 v2, v1 offset:swizzle(QUAD_PERM,3,2,1,0)\n"
                + "ds_swizzle_b32 v3, v1 offset:swizzle(BITMASK_PERM,\"01pi0\")\n"
                + "ds_swizzle_b32 v4, v1 offset:swizzle(SWAP,16)").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < ws; l++) {
            if (l == 5) {
                continue;
            }
            int quad = (l & ~3) | (3 - (l & 3));
            assertEquals(quad == 5 ? 0 : 100 + quad, w.vgpr(2, l), "quad perm lane " + l);
            // "01pi0": bit4 = 0, bit3 = 1, bit2 kept, bit1 inverted, bit0 = 0
            int j = (l & ~31) | 8 | (l & 4) | (~l & 2);
            assertEquals(j == 5 ? 0 : 100 + j, w.vgpr(3, l), "bitmask perm lane " + l);
            int swapped = l ^ 16;
            assertEquals(swapped == 5 ? 0 : 100 + swapped, w.vgpr(4, l));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void permute_and_bpermute_address_lanes_by_byte_address_within_the_32_lane_half(int ws) throws Exception {
        var out = h(ws).setup(w -> {
            for (int l = 0; l < ws; l++) {
                w.setVgpr(1, l, 4 * (ws - 1 - l) + 4 * ws * 3); // reversed, plus whole wraps
                w.setVgpr(2, l, 500 + l);
                w.setVgpr(5, l, 4 * 7 + 1);
            }
            w.setExec(w.exec() & ~(1L << 2));
        }).run("ds_bpermute_b32 v3, v1, v2\nds_permute_b32 v4, v1, v2\nds_bpermute_b32 v6, v5, v2 offset:4\n"
                + "ds_permute_b32 v7, v5, v2").ok();
        Wave w = out.wave(0);
        for (int l = 0; l < ws; l++) {
            if (l == 2) {
                continue;
            }
            // lane l names byte address 4 * (ws - 1 - l) + wraps: lane (ws - 1 - l) % 32 of its own half
            int half = l & 32;
            int src = half | ((ws - 1 - l) & 31);
            int from = half | (31 - (l & 31)); // the lane of l's half that names l
            assertEquals(src == 2 ? 0 : 500 + src, w.vgpr(3, l), "bpermute reads 0 from an inactive lane");
            assertEquals(from == 2 ? 0 : 500 + from, w.vgpr(4, l), "nobody sends to lane " + l);
            assertEquals(508 + half, w.vgpr(6, l), "(29 + 4) / 4 = lane 8 of the half");
            assertEquals((l & 31) == 7 ? 500 + half + 31 : 0, w.vgpr(7, l),
                    "each half sends to its lane 7: the highest lane of the half wins");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void append_adds_the_active_lane_count_at_m0_and_returns_the_old_count(int ws) throws Exception {
        var out = h(ws).setup(w -> {
            w.setSgpr(Wave.M0, 0x10000 | 32);
            w.group().lds().putInt(40, 5);
            w.setExec(0b1011);
        }).run("ds_append v1 offset:8\nds_consume v2 offset:8").ok();
        assertEquals(5, out.wave(0).vgpr(1, 3));
        assertEquals(8, out.wave(0).vgpr(2, 0));
        assertEquals(5, out.group().lds().getInt(40));
    }

    @Test
    void gds_faults() throws Exception {
        var out = h(32).runToFault("ds_add_u32 v1, v2 gds");
        assertNotNull(out.fault());
        assertTrue(out.fault().message().contains("GDS"));
    }

    @Test
    void addtid_forms_address_m0_plus_offset_plus_four_per_lane() throws Exception {
        var out = h(32).setup(w -> {
            w.setSgpr(Wave.M0, 16);
            for (int l = 0; l < 32; l++) {
                w.setVgpr(1, l, l * 3);
            }
        }).run("ds_write_addtid_b32 v1 offset:4\nds_read_addtid_b32 v2 offset:8").ok();
        for (int l = 0; l < 32; l++) {
            assertEquals(l * 3, out.group().lds().getInt(20 + 4 * l));
            assertEquals(l == 31 ? 0 : (l + 1) * 3, out.wave(0).vgpr(2, l));
        }
    }
}
