package org.replayfarm.evalnode.hostmodel.scalar;

import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * The sequencer's own instructions that are not branches: the barrier, waits, hints and cache controls
 * (functional no-ops: the model executes each instruction to completion, in order, so every counter a
 * wait could wait for is already zero), messages, traps, MODE updates and the hardware registers
 * (s_getreg_b32, s_setreg_b32, s_setreg_imm32_b32). RDNA 2 ISA guide, SOPP and SOPK opcode
 * descriptions and "Hardware Registers".
 *
 * <p>s_endpgm_saved and s_endpgm_ordered_ps_done end the wave as s_endpgm does (what they signal
 * besides — a finished context save, ordered pixel export — has no meaning in a compute replay).
 * Not registered (they stay unsupported and fault): s_setkill and s_sethalt (debugger controls that
 * stop the wave), s_sendmsghalt (halts the wave), s_subvector_loop_begin/_end (wave64 subvector
 * looping, which compilers do not emit for compute; its EXEC halving is not modelled).
 */
public final class WaveControl {
    /** Hardware register ids (the hwreg ID field) on gfx1030. */
    static final int HW_MODE = 1;
    static final int HW_STATUS = 2;
    static final int HW_TRAPSTS = 3;
    static final int HW_GPR_ALLOC = 5;
    static final int HW_LDS_ALLOC = 6;
    static final int HW_IB_STS = 7;
    static final int HW_SH_MEM_BASES = 15;
    static final int HW_TBA_LO = 16;
    static final int HW_TBA_HI = 17;
    static final int HW_TMA_LO = 18;
    static final int HW_TMA_HI = 19;
    static final int HW_FLAT_SCR_LO = 20;
    static final int HW_FLAT_SCR_HI = 21;
    static final int HW_ID1 = 23;
    static final int HW_ID2 = 24;
    static final int HW_POPS_PACKER = 25;
    static final int HW_SHADER_CYCLES = 29;

    private WaveControl() {
    }

    /**
     * The handler of the instructions that do nothing functionally (waits, hints, priorities, clauses, prefetch and
     * cache invalidation), one instance, so that a caller can tell them by their handler (the compiled tier keeps them
     * inside its runs).
     */
    public static final Semantics NOTHING = (w, insn) -> {
    };

