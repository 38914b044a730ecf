package org.replayfarm.evalnode.hostmodel.asm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/** The harness itself: it runs through the real model (barriers, budget, fidelity) and its checks can fail. */
@Tag("unit")
class GuestAsmTest {
    @TempDir
    Path dir;

    @Test
    void presets_and_setup_reach_every_wave_after_the_dispatcher_start_state() throws Exception {
        var out = new GuestAsm(dir).groupSize(64).buffer(new byte[16]).sgpr(40, 0x1234).setup(w -> w.setVgpr(7, 3,
                100 + w.index())).run("s_add_u32 s41, s40, 1\nv_add_nc_u32 v8, v7, v0");
        assertEquals(2, out.group().waves().size());
        for (Wave w : out.group().waves()) {
            GuestAsm.assertSgpr(w, 41, 0x1235);
            GuestAsm.assertVgpr(w, 8, 3, 100 + w.index() + 32 * w.index() + 3);
            assertEquals(out.bufferAddress(0), w.sgpr64(0), "buffer 0's address in s[0:1]");
        }
        // s_endpgm was appended: three wave instructions per wave, all exact
        out.assertFidelity(6, 0, 0);
    }

    @Test
    void a_barrier_holds_each_wave_until_every_wave_arrives() throws Exception {
        // wave 1 writes LDS before the barrier, wave 0 (run first) reads after it: without the barrier it would read 0
        var out = new GuestAsm(dir).groupSize(64).lds(256).setup(w -> w.setSgpr(10, w.index())).run("""
                v_mov_b32 v2, 0
                s_cmp_eq_u32 s10, 1
                s_cbranch_scc0 wait
                v_mov_b32 v3, 77
                ds_write_b32 v2, v3
                s_waitcnt lgkmcnt(0)
                wait:
                s_barrier
                ds_read_b32 v4, v2
                s_waitcnt lgkmcnt(0)
                s_endpgm
                """);
        for (Wave w : out.group().waves()) {
            GuestAsm.assertVgpr(w, 4, 0, 77);
        }
    }

    @Test
    void the_instruction_budget_stops_a_runaway_loop_with_a_fault() throws Exception {
        var out = new GuestAsm(dir).budget(500).runToFault("loop:\ns_branch loop");
        out.expectFault("instruction budget of 500");
        assertEquals(500, out.result().waveInstructions());
    }

    @Test
    void approximate_instructions_are_counted_as_such() throws Exception {
        new GuestAsm(dir).f32(0, 2f).run("v_sqrt_f32 v1, s0").assertFidelity(1, 1, 0);
    }

    @Test
    void the_checks_fail_when_the_state_is_not_what_they_claim() throws Exception {
        var out = new GuestAsm(dir).f32(0, -0f).run("v_mov_b32 v1, s0");
        out.assertF32(1, 0, -0f).assertSgpr(0, 0x80000000).assertVgpr(1, 31, 0x80000000);
        assertThrows(AssertionError.class, () -> out.assertF32(1, 0, 0f), "+0 and -0 differ by bits");
        assertThrows(AssertionError.class, () -> out.assertSgpr(0, 0));
        assertThrows(AssertionError.class, () -> out.assertLanes(1, l -> l == 5 ? 1 : 0x80000000, "lane 5"));
        assertThrows(AssertionError.class, () -> out.assertFidelity(1, 0, 0));
        assertThrows(AssertionError.class, out::fault, "no fault to return");
        assertThrows(AssertionError.class, () -> new GuestAsm(dir).run("s_sethalt 1"), "run() refuses a fault");
        assertThrows(AssertionError.class, () -> new GuestAsm(dir).runToFault("s_nop 0"), "runToFault() needs one");
        var fault = new GuestAsm(dir).runToFault("s_sethalt 1");
        assertThrows(AssertionError.class, () -> fault.expectFault("misaligned"));
        assertTrue(fault.expectFault("unsupported instruction").instruction().startsWith("s_sethalt"));
        fault.assertFidelity(0, 0, 1);
    }

    @Test
    void both_tiers_run_unless_one_is_pinned_and_a_disagreement_is_named() throws Exception {
        var out = new GuestAsm(dir).run("v_mov_b32 v1, 5");
        assertEquals(HostModel.Tier.byDefault(), out.tier());
        var ref = new GuestAsm(dir).tier(HostModel.Tier.REFERENCE).run("v_mov_b32 v1, 5");
        assertEquals(HostModel.Tier.REFERENCE, ref.tier());
        GuestAsm.assertSameRun(out.run(), out.tier(), ref.run(), ref.tier());
        var other = new GuestAsm(dir).tier(HostModel.Tier.REFERENCE).run("v_mov_b32 v1, 6");
        AssertionError e = assertThrows(AssertionError.class,
                () -> GuestAsm.assertSameRun(out.run(), out.tier(), other.run(), other.tier()));
        assertTrue(e.getMessage().contains("v1 [5,"), e.getMessage());
    }

    @Test
    void kernel_arguments_get_the_layout_capture_build_gives_plain_assembly() throws Exception {
        // argument 0 a buffer (its address at kernarg offset 0), argument 1 a value (at offset 8); group id x in s20
        var asm = new GuestAsm(dir).groups(3).arg("zeros:128").arg("u32:0x1234");
        var out = asm.run("""
                s_load_dwordx2 s[2:3], s[0:1], 0x0
                s_load_dword s4, s[0:1], 0x8
                s_waitcnt lgkmcnt(0)
                v_mov_b32 v1, s4
                v_add_nc_u32 v1, s20, v1
                v_lshlrev_b32 v2, 2, v0
                global_store_dword v2, v1, s[2:3]
                """);
        assertEquals(out.bufferAddress(0), out.wave().sgpr64(2), "argument 0's address at kernarg offset 0");
        out.assertWord(0, 0, 0x1234).assertWord(0, 4 * 31, 0x1234);
        assertEquals(0x1234, out.bufferView(0).getInt(4 * 5));
        assertEquals(3, asm.kernel("s_nop 0").capture().getDispatch().getGroupCountX(), "three groups");
        assertThrows(IllegalStateException.class, () -> new GuestAsm(dir).arg("zeros:4").buffer(new byte[4]));
        assertThrows(IllegalStateException.class, () -> new GuestAsm(dir).buffer(new byte[4]).arg("zeros:4"));
    }

    @Test
    void a_patch_rewrites_the_capture_before_it_runs() throws Exception {
        long moved = 0x4A00_0000_0000L;
        var out = new GuestAsm(dir).buffer(GuestAsm.dwords(7, 8)).patch(c -> c.toBuilder()
                .setRanges(0, c.getRanges(0).toBuilder().setGuestAddress(moved)).build()).run("""
                s_mov_b32 s4, 0
                s_mov_b32 s5, 0x4a00
                s_load_dword s6, s[4:5], 0x4
                s_waitcnt lgkmcnt(0)
                """);
        assertEquals(moved, out.bufferAddress(0));
        out.assertSgpr(6, 8);
    }

    @Test
    void the_object_cache_is_keyed_on_the_assemblers_version_too() {
        String identity = GuestAsm.assemblerIdentity();
        assertTrue(identity.startsWith(org.replayfarm.model.build.Llvm.mc() + "\0"), identity);
        assertTrue(identity.contains("LLVM version "), "llvm-mc --version's text: " + identity);
    }
}
