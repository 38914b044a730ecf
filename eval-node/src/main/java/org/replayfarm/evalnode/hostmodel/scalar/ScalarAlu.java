package org.replayfarm.evalnode.hostmodel.scalar;

import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * The scalar ALU's two-source and compare instructions: SOP2 (arithmetic with carries and borrows in
 * SCC, min/max, select, logic, shifts, bit-field extract and mask, multiplies, packs), SOPC (compares
 * and bit tests into SCC) and the SOPK forms with a 16-bit immediate (movk, cmovk, cmpk, addk, mulk).
 * RDNA 2 ISA guide, "Scalar ALU Operations" and the SOP2/SOPC/SOPK opcode descriptions. Every result
 * is exact. SCC is written only by the instructions whose description writes it; the rest leave it.
 * The one-source instructions are in {@link ScalarAluUnary}.
 */
public final class ScalarAlu {
    private ScalarAlu() {
    }

    /** A 32-bit two-source operation; it may set SCC through the wave. */
    @FunctionalInterface
    interface Op32 {
        int apply(Wave w, int a, int b);
    }

    /** A 64-bit operation with a 64-bit first source and a 32- or 64-bit second source. */
    @FunctionalInterface
    interface Op64 {
        long apply(Wave w, long a, long b);
    }

    /** A compare or bit test: returns SCC. */
    @FunctionalInterface
    interface Cmp {
        boolean test(long a, long b);
    }

    public static void register(SemanticsTable.Builder b) {
        registerSop2(b);
        registerSopc(b);
        registerSopk(b);
    }

    // ---------------------------------------------------------------- SOP2