    public static void register(SemanticsTable.Builder b) {
        b.exact(Encoding.SOPP, "s_barrier", (w, insn) -> w.setAtBarrier(true));
        Semantics nothing = NOTHING;
        // waits, hints, priorities, clauses, prefetch and cache invalidation: nothing to do functionally
        for (String m : new String[] {"s_nop", "s_wakeup", "s_waitcnt", "s_sleep", "s_setprio", "s_icache_inv",
                "s_incperflevel", "s_decperflevel", "s_ttracedata", "s_inst_prefetch", "s_clause", "s_wait_idle",
                "s_waitcnt_depctr", "s_ttracedata_imm"}) {
            b.exact(Encoding.SOPP, m, nothing);
        }
        for (String m : new String[] {"s_version", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_expcnt",
                "s_waitcnt_lgkmcnt"}) {
            b.exact(Encoding.SOPK, m, nothing);
        }
        b.exact(Encoding.SOPP, "s_sendmsg", WaveControl::sendmsg);
        b.exact(Encoding.SOPP, "s_endpgm_saved", (w, insn) -> w.end());
        b.exact(Encoding.SOPP, "s_endpgm_ordered_ps_done", (w, insn) -> w.end());
        b.exact(Encoding.SOPP, "s_trap", (w, insn) -> {
            throw new GuestFault("s_trap " + simm16(insn) + ": the wave traps to the trap handler (llvm.trap, "
                    + "llvm.debugtrap, an abort); a replay has no trap handler");
        });
        b.exact(Encoding.SOPP, "s_code_end", (w, insn) -> {
            throw new GuestFault("s_code_end executed: the wave ran past the end of its program into the padding");
        });
        // MODE: FP_ROUND [3:0] and FP_DENORM [7:4] from SIMM16[3:0]
        b.exact(Encoding.SOPP, "s_round_mode", (w, insn) -> w.setMode(w.mode() & ~0xF | simm16(insn) & 0xF));
        b.exact(Encoding.SOPP, "s_denorm_mode",
                (w, insn) -> w.setMode(w.mode() & ~0xF0 | (simm16(insn) & 0xF) << 4));

        b.exact(Encoding.SOPK, "s_getreg_b32", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            int spec = k.simm16();
            int offset = spec >>> 6 & 31;
            int size = (spec >>> 11 & 31) + 1;
            long mask = (1L << size) - 1;
            w.setSgpr(k.sdst(), (int) (Integer.toUnsignedLong(read(w, spec & 0x3F)) >>> offset & mask));
        });
        b.exact(Encoding.SOPK, "s_setreg_b32", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            setreg(w, k.simm16(), w.sgpr(k.sdst()));
        });
        b.exact(Encoding.SOPK, "s_setreg_imm32_b32", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            setreg(w, k.simm16(), insn.literal().orElseThrow());
        });
    }

    private static int simm16(Instruction insn) {
        return ((Fields.Sopp) insn.fields()).simm16();
    }

    /**
     * Messages with no effect on a compute wave's results are no-ops: MSG_INTERRUPT (1, a host
     * interrupt), the geometry-shader messages (2, 3, 8, 9), MSG_SAVEWAVE (4), MSG_STALL_WAVE_GEN (5),
     * MSG_ORDERED_PS_DONE (7). MSG_HALT_WAVES (6) stops waves, MSG_GET_DOORBELL (10) and MSG_GET_DDID
     * (11) return values the model does not have, MSG_SYSMSG (15) talks to the system: those fault, as
     * do ids gfx1030 does not define.
     */
    private static void sendmsg(Wave w, Instruction insn) {
        int id = simm16(insn) & 0xF;
        switch (id) {
            case 1, 2, 3, 4, 5, 7, 8, 9 -> {
            }
            default -> throw new GuestFault("s_sendmsg message " + id + " is not one the host model carries out");
        }
    }

    /**
     * Reads a hardware register. Values the model defines (documented, deterministic; a replay has no
     * hardware placement):
     * <ul>
     * <li>MODE: the wave's MODE register.
     * <li>STATUS: SCC [0], EXECZ [9], VCCZ [10], IN_TG [11] (the group has more than one wave), VALID
     *     [16]; the rest 0 (user mode, no trap, no trace, no barrier wait, priority 0).
     * <li>GPR_ALLOC: VGPR_BASE [7:0] 0, VGPR_SIZE [15:8] = VGPR blocks - 1, with blocks of 16 VGPRs in
     *     wave32 and 8 in wave64 (gfx10.3 allocation granules).
     * <li>LDS_ALLOC: LDS_BASE [7:0] 0, LDS_SIZE [20:12] = the group's LDS in 512-byte blocks, rounded up.
     * <li>IB_STS: 0 (no memory operation is ever outstanding).
     * <li>SH_MEM_BASES: SHARED_BASE [15:0] = 1 and PRIVATE_BASE [31:16] = 2, the aperture bases' top 16
     *     bits (the model's apertures at 1<<48 and 2<<48, as src_shared_base and src_private_base).
     * <li>TBA/TMA: 0 (no trap handler). POPS_PACKER: 0.
     * <li>FLAT_SCR_LO/HI: the wave's flat scratch base, low and high dword.
     * <li>HW_ID1: WAVE_ID [4:0] = the wave's index in its group (mod 32); SIMD, WGP, SA, SE 0. HW_ID2: 0.
     * <li>SHADER_CYCLES: the wave's instruction count, 20 bits (a replay has no clock).
     * </ul>
     * TRAPSTS faults: the model does not record floating-point exceptions. Ids gfx1030 does not define
     * fault.
     */
    static int read(Wave w, int id) {
        return switch (id) {
            case HW_MODE -> w.mode();
            case HW_STATUS -> (w.scc() ? 1 : 0) | (w.exec() == 0 ? 1 << 9 : 0) | (w.vcc() == 0 ? 1 << 10 : 0)
                    | (w.group().waves().size() > 1 ? 1 << 11 : 0) | 1 << 16;
            case HW_GPR_ALLOC -> {
                int granule = w.waveSize() == 32 ? 16 : 8;
                int blocks = Math.max(1, (w.vgprCount() + granule - 1) / granule);
                yield (blocks - 1) << 8;
            }
            case HW_LDS_ALLOC -> ((w.group().kernel().ldsBytes() + 511) / 512 & 0x1FF) << 12;
            case HW_IB_STS, HW_TBA_LO, HW_TBA_HI, HW_TMA_LO, HW_TMA_HI, HW_POPS_PACKER, HW_ID2 -> 0;
            case HW_SH_MEM_BASES -> (int) (Wave.PRIVATE_BASE >>> 48) << 16 | (int) (Wave.SHARED_BASE >>> 48);
            case HW_FLAT_SCR_LO -> (int) w.flatScratch();
            case HW_FLAT_SCR_HI -> (int) (w.flatScratch() >>> 32);
            case HW_ID1 -> w.index() & 31;
            case HW_SHADER_CYCLES -> (int) (w.instructions() & 0xFFFFF);
            case HW_TRAPSTS -> throw new GuestFault("s_getreg of TRAPSTS: the host model does not record "
                    + "floating-point exception status");
            default -> throw new GuestFault("s_getreg of hardware register " + id + ", which gfx1030 does not have");
        };
    }

    /**
     * Writes SIZE bits of {@code value} into the register at OFFSET. Writable here: MODE and FLAT_SCR_LO/HI.
     * Writes to the other registers fault (they are read-only, privileged or state the model does not keep).
     */
    static void setreg(Wave w, int spec, int value) {
        int id = spec & 0x3F;
        int offset = spec >>> 6 & 31;
        int size = (spec >>> 11 & 31) + 1;
        int mask = (int) (((1L << size) - 1) << offset);
        int bits = value << offset & mask;
        switch (id) {
            case HW_MODE -> w.setMode(w.mode() & ~mask | bits);
            case HW_FLAT_SCR_LO -> {
                int lo = (int) w.flatScratch() & ~mask | bits;
                w.setFlatScratch(w.flatScratch() & 0xFFFF_FFFF_0000_0000L | Integer.toUnsignedLong(lo));
            }
            case HW_FLAT_SCR_HI -> {
                int hi = (int) (w.flatScratch() >>> 32) & ~mask | bits;
                w.setFlatScratch(w.flatScratch() & 0xFFFF_FFFFL | (long) hi << 32);
            }
            default -> throw new GuestFault("s_setreg of hardware register " + id
                    + ": the host model writes only MODE and FLAT_SCR_LO/HI");
        }
    }
}
