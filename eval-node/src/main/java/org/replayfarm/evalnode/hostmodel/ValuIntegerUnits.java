package org.replayfarm.evalnode.hostmodel;

/**
 * Registers the vector ALU's integer, bitwise, move, lane and compare instructions (every VOP1, VOP2,
 * VOPC, VOP3 and VOP3P row that is not float arithmetic or a float conversion).
 */
final class ValuIntegerUnits {
    private ValuIntegerUnits() {
    }

    static void register(SemanticsTable.Builder b) {
        ValuIntegerUnit.register(b);
        ValuPackedIntegerUnit.register(b);
        ValuLaneUnit.register(b);
        ValuCompareUnit.register(b);
    }
}
