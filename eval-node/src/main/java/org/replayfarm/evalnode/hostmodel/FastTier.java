package org.replayfarm.evalnode.hostmodel;

import org.replayfarm.evalnode.hostmodel.image.BvhUnit;
import org.replayfarm.evalnode.hostmodel.image.ImageFast;
import org.replayfarm.evalnode.hostmodel.memory.GlobalFast;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.valu.Valu;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatConvert;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatDivide;
import org.replayfarm.evalnode.hostmodel.valu.ValuIntegerUnit;
import org.replayfarm.evalnode.hostmodel.valu.ValuLanes;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.fp.Rounding;
import org.replayfarm.model.isa.DecodeException;
import org.replayfarm.model.isa.DecodedProgram;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.OpcodeFlag;
import org.replayfarm.model.isa.ValuFacts;
import org.replayfarm.model.isa.ValuVariant;

/**
 * The fast tier: the program compiled once per kernel into an array of {@link Step}s indexed by PC, each
 * holding what the interpreter would otherwise look up per instruction (the handler, the fidelity, the
 * length) and, for the vector ALU forms that dominate real kernels, an {@link Exec} with its operands
 * resolved at compile time (VGPR rows, scalar operand codes, modifier masks, the destination row) and a
 * lane loop with no allocation, specialised for a full EXEC. Everything else runs the reference
 * handler, so both tiers share one implementation of every instruction's arithmetic (the {@link
 * LaneKernel}s) and every rarely executed form.
 *
 * <p>What the fast tier takes (all else falls back to the reference handler, unchanged): VOP1, VOP2 and
 * VOP3 without DPP or SDWA whose mnemonic has a {@link LaneKernel} (32-bit integer ops; f32 and f64 float
 * ops with ABS/NEG, OMOD and CLAMP), v_cndmask_b32, 32-bit integer and f32 VOPC compares (and their VOP3
 * forms), GLOBAL dword loads and stores, image_bvh*_intersect_ray ({@code BvhUnit.fast}) and 1D/2D
 * image_load/image_store ({@code ImageFast}). Every VGPR the instruction names must lie inside the program's VGPR
 * allocation; otherwise the reference handler runs and raises the fault it always did.
 */
final class FastTier {
    private FastTier() {
    }

    /** What one decoded instruction does in the fast tier. */
    interface Exec {
        void run(Wave w);
    }

    /** One decoded instruction, compiled. */
    static final class Step {
        final Instruction insn;
        final Semantics handler;
        final boolean approximate;
        final int length;
        final Exec exec;
        /** True when {@link #exec} is a specialised implementation rather than the reference handler. */
        final boolean specialised;

        Step(Instruction insn, Semantics handler, boolean approximate, Exec exec, boolean specialised) {
            this.insn = insn;
            this.handler = handler;
            this.approximate = approximate;
            this.length = insn.length();
            this.exec = exec;
            this.specialised = specialised;
        }
    }

    /** A program compiled for one wave size: one slot per dword, null where no instruction starts. */
    static final class Program {
        final long base;
        final Step[] steps;

        Program(long base, Step[] steps) {
            this.base = base;
            this.steps = steps;
        }

        /** The step at a PC, or null (the caller then asks the decoded program for the error). */
        Step at(long pc) {
            long index = (pc - base) >> 2;
            if (pc < base || (pc & 3) != (base & 3) || index >= steps.length) {
                return null;
            }
            return steps[(int) index];
        }

        int specialised() {
            int n = 0;
            for (Step s : steps) {
                if (s != null && s.specialised) {
                    n++;
                }
            }
            return n;
        }
    }

    static Program compile(Kernel kernel, SemanticsTable table) {
        DecodedProgram p = kernel.program();
        long base = p.base();
        int slots = 0;
        for (Instruction insn : p.instructions()) {
            slots = (int) Math.max(slots, (insn.pc() - base) / 4 + 1);
        }
        Step[] steps = new Step[slots];
        int waveSize = kernel.waveSize();
        int vgprs = kernel.vgprCount();
        for (Instruction insn : p.instructions()) {
            Semantics handler = table.handler(insn.opcode());
            if (handler == null) {
                continue; // unsupported: the interpreter's path reports it
            }
            boolean approximate = table.fidelity(insn.opcode()) == Fidelity.APPROXIMATE;
            Exec fast = specialise(insn, table, waveSize, vgprs);
            Exec exec = fast != null ? fast : w -> handler.execute(w, insn);
            steps[(int) ((insn.pc() - base) / 4)] = new Step(insn, handler, approximate, exec, fast != null);
        }
        return new Program(base, steps);
    }

    // ---------------------------------------------------------------- specialisation

