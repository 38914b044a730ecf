package org.replayfarm.evalnode.hostmodel.valu;

import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;

/**
 * Registers the vector ALU's integer, bitwise, move, lane and compare instructions (every VOP1, VOP2,
 * VOPC, VOP3 and VOP3P row that is not float arithmetic or a float conversion).
 */
public final class ValuIntegerUnits {
    private ValuIntegerUnits() {
    }

    public static void register(SemanticsTable.Builder b) {
        ValuIntegerUnit.register(b);
        ValuPackedIntegerUnit.register(b);
        ValuLaneUnit.register(b);
        ValuCompareUnit.register(b);
    }
}
