package org.replayfarm.evalnode.hostmodel.memory;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/** SMEM: s_load and s_buffer_load of every width, offsets, alignment, range checks, no-op controls. */
@Tag("unit")
class ScalarMemoryTest {
    @TempDir
    Path dir;

    /** 256 bytes: dword i holds 0x1000 + i. */
    private static byte[] words() {
        ByteBuffer b = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 64; i++) {
            b.putInt(0x1000 + i);
        }
        return b.array();
    }

    private Wave run(boolean wave64, String body) throws Exception {
        GuestAsm r = new GuestAsm(dir).buffer(words());
        if (wave64) {
            r.wave64();
        }
        var out = r.run(body + "s_waitcnt lgkmcnt(0)\ns_endpgm\n");
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().get().toString());
        return out.wave(0);
    }

    private static void assertDwords(Wave w, int sdata, int firstDword, int count) {
        for (int i = 0; i < count; i++) {
            assertSgpr(w, sdata + i, 0x1000 + firstDword + i);
        }
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void s_load_of_every_width_reads_consecutive_dwords_at_base_plus_offset(boolean wave64) throws Exception {
        Wave w = run(wave64, """
                s_load_dword s10, s[0:1], 0x10
                s_load_dwordx2 s[12:13], s[0:1], 0x8
                s_load_dwordx4 s[16:19], s[0:1], 0x20
                s_load_dwordx8 s[20:27], s[0:1], 0x40
                s_load_dwordx16 s[40:55], s[0:1], 0x80
                """);
        assertDwords(w, 10, 4, 1);
        assertDwords(w, 12, 2, 2);
        assertDwords(w, 16, 8, 4);
        assertDwords(w, 20, 16, 8);
        assertDwords(w, 40, 32, 16);
    }

    @Test
    void s_load_takes_negative_offsets_from_the_base() throws Exception {
        Wave w = run(false, """
                s_add_u32 s2, s0, 0x100
                s_addc_u32 s3, s1, 0
                s_load_dword s10, s[2:3], -0x4
                s_load_dwordx2 s[12:13], s[2:3], -0x10
                s_load_dwordx4 s[16:19], s[2:3], -0x20
                s_load_dwordx8 s[20:27], s[2:3], -0x80
                s_load_dwordx16 s[40:55], s[2:3], -0x100
                """);
        assertDwords(w, 10, 63, 1);
        assertDwords(w, 12, 60, 2);
        assertDwords(w, 16, 56, 4);
        assertDwords(w, 20, 32, 8);
        assertDwords(w, 40, 0, 16);
    }

    @Test
    void s_load_adds_the_soffset_register_and_ignores_the_low_two_address_bits() throws Exception {
        Wave w = run(false, """
                s_mov_b32 s20, 8
                s_load_dword s10, s[0:1], s20 offset:0x4
                s_load_dword s11, s[0:1], 0x13
                s_add_u32 s2, s0, 2
                s_addc_u32 s3, s1, 0
                s_load_dwordx2 s[12:13], s[2:3], 0x4
                """);
        assertDwords(w, 10, 3, 1);
        assertDwords(w, 11, 4, 1);
        assertDwords(w, 12, 1, 2);
    }

    @Test
    void the_soffset_register_is_an_unsigned_32_bit_addend() throws Exception {
        var out = new GuestAsm(dir).buffer(words()).runToFault("""
                s_mov_b32 s21, -8
                s_add_u32 s4, s0, 0x40
                s_addc_u32 s5, s1, 0
                s_load_dword s14, s[4:5], s21 offset:0x0
                s_endpgm
                """);
        long expected = out.capture().getRanges(0).getGuestAddress() + 0x40 + 0xfffffff8L;
        var fault = out.result().fault().orElseThrow();
        assertTrue(fault.message().contains(String.format("at 0x%x ", expected)), fault.message());
    }

    @Test
    void an_s_load_outside_every_range_faults() throws Exception {
        var out = new GuestAsm(dir).buffer(words()).runToFault("s_load_dwordx2 s[10:11], s[0:1], 0xfc\ns_endpgm\n");
        var fault = out.result().fault().orElseThrow();
        assertTrue(fault.message().contains("outside every memory range"), fault.message());
    }

    @Test
    void s_buffer_load_reads_through_the_descriptor_and_reads_zero_past_num_records() throws Exception {
        Wave w = run(false, """
                s_mov_b32 s4, s0
                s_and_b32 s5, s1, 0xffff
                s_mov_b32 s6, 32
                s_mov_b32 s7, 0
                s_buffer_load_dwordx4 s[12:15], s[4:7], 0x18
                s_buffer_load_dword s16, s[4:7], 0x1c
                s_buffer_load_dword s17, s[4:7], 0x20
                s_mov_b32 s20, 4
                s_buffer_load_dwordx2 s[18:19], s[4:7], s20 offset:0x8
                s_mov_b32 s6, 256
                s_buffer_load_dwordx8 s[24:31], s[4:7], 0x0
                s_buffer_load_dwordx16 s[40:55], s[4:7], 0xc0
                s_buffer_load_dword s56, s[4:7], 0x102
                """);
        assertDwords(w, 12, 6, 2);
        assertSgpr(w, 14, 0);
        assertSgpr(w, 15, 0);
        assertDwords(w, 16, 7, 1);
        assertSgpr(w, 17, 0);
        assertDwords(w, 18, 3, 2);
        assertDwords(w, 24, 0, 8);
        assertDwords(w, 40, 48, 16);
        assertSgpr(w, 56, 0);   // offset 0x100 after dropping the low bits: out of range, no memory touched
    }

    @Test
    void s_buffer_load_range_is_num_records_times_stride_when_stride_is_set() throws Exception {
        Wave w = run(false, """
                s_mov_b32 s4, s0
                s_and_b32 s5, s1, 0xffff
                s_or_b32 s5, s5, 0x40000
                s_mov_b32 s6, 8
                s_mov_b32 s7, 0
                s_buffer_load_dwordx2 s[10:11], s[4:7], 0x1c
                s_mov_b32 s4, 0
                s_mov_b32 s5, 0
                s_mov_b32 s6, 0
                s_buffer_load_dwordx4 s[12:15], s[4:7], 0x0
                """);
        assertDwords(w, 10, 7, 1);   // stride 4 * 8 records = 32 bytes
        assertSgpr(w, 11, 0);
        for (int i = 12; i < 16; i++) {
            assertSgpr(w, i, 0);     // NUM_RECORDS 0: nothing is read, even from address 0
        }
    }

    @Test
    void probes_are_no_ops() throws Exception {
        Wave w = run(false, """
                s_mov_b32 s10, 9
                s_atc_probe 7, s[0:1], 0x0
                s_atc_probe_buffer 7, s[4:7], 0x0
                """);
        assertSgpr(w, 10, 9);
    }
}
