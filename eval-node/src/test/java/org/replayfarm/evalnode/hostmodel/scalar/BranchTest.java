package org.replayfarm.evalnode.hostmodel.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr;
import static org.replayfarm.evalnode.hostmodel.asm.GuestAsm.assertSgpr64;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/**
 * Branches and PC moves: relative targets are PC + 4 + SIMM16 * 4 (signed), s_getpc and return
 * addresses are the next instruction's address. Offsets in comments are byte offsets from the entry.
 */
@Tag("unit")
class BranchTest {
    @TempDir
    Path dir;

    @Test
    void s_branch_jumps_forward_over_instructions() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_mov_b32 s10, 1
                s_branch skip
                s_mov_b32 s10, 2
                s_mov_b32 s11, 2
                skip:
                s_mov_b32 s12, 3
                """);
        assertSgpr(w, 10, 1);
        assertSgpr(w, 11, 0);
        assertSgpr(w, 12, 3);
    }

    @Test
    void a_backward_s_cbranch_scc1_loop_runs_until_the_compare_fails() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_mov_b32 s10, 0
                s_mov_b32 s11, 0
                loop:
                s_add_u32 s10, s10, 1
                s_add_u32 s11, s11, s10
                s_cmp_lt_u32 s10, 10
                s_cbranch_scc1 loop
                """);
        assertSgpr(w, 10, 10);
        assertSgpr(w, 11, 55);
    }

    @Test
    void s_cbranch_scc0_branches_only_when_scc_is_clear() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_cmp_eq_u32 0, 1
                s_cbranch_scc0 taken
                s_mov_b32 s10, 1
                taken:
                s_cmp_eq_u32 0, 0
                s_cbranch_scc0 not_taken
                s_mov_b32 s11, 1
                not_taken:
                s_cmp_eq_u32 0, 0
                s_cbranch_scc1 taken2
                s_mov_b32 s12, 1
                taken2:
                s_cmp_eq_u32 0, 1
                s_cbranch_scc1 not_taken2
                s_mov_b32 s13, 1
                not_taken2:
                """);
        assertSgpr(w, 10, 0);
        assertSgpr(w, 11, 1);
        assertSgpr(w, 12, 0);
        assertSgpr(w, 13, 1);
    }

    @Test
    void a_raw_negative_simm16_branches_backward_relative_to_the_next_instruction() throws Exception {
        // offsets: 0 s_mov, 4 s_add, 8 s_cmp, 12 s_cbranch_scc1 -3 -> 16 - 12 = 4
        Wave w = new GuestAsm(dir).runWave("""
                s_mov_b32 s10, 0
                s_add_u32 s10, s10, 1
                s_cmp_lt_u32 s10, 3
                s_cbranch_scc1 -3
                """);
        assertSgpr(w, 10, 3);
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void vccz_looks_at_vcc_lo_in_wave32_and_the_vcc_pair_in_wave64(boolean wave64) throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("""
                s_mov_b32 vcc_lo, 0
                s_mov_b32 vcc_hi, 1
                s_cbranch_vccz zero
                s_mov_b32 s10, 1
                zero:
                s_cbranch_vccnz nonzero
                s_mov_b32 s11, 1
                nonzero:
                s_mov_b32 vcc_lo, 0
                s_mov_b32 vcc_hi, 0
                s_cbranch_vccz zero2
                s_mov_b32 s12, 1
                zero2:
                """);
        assertSgpr(w, 10, wave64 ? 1 : 0);   // wave32: vcc_lo = 0 is VCCZ; wave64: the pair is not zero
        assertSgpr(w, 11, wave64 ? 0 : 1);
        assertSgpr(w, 12, 0);
    }

    @ParameterizedTest(name = "wave64={0}")
    @ValueSource(booleans = {false, true})
    void execz_looks_at_the_wave_exec_mask(boolean wave64) throws Exception {
        Wave w = new GuestAsm(dir).wave64(wave64).runWave("""
                s_mov_b32 exec_lo, 0
                s_cbranch_execz zero
                s_mov_b32 s10, 1
                zero:
                s_cbranch_execnz nonzero
                s_mov_b32 s11, 1
                nonzero:
                s_mov_b32 exec_hi, 0
                s_cbranch_execz zero2
                s_mov_b32 s12, 1
                zero2:
                s_mov_b32 exec_lo, 1
                s_cbranch_execnz nonzero2
                s_mov_b32 s13, 1
                nonzero2:
                """);
        // exec_hi starts at 0 in wave32 (an ordinary register) and all ones in wave64
        assertSgpr(w, 10, wave64 ? 1 : 0);
        assertSgpr(w, 11, wave64 ? 0 : 1);
        assertSgpr(w, 12, 0);
        assertSgpr(w, 13, 0);
    }

    @Test
    void s_getpc_gives_the_address_of_the_next_instruction() throws Exception {
        var out = new GuestAsm(dir).run("s_nop 0\ns_getpc_b64 s[10:11]\ns_endpgm\n");
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().toString());
        long entry = out.capture().getProgram().getCodeAddress() + out.capture().getProgram().getEntryOffset();
        assertEquals(entry + 8, out.wave(0).sgpr64(10));
    }

    @Test
    void s_getpc_then_s_setpc_round_trips_to_a_computed_address() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_getpc_b64 s[10:11]
                s_add_u32 s10, s10, 16
                s_addc_u32 s11, s11, 0
                s_setpc_b64 s[10:11]
                s_mov_b32 s12, 1
                s_mov_b32 s13, 2
                """);
        // s_getpc at 0 gives 4; 4 + 16 = 20 is the second s_mov: the first is skipped
        assertSgpr(w, 12, 0);
        assertSgpr(w, 13, 2);
    }

    @Test
    void s_swappc_calls_with_the_return_address_and_s_setpc_returns() throws Exception {
        var out = new GuestAsm(dir).run("""
                s_getpc_b64 s[10:11]
                s_add_u32 s10, s10, 20
                s_addc_u32 s11, s11, 0
                s_swappc_b64 s[30:31], s[10:11]
                s_mov_b32 s13, 7
                s_endpgm
                s_mov_b32 s12, 5
                s_setpc_b64 s[30:31]
                """);
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().toString());
        Wave w = out.wave(0);
        long entry = out.capture().getProgram().getCodeAddress() + out.capture().getProgram().getEntryOffset();
        assertSgpr(w, 12, 5);
        assertSgpr(w, 13, 7);
        assertSgpr64(w, 30, entry + 16);
    }

    @Test
    void s_call_jumps_relative_and_saves_the_return_address() throws Exception {
        var out = new GuestAsm(dir).run("""
                s_call_b64 s[30:31], sub
                s_mov_b32 s13, 7
                s_endpgm
                sub:
                s_mov_b32 s12, 5
                s_setpc_b64 s[30:31]
                """);
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().toString());
        Wave w = out.wave(0);
        long entry = out.capture().getProgram().getCodeAddress() + out.capture().getProgram().getEntryOffset();
        assertSgpr(w, 12, 5);
        assertSgpr(w, 13, 7);
        assertSgpr64(w, 30, entry + 4);
    }

    @Test
    void debugger_branches_fall_through_because_no_debugger_sets_their_flags() throws Exception {
        Wave w = new GuestAsm(dir).runWave("""
                s_mov_b32 s10, 1
                s_cbranch_cdbgsys skip
                s_cbranch_cdbguser skip
                s_cbranch_cdbgsys_or_user skip
                s_cbranch_cdbgsys_and_user skip
                s_mov_b32 s10, 2
                skip:
                s_mov_b32 s12, 3
                """);
        assertSgpr(w, 10, 2);
        assertSgpr(w, 12, 3);
    }

    @Test
    void the_end_program_variants_end_the_wave_like_s_endpgm() throws Exception {
        for (String end : new String[] {"s_endpgm_saved", "s_endpgm_ordered_ps_done"}) {
            Wave w = new GuestAsm(dir).runWave("s_mov_b32 s10, 1\n" + end + "\ns_mov_b32 s10, 2\n");
            assertSgpr(w, 10, 1);
        }
    }

    @Test
    void a_halting_instruction_is_unsupported_and_faults() throws Exception {
        String message = new GuestAsm(dir).faultMessage("s_sethalt 1\n");
        assertTrue(message.startsWith("unsupported instruction"), message);
    }
}
