package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.evalnode.hostmodel.valu.ValuLanes.u;

import org.replayfarm.evalnode.hostmodel.LaneKernel;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Instruction;

/**
 * 32- and 64-bit integer and bitwise vector ALU instructions (VOP1, VOP2 and their VOP3 forms, and the
 * VOP3-only ones): adds with and without carries, multiplies, shifts (amounts masked to the operand
 * width), bit counts and scans, bit-field extract/insert/mask, byte permute and align. Semantics per
 * the RDNA 2 ISA guide, chapter 12 (VOP1, VOP2, VOP3 opcode descriptions). CLAMP on an integer
 * add/sub/multiply-add saturates the result to the destination's range.
 */
public final class ValuIntegerUnit {
    private ValuIntegerUnit() {
    }

    public interface Op2 {
        int apply(int a, int b);
    }

    public interface Op3 {
        int apply(int a, int b, int c);
    }

    public static void register(SemanticsTable.Builder b) {
        binary(b, "v_and_b32", (x, y) -> x & y);
        binary(b, "v_or_b32", (x, y) -> x | y);
        binary(b, "v_xor_b32", (x, y) -> x ^ y);
        binary(b, "v_xnor_b32", (x, y) -> ~(x ^ y));
        binary(b, "v_lshlrev_b32", (s, x) -> x << (s & 31));
        binary(b, "v_lshrrev_b32", (s, x) -> x >>> (s & 31));
        binary(b, "v_ashrrev_i32", (s, x) -> x >> (s & 31));
        binary(b, "v_min_i32", Math::min);
        binary(b, "v_max_i32", Math::max);
        binary(b, "v_min_u32", (x, y) -> Integer.compareUnsigned(x, y) <= 0 ? x : y);
        binary(b, "v_max_u32", (x, y) -> Integer.compareUnsigned(x, y) >= 0 ? x : y);
        binary(b, "v_mul_hi_i32_i24", (x, y) -> (int) ((long) i24(x) * i24(y) >> 32));
        binary(b, "v_mul_hi_u32_u24", (x, y) -> (int) ((long) u24(x) * u24(y) >>> 32));
        binary(b, "v_mul_lo_u32", (x, y) -> x * y);
        binary(b, "v_mul_hi_u32", (x, y) -> (int) (u(x) * u(y) >>> 32));
        binary(b, "v_mul_hi_i32", (x, y) -> (int) ((long) x * y >> 32));
        binary(b, "v_bfm_b32", (w, o) -> ((1 << (w & 31)) - 1) << (o & 31));
        binary(b, "v_bcnt_u32_b32", (x, y) -> Integer.bitCount(x) + y);
        binary(b, "v_cvt_pk_u16_u32", (x, y) -> ValuLanes.saturateU16(u(x)) | ValuLanes.saturateU16(u(y)) << 16);
        binary(b, "v_cvt_pk_i16_i32", (x, y) -> ValuLanes.saturateI16(x) | ValuLanes.saturateI16(y) << 16);

        // multiplies and adds whose CLAMP saturates
        Valu.register(b, "v_mul_i32_i24", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                signed(insn, (long) i24(s(w, insn, 0, lane)) * i24(s(w, insn, 1, lane)))));
        Valu.register(b, "v_mul_u32_u24", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                unsigned(insn, (long) u24(s(w, insn, 0, lane)) * u24(s(w, insn, 1, lane)))));
        Valu.register(b, "v_mad_i32_i24", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                signed(insn, (long) i24(s(w, insn, 0, lane)) * i24(s(w, insn, 1, lane)) + s(w, insn, 2, lane))));
        Valu.register(b, "v_mad_u32_u24", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                unsigned(insn, (long) u24(s(w, insn, 0, lane)) * u24(s(w, insn, 1, lane)) + u(s(w, insn, 2, lane)))));
        // without CLAMP these three are plain 32-bit wrap-around arithmetic (the fast tier's kernels)
        b.laneKernel("v_add_nc_u32", new LaneKernel.Int2((x, y) -> x + y, true));
        b.laneKernel("v_sub_nc_u32", new LaneKernel.Int2((x, y) -> x - y, true));
        b.laneKernel("v_subrev_nc_u32", new LaneKernel.Int2((x, y) -> y - x, true));
        Valu.register(b, "v_add_nc_u32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                unsigned(insn, u(s(w, insn, 0, lane)) + u(s(w, insn, 1, lane)))));
        Valu.register(b, "v_sub_nc_u32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                unsigned(insn, u(s(w, insn, 0, lane)) - u(s(w, insn, 1, lane)))));
        Valu.register(b, "v_subrev_nc_u32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                unsigned(insn, u(s(w, insn, 1, lane)) - u(s(w, insn, 0, lane)))));
        Valu.register(b, "v_add_nc_i32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                signed(insn, (long) s(w, insn, 0, lane) + s(w, insn, 1, lane))));
        Valu.register(b, "v_sub_nc_i32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                signed(insn, (long) s(w, insn, 0, lane) - s(w, insn, 1, lane))));

        // carries and borrows: VCC (VOP2) or an SGPR lane mask (VOP3b) in and out
        carry(b, "v_add_co_u32", false, false, false);
        carry(b, "v_sub_co_u32", true, false, false);
        carry(b, "v_subrev_co_u32", true, true, false);
        carry(b, "v_add_co_ci_u32", false, false, true);
        carry(b, "v_sub_co_ci_u32", true, false, true);
        carry(b, "v_subrev_co_ci_u32", true, true, true);
        b.laneKernel("v_mad_u64_u32", new LaneKernel.MadU64());
        Valu.register(b, "v_mad_u64_u32", Fidelity.EXACT, ValuIntegerUnit::madU64);
        Valu.register(b, "v_mad_i64_i32", Fidelity.EXACT, ValuIntegerUnit::madI64);

        // one source
        unary(b, "v_not_b32", x -> ~x);
        unary(b, "v_bfrev_b32", Integer::reverse);
        unary(b, "v_ffbh_u32", x -> x == 0 ? -1 : Integer.numberOfLeadingZeros(x));
        unary(b, "v_ffbl_b32", x -> x == 0 ? -1 : Integer.numberOfTrailingZeros(x));
        unary(b, "v_ffbh_i32", x -> x == 0 || x == -1 ? -1 : Integer.numberOfLeadingZeros(x ^ (x >> 31)));
        Valu.register(b, "v_sat_pk_u8_i16", Fidelity.EXACT, (w, insn) -> ValuLanes.map16(w, insn, lane -> {
            int x = s(w, insn, 0, lane);
            return satU8((short) x) | satU8((short) (x >>> 16)) << 8;
        }));

        // three sources
        ternary(b, "v_bfe_u32", (x, o, n) -> (n & 31) == 0 ? 0 : (int) (u(x) >>> (o & 31) & ((1L << (n & 31)) - 1)));
        ternary(b, "v_bfe_i32", (x, o, n) -> {
            int width = n & 31;
            if (width == 0) {
                return 0;
            }
            int field = x >> (o & 31); // S0.i shifted arithmetically, then the field sign-extended
            return field << (32 - width) >> (32 - width);
        });
        ternary(b, "v_bfi_b32", (m, x, y) -> (m & x) | (~m & y));
        ternary(b, "v_alignbit_b32", (hi, lo, n) -> (int) ((u(hi) << 32 | u(lo)) >>> (n & 31)));
        ternary(b, "v_alignbyte_b32", (hi, lo, n) -> (int) ((u(hi) << 32 | u(lo)) >>> (8 * (n & 3))));
        ternary(b, "v_perm_b32", ValuIntegerUnit::perm);
        ternary(b, "v_lerp_u8", ValuIntegerUnit::lerp);
        ternary(b, "v_xor3_b32", (x, y, z) -> x ^ y ^ z);
        ternary(b, "v_or3_b32", (x, y, z) -> x | y | z);
        ternary(b, "v_and_or_b32", (x, y, z) -> (x & y) | z);
        ternary(b, "v_lshl_or_b32", (x, sh, z) -> (x << (sh & 31)) | z);
        ternary(b, "v_lshl_add_u32", (x, sh, z) -> (x << (sh & 31)) + z);
        ternary(b, "v_add_lshl_u32", (x, y, sh) -> (x + y) << (sh & 31));
        ternary(b, "v_add3_u32", (x, y, z) -> x + y + z);
        ternary(b, "v_xad_u32", (x, y, z) -> (x ^ y) + z);
        ternary(b, "v_min3_i32", (x, y, z) -> Math.min(x, Math.min(y, z)));
        ternary(b, "v_max3_i32", (x, y, z) -> Math.max(x, Math.max(y, z)));
        ternary(b, "v_med3_i32", (x, y, z) -> Math.max(Math.min(x, y), Math.min(Math.max(x, y), z)));
        ternary(b, "v_min3_u32", (x, y, z) -> minU(x, minU(y, z)));
        ternary(b, "v_max3_u32", (x, y, z) -> maxU(x, maxU(y, z)));
        ternary(b, "v_med3_u32", (x, y, z) -> maxU(minU(x, y), minU(maxU(x, y), z)));

        // 64-bit shifts: the amount is src0[5:0]
        Valu.register(b, "v_lshlrev_b64", Fidelity.EXACT, (w, insn) -> ValuLanes.map64(w, insn, lane ->
                Valu.source64(w, insn, 1, lane, false) << (s(w, insn, 0, lane) & 63)));
        Valu.register(b, "v_lshrrev_b64", Fidelity.EXACT, (w, insn) -> ValuLanes.map64(w, insn, lane ->
                Valu.source64(w, insn, 1, lane, false) >>> (s(w, insn, 0, lane) & 63)));
        Valu.register(b, "v_ashrrev_i64", Fidelity.EXACT, (w, insn) -> ValuLanes.map64(w, insn, lane ->
                Valu.source64(w, insn, 1, lane, false) >> (s(w, insn, 0, lane) & 63)));

        // lane masks
        Valu.register(b, "v_mbcnt_lo_u32_b32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                Integer.bitCount(s(w, insn, 0, lane) & (int) ((1L << lane) - 1)) + s(w, insn, 1, lane)));
        Valu.register(b, "v_mbcnt_hi_u32_b32", Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                Integer.bitCount(s(w, insn, 0, lane) & (int) (((1L << lane) - 1) >>> 32)) + s(w, insn, 1, lane)));

    }

    /** Source {@code n}'s 32 bits for a lane. */
    static int s(Wave w, Instruction insn, int n, int lane) {
        return Valu.source32(w, insn, n, lane);
    }

    private static void unary(SemanticsTable.Builder b, String mnemonic, java.util.function.IntUnaryOperator op) {
        b.laneKernel(mnemonic, new LaneKernel.Int1(op));
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                op.applyAsInt(s(w, insn, 0, lane))));
    }

    private static void binary(SemanticsTable.Builder b, String mnemonic, Op2 op) {
        b.laneKernel(mnemonic, new LaneKernel.Int2(op, false));
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                op.apply(s(w, insn, 0, lane), s(w, insn, 1, lane))));
    }

    private static void ternary(SemanticsTable.Builder b, String mnemonic, Op3 op) {
        b.laneKernel(mnemonic, new LaneKernel.Int3(op));
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> ValuLanes.map32(w, insn, lane ->
                op.apply(s(w, insn, 0, lane), s(w, insn, 1, lane), s(w, insn, 2, lane))));
    }

    /** The exact result's low 32 bits, or (CLAMP) the result saturated to the unsigned 32-bit range. */
    private static int unsigned(Instruction insn, long exact) {
        return ValuLanes.clamp(insn) ? ValuLanes.saturateU32(exact) : (int) exact;
    }

    private static int signed(Instruction insn, long exact) {
        return ValuLanes.clamp(insn) ? ValuLanes.saturateI32(exact) : (int) exact;
    }

    static int i24(int x) {
        return x << 8 >> 8;
    }

    static int u24(int x) {
        return x & 0xFFFFFF;
    }

    private static int minU(int x, int y) {
        return Integer.compareUnsigned(x, y) <= 0 ? x : y;
    }

    private static int maxU(int x, int y) {
        return Integer.compareUnsigned(x, y) >= 0 ? x : y;
    }

    private static int satU8(int x) {
        return x < 0 ? 0 : Math.min(x, 255);
    }

    /**
     * v_add/sub/subrev_co[_ci]_u32: the 32-bit result and the carry (add) or borrow (sub) of each active
     * lane; the carry-out mask gets 0 for inactive lanes. With CLAMP the result saturates (to all ones on
     * carry, to 0 on borrow).
     */
    private static void carry(SemanticsTable.Builder b, String mnemonic, boolean subtract, boolean reverse,
                              boolean carryIn) {
        b.laneKernel(mnemonic, new LaneKernel.Carry(subtract, reverse, carryIn));
        Valu.register(b, mnemonic, Fidelity.EXACT, (w, insn) -> {
            boolean[] on = ValuLanes.activeLanes(w, insn);
            int[] out = new int[on.length];
            long mask = 0;
            for (int lane = 0; lane < on.length; lane++) {
                if (!on[lane]) {
                    continue;
                }
                long x = u(s(w, insn, reverse ? 1 : 0, lane));
                long y = u(s(w, insn, reverse ? 0 : 1, lane));
                long c = carryIn && ValuLanes.carryIn(w, insn, lane) ? 1 : 0;
                long exact = subtract ? x - y - c : x + y + c;
                boolean flag = subtract ? exact < 0 : exact > 0xFFFF_FFFFL;
                if (flag) {
                    mask |= 1L << lane;
                }
                out[lane] = unsigned(insn, exact);
            }
            for (int lane = 0; lane < on.length; lane++) {
                if (on[lane]) {
                    Valu.writeResult32(w, insn, lane, out[lane]);
                }
            }
            w.setLaneMask(ValuLanes.carryOutCode(insn), mask);
        });
    }

    /** v_mad_u64_u32: {carry, D} = S0.u32 * S1.u32 + S2.u64; carry = bit 64 of the exact sum. */
    private static void madU64(Wave w, Instruction insn) {
        boolean[] on = ValuLanes.activeLanes(w, insn);
        long[] out = new long[on.length];
        long mask = 0;
        for (int lane = 0; lane < on.length; lane++) {
            if (!on[lane]) {
                continue;
            }
            long product = u(s(w, insn, 0, lane)) * u(s(w, insn, 1, lane));
            long addend = Valu.source64(w, insn, 2, lane, false);
            long sum = product + addend;
            boolean carry = Long.compareUnsigned(sum, product) < 0;
            if (carry) {
                mask |= 1L << lane;
            }
            out[lane] = carry && ValuLanes.clamp(insn) ? -1L : sum;
        }
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                Valu.writeResult64(w, insn, lane, out[lane]);
            }
        }
        w.setLaneMask(ValuLanes.carryOutCode(insn), mask);
    }

    /**
     * v_mad_i64_i32: D = S0.i32 * S1.i32 + S2.i64; the scalar destination gets each lane's signed
     * overflow (the exact sum does not fit in 64 bits). With CLAMP the result saturates.
     */
    private static void madI64(Wave w, Instruction insn) {
        boolean[] on = ValuLanes.activeLanes(w, insn);
        long[] out = new long[on.length];
        long mask = 0;
        for (int lane = 0; lane < on.length; lane++) {
            if (!on[lane]) {
                continue;
            }
            long product = (long) s(w, insn, 0, lane) * s(w, insn, 1, lane);
            long addend = Valu.source64(w, insn, 2, lane, false);
            long sum = product + addend;
            boolean overflow = ((product ^ sum) & (addend ^ sum)) < 0;
            if (overflow) {
                mask |= 1L << lane;
            }
            out[lane] = overflow && ValuLanes.clamp(insn) ? (addend < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
        }
        for (int lane = 0; lane < on.length; lane++) {
            if (on[lane]) {
                Valu.writeResult64(w, insn, lane, out[lane]);
            }
        }
        w.setLaneMask(ValuLanes.carryOutCode(insn), mask);
    }

    /**
     * v_perm_b32: each result byte picks by the matching byte of S2 from the eight bytes {S0, S1} (S1 is
     * bytes 0-3, S0 bytes 4-7): selector 0-7 a byte; 8, 9, 10, 11 the sign of bytes 1, 3, 5, 7 spread
     * over the byte (0x00 or 0xFF); 12 the constant 0x00; 13-255 the constant 0xFF.
     */
    static int perm(int s0, int s1, int sel) {
        long pool = u(s0) << 32 | u(s1);
        int result = 0;
        for (int i = 0; i < 4; i++) {
            int k = sel >>> (8 * i) & 0xFF;
            int v;
            if (k <= 7) {
                v = (int) (pool >>> (8 * k) & 0xFF);
            } else if (k <= 11) {
                v = (pool >>> (16 * (k - 8) + 15) & 1) != 0 ? 0xFF : 0;
            } else if (k == 12) {
                v = 0;
            } else {
                v = 0xFF;
            }
            result |= v << (8 * i);
        }
        return result;
    }

    /** v_lerp_u8: per byte, (S0 + S1 + the low bit of S2's byte) >> 1 (an unsigned rounding average). */
    private static int lerp(int a, int b, int c) {
        int result = 0;
        for (int i = 0; i < 32; i += 8) {
            int v = ((a >>> i & 0xFF) + (b >>> i & 0xFF) + (c >>> i & 1)) >>> 1;
            result |= v << i;
        }
        return result;
    }
}
