package org.replayfarm.evalnode.hostmodel.valu;

import org.replayfarm.evalnode.hostmodel.LaneKernel;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * Moves and cross-lane instructions: v_mov_b32, v_cndmask_b32, the M0-relative moves (v_movrels,
 * v_movreld, v_movrelsd, v_movrelsd_2, v_swaprel), v_swap_b32, v_readlane/v_writelane/
 * v_readfirstlane_b32, v_permlane16/x16_b32, and the instructions with no architectural effect on the
 * model's state (v_nop, v_pipeflush, v_clrexcp). RDNA 2 ISA guide, VOP1/VOP3 opcodes.
 *
 * <p>An M0-relative register index past the program's VGPR allocation faults (the model's rule for
 * every VGPR access; the hardware's behaviour there is a program error).
 */
public final class ValuLaneUnit {
    private ValuLaneUnit() {
    }

    public static void register(SemanticsTable.Builder b) {
        for (String nothing : new String[] {"v_nop", "v_pipeflush", "v_clrexcp"}) {
            Valu.register(b, nothing, Fidelity.EXACT, (w, insn) -> { });
        }
        b.laneKernel("v_mov_b32", new LaneKernel.Int1(x -> x));
        Valu.register(b, "v_mov_b32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                Valu.source32(w, insn, 0, lane)));
        // D = mask[lane] ? S1 : S0, mask = VCC (VOP2) or src2 (VOP3); float input modifiers apply to the bits
        b.laneKernel("v_cndmask_b32", new LaneKernel.Select()); // the fast tier's select loop
        Valu.register(b, "v_cndmask_b32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                ValuLanes.carryIn(w, insn, lane) ? Valu.floatSource(w, insn, 1, lane)
                        : Valu.floatSource(w, insn, 0, lane)));

        Valu.register(b, "v_readfirstlane_b32", Fidelity.EXACT, ValuLaneUnit::readFirstLane);
        Valu.register(b, "v_readlane_b32", Fidelity.EXACT, ValuLaneUnit::readLane);
        Valu.register(b, "v_writelane_b32", Fidelity.EXACT, ValuLaneUnit::writeLane);

        // M0-relative: movrels reads VGPR[src0 + M0], movreld writes VGPR[vdst + M0], movrelsd both;
        // movrelsd_2 and swaprel take the source offset from M0[9:0] and the destination's from M0[25:16]
        Valu.register(b, "v_movrels_b32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                w.vgpr(vgprSource(insn) + w.m0(), lane)));
        Valu.register(b, "v_movreld_b32", Fidelity.EXACT, (w, insn) -> relative(w, insn,
                lane -> Valu.source32(w, insn, 0, lane), Valu.vdst(insn) + w.m0()));
        Valu.register(b, "v_movrelsd_b32", Fidelity.EXACT, (w, insn) -> relative(w, insn,
                lane -> w.vgpr(vgprSource(insn) + w.m0(), lane), Valu.vdst(insn) + w.m0()));
        Valu.register(b, "v_movrelsd_2_b32", Fidelity.EXACT, (w, insn) -> relative(w, insn,
                lane -> w.vgpr(vgprSource(insn) + (w.m0() & 0x3FF), lane), Valu.vdst(insn) + (w.m0() >>> 16 & 0x3FF)));
        Valu.register(b, "v_swap_b32", Fidelity.EXACT, (w, insn) -> swap(w, insn, Valu.vdst(insn), vgprSource(insn)));
        Valu.register(b, "v_swaprel_b32", Fidelity.EXACT, (w, insn) -> swap(w, insn,
                Valu.vdst(insn) + (w.m0() >>> 16 & 0x3FF), vgprSource(insn) + (w.m0() & 0x3FF)));

        Valu.register(b, "v_permlane16_b32", Fidelity.EXACT, (w, insn) -> permlane(w, insn, false));
        Valu.register(b, "v_permlanex16_b32", Fidelity.EXACT, (w, insn) -> permlane(w, insn, true));
    }

    /** The VGPR number of source 0, which these instructions require to be a VGPR. */
    private static int vgprSource(Instruction insn) {
        int code = Valu.sourceCode(insn, 0);
        if (code < 256) {
            throw new GuestFault(insn.mnemonic() + " needs a VGPR source, not operand code " + code);
        }
        return code - 256;
    }

    /** Writes each active lane's value to VGPR {@code reg} (computed before any write). */
    private static void relative(Wave w, Instruction insn, ValuLanes.Lane32 value, int reg) {
        boolean[] on = ValuLanes.activeLanes(w, insn);
        int[] out = new int[on.length];
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                out[lane] = value.apply(lane);
            }
        }
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                w.setVgpr(reg, lane, out[lane]);
            }
        }
    }

    private static void swap(Wave w, Instruction insn, int a, int b) {
        Valu.forActiveLanes(w, insn, lane -> {
            int x = w.vgpr(a, lane);
            w.setVgpr(a, lane, w.vgpr(b, lane));
            w.setVgpr(b, lane, x);
        });
    }

    /** The SGPR destination code: VOP1's vdst field or VOP3's vdst field name an SGPR for these rows. */
    private static int scalarDestination(Instruction insn) {
        Fields f = insn.fields();
        if (f instanceof Fields.Vop1 v) {
            return v.vdst();
        }
        return ((Fields.Vop3) f).vdst();
    }

    /** SDST = S0 of the lowest active lane (lane 0 when EXEC is zero). */
    private static void readFirstLane(Wave w, Instruction insn) {
        long exec = w.exec();
        int lane = exec == 0 ? 0 : Long.numberOfTrailingZeros(exec);
        int code = Valu.sourceCode(insn, 0);
        int value = code >= 256 ? w.vgpr(code - 256, lane) : w.source32(code, insn);
        w.setSgpr(scalarDestination(insn), value);
    }

    /** The lane a readlane/writelane names: S1 modulo the wave size. EXEC is ignored. */
    private static int laneSelect(Wave w, Instruction insn) {
        return w.source32(Valu.sourceCode(insn, 1), insn) & (w.waveSize() - 1);
    }

    private static void readLane(Wave w, Instruction insn) {
        int code = Valu.sourceCode(insn, 0);
        int lane = laneSelect(w, insn);
        int value = code >= 256 ? w.vgpr(code - 256, lane) : w.source32(code, insn);
        w.setSgpr(scalarDestination(insn), value);
    }

    private static void writeLane(Wave w, Instruction insn) {
        int value = w.source32(Valu.sourceCode(insn, 0), insn);
        w.setVgpr(Valu.vdst(insn), laneSelect(w, insn), value);
    }

    /**
     * v_permlane16_b32 / v_permlanex16_b32: lane i of each row of 16 reads S0 from lane sel(i) of its own
     * row (permlane16) or of the other row of its pair (permlanex16), where sel(i) is the 4-bit field i
     * of the 64-bit select {S2, S1}. OPSEL[0] is FI (read inactive lanes), OPSEL[1] BOUND_CTRL: an
     * inactive source lane without FI gives 0 with BOUND_CTRL, else leaves the destination lane as it was.
     */
    private static void permlane(Wave w, Instruction insn, boolean cross) {
        Fields.Vop3 f = (Fields.Vop3) insn.fields();
        boolean fi = (f.opsel() & 1) != 0;
        boolean boundCtrl = (f.opsel() & 2) != 0;
        long select = ValuLanes.u(w.source32(f.src1(), insn)) | (long) w.source32(f.src2(), insn) << 32;
        int src = vgprSource(insn);
        boolean[] on = ValuLanes.activeLanes(w, insn);
        int[] out = new int[on.length];
        boolean[] write = new boolean[on.length];
        for (int lane = 0; lane < on.length; lane++) {
            if (!on[lane]) {
                continue;
            }
            int row = lane & ~15;
            if (cross) {
                row ^= 16;
            }
            int from = row | (int) (select >>> (4 * (lane & 15)) & 0xF);
            if (fi || w.active(from)) {
                out[lane] = w.vgpr(src, from);
                write[lane] = true;
            } else if (boundCtrl) {
                write[lane] = true;
            }
        }
        int vdst = Valu.vdst(insn);
        for (int lane = 0; lane < on.length; lane++) {
            if (write[lane]) {
                w.setVgpr(vdst, lane, out[lane]);
            }
        }
    }
}