    private static Exec specialise(Instruction insn, SemanticsTable table, int waveSize, int vgprs) {
        Fields f = insn.fields();
        if (insn.encoding() == Encoding.GLOBAL) {
            Semantics global = GlobalFast.of(insn, waveSize, vgprs);
            return global == null ? null : w -> global.execute(w, insn);
        }
        if (insn.encoding() == Encoding.MIMG && insn.opcode().has(OpcodeFlag.BVH)) {
            Semantics bvh = BvhUnit.fast(insn, vgprs);
            return bvh == null ? null : w -> bvh.execute(w, insn);
        }
        if (insn.encoding() == Encoding.MIMG) {
            Semantics image = ImageFast.of(insn, vgprs);
            return image == null ? null : w -> image.execute(w, insn);
        }
        boolean valu = f instanceof Fields.Vop1 || f instanceof Fields.Vop2 || f instanceof Fields.Vop3
                || f instanceof Fields.Vopc;
        if (!valu || !(Valu.variant(insn) instanceof ValuVariant.None)) {
            return null;
        }
        // what the row does: its typed facts (read off the name once, when the table loaded) and the lane kernel
        // and loop its unit registered for it
        ValuFacts facts = insn.opcode().valu();
        if (facts.compare() != null) {
            return compare(insn, facts.compare(), waveSize, vgprs);
        }
        if (facts.shift64() != null) {
            return shift64(insn, facts.shift64(), waveSize, vgprs);
        }
        LaneKernel k = table.laneKernel(insn.opcode());
        if (k == null) {
            return null;
        }
        LaneLoop loop = table.laneLoop(insn.opcode());
        if (k instanceof LaneKernel.Select) {
            return cndmask(insn, waveSize, vgprs);
        }
        if (k instanceof LaneKernel.Carry c) {
            return carry(insn, waveSize, vgprs, c.subtract(), c.reverse(), c.carryIn());
        }
        if (k instanceof LaneKernel.MadU64) {
            return madU64(insn, waveSize, vgprs);
        }
        if (k instanceof LaneKernel.Ldexp l) {
            return l.f() == Format.F32 ? ldexp(insn, waveSize, vgprs) : null;
        }
        if (k instanceof LaneKernel.FrexpExp x) {
            return x.f() == Format.F32 ? frexpExp(insn, waveSize, vgprs) : null;
        }
        if (k instanceof LaneKernel.DivScale ds) {
            return ds.f() == Format.F32 ? divScale(insn, ds, waveSize, vgprs) : null;
        }
        if (k instanceof LaneKernel.DivFmas df) {
            return df.f() == Format.F32 ? divFmas(insn, df, waveSize, vgprs) : null;
        }
        int dst = Valu.vdst(insn);
        if (k instanceof LaneKernel.Accumulate acc) {
            // v_fmac: D = op(S0, S1, D), the accumulator the destination's own bits (no modifiers)
            if (acc.f() != Format.F32 || !fits(dst, 1, vgprs)) {
                return null;
            }
            FSrc[] s = new FSrc[3];
            for (int i = 0; i < 2; i++) {
                Src plain = Src.of(insn, i, waveSize, vgprs, 1);
                if (plain == null) {
                    return null;
                }
                s[i] = new FSrc(plain, Valu.abs(insn, i), Valu.neg(insn, i));
            }
            s[2] = new FSrc(new Src(256 + dst, dst * waveSize, -1), false, false);
            return new FloatExec(insn, new LaneKernel.Float3(acc.f(), acc.op()), Format.F32, s, dst, waveSize,
                    Valu.omod(insn), Valu.clamp(insn), acc.fused() ? LaneLoop.F_FMA : null);
        }
        if (k instanceof LaneKernel.Int1 u) {
            Src a = Src.of(insn, 0, waveSize, vgprs, 1);
            return a == null || !fits(dst, 1, vgprs) ? null : new Int1Exec(insn, u.op(), loop, a, dst * waveSize);
        }
        if (k instanceof LaneKernel.Int2 b) {
            if (b.clampSensitive() && Valu.clamp(insn)) {
                return null;
            }
            Src a = Src.of(insn, 0, waveSize, vgprs, 1);
            Src c = Src.of(insn, 1, waveSize, vgprs, 1);
            return a == null || c == null || !fits(dst, 1, vgprs) ? null
                    : new Int2Exec(insn, b.op(), loop, a, c, dst * waveSize);
        }
        if (k instanceof LaneKernel.Int3 t) {
            Src a = Src.of(insn, 0, waveSize, vgprs, 1);
            Src c = Src.of(insn, 1, waveSize, vgprs, 1);
            Src d = Src.of(insn, 2, waveSize, vgprs, 1);
            return a == null || c == null || d == null || !fits(dst, 1, vgprs) ? null
                    : new Int3Exec(insn, t.op(), loop, a, c, d, dst * waveSize);
        }
        if (k instanceof LaneKernel.IntToFloat c) {
            Src a = Src.of(insn, 0, waveSize, vgprs, 1);
            int width = c.f() == Format.F64 ? 2 : 1;
            if (a == null || c.f() == Format.F16 || !fits(dst, width, vgprs)) {
                return null;
            }
            return intToFloat(insn, c, a, dst, waveSize, Valu.omod(insn), Valu.clamp(insn), facts.byteIndex());
        }
        Format format = k instanceof LaneKernel.Float1 u ? u.f() : k instanceof LaneKernel.Float2 b ? b.f()
                : k instanceof LaneKernel.Float3 t ? t.f() : null;
        if (format == null || format == Format.F16) {
            return null; // 16-bit sources and results go through OPSEL and half placement: the reference handles them
        }
        int width = format == Format.F64 ? 2 : 1;
        int n = k instanceof LaneKernel.Float1 ? 1 : k instanceof LaneKernel.Float2 ? 2 : 3;
        FSrc[] s = new FSrc[n];
        for (int i = 0; i < n; i++) {
            Src plain = Src.of(insn, i, waveSize, vgprs, width);
            if (plain == null) {
                return null;
            }
            s[i] = new FSrc(plain, Valu.abs(insn, i), Valu.neg(insn, i));
        }
        if (!fits(dst, width, vgprs)) {
            return null;
        }
        return new FloatExec(insn, k, format, s, dst, waveSize, Valu.omod(insn), Valu.clamp(insn), loop);
    }

    private static boolean fits(int reg, int width, int vgprs) {
        return reg >= 0 && reg + width <= vgprs;
    }

