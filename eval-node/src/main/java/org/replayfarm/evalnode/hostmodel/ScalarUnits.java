package org.replayfarm.evalnode.hostmodel;

/** The scalar side of a compute unit: scalar ALU, branches, wave control and scalar memory. */
final class ScalarUnits {
    private ScalarUnits() {
    }

    static void register(SemanticsTable.Builder b) {
        ScalarAlu.register(b);
        ScalarAluUnary.register(b);
        Branch.register(b);
        WaveControl.register(b);
        ScalarMemory.register(b);
    }
}
