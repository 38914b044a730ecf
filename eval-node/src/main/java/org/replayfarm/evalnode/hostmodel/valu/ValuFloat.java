package org.replayfarm.evalnode.hostmodel.valu;

import org.replayfarm.evalnode.hostmodel.LaneKernel;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * Shared plumbing of the floating-point VALU units: float sources of each format with ABS/NEG applied,
 * results through the output modifiers (OMOD, then CLAMP with DX10_CLAMP) and written at their width, and
 * registration helpers for the common shapes (one, two or three float sources of one format).
 * The arithmetic itself is in {@link org.replayfarm.model.fp} (shared with the GPU translator).
 */
public final class ValuFloat {
    private ValuFloat() {
    }

    public interface Op1 {
        long apply(FpMode m, long a);
    }

    public interface Op2 {
        long apply(FpMode m, long a, long b);
    }

    public interface Op3 {
        long apply(FpMode m, long a, long b, long c);
    }

    static FpMode mode(Wave w) {
        return new FpMode(w.mode());
    }

    /** Source n as a float of format f, ABS then NEG applied (16-bit: OPSEL half in VOP3). */
    static long source(Wave w, Instruction insn, int n, int lane, Format f) {
        return switch (f) {
            case F16 -> Valu.floatSource16(w, insn, n, lane) & 0xFFFFL;
            case F32 -> Integer.toUnsignedLong(Valu.floatSource(w, insn, n, lane));
            case F64 -> Valu.floatSource64(w, insn, n, lane);
        };
    }

    /** The accumulator of v_fmac_*: the destination's current value (f16: its low half). */
    static long destination(Wave w, Instruction insn, int lane, Format f) {
        int reg = Valu.vdst(insn);
        return switch (f) {
            case F16 -> w.vgpr(reg, lane) & 0xFFFFL;
            case F32 -> Integer.toUnsignedLong(w.vgpr(reg, lane));
            case F64 -> w.vgpr64(reg, lane);
        };
    }

    /** The output modifiers of a float result: OMOD (ignored in IEEE mode), then CLAMP. */
    static long modifiers(Instruction insn, FpMode m, Format f, long r) {
        r = FloatOps.omod(f, m, Valu.omod(insn), r);
        if (Valu.clamp(insn)) {
            r = FloatOps.clamp(f, m, r);
        }
        return r;
    }

    /** Writes a float result of format f after the output modifiers. */
    static void write(Wave w, Instruction insn, int lane, FpMode m, Format f, long r) {
        writeRaw(w, insn, lane, f, modifiers(insn, m, f, r));
    }

    /** Writes bits at the format's width, no modifiers. */
    static void writeRaw(Wave w, Instruction insn, int lane, Format f, long r) {
        switch (f) {
            case F16 -> Valu.writeResult16(w, insn, lane, (int) r & 0xFFFF);
            case F32 -> Valu.writeResult32(w, insn, lane, (int) r);
            default -> Valu.writeResult64(w, insn, lane, r);
        }
    }

    static void unary(SemanticsTable.Builder b, String mnemonic, Format f, Fidelity fid, Op1 op) {
        b.laneKernel(mnemonic, new LaneKernel.Float1(f, op));
        Valu.register(b, mnemonic, fid, (w, insn) -> {
            FpMode m = mode(w);
            Valu.forActiveLanes(w, insn, lane -> write(w, insn, lane, m, f, op.apply(m, source(w, insn, 0, lane, f))));
        });
    }

    static void binary(SemanticsTable.Builder b, String mnemonic, Format f, Fidelity fid, Op2 op) {
        b.laneKernel(mnemonic, new LaneKernel.Float2(f, op));
        Valu.register(b, mnemonic, fid, (w, insn) -> {
            FpMode m = mode(w);
            Valu.forActiveLanes(w, insn, lane -> write(w, insn, lane, m, f,
                    op.apply(m, source(w, insn, 0, lane, f), source(w, insn, 1, lane, f))));
        });
    }

    static void ternary(SemanticsTable.Builder b, String mnemonic, Format f, Fidelity fid, Op3 op) {
        b.laneKernel(mnemonic, new LaneKernel.Float3(f, op));
        Valu.register(b, mnemonic, fid, (w, insn) -> {
            FpMode m = mode(w);
            Valu.forActiveLanes(w, insn, lane -> write(w, insn, lane, m, f, op.apply(m, source(w, insn, 0, lane, f),
                    source(w, insn, 1, lane, f), source(w, insn, 2, lane, f))));
        });
    }

    /** The literal constant K of fmamk/fmaak, at the format's width. */
    static long literal(Instruction insn, Format f) {
        int k = insn.literal().orElseThrow(() -> new GuestFault(insn.mnemonic() + " without its literal"));
        return f == Format.F16 ? k & 0xFFFFL : Integer.toUnsignedLong(k);
    }

    /** The VOP3 scalar destination (v_div_scale's VCC output), or VCC for other encodings. */
    static int scalarDestination(Instruction insn) {
        return insn.fields() instanceof Fields.Vop3 v ? v.sdst() : Wave.VCC_LO;
    }
}
