package org.replayfarm.evalnode.hostmodel.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.build.GuestLayout;

/** SOPP/SOPK wave control: barrier, no-op waits and hints, messages, traps, MODE and hardware registers. */
@Tag("unit")
class WaveControlTest {
    @TempDir
    Path dir;

    @Test
    void waits_hints_and_cache_controls_change_nothing() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_mov_b32 s10, 5
                s_cmp_eq_u32 0, 0
                s_nop 7
                s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
                s_waitcnt_vscnt null, 0x0
                s_waitcnt_vmcnt null, 0x0
                s_waitcnt_expcnt null, 0x0
                s_waitcnt_lgkmcnt null, 0x0
                s_waitcnt_depctr 0xffe3
                s_sleep 2
                s_setprio 3
                s_wakeup
                s_icache_inv
                s_incperflevel 1
                s_decperflevel 1
                s_ttracedata
                s_ttracedata_imm 0x1
                s_inst_prefetch 0x1
                s_clause 0x3
                s_wait_idle
                s_version UC_VERSION_GFX10
                s_sendmsg sendmsg(MSG_INTERRUPT)
                s_dcache_inv
                s_gl1_inv
                """);
        assertSgpr(w, 10, 5);
        assertTrue(w.scc());
        assertEquals(w.group().kernel().initialMode(), w.mode());
        assertEquals(25, w.instructions(), "every instruction ran, up to and including s_endpgm");
    }

    @Test
    void s_barrier_holds_each_wave_until_every_wave_of_the_group_arrives() throws Exception {
        var out = new GuestAsm(dir).groupSize(96).run("""
                s_mov_b32 s10, 1
                s_barrier
                s_mov_b32 s11, 2
                s_barrier
                s_mov_b32 s12, 3
                s_endpgm
                """);
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().toString());
        assertEquals(3, out.group().waves().size());
        for (Wave w : out.group().waves()) {
            assertTrue(w.ended());
            assertFalse(w.atBarrier());
            assertSgpr(w, 12, 3);
        }
    }

    @Test
    void s_setreg_and_s_getreg_write_and_read_fields_of_mode() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xa
                s_getreg_b32 s10, hwreg(HW_REG_MODE, 0, 4)
                s_mov_b32 s20, 0xfffffff3
                s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s20
                s_mov_b32 s21, 0xfffffffe
                s_setreg_b32 hwreg(HW_REG_MODE, 9, 1), s21
                s_getreg_b32 s11, hwreg(HW_REG_MODE)
                s_getreg_b32 s12, hwreg(HW_REG_MODE, 4, 4)
                s_getreg_b32 s13, hwreg(HW_REG_MODE, 30, 4)
                """);
        int initial = w.group().kernel().initialMode();
        // FP_ROUND = 0xa, FP_DENORM = 0x3 (only SIZE low bits of the source are written), IEEE [9] = 0
        int expected = initial & ~0x2ff | 0x3a;
        assertEquals(expected, w.mode());
        assertSgpr(w, 10, 0xa);
        assertSgpr(w, 11, expected);
        assertSgpr(w, 12, 3);
        assertSgpr(w, 13, expected >>> 30);   // a field running past bit 31 reads zeros there
    }

    @Test
    void s_round_mode_and_s_denorm_mode_replace_mode_bits_3_0_and_7_4() throws Exception {
        Wave w = new GuestAsm(dir).runWave("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0xff\ns_round_mode 0x5\n");
        assertEquals(0x5, w.mode() & 0xff ^ 0xf0);
        Wave d = new GuestAsm(dir).runWave("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 8), 0x0\ns_denorm_mode 0xc\n");
        assertEquals(0xc0, d.mode() & 0xff);
        assertEquals(d.group().kernel().initialMode() & ~0xff, d.mode() & ~0xff);
    }

    @Test
    void sh_mem_bases_hold_the_top_16_bits_of_the_shared_and_private_apertures() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_getreg_b32 s10, hwreg(HW_REG_SH_MEM_BASES)
                s_getreg_b32 s11, hwreg(HW_REG_SH_MEM_BASES, 16, 16)
                s_lshl_b32 s11, s11, 16
                s_mov_b64 s[12:13], src_private_base
                s_mov_b64 s[14:15], src_shared_base
                """);
        assertSgpr(w, 10, 0x00020001);
        assertEquals(w.sgpr(13), w.sgpr(11), "the private aperture's high dword, as LLVM rebuilds it");
        assertEquals(w.sgpr(15) >>> 16, w.sgpr(10) & 0xffff);
    }

    @Test
    void flat_scratch_halves_read_and_write_the_wave_flat_scratch_base() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_getreg_b32 s10, hwreg(HW_REG_FLAT_SCR_LO)
                s_getreg_b32 s11, hwreg(HW_REG_FLAT_SCR_HI)
                s_setreg_imm32_b32 hwreg(HW_REG_FLAT_SCR_LO), 0x1000
                s_setreg_imm32_b32 hwreg(HW_REG_FLAT_SCR_HI, 0, 16), 0x12345
                """);
        assertEquals(GuestLayout.SCRATCH_BASE, w.sgpr64(10));
        long hi = (GuestLayout.SCRATCH_BASE >>> 32 & 0xffff0000L) | 0x2345;
        assertEquals(hi << 32 | 0x1000, w.flatScratch());
    }

    @Test
    void status_reports_scc_execz_vccz_and_valid() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_mov_b32 vcc_lo, 1
                s_cmp_eq_u32 0, 0
                s_getreg_b32 s10, hwreg(HW_REG_STATUS)
                s_mov_b32 vcc_lo, 0
                s_mov_b32 exec_lo, 0
                s_cmp_eq_u32 0, 1
                s_getreg_b32 s11, hwreg(HW_REG_STATUS)
                s_getreg_b32 s12, hwreg(HW_REG_STATUS, 9, 2)
                """);
        assertSgpr(w, 10, 1 | 1 << 16);
        assertSgpr(w, 11, 1 << 9 | 1 << 10 | 1 << 16);
        assertSgpr(w, 12, 3);
    }

    @Test
    void hw_id1_names_the_wave_within_its_group_and_allocation_registers_describe_the_kernel() throws Exception {
        var out = new GuestAsm(dir).groupSize(64).lds(1024).run("""
                s_getreg_b32 s10, hwreg(HW_REG_HW_ID1)
                s_getreg_b32 s11, hwreg(HW_REG_GPR_ALLOC, 8, 8)
                s_getreg_b32 s12, hwreg(HW_REG_LDS_ALLOC, 12, 9)
                s_getreg_b32 s13, hwreg(HW_REG_IB_STS)
                s_getreg_b32 s14, hwreg(HW_REG_HW_ID2)
                s_getreg_b32 s15, hwreg(HW_REG_STATUS, 11, 1)
                s_endpgm
                """);
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().toString());
        Wave w1 = out.wave(1);
        assertSgpr(w1, 10, 1);
        assertSgpr(out.wave(0), 10, 0);
        // VGPR blocks of 16 in wave32, minus one; LDS in 512-byte blocks
        assertSgpr(w1, 11, (w1.vgprCount() + 15) / 16 - 1);
        assertSgpr(w1, 12, 2);
        assertSgpr(w1, 13, 0);
        assertSgpr(w1, 14, 0);
        assertSgpr(w1, 15, 1);   // IN_TG: the group has more than one wave
    }

    @Test
    void s_memtime_and_shader_cycles_count_the_wave_instructions_since_a_replay_has_no_clock() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_nop 0
                s_nop 0
                s_memtime s[10:11]
                s_memrealtime s[12:13]
                s_getreg_b32 s14, hwreg(HW_REG_SHADER_CYCLES)
                """);
        assertEquals(3, w.sgpr64(10));
        assertEquals(4, w.sgpr64(12));
        assertSgpr(w, 14, 5);
    }

    @Test
    void reading_trapsts_and_writing_a_read_only_register_fault() throws Exception {
        assertTrue(new GuestAsm(dir).faultMessage("s_getreg_b32 s10, hwreg(HW_REG_TRAPSTS)").contains("TRAPSTS"));
        assertTrue(new GuestAsm(dir).faultMessage("s_setreg_imm32_b32 hwreg(HW_REG_STATUS), 0").contains("s_setreg"));
        assertTrue(new GuestAsm(dir).faultMessage("s_getreg_b32 s10, hwreg(8)").contains("does not have"));
    }

    @Test
    void s_trap_and_s_code_end_fault() throws Exception {
        assertTrue(new GuestAsm(dir).faultMessage("s_trap 2").startsWith("s_trap 2"));
        assertTrue(new GuestAsm(dir).faultMessage("s_code_end").startsWith("s_code_end"));
    }

    @Test
    void messages_that_return_values_or_halt_fault_and_halting_controls_are_unsupported() throws Exception {
        assertTrue(new GuestAsm(dir).faultMessage("s_sendmsg sendmsg(MSG_GET_DOORBELL)").contains("message 10"));
        assertTrue(new GuestAsm(dir).faultMessage("s_sendmsg sendmsg(MSG_HALT_WAVES)").contains("message 6"));
        assertTrue(new GuestAsm(dir).faultMessage("s_sethalt 1").startsWith("unsupported instruction"));
        assertTrue(new GuestAsm(dir).faultMessage("s_setkill 1").startsWith("unsupported instruction"));
        assertTrue(new GuestAsm(dir).faultMessage("s_sendmsghalt sendmsg(MSG_INTERRUPT)").startsWith("unsupported instruction"));
    }
}
