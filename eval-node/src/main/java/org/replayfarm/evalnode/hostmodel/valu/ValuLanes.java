package org.replayfarm.evalnode.hostmodel.valu;

import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * Per-lane evaluation for the integer, move and compare units: every active lane's result is computed
 * first and written afterwards, so a lane that reads another lane's copy of the destination (DPP, the
 * permlanes) sees the value from before the instruction. Also the saturation helpers behind CLAMP on
 * integer instructions and the packed-source reads of VOP3P.
 */
public final class ValuLanes {
    private ValuLanes() {
    }

    interface Lane32 {
        int apply(int lane);
    }

    interface Lane64 {
        long apply(int lane);
    }

    /** Lanes EXEC enables and DPP lets write, as a boolean per lane. */
    static boolean[] activeLanes(Wave w, Instruction insn) {
        boolean[] on = new boolean[w.waveSize()];
        Valu.forActiveLanes(w, insn, lane -> on[lane] = true);
        return on;
    }

    /** Computes a 32-bit result for every active lane, then writes them through {@link Valu#writeResult32}. */
    static void map32(Wave w, Instruction insn, Lane32 f) {
        boolean[] on = activeLanes(w, insn);
        int[] out = new int[on.length];
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                out[lane] = f.apply(lane);
            }
        }
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                Valu.writeResult32(w, insn, lane, out[lane]);
            }
        }
    }

    /** As {@link #map32} for a 16-bit result ({@link Valu#writeResult16}: OPSEL[3] / SDWA placement). */
    static void map16(Wave w, Instruction insn, Lane32 f) {
        boolean[] on = activeLanes(w, insn);
        int[] out = new int[on.length];
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                out[lane] = f.apply(lane);
            }
        }
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                Valu.writeResult16(w, insn, lane, out[lane] & 0xFFFF);
            }
        }
    }

    static void map64(Wave w, Instruction insn, Lane64 f) {
        boolean[] on = activeLanes(w, insn);
        long[] out = new long[on.length];
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                out[lane] = f.apply(lane);
            }
        }
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                Valu.writeResult64(w, insn, lane, out[lane]);
            }
        }
    }

    /**
     * The scalar destination of a VOP3b instruction (v_add_co_u32, v_mad_u64_u32, ...) or VCC for the
     * VOP2 forms, as an operand code.
     */
    static int carryOutCode(Instruction insn) {
        if (insn.fields() instanceof Fields.Vop3 v) {
            return v.sdst();
        }
        return Wave.VCC_LO;
    }

    /** Bit {@code lane} of the carry-in mask: VCC for VOP2, the src2 lane mask for VOP3. */
    static boolean carryIn(Wave w, Instruction insn, int lane) {
        long mask = insn.fields() instanceof Fields.Vop3 v ? w.laneMask(v.src2()) : w.vcc();
        return (mask >>> lane & 1) != 0;
    }

    /** Whether the instruction's CLAMP bit (VOP3, VOP3P or SDWA) asks for a saturated integer result. */
    static boolean clamp(Instruction insn) {
        return Valu.clamp(insn);
    }

    public static int saturateU32(long v) {
        return v < 0 ? 0 : v > 0xFFFF_FFFFL ? -1 : (int) v;
    }

    static int saturateI32(long v) {
        return v < Integer.MIN_VALUE ? Integer.MIN_VALUE : v > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) v;
    }

    static int saturateU16(long v) {
        return v < 0 ? 0 : v > 0xFFFF ? 0xFFFF : (int) v;
    }

    static int saturateI16(long v) {
        return (v < Short.MIN_VALUE ? Short.MIN_VALUE : v > Short.MAX_VALUE ? Short.MAX_VALUE : (int) v) & 0xFFFF;
    }

    /** Zero-extends 32 bits to a long. */
    static long u(int v) {
        return Integer.toUnsignedLong(v);
    }

    /**
     * A VOP3P source as 32 bits holding two 16-bit halves: a VGPR or SGPR as it is, an integer inline
     * constant as its 32-bit value (the high half is its sign), a float inline constant as its half
     * bit pattern in the low half, a literal as its 32 bits.
     */
    static int packedSource(Wave w, Instruction insn, int n, int lane) {
        int code = Valu.sourceCode(insn, n);
        if (code >= 256) {
            return w.vgpr(code - 256, lane);
        }
        return w.source16(code, insn);
    }

    /** The half of a packed source that the low (hi = false) or high result half reads, by OPSEL/OPSEL_HI. */
    static int packedHalf(Instruction insn, int n, int bits, boolean hi) {
        Fields.Vop3p p = (Fields.Vop3p) insn.fields();
        int sel = hi ? p.opselHi() : p.opsel();
        return (sel >>> n & 1) != 0 ? bits >>> 16 : bits & 0xFFFF;
    }
}
