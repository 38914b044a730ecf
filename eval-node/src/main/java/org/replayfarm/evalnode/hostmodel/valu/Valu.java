package org.replayfarm.evalnode.hostmodel.valu;

import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.ValuVariant;

/**
 * Operand access shared by every vector ALU instruction, whatever its encoding: VOP1, VOP2, VOPC (plain,
 * DPP16, DPP8 or SDWA), VOP3 and VOP3P. Sources are numbered 0..2 in the order the instruction names
 * them; the raw bits come back with the encoding's lane selection applied (DPP) and, for SDWA, the
 * selected byte or word extended. Float input modifiers (abs, neg) are applied by {@link #floatSource}.
 * RDNA 2 ISA, "Vector ALU Operations", "DPP", "SDWA".
 */
public final class Valu {
    private Valu() {
    }

    /** The operand code (9-bit: 256+ are VGPRs) of source {@code n}, or -1 when the encoding has none. */
    public static int sourceCode(Instruction insn, int n) {
        Fields f = insn.fields();
        if (f instanceof Fields.Vop3 v) {
            return n == 0 ? v.src0() : n == 1 ? v.src1() : v.src2();
        }
        if (f instanceof Fields.Vop3p v) {
            return n == 0 ? v.src0() : n == 1 ? v.src1() : v.src2();
        }
        ValuVariant variant;
        int src0;
        int vsrc1 = -1;
        if (f instanceof Fields.Vop1 v) {
            variant = v.variant();
            src0 = v.src0();
        } else if (f instanceof Fields.Vop2 v) {
            variant = v.variant();
            src0 = v.src0();
            vsrc1 = 256 + v.vsrc1();
        } else if (f instanceof Fields.Vopc v) {
            variant = v.variant();
            src0 = v.src0();
            vsrc1 = 256 + v.vsrc1();
        } else {
            throw new IllegalArgumentException(insn.mnemonic() + " is not a vector ALU instruction");
        }
        if (n == 1) {
            if (variant instanceof ValuVariant.Sdwa s && s.src1Sgpr()) {
                return vsrc1 - 256;
            }
            return vsrc1;
        }
        if (n != 0) {
            return -1;
        }
        if (variant instanceof ValuVariant.Dpp16 d) {
            return 256 + d.src0();
        }
        if (variant instanceof ValuVariant.Dpp8 d) {
            return 256 + d.src0();
        }
        if (variant instanceof ValuVariant.Sdwa s) {
            return s.src0Sgpr() ? s.src0() : 256 + s.src0();
        }
        return src0;
    }

    /** The variant word of a VOP1/VOP2/VOPC instruction (None for VOP3/VOP3P). */
    public static ValuVariant variant(Instruction insn) {
        Fields f = insn.fields();
        if (f instanceof Fields.Vop1 v) {
            return v.variant();
        }
        if (f instanceof Fields.Vop2 v) {
            return v.variant();
        }
        if (f instanceof Fields.Vopc v) {
            return v.variant();
        }
        return new ValuVariant.None();
    }

    /**
     * Source {@code n}'s 32 bits for a lane: a VGPR (through DPP's lane selection for source 0), or a
     * uniform scalar value, inline constant (f32 form) or literal; SDWA selection applied.
     */
    public static int source32(Wave w, Instruction insn, int n, int lane) {
        return sdwaSelect(insn, n, bits(w, insn, n, lane, false));
    }

    /** Source {@code n}'s raw bits: a VGPR through DPP's lane selection, or a scalar value (16-bit constants on request). */
    private static int bits(Wave w, Instruction insn, int n, int lane, boolean sixteen) {
        int code = sourceCode(insn, n);
        if (code < 256) {
            return sixteen ? w.source16(code, insn) : w.source32(code, insn);
        }
        int fromLane = n == 0 ? dppLane(w, insn, lane) : lane;
        return fromLane < 0 ? dppFill(w, insn, code - 256, lane) : w.vgpr(code - 256, fromLane);
    }

    /** Source {@code n} as 64 bits (a VGPR pair, or a scalar pair / 64-bit constant). */
    public static long source64(Wave w, Instruction insn, int n, int lane, boolean floatOperand) {
        int code = sourceCode(insn, n);
        if (code >= 256) {
            return w.vgpr64(code - 256, lane);
        }
        return w.source64(code, insn, floatOperand);
    }

    /**
     * Source {@code n} as 16 bits for a 16-bit operation: inline float constants in half form; in VOP3 the
     * OPSEL bit of the source picks the high half of a register.
     */
    public static int source16(Wave w, Instruction insn, int n, int lane) {
        int bits = sdwaSelect(insn, n, bits(w, insn, n, lane, true));
        if (insn.fields() instanceof Fields.Vop3 v && (v.opsel() >>> n & 1) != 0) {
            bits >>>= 16;
        }
        return bits & 0xFFFF;
    }