    private static void registerSop2(SemanticsTable.Builder b) {
        // carries and borrows: SCC = carry out (add), borrow (sub), signed overflow (i32 forms)
        sop2(b, "s_add_u32", (w, x, y) -> {
            long r = u(x) + u(y);
            w.setScc(r >>> 32 != 0);
            return (int) r;
        });
        sop2(b, "s_sub_u32", (w, x, y) -> {
            w.setScc(u(y) > u(x));
            return x - y;
        });
        sop2(b, "s_add_i32", (w, x, y) -> {
            int r = x + y;
            w.setScc(((x ^ r) & (y ^ r)) < 0);
            return r;
        });
        sop2(b, "s_sub_i32", (w, x, y) -> {
            int r = x - y;
            w.setScc(((x ^ y) & (x ^ r)) < 0);
            return r;
        });
        sop2(b, "s_addc_u32", (w, x, y) -> {
            long r = u(x) + u(y) + (w.scc() ? 1 : 0);
            w.setScc(r >>> 32 != 0);
            return (int) r;
        });
        sop2(b, "s_subb_u32", (w, x, y) -> {
            long borrowIn = w.scc() ? 1 : 0;
            w.setScc(u(y) + borrowIn > u(x));
            return (int) (u(x) - u(y) - borrowIn);
        });
        // min/max: SCC = 1 when S0 is the one chosen (strict comparison)
        sop2(b, "s_min_i32", (w, x, y) -> {
            w.setScc(x < y);
            return x < y ? x : y;
        });
        sop2(b, "s_min_u32", (w, x, y) -> {
            boolean lt = Integer.compareUnsigned(x, y) < 0;
            w.setScc(lt);
            return lt ? x : y;
        });
        sop2(b, "s_max_i32", (w, x, y) -> {
            w.setScc(x > y);
            return x > y ? x : y;
        });
        sop2(b, "s_max_u32", (w, x, y) -> {
            boolean gt = Integer.compareUnsigned(x, y) > 0;
            w.setScc(gt);
            return gt ? x : y;
        });
        sop2(b, "s_cselect_b32", (w, x, y) -> w.scc() ? x : y);
        sop2x64(b, "s_cselect_b64", (w, x, y) -> w.scc() ? x : y);
        // bitwise logic: SCC = result != 0
        sop2(b, "s_and_b32", (w, x, y) -> nz(w, x & y));
        sop2x64(b, "s_and_b64", (w, x, y) -> nz(w, x & y));
        sop2(b, "s_or_b32", (w, x, y) -> nz(w, x | y));
        sop2x64(b, "s_or_b64", (w, x, y) -> nz(w, x | y));
        sop2(b, "s_xor_b32", (w, x, y) -> nz(w, x ^ y));
        sop2x64(b, "s_xor_b64", (w, x, y) -> nz(w, x ^ y));
        sop2(b, "s_andn2_b32", (w, x, y) -> nz(w, x & ~y));
        sop2x64(b, "s_andn2_b64", (w, x, y) -> nz(w, x & ~y));
        sop2(b, "s_orn2_b32", (w, x, y) -> nz(w, x | ~y));
        sop2x64(b, "s_orn2_b64", (w, x, y) -> nz(w, x | ~y));
        sop2(b, "s_nand_b32", (w, x, y) -> nz(w, ~(x & y)));
        sop2x64(b, "s_nand_b64", (w, x, y) -> nz(w, ~(x & y)));
        sop2(b, "s_nor_b32", (w, x, y) -> nz(w, ~(x | y)));
        sop2x64(b, "s_nor_b64", (w, x, y) -> nz(w, ~(x | y)));
        sop2(b, "s_xnor_b32", (w, x, y) -> nz(w, ~(x ^ y)));
        sop2x64(b, "s_xnor_b64", (w, x, y) -> nz(w, ~(x ^ y)));
        // shifts: the amount is S1[4:0] (32-bit) or S1[5:0] (64-bit); SCC = result != 0
        sop2(b, "s_lshl_b32", (w, x, y) -> nz(w, x << (y & 31)));
        sop2x32(b, "s_lshl_b64", (w, x, y) -> nz(w, x << (y & 63)));
        sop2(b, "s_lshr_b32", (w, x, y) -> nz(w, x >>> (y & 31)));
        sop2x32(b, "s_lshr_b64", (w, x, y) -> nz(w, x >>> (y & 63)));
        sop2(b, "s_ashr_i32", (w, x, y) -> nz(w, x >> (y & 31)));
        sop2x32(b, "s_ashr_i64", (w, x, y) -> nz(w, x >> (y & 63)));
        // bit-field mask: ((1 << S0[4:0]) - 1) << S1[4:0]; no SCC
        sop2(b, "s_bfm_b32", (w, x, y) -> ((1 << (x & 31)) - 1) << (y & 31));
        b.exact(Encoding.SOP2, "s_bfm_b64", (w, insn) -> {
            Fields.Sop2 s = (Fields.Sop2) insn.fields();
            int x = w.source32(s.ssrc0(), insn);
            int y = w.source32(s.ssrc1(), insn);
            w.setSgpr64(s.sdst(), ((1L << (x & 63)) - 1) << (y & 63));
        });
        sop2(b, "s_mul_i32", (w, x, y) -> x * y);
        sop2(b, "s_mul_hi_u32", (w, x, y) -> (int) ((u(x) * u(y)) >>> 32));
        sop2(b, "s_mul_hi_i32", (w, x, y) -> (int) (((long) x * y) >> 32));
        // bit-field extract: offset S1[4:0] (S1[5:0] for 64-bit), width S1[22:16]; SCC = result != 0
        sop2(b, "s_bfe_u32", (w, x, y) -> nz(w, (int) bfe(u(x), y & 31, y >>> 16 & 0x7F, false, 32)));
        sop2(b, "s_bfe_i32", (w, x, y) -> nz(w, (int) bfe(x, y & 31, y >>> 16 & 0x7F, true, 32)));
        sop2x32(b, "s_bfe_u64", (w, x, y) -> nz(w, bfe(x, (int) y & 63, (int) y >>> 16 & 0x7F, false, 64)));
        sop2x32(b, "s_bfe_i64", (w, x, y) -> nz(w, bfe(x, (int) y & 63, (int) y >>> 16 & 0x7F, true, 64)));
        sop2(b, "s_absdiff_i32", (w, x, y) -> {
            int d = x - y;
            return nz(w, d < 0 ? -d : d);
        });
        // (S0 << n) + S1 with SCC = carry out of the 32-bit result, shifted-out bits included
        for (int n = 1; n <= 4; n++) {
            int shift = n;
            sop2(b, "s_lshl" + n + "_add_u32", (w, x, y) -> {
                long t = (u(x) << shift) + u(y);
                w.setScc(t >>> 32 != 0);
                return (int) t;
            });
        }
        sop2(b, "s_pack_ll_b32_b16", (w, x, y) -> (x & 0xFFFF) | y << 16);
        sop2(b, "s_pack_lh_b32_b16", (w, x, y) -> (x & 0xFFFF) | (y & 0xFFFF0000));
        sop2(b, "s_pack_hh_b32_b16", (w, x, y) -> x >>> 16 | (y & 0xFFFF0000));
    }

