package org.replayfarm.evalnode.hostmodel.scalar;

import static org.replayfarm.evalnode.hostmodel.scalar.ScalarAlu.nz;
import static org.replayfarm.evalnode.hostmodel.scalar.ScalarAlu.sop1;

import java.util.function.IntUnaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.function.LongUnaryOperator;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;

/**
 * The scalar ALU's one-source instructions (SOP1): moves and conditional moves, not, whole-quad mode,
 * bit reverse, bit counts, find-first and find-last bit, sign extension, bit set/clear, quad masks,
 * bit replication, absolute value, the EXEC save/write forms and the M0-relative moves. RDNA 2 ISA
 * guide, SOP1 opcode descriptions. All exact. The PC forms (s_getpc/s_setpc/s_swappc) are in
 * {@link Branch}.
 *
 * <p>The _b64 EXEC forms work on the register pair exec_lo/exec_hi and the _b32 forms on exec_lo, in
 * either wave size, as the descriptions write them (in wave32 exec_hi is an ordinary register that
 * the hardware keeps at 0); SCC is (new EXEC != 0) over the bits the form works on.
 */
public final class ScalarAluUnary {
    private ScalarAluUnary() {
    }

    public static void register(SemanticsTable.Builder b) {
        // moves: no SCC
        un32(b, "s_mov_b32", false, x -> x);
        un64(b, "s_mov_b64", false, x -> x);
        b.exact(Encoding.SOP1, "s_cmov_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int x = w.source32(s.ssrc0(), insn);
            if (w.scc()) {
                w.setSgpr(s.sdst(), x);
            }
        });
        b.exact(Encoding.SOP1, "s_cmov_b64", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            long x = w.source64(s.ssrc0(), insn, false);
            if (w.scc()) {
                w.setSgpr64(s.sdst(), x);
            }
        });
        un32(b, "s_not_b32", true, x -> ~x);
        un64(b, "s_not_b64", true, x -> ~x);
        un32(b, "s_wqm_b32", true, x -> (int) wqm(x, 8));
        un64(b, "s_wqm_b64", true, x -> wqm(x, 16));
        un32(b, "s_brev_b32", false, Integer::reverse);
        un64(b, "s_brev_b64", false, Long::reverse);
        // bit counts: SCC = result != 0
        un32(b, "s_bcnt0_i32_b32", true, x -> 32 - Integer.bitCount(x));
        to32(b, "s_bcnt0_i32_b64", true, x -> 64 - Long.bitCount(x));
        un32(b, "s_bcnt1_i32_b32", true, Integer::bitCount);
        to32(b, "s_bcnt1_i32_b64", true, Long::bitCount);
        // find first 0/1 from the LSB, find first 1 (or first bit unlike the sign) from the MSB: -1 when
        // there is none; no SCC
        un32(b, "s_ff0_i32_b32", false, x -> none(Integer.numberOfTrailingZeros(~x), 32));
        to32(b, "s_ff0_i32_b64", false, x -> none(Long.numberOfTrailingZeros(~x), 64));
        un32(b, "s_ff1_i32_b32", false, x -> none(Integer.numberOfTrailingZeros(x), 32));
        to32(b, "s_ff1_i32_b64", false, x -> none(Long.numberOfTrailingZeros(x), 64));
        un32(b, "s_flbit_i32_b32", false, x -> none(Integer.numberOfLeadingZeros(x), 32));
        to32(b, "s_flbit_i32_b64", false, x -> none(Long.numberOfLeadingZeros(x), 64));
        un32(b, "s_flbit_i32", false, x -> none(Integer.numberOfLeadingZeros(x < 0 ? ~x : x), 32));
        to32(b, "s_flbit_i32_i64", false, x -> none(Long.numberOfLeadingZeros(x < 0 ? ~x : x), 64));
        un32(b, "s_sext_i32_i8", false, x -> (byte) x);
        un32(b, "s_sext_i32_i16", false, x -> (short) x);
        // bit set/clear in the destination: bit S0[4:0] (S0[5:0] for 64-bit); no SCC
        b.exact(Encoding.SOP1, "s_bitset0_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int bit = w.source32(s.ssrc0(), insn) & 31;
            w.setSgpr(s.sdst(), w.sgpr(s.sdst()) & ~(1 << bit));
        });
        b.exact(Encoding.SOP1, "s_bitset1_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int bit = w.source32(s.ssrc0(), insn) & 31;
            w.setSgpr(s.sdst(), w.sgpr(s.sdst()) | 1 << bit);
        });
        b.exact(Encoding.SOP1, "s_bitset0_b64", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int bit = w.source32(s.ssrc0(), insn) & 63;
            w.setSgpr64(s.sdst(), w.sgpr64(s.sdst()) & ~(1L << bit));
        });
        b.exact(Encoding.SOP1, "s_bitset1_b64", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int bit = w.source32(s.ssrc0(), insn) & 63;
            w.setSgpr64(s.sdst(), w.sgpr64(s.sdst()) | 1L << bit);
        });
        // D[i] = any bit of S0's quad i; SCC = result != 0
        un32(b, "s_quadmask_b32", true, x -> (int) quadmask(Integer.toUnsignedLong(x), 8));
        un64(b, "s_quadmask_b64", true, x -> quadmask(x, 16));
        // D[2i+1:2i] = S0[i] twice; no SCC
        b.exact(Encoding.SOP1, "s_bitreplicate_b64_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int x = w.source32(s.ssrc0(), insn);
            long d = 0;
            for (int i = 0; i < 32; i++) {
                if ((x >>> i & 1) != 0) {
                    d |= 3L << (2 * i);
                }
            }
            w.setSgpr64(s.sdst(), d);
        });
        // |S0| (0x80000000 stays itself); SCC = result != 0
        un32(b, "s_abs_i32", true, x -> x < 0 ? -x : x);
        registerExec(b);
        registerMoveRelative(b);
    }

    // ---------------------------------------------------------------- EXEC forms

    private static void registerExec(SemanticsTable.Builder b) {
        // s_<op>_saveexec: D = EXEC; EXEC = op(S0, EXEC); SCC = EXEC != 0
        saveexec(b, "and", (s, e) -> s & e);
        saveexec(b, "or", (s, e) -> s | e);
        saveexec(b, "xor", (s, e) -> s ^ e);
        saveexec(b, "andn2", (s, e) -> s & ~e);
        saveexec(b, "orn2", (s, e) -> s | ~e);
        saveexec(b, "nand", (s, e) -> ~(s & e));
        saveexec(b, "nor", (s, e) -> ~(s | e));
        saveexec(b, "xnor", (s, e) -> ~(s ^ e));
        saveexec(b, "andn1", (s, e) -> ~s & e);
        saveexec(b, "orn1", (s, e) -> ~s | e);
        // s_<op>_wrexec: EXEC = op(S0, EXEC); D = the new EXEC; SCC = EXEC != 0
        wrexec(b, "andn1", (s, e) -> ~s & e);
        wrexec(b, "andn2", (s, e) -> s & ~e);
    }

    private static void saveexec(SemanticsTable.Builder b, String op, LongBinaryOperator f) {
        exec(b, "s_" + op + "_saveexec", f, true);
    }

    private static void wrexec(SemanticsTable.Builder b, String op, LongBinaryOperator f) {
        exec(b, "s_" + op + "_wrexec", f, false);
    }

    private static void exec(SemanticsTable.Builder b, String stem, LongBinaryOperator f, boolean saveOld) {
        b.exact(Encoding.SOP1, stem + "_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            long x = Integer.toUnsignedLong(w.source32(s.ssrc0(), insn));
            int old = w.sgpr(Wave.EXEC_LO);
            int exec = (int) f.applyAsLong(x, Integer.toUnsignedLong(old));
            w.setSgpr(s.sdst(), saveOld ? old : exec);
            w.setSgpr(Wave.EXEC_LO, exec);
            w.setScc(exec != 0);
        });
        b.exact(Encoding.SOP1, stem + "_b64", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            long x = w.source64(s.ssrc0(), insn, false);
            long old = w.sgpr64(Wave.EXEC_LO);
            long exec = f.applyAsLong(x, old);
            w.setSgpr64(s.sdst(), saveOld ? old : exec);
            w.setSgpr64(Wave.EXEC_LO, exec);
            w.setScc(exec != 0);
        });
    }

    // ---------------------------------------------------------------- M0-relative moves

    /**
     * s_movrels: D = SGPR[S0 + M0]; s_movreld: SGPR[D + M0] = S0; s_movrelsd_2: SGPR[D + M0[25:16]] =
     * SGPR[S0 + M0[9:0]]. The base must be an SGPR (s0-s105) and the indexed register(s) must stay
     * within s0-s105: an index past them faults (the model does not guess what the hardware reads
     * there). M0 is an unsigned index; the 64-bit forms move the pair at base + M0.
     */
    private static void registerMoveRelative(SemanticsTable.Builder b) {
        b.exact(Encoding.SOP1, "s_movrels_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            w.setSgpr(s.sdst(), w.sgpr(relative(s.ssrc0(), w.m0(), 1, "source")));
        });
        b.exact(Encoding.SOP1, "s_movrels_b64", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            w.setSgpr64(s.sdst(), w.sgpr64(relative(s.ssrc0(), w.m0(), 2, "source")));
        });
        b.exact(Encoding.SOP1, "s_movreld_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int x = w.source32(s.ssrc0(), insn);
            w.setSgpr(relative(s.sdst(), w.m0(), 1, "destination"), x);
        });
        b.exact(Encoding.SOP1, "s_movreld_b64", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            long x = w.source64(s.ssrc0(), insn, false);
            w.setSgpr64(relative(s.sdst(), w.m0(), 2, "destination"), x);
        });
        b.exact(Encoding.SOP1, "s_movrelsd_2_b32", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int m0 = w.m0();
            int x = w.sgpr(relative(s.ssrc0(), m0 & 0x3FF, 1, "source"));
            w.setSgpr(relative(s.sdst(), m0 >>> 16 & 0x3FF, 1, "destination"), x);
        });
    }

    private static int relative(int base, int index, int count, String what) {
        long code = base + Integer.toUnsignedLong(index);
        if (base > 105 || code + count - 1 > 105) {
            throw new GuestFault(String.format("M0-relative %s s%d + M0 (%d) is outside s0-s105", what, base,
                    Integer.toUnsignedLong(index)));
        }
        return (int) code;
    }

    // ---------------------------------------------------------------- helpers

    /** A count that came out as the width (no such bit) becomes -1. */
    private static int none(int count, int width) {
        return count == width ? -1 : count;
    }

    /** Each 4-bit group of the {@code quads} low groups becomes 0xF when any of its bits is set. */
    private static long wqm(long x, int quads) {
        long d = 0;
        for (int i = 0; i < quads; i++) {
            if ((x >>> (4 * i) & 0xF) != 0) {
                d |= 0xFL << (4 * i);
            }
        }
        return d;
    }

    private static long wqm(int x, int quads) {
        return wqm(Integer.toUnsignedLong(x), quads);
    }

    /** Bit i = any bit of the 4-bit group i. */
    private static long quadmask(long x, int quads) {
        long d = 0;
        for (int i = 0; i < quads; i++) {
            if ((x >>> (4 * i) & 0xF) != 0) {
                d |= 1L << i;
            }
        }
        return d;
    }

    private static void un32(SemanticsTable.Builder b, String mnemonic, boolean scc, IntUnaryOperator f) {
        b.exact(Encoding.SOP1, mnemonic, (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int d = f.applyAsInt(w.source32(s.ssrc0(), insn));
            if (scc) {
                nz(w, d);
            }
            w.setSgpr(s.sdst(), d);
        });
    }

    private static void un64(SemanticsTable.Builder b, String mnemonic, boolean scc, LongUnaryOperator f) {
        b.exact(Encoding.SOP1, mnemonic, (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            long d = f.applyAsLong(w.source64(s.ssrc0(), insn, false));
            if (scc) {
                nz(w, d);
            }
            w.setSgpr64(s.sdst(), d);
        });
    }

    /** 64-bit source, 32-bit result. */
    private static void to32(SemanticsTable.Builder b, String mnemonic, boolean scc,
                             java.util.function.LongToIntFunction f) {
        b.exact(Encoding.SOP1, mnemonic, (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            int d = f.applyAsInt(w.source64(s.ssrc0(), insn, false));
            if (scc) {
                nz(w, d);
            }
            w.setSgpr(s.sdst(), d);
        });
    }
}