    /** Whether source {@code n} carries the NEG / ABS input modifier (VOP3 bits, DPP16 or SDWA fields). */
    public static boolean neg(Instruction insn, int n) {
        Fields f = insn.fields();
        if (f instanceof Fields.Vop3 v) {
            return (v.neg() >>> n & 1) != 0;
        }
        ValuVariant var = variant(insn);
        if (var instanceof ValuVariant.Dpp16 d) {
            return n == 0 ? d.src0Neg() : n == 1 && d.src1Neg();
        }
        if (var instanceof ValuVariant.Sdwa s) {
            return n == 0 ? s.src0Neg() : n == 1 && s.src1Neg();
        }
        return false;
    }

    public static boolean abs(Instruction insn, int n) {
        Fields f = insn.fields();
        if (f instanceof Fields.Vop3 v) {
            return !hasScalarDestination(insn) && (v.abs() >>> n & 1) != 0;
        }
        ValuVariant var = variant(insn);
        if (var instanceof ValuVariant.Dpp16 d) {
            return n == 0 ? d.src0Abs() : n == 1 && d.src1Abs();
        }
        if (var instanceof ValuVariant.Sdwa s) {
            return n == 0 ? s.src0Abs() : n == 1 && s.src1Abs();
        }
        return false;
    }

    /** VOP3 rows with a scalar destination (the VOP3b form) have no ABS field. */
    public static boolean hasScalarDestination(Instruction insn) {
        org.replayfarm.model.isa.ValuFacts facts = insn.opcode().valu();
        return facts != null && facts.scalarDestination() && insn.fields() instanceof Fields.Vop3;
    }

    /** A 32-bit float source with ABS then NEG applied to its sign bit. */
    public static int floatSource(Wave w, Instruction insn, int n, int lane) {
        int bits = source32(w, insn, n, lane);
        if (abs(insn, n)) {
            bits &= 0x7FFFFFFF;
        }
        if (neg(insn, n)) {
            bits ^= 0x80000000;
        }
        return bits;
    }

    /** A 64-bit float source with ABS then NEG applied. */
    public static long floatSource64(Wave w, Instruction insn, int n, int lane) {
        long bits = source64(w, insn, n, lane, true);
        if (abs(insn, n)) {
            bits &= 0x7FFFFFFFFFFFFFFFL;
        }
        if (neg(insn, n)) {
            bits ^= 0x8000000000000000L;
        }
        return bits;
    }

    /** A 16-bit float source with ABS then NEG applied. */
    public static int floatSource16(Wave w, Instruction insn, int n, int lane) {
        int bits = source16(w, insn, n, lane);
        if (abs(insn, n)) {
            bits &= 0x7FFF;
        }
        if (neg(insn, n)) {
            bits ^= 0x8000;
        }
        return bits;
    }

    /** The VGPR the instruction writes (VOP1/VOP2/VOP3/VOP3P vdst). */
    public static int vdst(Instruction insn) {
        Fields f = insn.fields();
        if (f instanceof Fields.Vop1 v) {
            return v.vdst();
        }
        if (f instanceof Fields.Vop2 v) {
            return v.vdst();
        }
        if (f instanceof Fields.Vop3 v) {
            return v.vdst();
        }
        if (f instanceof Fields.Vop3p v) {
            return v.vdst();
        }
        throw new IllegalArgumentException(insn.mnemonic() + " writes no VGPR");
    }

    /**
     * Writes a 32-bit result to a lane of vdst, through SDWA's destination select (DST_SEL, DST_UNUSED:
     * pad with zeros, sign-extend, or preserve the other bits).
     */
    public static void writeResult32(Wave w, Instruction insn, int lane, int value) {
        int reg = vdst(insn);
        if (variant(insn) instanceof ValuVariant.Sdwa s) {
            value = sdwaDestination(s, w.vgpr(reg, lane), value);
        }
        w.setVgpr(reg, lane, value);
    }

