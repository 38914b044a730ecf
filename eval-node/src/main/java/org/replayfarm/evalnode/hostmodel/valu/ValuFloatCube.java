package org.replayfarm.evalnode.hostmodel.valu;

import static org.replayfarm.model.fp.Format.F16;
import static org.replayfarm.model.fp.Format.F32;

import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;

/**
 * Cube-map coordinate helpers (v_cubeid/sc/tc/ma_f32, ISA guide pseudocode; S0, S1, S2 = x, y, z; the
 * major axis is z when |z| >= |x| and |z| >= |y|, else y when |y| >= |x|, else x) and v_pack_b32_f16
 * (D = {S1.f16, S0.f16}, the halves as read with OPSEL and ABS/NEG; no arithmetic, no flushing). EXACT.
 */
public final class ValuFloatCube {
    private ValuFloatCube() {
    }

    public static void register(SemanticsTable.Builder b) {
        Fidelity x = Fidelity.EXACT;
        ValuFloat.ternary(b, "v_cubeid_f32", F32, x, (m, s0, s1, s2) -> cube(m, 0, s0, s1, s2));
        ValuFloat.ternary(b, "v_cubesc_f32", F32, x, (m, s0, s1, s2) -> cube(m, 1, s0, s1, s2));
        ValuFloat.ternary(b, "v_cubetc_f32", F32, x, (m, s0, s1, s2) -> cube(m, 2, s0, s1, s2));
        ValuFloat.ternary(b, "v_cubema_f32", F32, x, (m, s0, s1, s2) -> cube(m, 3, s0, s1, s2));
        Valu.register(b, "v_pack_b32_f16", x, (w, insn) -> Valu.forActiveLanes(w, insn, lane -> {
            long lo = ValuFloat.source(w, insn, 0, lane, F16);
            long hi = ValuFloat.source(w, insn, 1, lane, F16);
            Valu.writeResult32(w, insn, lane, (int) (lo | hi << 16));
        }));
    }

    /** which: 0 face id, 1 sc, 2 tc, 3 major axis times two. */
    static long cube(FpMode m, int which, long s0, long s1, long s2) {
        Format f = F32;
        s0 = m.input(f, s0);
        s1 = m.input(f, s1);
        s2 = m.input(f, s2);
        double x = f.toDouble(s0);
        double y = f.toDouble(s1);
        double z = f.toDouble(s2);
        int axis = Math.abs(z) >= Math.abs(x) && Math.abs(z) >= Math.abs(y) ? 2 : Math.abs(y) >= Math.abs(x) ? 1 : 0;
        switch (which) {
            case 0: {
                double neg = axis == 2 ? z : axis == 1 ? y : x;
                return Float.floatToRawIntBits(2 * axis + (neg < 0 ? 1 : 0));
            }
            case 1:
                if (axis == 2) {
                    return z < 0 ? f.negate(s0) : s0;
                }
                if (axis == 1) {
                    return s0;
                }
                return x < 0 ? s2 : f.negate(s2);
            case 2:
                if (axis == 1) {
                    return y < 0 ? f.negate(s2) : s2;
                }
                return f.negate(s1);
            default:
                return FloatOps.mul(f, m, axis == 2 ? s2 : axis == 1 ? s1 : s0, Float.floatToRawIntBits(2f));
        }
    }
}
