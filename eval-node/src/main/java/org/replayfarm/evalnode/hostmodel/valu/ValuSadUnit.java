package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.evalnode.hostmodel.valu.ValuIntegerUnit.s;
import static org.replayfarm.evalnode.hostmodel.valu.ValuLanes.u;

import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Instruction;

/**
 * Sum-of-absolute-differences instructions (VOP3): v_sad_u8/hi_u8/u16/u32, the masked v_msad_u8 and
 * the quad forms v_qsad_pk_u16_u8, v_mqsad_pk_u16_u8, v_mqsad_u32_u8. "Masked" forms skip the byte
 * positions whose reference byte (S1) is zero. The quad forms slide a 4-byte window over the 8 bytes
 * of S0 (window i = bytes i..i+3) against the reference S1 and add each SAD to one accumulator of S2.
 * CLAMP saturates each accumulation to its width (32 or 16 bits); without it the sum wraps.
 * RDNA 2 ISA guide, VOP3 opcodes.
 */
public final class ValuSadUnit {
    private ValuSadUnit() {
    }

    public static void register(SemanticsTable.Builder b) {
        Valu.register(b, "v_sad_u8", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                acc32(insn, sad(s(w, insn, 0, lane), s(w, insn, 1, lane), 8, false), s(w, insn, 2, lane))));
        Valu.register(b, "v_sad_hi_u8", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                acc32(insn, (long) sad(s(w, insn, 0, lane), s(w, insn, 1, lane), 8, false) << 16,
                        s(w, insn, 2, lane))));
        Valu.register(b, "v_sad_u16", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                acc32(insn, sad(s(w, insn, 0, lane), s(w, insn, 1, lane), 16, false), s(w, insn, 2, lane))));
        Valu.register(b, "v_sad_u32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                acc32(insn, Math.abs(u(s(w, insn, 0, lane)) - u(s(w, insn, 1, lane))), s(w, insn, 2, lane))));
        Valu.register(b, "v_msad_u8", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                acc32(insn, sad(s(w, insn, 0, lane), s(w, insn, 1, lane), 8, true), s(w, insn, 2, lane))));
        Valu.register(b, "v_qsad_pk_u16_u8", Fidelity.EXACT, (w, insn) -> quad16(w, insn, false));
        Valu.register(b, "v_mqsad_pk_u16_u8", Fidelity.EXACT, (w, insn) -> quad16(w, insn, true));
        Valu.register(b, "v_mqsad_u32_u8", Fidelity.EXACT, ValuSadUnit::quad32);
    }

    /** Σ |a - b| over the {@code width}-bit fields of two dwords; masked: fields where b is 0 are skipped. */
    static int sad(int a, int b, int width, boolean masked) {
        int sum = 0;
        int mask = (1 << width) - 1;
        for (int i = 0; i < 32; i += width) {
            int x = a >>> i & mask;
            int y = b >>> i & mask;
            if (!masked || y != 0) {
                sum += Math.abs(x - y);
            }
        }
        return sum;
    }

    private static int acc32(Instruction insn, long sum, int accumulator) {
        long exact = sum + u(accumulator);
        return ValuLanes.clamp(insn) ? ValuLanes.saturateU32(exact) : (int) exact;
    }

    /** The 4-byte window of the 8 bytes of {@code source} starting at byte {@code i}. */
    private static int window(long source, int i) {
        return (int) (source >>> (8 * i));
    }

    private static void quad16(Wave w, Instruction insn, boolean masked) {
        boolean clamp = ValuLanes.clamp(insn);
        ValuLanes.map64(w, insn, lane -> {
            long source = Valu.source64(w, insn, 0, lane, false);
            int reference = s(w, insn, 1, lane);
            long acc = Valu.source64(w, insn, 2, lane, false);
            long result = 0;
            for (int i = 0; i < 4; i++) {
                long exact = (acc >>> (16 * i) & 0xFFFF) + sad(window(source, i), reference, 8, masked);
                long v = clamp ? ValuLanes.saturateU16(exact) : exact & 0xFFFF;
                result |= v << (16 * i);
            }
            return result;
        });
    }

    /** v_mqsad_u32_u8: four 32-bit accumulators (S2 and the destination are four registers each). */
    private static void quad32(Wave w, Instruction insn) {
        boolean clamp = ValuLanes.clamp(insn);
        boolean[] on = ValuLanes.activeLanes(w, insn);
        int[][] out = new int[on.length][];
        int accCode = Valu.sourceCode(insn, 2);
        for (int lane = 0; lane < on.length; lane++) {
            if (!on[lane]) {
                continue;
            }
            long source = Valu.source64(w, insn, 0, lane, false);
            int reference = s(w, insn, 1, lane);
            out[lane] = new int[4];
            for (int i = 0; i < 4; i++) {
                int acc;
                if (accCode >= 256) {
                    acc = w.vgpr(accCode - 256 + i, lane);
                } else if (accCode < 128) {
                    acc = w.sgpr(accCode + i);
                } else {
                    acc = i == 0 ? s(w, insn, 2, lane) : 0;
                }
                long exact = u(acc) + sad(window(source, i), reference, 8, true);
                out[lane][i] = clamp ? ValuLanes.saturateU32(exact) : (int) exact;
            }
        }
        int vdst = Valu.vdst(insn);
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                for (int i = 0; i < 4; i++) {
                    w.setVgpr(vdst + i, lane, out[lane][i]);
                }
            }
        }
    }
}
