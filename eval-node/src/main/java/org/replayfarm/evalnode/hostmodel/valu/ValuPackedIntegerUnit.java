package org.replayfarm.evalnode.hostmodel.valu;

import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.isa.Instruction;

/**
 * 16-bit integer instructions of VOP3 (v_add_nc_u16, v_mad_u16, v_min3_i16, ... with OPSEL picking the
 * source halves and OPSEL[3] the destination half), the packed integer VOP3P instructions (each result
 * half computed from the source halves OPSEL (low) and OPSEL_HI (high) select; NEG_LO/NEG_HI do not
 * apply to integer operands) and the integer dot products (v_dot2/4/8, v_dot4c). 16-bit shift amounts
 * are masked to 4 bits. CLAMP saturates adds, subtracts, multiply-adds and dot products to the result's
 * range. RDNA 2 ISA guide, VOP3 and VOP3P opcodes.
 */
public final class ValuPackedIntegerUnit {
    private ValuPackedIntegerUnit() {
    }

    /** A 16-bit operation on two halves (zero-extended), with the instruction's CLAMP. */
    private interface Half2 {
        int apply(int a, int b, boolean clamp);
    }

    private interface Half3 {
        int apply(int a, int b, int c, boolean clamp);
    }

    public static void register(SemanticsTable.Builder b) {
        Half2 addU = (x, y, c) -> c ? ValuLanes.saturateU16(x + y) : x + y;
        Half2 subU = (x, y, c) -> c ? ValuLanes.saturateU16(x - y) : x - y;
        Half2 addI = (x, y, c) -> c ? ValuLanes.saturateI16((short) x + (short) y) : x + y;
        Half2 subI = (x, y, c) -> c ? ValuLanes.saturateI16((short) x - (short) y) : x - y;
        Half2 mulLo = (x, y, c) -> x * y;
        Half2 shl = (sh, x, c) -> x << (sh & 15);
        Half2 shr = (sh, x, c) -> x >>> (sh & 15);
        Half2 sar = (sh, x, c) -> (short) x >> (sh & 15);
        Half2 maxU = (x, y, c) -> Math.max(x, y);
        Half2 minU = (x, y, c) -> Math.min(x, y);
        Half2 maxI = (x, y, c) -> Math.max((short) x, (short) y);
        Half2 minI = (x, y, c) -> Math.min((short) x, (short) y);
        Half3 madU = (x, y, z, c) -> c ? ValuLanes.saturateU16((long) x * y + z) : x * y + z;
        Half3 madI = (x, y, z, c) -> c ? ValuLanes.saturateI16((long) (short) x * (short) y + (short) z)
                : x * y + z;

        scalar2(b, "v_add_nc_u16", addU);
        scalar2(b, "v_sub_nc_u16", subU);
        scalar2(b, "v_add_nc_i16", addI);
        scalar2(b, "v_sub_nc_i16", subI);
        scalar2(b, "v_mul_lo_u16", mulLo);
        scalar2(b, "v_lshlrev_b16", shl);
        scalar2(b, "v_lshrrev_b16", shr);
        scalar2(b, "v_ashrrev_i16", sar);
        scalar2(b, "v_max_u16", maxU);
        scalar2(b, "v_min_u16", minU);
        scalar2(b, "v_max_i16", maxI);
        scalar2(b, "v_min_i16", minI);
        scalar3(b, "v_mad_u16", madU);
        scalar3(b, "v_mad_i16", madI);
        scalar3(b, "v_min3_u16", (x, y, z, c) -> Math.min(x, Math.min(y, z)));
        scalar3(b, "v_max3_u16", (x, y, z, c) -> Math.max(x, Math.max(y, z)));
        scalar3(b, "v_med3_u16", (x, y, z, c) -> Math.max(Math.min(x, y), Math.min(Math.max(x, y), z)));
        scalar3(b, "v_min3_i16", (x, y, z, c) -> Math.min((short) x, Math.min((short) y, (short) z)));
        scalar3(b, "v_max3_i16", (x, y, z, c) -> Math.max((short) x, Math.max((short) y, (short) z)));
        scalar3(b, "v_med3_i16", (x, y, z, c) -> Math.max(Math.min((short) x, (short) y),
                Math.min(Math.max((short) x, (short) y), (short) z)));
        Valu.register(b, "v_mad_u32_u16", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane -> {
            long exact = (long) Valu.source16(w, insn, 0, lane) * Valu.source16(w, insn, 1, lane)
                    + ValuLanes.u(Valu.source32(w, insn, 2, lane));
            return ValuLanes.clamp(insn) ? ValuLanes.saturateU32(exact) : (int) exact;
        }));
        Valu.register(b, "v_mad_i32_i16", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane -> {
            long exact = (long) (short) Valu.source16(w, insn, 0, lane) * (short) Valu.source16(w, insn, 1, lane)
                    + Valu.source32(w, insn, 2, lane);
            return ValuLanes.clamp(insn) ? ValuLanes.saturateI32(exact) : (int) exact;
        }));

        packed2(b, "v_pk_add_u16", addU);
        packed2(b, "v_pk_sub_u16", subU);
        packed2(b, "v_pk_add_i16", addI);
        packed2(b, "v_pk_sub_i16", subI);
        packed2(b, "v_pk_mul_lo_u16", mulLo);
        packed2(b, "v_pk_lshlrev_b16", shl);
        packed2(b, "v_pk_lshrrev_b16", shr);
        packed2(b, "v_pk_ashrrev_i16", sar);
        packed2(b, "v_pk_max_u16", maxU);
        packed2(b, "v_pk_min_u16", minU);
        packed2(b, "v_pk_max_i16", maxI);
        packed2(b, "v_pk_min_i16", minI);
        packed3(b, "v_pk_mad_u16", madU);
        packed3(b, "v_pk_mad_i16", madI);

        Valu.register(b, "v_dot2_i32_i16", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane -> {
            int x = ValuLanes.packedSource(w, insn, 0, lane);
            int y = ValuLanes.packedSource(w, insn, 1, lane);
            long sum = (long) (short) ValuLanes.packedHalf(insn, 0, x, false)
                    * (short) ValuLanes.packedHalf(insn, 1, y, false)
                    + (long) (short) ValuLanes.packedHalf(insn, 0, x, true)
                    * (short) ValuLanes.packedHalf(insn, 1, y, true)
                    + Valu.source32(w, insn, 2, lane);
            return dotResult(insn, sum, true);
        }));
        Valu.register(b, "v_dot2_u32_u16", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane -> {
            int x = ValuLanes.packedSource(w, insn, 0, lane);
            int y = ValuLanes.packedSource(w, insn, 1, lane);
            long sum = (long) ValuLanes.packedHalf(insn, 0, x, false) * ValuLanes.packedHalf(insn, 1, y, false)
                    + (long) ValuLanes.packedHalf(insn, 0, x, true) * ValuLanes.packedHalf(insn, 1, y, true)
                    + ValuLanes.u(Valu.source32(w, insn, 2, lane));
            return dotResult(insn, sum, false);
        }));
        dot(b, "v_dot4_i32_i8", 8, true);
        dot(b, "v_dot4_u32_u8", 8, false);
        dot(b, "v_dot8_i32_i4", 4, true);
        dot(b, "v_dot8_u32_u4", 4, false);
        // VOP2 v_dot4c_i32_i8: D = D + dot4(S0, S1), signed bytes; the accumulator is the destination
        Valu.register(b, "v_dot4c_i32_i8", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                (int) (dot(Valu.source32(w, insn, 0, lane), Valu.source32(w, insn, 1, lane), 8, true)
                        + w.vgpr(Valu.vdst(insn), lane))));
    }

    private static void scalar2(SemanticsTable.Builder b, String mnemonic, Half2 op) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map16(w, insn, lane ->
                op.apply(Valu.source16(w, insn, 0, lane), Valu.source16(w, insn, 1, lane), ValuLanes.clamp(insn))));
    }

    private static void scalar3(SemanticsTable.Builder b, String mnemonic, Half3 op) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map16(w, insn, lane ->
                op.apply(Valu.source16(w, insn, 0, lane), Valu.source16(w, insn, 1, lane),
                        Valu.source16(w, insn, 2, lane), ValuLanes.clamp(insn))));
    }

    private static void packed2(SemanticsTable.Builder b, String mnemonic, Half2 op) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane -> {
            int x = ValuLanes.packedSource(w, insn, 0, lane);
            int y = ValuLanes.packedSource(w, insn, 1, lane);
            boolean c = ValuLanes.clamp(insn);
            int lo = op.apply(ValuLanes.packedHalf(insn, 0, x, false), ValuLanes.packedHalf(insn, 1, y, false), c);
            int hi = op.apply(ValuLanes.packedHalf(insn, 0, x, true), ValuLanes.packedHalf(insn, 1, y, true), c);
            return (lo & 0xFFFF) | hi << 16;
        }));
    }

    private static void packed3(SemanticsTable.Builder b, String mnemonic, Half3 op) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane -> {
            int x = ValuLanes.packedSource(w, insn, 0, lane);
            int y = ValuLanes.packedSource(w, insn, 1, lane);
            int z = ValuLanes.packedSource(w, insn, 2, lane);
            boolean c = ValuLanes.clamp(insn);
            int lo = op.apply(ValuLanes.packedHalf(insn, 0, x, false), ValuLanes.packedHalf(insn, 1, y, false),
                    ValuLanes.packedHalf(insn, 2, z, false), c);
            int hi = op.apply(ValuLanes.packedHalf(insn, 0, x, true), ValuLanes.packedHalf(insn, 1, y, true),
                    ValuLanes.packedHalf(insn, 2, z, true), c);
            return (lo & 0xFFFF) | hi << 16;
        }));
    }

    /** Σ over the {@code width}-bit fields of two dwords of their products, signed or unsigned. */
    static long dot(int a, int b, int width, boolean signed) {
        long sum = 0;
        for (int i = 0; i < 32; i += width) {
            int x = a << (32 - width - i);
            int y = b << (32 - width - i);
            x = signed ? x >> (32 - width) : x >>> (32 - width);
            y = signed ? y >> (32 - width) : y >>> (32 - width);
            sum += (long) x * y;
        }
        return sum;
    }

    private static void dot(SemanticsTable.Builder b, String mnemonic, int width, boolean signed) {
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane -> {
            int c = Valu.source32(w, insn, 2, lane);
            long sum = dot(Valu.source32(w, insn, 0, lane), Valu.source32(w, insn, 1, lane), width, signed)
                    + (signed ? c : ValuLanes.u(c));
            return dotResult(insn, sum, signed);
        }));
    }

    private static int dotResult(Instruction insn, long exact, boolean signed) {
        if (!ValuLanes.clamp(insn)) {
            return (int) exact;
        }
        return signed ? ValuLanes.saturateI32(exact) : ValuLanes.saturateU32(exact);
    }
}