    /** As {@code ValuFloatConvert.fromInt}: D = fromDouble(op(S0 bits)), then OMOD and CLAMP. */
    private static Exec intToFloat(Instruction insn, LaneKernel.IntToFloat c, Src a, int dst, int waveSize, int omod,
                                   boolean clamp, int byteIndex) {
        Format f = c.f();
        ValuFloatConvert.IntSource op = c.op();
        int d = dst * waveSize;
        int dHi = (dst + 1) * waveSize;
        boolean wide = f == Format.F64;
        // v_cvt_f32_ubyteN: the byte inline (the kernel call per lane is megamorphic); -1 for the others
        int byteShift = byteIndex >= 0 ? 8 * byteIndex : -1;
        return w -> {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            FpMode m = new FpMode(w.mode());
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int xo = a.offset();
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                double value = byteShift >= 0 ? x[xo + l] >>> byteShift & 0xFF : op.apply(x[xo + l]);
                long r;
                if (wide) {
                    r = Double.doubleToRawLongBits(value); // every 32-bit integer is exact in f64
                } else if ((float) value == value) {
                    // exact in f32 (an integer, so never denormal): no rounding to do
                    r = Integer.toUnsignedLong(Float.floatToRawIntBits((float) value));
                } else {
                    r = FloatOps.fromDouble(f, m, value);
                }
                r = outputModifiers(f, m, omod, clamp, r);
                v[d + l] = (int) r;
                if (wide) {
                    v[dHi + l] = (int) (r >>> 32);
                }
            }
        };
    }

    /** A source resolved at compile time: a VGPR row (its first element's index) or a scalar operand code. */
    record Src(int code, int row, int rowHi) {
        boolean vector() {
            return row >= 0;
        }

        /** Source n of the instruction, or null when it names a VGPR outside the allocation. */
        static Src of(Instruction insn, int n, int waveSize, int vgprs, int width) {
            int code = Valu.sourceCode(insn, n);
            if (code < 0) {
                return null;
            }
            if (code >= 256) {
                int reg = code - 256;
                return fits(reg, width, vgprs) ? new Src(code, reg * waveSize, width == 2 ? (reg + 1) * waveSize : -1)
                        : null;
            }
            return new Src(code, -1, -1);
        }

        /** The lane array this source reads from (the VGPR file, or a scratch row with the uniform value). */
        int[] array(Wave w, Instruction insn, int slot) {
            return row >= 0 ? w.vgprFile() : w.broadcast(slot, w.source32(code, insn));
        }

        int offset() {
            return row >= 0 ? row : 0;
        }
    }

    /** A float source: its place and its ABS / NEG input modifiers. */
    record FSrc(Src src, boolean abs, boolean neg) {
    }

    private static long full(int waveSize) {
        return waveSize == 64 ? -1L : 0xFFFF_FFFFL;
    }

    // ---------------------------------------------------------------- integer lane loops

    private static final class Int1Exec implements Exec {
        private final Instruction insn;
        private final java.util.function.IntUnaryOperator op;
        /** The operation's own loop ({@link FastLanes}), or null: the lane kernel per lane. */
        private final FastLanes.Loop1 loop;
        private final Src a;
        private final int d;

        Int1Exec(Instruction insn, java.util.function.IntUnaryOperator op, LaneLoop kind, Src a, int d) {
            this.insn = insn;
            this.op = op;
            this.loop = kind == null ? null : FastLanes.loop1(kind);
            this.a = a;
            this.d = d;
        }

        @Override
        public void run(Wave w) {
            long exec = w.exec();
            if (exec == 0) {
                return; // no lane reads a source
            }
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int xo = a.offset();
            int n = w.waveSize();
            if (loop != null) {
                if (exec == full(n)) {
                    loop.run(v, d, x, xo, n);
                } else {
                    int[] t = w.laneScratch();
                    loop.run(t, 0, x, xo, n);
                    FastLanes.merge(v, d, t, exec);
                }
            } else if (exec == full(n)) {
                for (int l = 0; l < n; l++) {
                    v[d + l] = op.applyAsInt(x[xo + l]);
                }
            } else {
                for (long m = exec; m != 0; m &= m - 1) {
                    int l = Long.numberOfTrailingZeros(m);
                    v[d + l] = op.applyAsInt(x[xo + l]);
                }
            }
        }
    }

    private static final class Int2Exec implements Exec {
        private final Instruction insn;
        private final ValuIntegerUnit.Op2 op;
        /** The operation's own loop ({@link FastLanes}), or null: the lane kernel per lane. */
        private final FastLanes.Loop2 loop;
        private final Src a;
        private final Src b;
        private final int d;

        Int2Exec(Instruction insn, ValuIntegerUnit.Op2 op, LaneLoop kind, Src a, Src b, int d) {
            this.insn = insn;
            this.op = op;
            this.loop = kind == null ? null : FastLanes.loop2(kind);
            this.a = a;
            this.b = b;
            this.d = d;
        }

        @Override
        public void run(Wave w) {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int[] y = b.array(w, insn, 1);
            int xo = a.offset();
            int yo = b.offset();
            int n = w.waveSize();
            if (loop != null) {
                if (exec == full(n)) {
                    loop.run(v, d, x, xo, y, yo, n);
                } else {
                    int[] t = w.laneScratch();
                    loop.run(t, 0, x, xo, y, yo, n);
                    FastLanes.merge(v, d, t, exec);
                }
            } else if (exec == full(n)) {
                for (int l = 0; l < n; l++) {
                    v[d + l] = op.apply(x[xo + l], y[yo + l]);
                }
            } else {
                for (long m = exec; m != 0; m &= m - 1) {
                    int l = Long.numberOfTrailingZeros(m);
                    v[d + l] = op.apply(x[xo + l], y[yo + l]);
                }
            }
        }
    }

    private static final class Int3Exec implements Exec {
        private final Instruction insn;
        private final ValuIntegerUnit.Op3 op;
        /** The operation's own loop ({@link FastLanes}), or null: the lane kernel per lane. */
        private final FastLanes.Loop3 loop;
        private final Src a;
        private final Src b;
        private final Src c;
        private final int d;

        Int3Exec(Instruction insn, ValuIntegerUnit.Op3 op, LaneLoop kind, Src a, Src b, Src c, int d) {
            this.insn = insn;
            this.op = op;
            this.loop = kind == null ? null : FastLanes.loop3(kind);
            this.a = a;
            this.b = b;
            this.c = c;
            this.d = d;
        }

        @Override
        public void run(Wave w) {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int[] y = b.array(w, insn, 1);
            int[] z = c.array(w, insn, 2);
            int xo = a.offset();
            int yo = b.offset();
            int zo = c.offset();
            int n = w.waveSize();
            if (loop != null) {
                if (exec == full(n)) {
                    loop.run(v, d, x, xo, y, yo, z, zo, n);
                } else {
                    int[] t = w.laneScratch();
                    loop.run(t, 0, x, xo, y, yo, z, zo, n);
                    FastLanes.merge(v, d, t, exec);
                }
            } else if (exec == full(n)) {
                for (int l = 0; l < n; l++) {
                    v[d + l] = op.apply(x[xo + l], y[yo + l], z[zo + l]);
                }
            } else {
                for (long m = exec; m != 0; m &= m - 1) {
                    int l = Long.numberOfTrailingZeros(m);
                    v[d + l] = op.apply(x[xo + l], y[yo + l], z[zo + l]);
                }
            }
        }
    }

    // ---------------------------------------------------------------- v_cndmask_b32

    /** D = mask[lane] ? S1 : S0 with float ABS/NEG on the bits; the mask is VCC (VOP2) or src2 (VOP3). */
    private static Exec cndmask(Instruction insn, int waveSize, int vgprs) {
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        Src b = Src.of(insn, 1, waveSize, vgprs, 1);
        int dst = Valu.vdst(insn);
        if (a == null || b == null || !fits(dst, 1, vgprs)) {
            return null;
        }
        int maskCode = insn.fields() instanceof Fields.Vop3 v ? v.src2() : Wave.VCC_LO;
        if (maskCode >= 128) {
            return null; // a mask that is not a register (the reference reads it as one): leave it to the reference
        }
        int[] am = masks(insn, 0);
        int[] bm = masks(insn, 1);
        int d = dst * waveSize;
        return w -> {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int[] y = b.array(w, insn, 1);
            int xo = a.offset();
            int yo = b.offset();
            long sel = w.laneMask(maskCode);
            for (long m = exec; m != 0; m &= m - 1) {
                int l = Long.numberOfTrailingZeros(m);
                v[d + l] = (sel >>> l & 1) != 0 ? (y[yo + l] & bm[0]) ^ bm[1] : (x[xo + l] & am[0]) ^ am[1];
            }
        };
    }

    /** {AND mask, XOR mask} for a 32-bit float source's ABS and NEG. */
    private static int[] masks(Instruction insn, int n) {
        return new int[] {Valu.abs(insn, n) ? 0x7FFF_FFFF : -1, Valu.neg(insn, n) ? 0x8000_0000 : 0};
    }

    // ---------------------------------------------------------------- compares

    private static final int LT = 1;
    private static final int EQ = 2;
    private static final int GT = 4;
    /** Unordered: a NaN operand (float compares only). */
    private static final int UN = 8;

    /** The outcomes (LT|EQ|GT|UN bits) for which a relation holds; the integer ones never see UN. */
    static int accepted(ValuFacts.Condition c) {
        return switch (c) {
            case F -> 0;
            case LT -> LT;
            case EQ -> EQ;
            case LE -> LT | EQ;
            case GT -> GT;
            case NE, LG -> LT | GT;
            case GE -> GT | EQ;
            case O -> LT | EQ | GT;
            case U -> UN;
            case NGE -> LT | UN;
            case NLG -> EQ | UN;
            case NGT -> LT | EQ | UN;
            case NLE -> GT | UN;
            case NEQ -> LT | GT | UN;
            case NLT -> EQ | GT | UN;
            case T, TRU -> LT | EQ | GT | UN;
            case CLASS -> throw new IllegalArgumentException("the class test is no relation");
        };
    }

    /**
     * A 32-bit integer or f32 v_cmp/v_cmpx (VOPC, or its VOP3 form) with the relation as a set of outcomes
     * (LT|EQ|GT|UN bits); f32 operands with ABS/NEG, a denormal flushed to a zero of its sign when MODE's f32
     * denormal field says so (as {@code ValuCompareUnit}). Other types (16, 64 bits, f16, f64, class) stay with
     * the reference handler.
     */
    private static Exec compare(Instruction insn, ValuFacts.Compare cmp, int waveSize, int vgprs) {
        ValuFacts.CompareType type = cmp.type();
        boolean f32 = type == ValuFacts.CompareType.F32;
        if (cmp.condition() == ValuFacts.Condition.CLASS
                || !(f32 || type == ValuFacts.CompareType.I32 || type == ValuFacts.CompareType.U32)) {
            return null;
        }
        boolean toExec = cmp.toExec();
        int accept = accepted(cmp.condition());
        // the mask bit each outcome gives
        long lt = (accept & LT) != 0 ? 1 : 0;
        long eq = (accept & EQ) != 0 ? 1 : 0;
        long gt = (accept & GT) != 0 ? 1 : 0;
        long un = (accept & UN) != 0 ? 1 : 0;
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        Src b = Src.of(insn, 1, waveSize, vgprs, 1);
        if (a == null || b == null) {
            return null;
        }
        int dest = insn.fields() instanceof Fields.Vop3 v ? v.vdst() : Wave.VCC_LO;
        if (f32) {
            int[] am = masks(insn, 0);
            int[] bm = masks(insn, 1);
            return w -> {
                long exec = w.exec();
                long mask = 0;
                if (exec != 0) {
                    int[] x = a.array(w, insn, 0);
                    int[] y = b.array(w, insn, 1);
                    int xo = a.offset();
                    int yo = b.offset();
                    boolean flush = (w.mode() >>> 4 & 1) == 0;
                    int aAnd = am[0];
                    int aXor = am[1];
                    int bAnd = bm[0];
                    int bXor = bm[1];
                    // every lane of the wave, without branches (reading an inactive lane has no effect), then EXEC
                    int n = w.waveSize();
                    for (int l = 0; l < n; l++) {
                        int p = (x[xo + l] & aAnd) ^ aXor;
                        int q = (y[yo + l] & bAnd) ^ bXor;
                        if (flush) {
                            p = (p & 0x7F80_0000) == 0 ? p & 0x8000_0000 : p;
                            q = (q & 0x7F80_0000) == 0 ? q & 0x8000_0000 : q;
                        }
                        float fp = Float.intBitsToFloat(p);
                        float fq = Float.intBitsToFloat(q);
                        long bit = fp < fq ? lt : fp == fq ? eq : fp > fq ? gt : un;
                        mask |= bit << l;
                    }
                    mask &= exec;
                }
                if (toExec) {
                    w.setExec(mask);
                } else {
                    w.setLaneMask(dest, mask);
                }
            };
        }
        int flip = type.signed() ? 0 : Integer.MIN_VALUE; // unsigned order as signed order of the flipped values
        return w -> {
            long exec = w.exec();
            long mask = 0;
            if (exec != 0) {
                int[] x = a.array(w, insn, 0);
                int[] y = b.array(w, insn, 1);
                int xo = a.offset();
                int yo = b.offset();
                // every lane of the wave, without branches (reading an inactive lane has no effect), then EXEC
                int n = w.waveSize();
                for (int l = 0; l < n; l++) {
                    int p = x[xo + l] ^ flip;
                    int q = y[yo + l] ^ flip;
                    long bit = p < q ? lt : p == q ? eq : gt;
                    mask |= bit << l;
                }
                mask &= exec;
            }
            if (toExec) {
                w.setExec(mask);
            } else {
                w.setLaneMask(dest, mask);
            }
        };
    }

    // ---------------------------------------------------------------- v_ldexp_f32, v_frexp_exp_i32_f32

    /**
     * v_ldexp_f32: a normal S0 whose scaled exponent stays normal is exact (the exponent field moved, whatever
     * the round and denormal modes); every other lane (zero, denormal, infinity, NaN, a result that leaves the
     * normal range) goes through {@code FloatOps.ldexp}, the reference's kernel. Then OMOD and CLAMP.
     */
    private static Exec ldexp(Instruction insn, int waveSize, int vgprs) {
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        Src e = Src.of(insn, 1, waveSize, vgprs, 1);
        int dst = Valu.vdst(insn);
        if (a == null || e == null || !fits(dst, 1, vgprs)) {
            return null;
        }
        int[] am = masks(insn, 0);
        int omod = Valu.omod(insn);
        boolean clamp = Valu.clamp(insn);
        int d = dst * waveSize;
        return w -> {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            FpMode m = new FpMode(w.mode());
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int[] y = e.array(w, insn, 1);
            int xo = a.offset();
            int yo = e.offset();
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                int bits = (x[xo + l] & am[0]) ^ am[1];
                int by = y[yo + l];
                int field = bits >>> 23 & 0xFF;
                long scaled = (long) field + by;
                long r;
                if (field != 0 && field != 0xFF && scaled >= 1 && scaled <= 254) {
                    r = Integer.toUnsignedLong(bits & 0x807F_FFFF | (int) scaled << 23);
                } else {
                    r = FloatOps.ldexp(Format.F32, m, Integer.toUnsignedLong(bits), by);
                }
                r = outputModifiers(Format.F32, m, omod, clamp, r);
                v[d + l] = (int) r;
            }
        };
    }

    /**
     * v_frexp_exp_i32_f32: a normal S0's exponent is its field - 126; zero, infinity and NaN give 0; a denormal
     * (flushed to zero or not, as MODE says) as {@code ValuFloatConvert}.
     */
    private static Exec frexpExp(Instruction insn, int waveSize, int vgprs) {
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        int dst = Valu.vdst(insn);
        if (a == null || !fits(dst, 1, vgprs)) {
            return null;
        }
        int[] am = masks(insn, 0);
        int d = dst * waveSize;
        return w -> {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int xo = a.offset();
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                int bits = (x[xo + l] & am[0]) ^ am[1];
                int field = bits >>> 23 & 0xFF;
                int r;
                if (field == 0xFF || (bits & 0x7FFF_FFFF) == 0) {
                    r = 0;
                } else if (field != 0) {
                    r = field - 126;
                } else {
                    long in = new FpMode(w.mode()).input(Format.F32, Integer.toUnsignedLong(bits));
                    r = Format.F32.isZero(in) ? 0 : ValuFloatConvert.frexpExponent(Format.F32.toDouble(in));
                }
                v[d + l] = r;
            }
        };
    }

    /** OMOD, then CLAMP, as the reference applies them after a float result (ValuFloat.modifiers). */
    private static long outputModifiers(Format f, FpMode m, int omod, boolean clamp, long r) {
        if (omod != 0) {
            r = FloatOps.omod(f, m, omod, r);
        }
        return clamp ? FloatOps.clamp(f, m, r) : r;
    }

    // ---------------------------------------------------------------- v_div_scale_f32, v_div_fmas_f32

    /**
     * v_div_scale_f32 (VOP3b): the reference's lane function ({@code ValuFloatDivide.scaleLane}) over operands
     * resolved once (ABS/NEG as masks), then OMOD and CLAMP; the flags into the SGPR mask after every lane.
     */
    private static Exec divScale(Instruction insn, LaneKernel.DivScale k, int waveSize, int vgprs) {
        if (!(insn.fields() instanceof Fields.Vop3 v3)) {
            return null;
        }
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        Src b = Src.of(insn, 1, waveSize, vgprs, 1);
        Src c = Src.of(insn, 2, waveSize, vgprs, 1);
        int dst = Valu.vdst(insn);
        int sdst = v3.sdst();
        if (a == null || b == null || c == null || !fits(dst, 1, vgprs) || sdst >= 128) {
            return null;
        }
        int[] am = masks(insn, 0);
        int[] bm = masks(insn, 1);
        int[] cm = masks(insn, 2);
        int omod = Valu.omod(insn);
        boolean clamp = Valu.clamp(insn);
        int d = dst * waveSize;
        return w -> {
            long exec = w.exec();
            long[] vcc = {0};
            if (exec != 0) {
                FpMode m = new FpMode(w.mode());
                int[] v = w.vgprFile();
                int[] x = a.array(w, insn, 0);
                int[] y = b.array(w, insn, 1);
                int[] z = c.array(w, insn, 2);
                int xo = a.offset();
                int yo = b.offset();
                int zo = c.offset();
                for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                    int l = Long.numberOfTrailingZeros(lanes);
                    long r = ValuFloatDivide.scaleLane(k, m, Integer.toUnsignedLong(x[xo + l] & am[0] ^ am[1]),
                            Integer.toUnsignedLong(y[yo + l] & bm[0] ^ bm[1]),
                            Integer.toUnsignedLong(z[zo + l] & cm[0] ^ cm[1]), vcc, l);
                    r = outputModifiers(Format.F32, m, omod, clamp, r);
                    v[d + l] = (int) r;
                }
            }
            w.setLaneMask(sdst, vcc[0]);
        };
    }

    /**
     * v_div_fmas_f32: the reference's lane function ({@code ValuFloatDivide.fmasLane}) with VCC read once before
     * any lane, over operands resolved once (ABS/NEG as masks), then OMOD and CLAMP.
     */
    private static Exec divFmas(Instruction insn, LaneKernel.DivFmas k, int waveSize, int vgprs) {
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        Src b = Src.of(insn, 1, waveSize, vgprs, 1);
        Src c = Src.of(insn, 2, waveSize, vgprs, 1);
        int dst = Valu.vdst(insn);
        if (a == null || b == null || c == null || !fits(dst, 1, vgprs)) {
            return null;
        }
        int[] am = masks(insn, 0);
        int[] bm = masks(insn, 1);
        int[] cm = masks(insn, 2);
        int omod = Valu.omod(insn);
        boolean clamp = Valu.clamp(insn);
        int d = dst * waveSize;
        return w -> {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            FpMode m = new FpMode(w.mode());
            long vcc = w.vcc();
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int[] y = b.array(w, insn, 1);
            int[] z = c.array(w, insn, 2);
            int xo = a.offset();
            int yo = b.offset();
            int zo = c.offset();
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                long r = ValuFloatDivide.fmasLane(k, m, Integer.toUnsignedLong(x[xo + l] & am[0] ^ am[1]),
                        Integer.toUnsignedLong(y[yo + l] & bm[0] ^ bm[1]),
                        Integer.toUnsignedLong(z[zo + l] & cm[0] ^ cm[1]), (vcc >>> l & 1) != 0);
                r = outputModifiers(Format.F32, m, omod, clamp, r);
                v[d + l] = (int) r;
            }
        };
    }

    // ---------------------------------------------------------------- floats

    /**
     * Pass 1 of an f32 loop ({@code FloatExec.runF32}): Java's float result of one operation in every lane of the
     * wave into {@code t}, returning a nonzero value when any operand or result is a denormal, infinity or NaN
     * ({@link FastLanes#edge}). Sources are lane arrays with their ABS/NEG masks ({@code & and ^ xor}); {@code z}
     * is null for two sources. One class per operation, so that each loop is a compilation unit of its own.
     */
    private interface F32Pass {
        int run(int[] x, int xo, int and0, int xor0, int[] y, int yo, int and1, int xor1,
                int[] z, int zo, int and2, int xor2, int[] t, int n);

        static F32Pass of(LaneLoop kind) {
            return switch (kind) {
                case F_MUL -> new F32Mul();
                // x - y is x + (-y) in IEEE 754, exactly: the sign flips before the one rounding
                case F_ADD -> new F32Add(0, 0);
                case F_SUB -> new F32Add(0, 0x8000_0000);
                case F_SUBREV -> new F32Add(0x8000_0000, 0);
                // v_fma_f32 and v_fmac_f32 (three sources): Math.fma rounds once, as IEEE's fusedMultiplyAdd
                case F_FMA -> new F32Fma();
                default -> throw new IllegalArgumentException("no f32 loop for " + kind);
            };
        }
    }

    private static final class F32Mul implements F32Pass {
        @Override
        public int run(int[] x, int xo, int and0, int xor0, int[] y, int yo, int and1, int xor1,
                       int[] z, int zo, int and2, int xor2, int[] t, int n) {
            int odd = 0;
            for (int l = 0; l < n; l++) {
                int a = x[xo + l] & and0 ^ xor0;
                int b = y[yo + l] & and1 ^ xor1;
                int r = Float.floatToRawIntBits(Float.intBitsToFloat(a) * Float.intBitsToFloat(b));
                t[l] = r;
                odd |= FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(r);
            }
            return odd;
        }
    }

    private static final class F32Add implements F32Pass {
        private final int flipA;
        private final int flipB;

        F32Add(int flipA, int flipB) {
            this.flipA = flipA;
            this.flipB = flipB;
        }

        @Override
        public int run(int[] x, int xo, int and0, int xor0, int[] y, int yo, int and1, int xor1,
                       int[] z, int zo, int and2, int xor2, int[] t, int n) {
            int fa = flipA;
            int fb = flipB;
            int odd = 0;
            for (int l = 0; l < n; l++) {
                int a = x[xo + l] & and0 ^ xor0;
                int b = y[yo + l] & and1 ^ xor1;
                int r = Float.floatToRawIntBits(Float.intBitsToFloat(a ^ fa) + Float.intBitsToFloat(b ^ fb));
                t[l] = r;
                odd |= FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(r);
            }
            return odd;
        }
    }

    private static final class F32Fma implements F32Pass {
        @Override
        public int run(int[] x, int xo, int and0, int xor0, int[] y, int yo, int and1, int xor1,
                       int[] z, int zo, int and2, int xor2, int[] t, int n) {
            int odd = 0;
            for (int l = 0; l < n; l++) {
                int a = x[xo + l] & and0 ^ xor0;
                int b = y[yo + l] & and1 ^ xor1;
                int c = z[zo + l] & and2 ^ xor2;
                int r = Float.floatToRawIntBits(Math.fma(Float.intBitsToFloat(a), Float.intBitsToFloat(b),
                        Float.intBitsToFloat(c)));
                t[l] = r;
                odd |= FastLanes.edge(a) | FastLanes.edge(b) | FastLanes.edge(c) | FastLanes.edge(r);
            }
            return odd;
        }
    }

    private static final class FloatExec implements Exec {
        private final Instruction insn;
        private final LaneKernel kernel;
        private final Format f;
        private final int arity;
        private final Src[] src;
        private final long[] and;
        private final long[] xor;
        private final int d;
        private final int dHi;
        private final int omod;
        private final boolean clamp;
        /** A one-source f32 loop (frexp_mant, rcp, sqrt, rsq: normal values inline in any MODE), or null. */
        private final LaneLoop unary;
        /** Pass 1 of the f32 {@link LaneLoop} with an inline loop (no OMOD, no CLAMP), or null. */
        private final F32Pass pass1;

        FloatExec(Instruction insn, LaneKernel kernel, Format f, FSrc[] s, int dst, int waveSize, int omod,
                  boolean clamp, LaneLoop loop) {
            this.insn = insn;
            this.kernel = kernel;
            this.f = f;
            this.arity = s.length;
            this.src = new Src[s.length];
            this.and = new long[s.length];
            this.xor = new long[s.length];
            long sign = f == Format.F64 ? Long.MIN_VALUE : 0x8000_0000L;
            long all = f == Format.F64 ? -1L : 0xFFFF_FFFFL;
            for (int i = 0; i < s.length; i++) {
                src[i] = s[i].src();
                and[i] = s[i].abs() ? all & ~sign : all;
                xor[i] = s[i].neg() ? sign : 0;
            }
            this.d = dst * waveSize;
            this.dHi = (dst + 1) * waveSize;
            this.omod = omod;
            this.clamp = clamp;
            this.unary = f == Format.F32 && loop != null && loop.sources < 0 ? loop : null;
            this.pass1 = f == Format.F32 && omod == 0 && !clamp && unary == null && loop != null ? F32Pass.of(loop) : null;
        }

        @Override
        public void run(Wave w) {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            FpMode m = new FpMode(w.mode());
            if (pass1 != null && m.round(Format.F32) == Rounding.NEAREST_EVEN) {
                runF32(w, m, exec);
                return;
            }
            if (unary != null) {
                runUnary(w, m, exec);
                return;
            }
            int[] v = w.vgprFile();
            boolean wide = f == Format.F64;
            // uniform sources: read once (per instruction, as every lane would read them)
            long u0 = 0;
            long u1 = 0;
            long u2 = 0;
            for (int i = 0; i < arity; i++) {
                if (!src[i].vector()) {
                    long bits = wide ? w.source64(src[i].code(), insn, true)
                            : Integer.toUnsignedLong(w.source32(src[i].code(), insn));
                    bits = bits & and[i] ^ xor[i];
                    if (i == 0) {
                        u0 = bits;
                    } else if (i == 1) {
                        u1 = bits;
                    } else {
                        u2 = bits;
                    }
                }
            }
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                long a = src[0].vector() ? lane(v, 0, l) : u0;
                long r;
                if (kernel instanceof LaneKernel.Float2 k) {
                    long b = src[1].vector() ? lane(v, 1, l) : u1;
                    r = k.op().apply(m, a, b);
                } else if (kernel instanceof LaneKernel.Float3 k) {
                    long b = src[1].vector() ? lane(v, 1, l) : u1;
                    long c = src[2].vector() ? lane(v, 2, l) : u2;
                    r = k.op().apply(m, a, b, c);
                } else {
                    r = ((LaneKernel.Float1) kernel).op().apply(m, a);
                }
                r = outputModifiers(f, m, omod, clamp, r);
                v[d + l] = (int) r;
                if (wide) {
                    v[dHi + l] = (int) (r >>> 32);
                }
            }
        }

        /**
         * f32 add/sub/subrev/mul/fma rounding to nearest even: Java's float arithmetic for zeros and normal
         * numbers, the lane kernel for a lane where an operand or the result is a denormal, an infinity or a
         * NaN (flushing, quieting and the default NaN are the kernel's).
         */
        private void runF32(Wave w, FpMode m, long exec) {
            int[] v = w.vgprFile();
            int n = w.waveSize();
            // every source as a lane array (a uniform one broadcast, its modifiers applied once)
            int[] x = fsrc(w, 0);
            int[] y = fsrc(w, 1);
            int[] z = arity > 2 ? fsrc(w, 2) : null;
            int xo = src[0].offset();
            int yo = src[1].offset();
            int zo = arity > 2 ? src[2].offset() : 0;
            int and0 = src[0].vector() ? (int) and[0] : -1;
            int xor0 = src[0].vector() ? (int) xor[0] : 0;
            int and1 = src[1].vector() ? (int) and[1] : -1;
            int xor1 = src[1].vector() ? (int) xor[1] : 0;
            int and2 = arity > 2 && src[2].vector() ? (int) and[2] : -1;
            int xor2 = arity > 2 && src[2].vector() ? (int) xor[2] : 0;
            boolean full = exec == full(n);
            int[] t = w.laneScratch();
            // pass 1: Java's float result in every lane of the wave (inactive lanes too: no side effects),
            // noting whether any operand or result is a denormal, infinity or NaN
            int odd = pass1.run(x, xo, and0, xor0, y, yo, and1, xor1, z, zo, and2, xor2, t, n);
            if (odd != 0) {
                special(w, m, exec, x, xo, y, yo, z, zo, and0, xor0, and1, xor1, and2, xor2, t);
            }
            if (full) {
                System.arraycopy(t, 0, v, d, n);
            } else {
                FastLanes.merge(v, d, t, exec);
            }
        }

        /**
         * Pass 2, rare: the lane kernel for each active lane where an operand or the result is a denormal,
         * infinity or NaN. Its own method (and pass 1 one per operation, {@link F32Pass}): the JIT compiles each
         * as it turns hot instead of recompiling one method holding every loop whenever a new one is reached
         * (runF32 was 5 C2 compilations, 1.1 s of CPU, in the 1080p shadow pass).
         */
        private void special(Wave w, FpMode m, long exec, int[] x, int xo, int[] y, int yo, int[] z, int zo,
                             int and0, int xor0, int and1, int xor1, int and2, int xor2, int[] t) {
            int[] v = w.vgprFile();
            int r0 = src[0].vector() ? src[0].row() : -1;
            int r1 = src[1].vector() ? src[1].row() : -1;
            int r2 = arity > 2 && src[2].vector() ? src[2].row() : -1;
            int[] u = {x[xo], y[yo], z == null ? 0 : z[zo]};
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                int a = r0 >= 0 ? v[r0 + l] & and0 ^ xor0 : u[0];
                int b = r1 >= 0 ? v[r1 + l] & and1 ^ xor1 : u[1];
                int c = arity < 3 ? 0 : r2 >= 0 ? v[r2 + l] & and2 ^ xor2 : u[2];
                if (FastLanes.special(a) || FastLanes.special(b) || FastLanes.special(c)
                        || FastLanes.special(t[l])) {
                    long la = Integer.toUnsignedLong(a);
                    long lb = Integer.toUnsignedLong(b);
                    t[l] = (int) (kernel instanceof LaneKernel.Float3 k
                            ? k.op().apply(m, la, lb, Integer.toUnsignedLong(c))
                            : ((LaneKernel.Float2) kernel).op().apply(m, la, lb));
                }
            }
        }

        /**
         * The one-source f32 loops, whatever MODE says for a lane whose S0 is normal (never flushed) and whose
         * result is normal (never flushed; these rows ignore the round mode): v_frexp_mant_f32, S0's sign | 0.5's
         * exponent | S0's fraction, exactly ({@code ValuFloatConvert.frexpMant}); v_rcp_f32 for |S0| below 2^126,
         * v_sqrt_f32 and v_rsq_f32 for a positive S0, the double result rounded once to f32 as {@code
         * ValuFloatTranscendental.apply} does (Java's double-to-float conversion is its round to nearest even).
         * Every other lane (zeros, denormals, infinities, NaNs, negative roots, reciprocals of huge values) goes
         * through the lane kernel. Then OMOD and CLAMP as every float result.
         */
        private void runUnary(Wave w, FpMode m, long exec) {
            int[] v = w.vgprFile();
            int[] x = fsrc(w, 0);
            int xo = src[0].offset();
            int and0 = src[0].vector() ? (int) and[0] : -1;
            int xor0 = src[0].vector() ? (int) xor[0] : 0;
            LaneKernel.Float1 k = (LaneKernel.Float1) kernel;
            LaneLoop kind = unary;
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                int bits = x[xo + l] & and0 ^ xor0;
                int field = bits >>> 23 & 0xFF;
                boolean normal = field != 0 && field != 0xFF;
                long r;
                if (kind == LaneLoop.F_FREXP_MANT && normal) {
                    r = Integer.toUnsignedLong(bits & 0x807F_FFFF | 0x3F00_0000);
                } else if (kind == LaneLoop.F_RCP && normal && field <= 252) {
                    r = Integer.toUnsignedLong(Float.floatToRawIntBits((float) (1 / (double) Float.intBitsToFloat(bits))));
                } else if (kind == LaneLoop.F_SQRT && normal && bits > 0) {
                    r = Integer.toUnsignedLong(Float.floatToRawIntBits((float) Math.sqrt(Float.intBitsToFloat(bits))));
                } else if (kind == LaneLoop.F_RSQ && normal && bits > 0) {
                    r = Integer.toUnsignedLong(Float.floatToRawIntBits(
                            (float) (1 / Math.sqrt(Float.intBitsToFloat(bits)))));
                } else {
                    r = k.op().apply(m, Integer.toUnsignedLong(bits));
                }
                r = outputModifiers(Format.F32, m, omod, clamp, r);
                v[d + l] = (int) r;
            }
        }

        /** Source i's lane array: the VGPR file, or a broadcast row of the uniform value with its modifiers applied. */
        private int[] fsrc(Wave w, int i) {
            if (src[i].vector()) {
                return w.vgprFile();
            }
            return w.broadcast(i, (int) ((Integer.toUnsignedLong(w.source32(src[i].code(), insn)) & and[i]) ^ xor[i]));
        }

        private long lane(int[] v, int i, int l) {
            Src s = src[i];
            long bits = s.rowHi() >= 0 ? Integer.toUnsignedLong(v[s.row() + l]) | (long) v[s.rowHi() + l] << 32
                    : Integer.toUnsignedLong(v[s.row() + l]);
            return bits & and[i] ^ xor[i];
        }
    }

    // ---------------------------------------------------------------- carries, 64-bit

    /**
     * v_add/sub/subrev_co[_ci]_u32 (VOP2 with VCC, VOP3b with SGPR masks): as
     * {@code ValuIntegerUnit.carry}: carry-in read before any write, results then the carry-out mask
     * (0 for inactive lanes), CLAMP saturating.
     */
    private static Exec carry(Instruction insn, int waveSize, int vgprs, boolean subtract, boolean reverse,
                              boolean carryIn) {
        Src a = Src.of(insn, reverse ? 1 : 0, waveSize, vgprs, 1);
        Src b = Src.of(insn, reverse ? 0 : 1, waveSize, vgprs, 1);
        int dst = Valu.vdst(insn);
        if (a == null || b == null || !fits(dst, 1, vgprs)) {
            return null;
        }
        Fields.Vop3 v3 = insn.fields() instanceof Fields.Vop3 v ? v : null;
        int inCode = v3 != null ? v3.src2() : Wave.VCC_LO;
        int outCode = v3 != null ? v3.sdst() : Wave.VCC_LO;
        if (carryIn && inCode >= 128 || outCode >= 128) {
            return null;
        }
        boolean clamp = Valu.clamp(insn);
        int d = dst * waveSize;
        return w -> {
            long exec = w.exec();
            long mask = 0;
            if (exec != 0) {
                int[] v = w.vgprFile();
                int[] x = a.array(w, insn, 0);
                int[] y = b.array(w, insn, 1);
                int xo = a.offset();
                int yo = b.offset();
                long in = carryIn ? w.laneMask(inCode) : 0;
                for (long m = exec; m != 0; m &= m - 1) {
                    int l = Long.numberOfTrailingZeros(m);
                    long p = Integer.toUnsignedLong(x[xo + l]);
                    long q = Integer.toUnsignedLong(y[yo + l]);
                    long c = in >>> l & 1;
                    long exact = subtract ? p - q - c : p + q + c;
                    if (subtract ? exact < 0 : exact > 0xFFFF_FFFFL) {
                        mask |= 1L << l;
                    }
                    v[d + l] = clamp ? ValuLanes.saturateU32(exact) : (int) exact;
                }
            }
            w.setLaneMask(outCode, mask);
        };
    }

    /** v_mad_u64_u32: {carry, D} = S0.u32 * S1.u32 + S2.u64, as {@code ValuIntegerUnit.madU64}. */
    private static Exec madU64(Instruction insn, int waveSize, int vgprs) {
        if (!(insn.fields() instanceof Fields.Vop3 v3)) {
            return null;
        }
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        Src b = Src.of(insn, 1, waveSize, vgprs, 1);
        Src c = Src.of(insn, 2, waveSize, vgprs, 2);
        int dst = Valu.vdst(insn);
        int outCode = v3.sdst();
        if (a == null || b == null || c == null || !fits(dst, 2, vgprs) || outCode >= 128) {
            return null;
        }
        boolean clamp = Valu.clamp(insn);
        int d = dst * waveSize;
        int dHi = (dst + 1) * waveSize;
        return w -> {
            long exec = w.exec();
            long mask = 0;
            if (exec != 0) {
                int[] v = w.vgprFile();
                int[] x = a.array(w, insn, 0);
                int[] y = b.array(w, insn, 1);
                int xo = a.offset();
                int yo = b.offset();
                long uniform = c.vector() ? 0 : w.source64(c.code(), insn, false);
                for (long m = exec; m != 0; m &= m - 1) {
                    int l = Long.numberOfTrailingZeros(m);
                    long product = Integer.toUnsignedLong(x[xo + l]) * Integer.toUnsignedLong(y[yo + l]);
                    long addend = c.vector() ? Integer.toUnsignedLong(v[c.row() + l]) | (long) v[c.rowHi() + l] << 32
                            : uniform;
                    long sum = product + addend;
                    boolean carry = Long.compareUnsigned(sum, product) < 0;
                    if (carry) {
                        mask |= 1L << l;
                    }
                    long out = carry && clamp ? -1L : sum;
                    v[d + l] = (int) out;
                    v[dHi + l] = (int) (out >>> 32);
                }
            }
            w.setLaneMask(outCode, mask);
        };
    }

    /** v_lshlrev_b64 / v_lshrrev_b64 / v_ashrrev_i64: D = S1 shifted by S0[5:0]. */
    private static Exec shift64(Instruction insn, ValuFacts.Shift64 shift, int waveSize, int vgprs) {
        Src a = Src.of(insn, 0, waveSize, vgprs, 1);
        Src b = Src.of(insn, 1, waveSize, vgprs, 2);
        int dst = Valu.vdst(insn);
        if (a == null || b == null || !fits(dst, 2, vgprs)) {
            return null;
        }
        int kind = switch (shift) {
            case LEFT -> 0;
            case RIGHT_LOGICAL -> 1;
            case RIGHT_ARITHMETIC -> 2;
        };
        int d = dst * waveSize;
        int dHi = (dst + 1) * waveSize;
        return w -> {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            int[] v = w.vgprFile();
            int[] x = a.array(w, insn, 0);
            int xo = a.offset();
            long uniform = b.vector() ? 0 : w.source64(b.code(), insn, false);
            for (long m = exec; m != 0; m &= m - 1) {
                int l = Long.numberOfTrailingZeros(m);
                long value = b.vector() ? Integer.toUnsignedLong(v[b.row() + l]) | (long) v[b.rowHi() + l] << 32 : uniform;
                int by = x[xo + l] & 63;
                long out = kind == 0 ? value << by : kind == 1 ? value >>> by : value >> by;
                v[d + l] = (int) out;
                v[dHi + l] = (int) (out >>> 32);
            }
        };
    }

    /** The decode error at a PC that has no compiled step, as the interpreter reports it. */
    static DecodeException missing(DecodedProgram program, long pc) {
        try {
            program.at(pc);
            return new DecodeException(pc, new byte[0], "no compiled instruction");
        } catch (DecodeException e) {
            return e;
        }
    }
}