    /** Writes a 16-bit result: VOP3 OPSEL[3] puts it in the high half (keeping the low half), else the low half. */
    public static void writeResult16(Wave w, Instruction insn, int lane, int value) {
        int reg = vdst(insn);
        if (insn.fields() instanceof Fields.Vop3 v && (v.opsel() & 8) != 0) {
            w.setVgpr(reg, lane, (w.vgpr(reg, lane) & 0xFFFF) | (value << 16));
            return;
        }
        if (variant(insn) instanceof ValuVariant.Sdwa s) {
            w.setVgpr(reg, lane, sdwaDestination(s, w.vgpr(reg, lane), value & 0xFFFF));
            return;
        }
        // the low half; the high half is kept: on gfx10 every 16-bit VOP1/VOP2/VOP3 result preserves it (LLVM's
        // GCNSubtarget::zeroesHigh16BitsOfDest, found by experiment: only gfx8/gfx9 zero it)
        w.setVgpr(reg, lane, (w.vgpr(reg, lane) & 0xFFFF0000) | (value & 0xFFFF));
    }

    public static void writeResult64(Wave w, Instruction insn, int lane, long value) {
        w.setVgpr64(vdst(insn), lane, value);
    }

    /** The clamp bit of the instruction (VOP3, VOP3P or SDWA). */
    public static boolean clamp(Instruction insn) {
        Fields f = insn.fields();
        if (f instanceof Fields.Vop3 v) {
            return v.clamp();
        }
        if (f instanceof Fields.Vop3p v) {
            return v.clamp();
        }
        return variant(insn) instanceof ValuVariant.Sdwa s && s.clamp();
    }

    /** The output modifier: 0 none, 1 ×2, 2 ×4, 3 ÷2 (VOP3 or SDWA). */
    public static int omod(Instruction insn) {
        if (insn.fields() instanceof Fields.Vop3 v) {
            return v.omod();
        }
        return variant(insn) instanceof ValuVariant.Sdwa s ? s.omod() : 0;
    }

    /**
     * Registers one handler for a mnemonic in every vector ALU encoding whose table holds it (VOP1, VOP2,
     * VOPC, VOP3, VOP3P): the handler reads its operands through this class, so one serves all forms.
     * Fails when no encoding holds the mnemonic.
     */
    public static void register(SemanticsTable.Builder b, String mnemonic, Fidelity fidelity, Semantics semantics) {
        int found = 0;
        for (org.replayfarm.model.isa.Encoding e : new org.replayfarm.model.isa.Encoding[] {
                org.replayfarm.model.isa.Encoding.VOP1, org.replayfarm.model.isa.Encoding.VOP2,
                org.replayfarm.model.isa.Encoding.VOPC, org.replayfarm.model.isa.Encoding.VOP3,
                org.replayfarm.model.isa.Encoding.VOP3P}) {
            if (b.table().byMnemonic(e, mnemonic) != null) {
                b.add(e, mnemonic, fidelity, semantics);
                found++;
            }
        }
        if (found == 0) {
            throw new IllegalStateException("no vector ALU instruction " + mnemonic + " in the tables");
        }
    }

    /** Runs {@code body} for every lane EXEC enables (and DPP's masks do not disable). */
    public static void forActiveLanes(Wave w, Instruction insn, java.util.function.IntConsumer body) {
        long exec = w.exec();
        ValuVariant v = variant(insn);
        boolean dpp = v instanceof ValuVariant.Dpp16 || v instanceof ValuVariant.Dpp8;
        if (dpp) {
            // every lane reads source 0 from before the instruction, whatever order the body writes in
            w.deferVgprWrites();
        }
        try {
            for (int lane = 0; lane < w.waveSize(); lane++) {
                if ((exec >>> lane & 1) != 0 && !dppMasked(insn, lane) && !dppWriteDisabled(w, insn, lane)) {
                    body.accept(lane);
                }
            }
        } finally {
            if (dpp) {
                w.commitVgprWrites();
            }
        }
    }

    // ---------------------------------------------------------------- DPP