    /**
     * Bit-field extract of {@code width} bits from {@code offset} of a {@code size}-bit value, zero- or
     * sign-extended. Width 0 gives 0. A field reaching past the top bit (offset + width >= size, which
     * includes every width >= size) is the value shifted right by the offset, logically or
     * arithmetically: the bits above the value are its zero or sign extension.
     */
    static long bfe(long value, int offset, int width, boolean signed, int size) {
        if (width == 0) {
            return 0;
        }
        if (size == 32) {
            value = signed ? (long) (int) value : value & 0xFFFF_FFFFL;
        }
        if (offset + width >= size) {
            return signed ? value >> offset : value >>> offset;
        }
        long field = value >>> offset & ((1L << width) - 1);
        if (signed && (field >>> (width - 1) & 1) != 0) {
            field |= -1L << width;
        }
        return field;
    }

    // ---------------------------------------------------------------- SOPC

    private static void registerSopc(SemanticsTable.Builder b) {
        sopc(b, "s_cmp_eq_i32", (x, y) -> (int) x == (int) y);
        sopc(b, "s_cmp_lg_i32", (x, y) -> (int) x != (int) y);
        sopc(b, "s_cmp_gt_i32", (x, y) -> (int) x > (int) y);
        sopc(b, "s_cmp_ge_i32", (x, y) -> (int) x >= (int) y);
        sopc(b, "s_cmp_lt_i32", (x, y) -> (int) x < (int) y);
        sopc(b, "s_cmp_le_i32", (x, y) -> (int) x <= (int) y);
        sopc(b, "s_cmp_eq_u32", (x, y) -> (int) x == (int) y);
        sopc(b, "s_cmp_lg_u32", (x, y) -> (int) x != (int) y);
        sopc(b, "s_cmp_gt_u32", (x, y) -> Integer.compareUnsigned((int) x, (int) y) > 0);
        sopc(b, "s_cmp_ge_u32", (x, y) -> Integer.compareUnsigned((int) x, (int) y) >= 0);
        sopc(b, "s_cmp_lt_u32", (x, y) -> Integer.compareUnsigned((int) x, (int) y) < 0);
        sopc(b, "s_cmp_le_u32", (x, y) -> Integer.compareUnsigned((int) x, (int) y) <= 0);
        // bit tests: SCC = S0[S1[4:0]] == 0 / == 1 (S1[5:0] for the 64-bit forms)
        sopc(b, "s_bitcmp0_b32", (x, y) -> (x >>> (y & 31) & 1) == 0);
        sopc(b, "s_bitcmp1_b32", (x, y) -> (x >>> (y & 31) & 1) == 1);
        sopc64(b, "s_bitcmp0_b64", false, (x, y) -> (x >>> (y & 63) & 1) == 0);
        sopc64(b, "s_bitcmp1_b64", false, (x, y) -> (x >>> (y & 63) & 1) == 1);
        sopc64(b, "s_cmp_eq_u64", true, (x, y) -> x == y);
        sopc64(b, "s_cmp_lg_u64", true, (x, y) -> x != y);
    }

    // ---------------------------------------------------------------- SOPK

