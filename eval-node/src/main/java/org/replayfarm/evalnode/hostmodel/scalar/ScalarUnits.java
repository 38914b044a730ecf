package org.replayfarm.evalnode.hostmodel.scalar;

import org.replayfarm.evalnode.hostmodel.memory.ScalarMemory;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;

/** The scalar side of a compute unit: scalar ALU, branches, wave control and scalar memory. */
public final class ScalarUnits {
    private ScalarUnits() {
    }

    public static void register(SemanticsTable.Builder b) {
        ScalarAlu.register(b);
        ScalarAluUnary.register(b);
        Branch.register(b);
        WaveControl.register(b);
        ScalarMemory.register(b);
    }
}