    /**
     * The lane source 0 reads from under DPP, or -1 when the selected lane is out of range or disabled by
     * the row/bank masks (the lane then uses {@link #dppFill}). Without DPP, the lane itself.
     */
    static int dppLane(Wave w, Instruction insn, int lane) {
        ValuVariant v = variant(insn);
        if (v instanceof ValuVariant.Dpp8 d) {
            int from = (lane & ~7) | d.selects().get(lane & 7);
            return !d.fi() && !w.active(from) ? -1 : from;
        }
        if (!(v instanceof ValuVariant.Dpp16 d)) {
            return lane;
        }
        int ctrl = d.dppCtrl();
        int row = lane & ~15;
        int inRow = lane & 15;
        int from;
        if (ctrl <= 0xFF) {
            from = (lane & ~3) | (ctrl >>> (2 * (lane & 3)) & 3);
        } else if (ctrl >= 0x101 && ctrl <= 0x10F) {
            int k = ctrl & 0xF;
            from = inRow + k < 16 ? lane + k : -1;
        } else if (ctrl >= 0x111 && ctrl <= 0x11F) {
            int k = ctrl & 0xF;
            from = inRow - k >= 0 ? lane - k : -1;
        } else if (ctrl >= 0x121 && ctrl <= 0x12F) {
            from = row | ((inRow - (ctrl & 0xF)) & 15);
        } else if (ctrl == 0x140) {
            from = row | (15 - inRow);
        } else if (ctrl == 0x141) {
            from = (lane & ~7) | (7 - (lane & 7));
        } else if (ctrl >= 0x150 && ctrl <= 0x15F) {
            from = row | (ctrl & 0xF);
        } else if (ctrl >= 0x160 && ctrl <= 0x16F) {
            from = row | (inRow ^ (ctrl & 0xF));
        } else {
            throw new GuestFault("DPP control 0x" + Integer.toHexString(ctrl) + " is not valid on gfx10", lane);
        }
        if (from < 0 || from >= w.waveSize()) {
            return -1;
        }
        if ((d.rowMask() >>> (lane >>> 4 & 3) & 1) == 0 || (d.bankMask() >>> (lane >>> 2 & 3) & 1) == 0) {
            return -2;
        }
        if (!d.fi() && !w.active(from)) {
            return -1;
        }
        return from;
    }

    /**
     * What a lane reads when its DPP source lane is invalid: zero with DPP16's BOUND_CTRL, and zero for
     * DPP8 (an inactive source lane without FI reads 0). Without BOUND_CTRL a DPP16 lane whose source is
     * invalid is not written at all ({@link #dppWriteDisabled}), so the value read then does not matter.
     */
    private static int dppFill(Wave w, Instruction insn, int reg, int lane) {
        ValuVariant v = variant(insn);
        if (v instanceof ValuVariant.Dpp16 d && !d.boundCtrl()) {
            return w.vgpr(reg, lane);
        }
        return 0;
    }

    /**
     * Whether a DPP16 lane is left unwritten because its source lane is invalid (outside the row or the
     * wave, or inactive without FI) and BOUND_CTRL is clear: the hardware disables the write, so the
     * destination keeps its old value (what llvm.amdgcn.update.dpp's "old" operand models).
     */
    public static boolean dppWriteDisabled(Wave w, Instruction insn, int lane) {
        return variant(insn) instanceof ValuVariant.Dpp16 d && !d.boundCtrl() && dppLane(w, insn, lane) == -1;
    }

    /**
     * Whether DPP disables this lane's write (ROW_MASK / BANK_MASK clear for its row or bank); such lanes
     * keep their destination.
     */
    public static boolean dppMasked(Instruction insn, int lane) {
        if (variant(insn) instanceof ValuVariant.Dpp16 d) {
            return (d.rowMask() >>> (lane >>> 4 & 3) & 1) == 0 || (d.bankMask() >>> (lane >>> 2 & 3) & 1) == 0;
        }
        return false;
    }

    // ---------------------------------------------------------------- SDWA

    private static int sdwaSelect(Instruction insn, int n, int bits) {
        if (!(variant(insn) instanceof ValuVariant.Sdwa s) || n > 1) {
            return bits;
        }
        int sel = n == 0 ? s.src0Sel() : s.src1Sel();
        boolean sext = n == 0 ? s.src0Sext() : s.src1Sext();
        return select(bits, sel, sext);
    }

    /** SDWA select: 0-3 a byte, 4-5 a word, 6 the dword; extended with zeros, or the sign with SEXT. */
    static int select(int bits, int sel, boolean sext) {
        return switch (sel) {
            case 0, 1, 2, 3 -> {
                int b = bits >>> (8 * sel) & 0xFF;
                yield sext ? (byte) b : b;
            }
            case 4, 5 -> {
                int h = bits >>> (16 * (sel - 4)) & 0xFFFF;
                yield sext ? (short) h : h;
            }
            default -> bits;
        };
    }

    private static int sdwaDestination(ValuVariant.Sdwa s, int old, int value) {
        int sel = s.dstSel();
        if (sel >= 6) {
            return value;
        }
        int width = sel <= 3 ? 8 : 16;
        int shift = sel <= 3 ? 8 * sel : 16 * (sel - 4);
        int mask = (int) ((1L << width) - 1) << shift;
        int placed = value << shift & mask;
        return switch (s.dstUnused()) {
            case 1 -> { // UNUSED_SEXT: sign-extend the field upward, zeros below
                int field = placed >> shift;
                int top = (field << (32 - width)) >> (32 - width);
                yield (top << shift) & ~((1 << shift) - 1);
            }
            case 2 -> (old & ~mask) | placed; // UNUSED_PRESERVE
            default -> placed; // UNUSED_PAD
        };
    }
}