    private static void registerSopk(SemanticsTable.Builder b) {
        b.exact(Encoding.SOPK, "s_movk_i32", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            w.setSgpr(k.sdst(), (short) k.simm16());
        });
        b.exact(Encoding.SOPK, "s_cmovk_i32", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            if (w.scc()) {
                w.setSgpr(k.sdst(), (short) k.simm16());
            }
        });
        // signed compares take SIMM16 sign-extended, unsigned ones zero-extended
        sopk(b, "s_cmpk_eq_i32", true, (x, y) -> x == y);
        sopk(b, "s_cmpk_lg_i32", true, (x, y) -> x != y);
        sopk(b, "s_cmpk_gt_i32", true, (x, y) -> x > y);
        sopk(b, "s_cmpk_ge_i32", true, (x, y) -> x >= y);
        sopk(b, "s_cmpk_lt_i32", true, (x, y) -> x < y);
        sopk(b, "s_cmpk_le_i32", true, (x, y) -> x <= y);
        sopk(b, "s_cmpk_eq_u32", false, (x, y) -> x == y);
        sopk(b, "s_cmpk_lg_u32", false, (x, y) -> x != y);
        sopk(b, "s_cmpk_gt_u32", false, (x, y) -> x > y);
        sopk(b, "s_cmpk_ge_u32", false, (x, y) -> x >= y);
        sopk(b, "s_cmpk_lt_u32", false, (x, y) -> x < y);
        sopk(b, "s_cmpk_le_u32", false, (x, y) -> x <= y);
        b.exact(Encoding.SOPK, "s_addk_i32", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            int x = w.sgpr(k.sdst());
            int y = (short) k.simm16();
            int r = x + y;
            w.setScc(((x ^ r) & (y ^ r)) < 0);
            w.setSgpr(k.sdst(), r);
        });
        b.exact(Encoding.SOPK, "s_mulk_i32", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            w.setSgpr(k.sdst(), w.sgpr(k.sdst()) * (short) k.simm16());
        });
    }

    // ---------------------------------------------------------------- registration helpers

    static long u(int x) {
        return Integer.toUnsignedLong(x);
    }

    /** Sets SCC to (d != 0) and returns d. */
    static int nz(Wave w, int d) {
        w.setScc(d != 0);
        return d;
    }

    static long nz(Wave w, long d) {
        w.setScc(d != 0);
        return d;
    }

    private static void sop2(SemanticsTable.Builder b, String mnemonic, Op32 op) {
        b.exact(Encoding.SOP2, mnemonic, (w, insn) -> {
            Fields.Sop2 s = (Fields.Sop2) insn.fields();
            int x = w.source32(s.ssrc0(), insn);
            int y = w.source32(s.ssrc1(), insn);
            w.setSgpr(s.sdst(), op.apply(w, x, y));
        });
    }

    /** 64-bit destination and sources. */
    private static void sop2x64(SemanticsTable.Builder b, String mnemonic, Op64 op) {
        b.exact(Encoding.SOP2, mnemonic, (w, insn) -> {
            Fields.Sop2 s = (Fields.Sop2) insn.fields();
            long x = w.source64(s.ssrc0(), insn, false);
            long y = w.source64(s.ssrc1(), insn, false);
            w.setSgpr64(s.sdst(), op.apply(w, x, y));
        });
    }

    /** 64-bit destination and first source, 32-bit second source (shift amounts, bit-field specs). */
    private static void sop2x32(SemanticsTable.Builder b, String mnemonic, Op64 op) {
        b.exact(Encoding.SOP2, mnemonic, (w, insn) -> {
            Fields.Sop2 s = (Fields.Sop2) insn.fields();
            long x = w.source64(s.ssrc0(), insn, false);
            long y = u(w.source32(s.ssrc1(), insn));
            w.setSgpr64(s.sdst(), op.apply(w, x, y));
        });
    }

    private static void sopc(SemanticsTable.Builder b, String mnemonic, Cmp cmp) {
        b.exact(Encoding.SOPC, mnemonic, (w, insn) -> {
            Fields.Sopc s = (Fields.Sopc) insn.fields();
            w.setScc(cmp.test(u(w.source32(s.ssrc0(), insn)), u(w.source32(s.ssrc1(), insn))));
        });
    }

    private static void sopc64(SemanticsTable.Builder b, String mnemonic, boolean wideS1, Cmp cmp) {
        b.exact(Encoding.SOPC, mnemonic, (w, insn) -> {
            Fields.Sopc s = (Fields.Sopc) insn.fields();
            long x = w.source64(s.ssrc0(), insn, false);
            long y = wideS1 ? w.source64(s.ssrc1(), insn, false) : u(w.source32(s.ssrc1(), insn));
            w.setScc(cmp.test(x, y));
        });
    }

    /** SCC = compare(SGPR[SDST], SIMM16), the register and immediate as signed or unsigned 32-bit values. */
    private static void sopk(SemanticsTable.Builder b, String mnemonic, boolean signed, Cmp cmp) {
        b.exact(Encoding.SOPK, mnemonic, (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            int reg = w.sgpr(k.sdst());
            long x = signed ? reg : u(reg);
            long y = signed ? (short) k.simm16() : k.simm16() & 0xFFFF;
            w.setScc(cmp.test(x, y));
        });
    }

    /** The Sop1 fields of an instruction (shared with the unary unit and branches). */
    static Fields.Sop1 sop1(Instruction insn) {
        return (Fields.Sop1) insn.fields();
    }
}
