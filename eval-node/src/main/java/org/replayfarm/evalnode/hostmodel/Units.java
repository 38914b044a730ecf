package org.replayfarm.evalnode.hostmodel;

import org.replayfarm.model.isa.Encoding;

/** Every execution unit's handlers, registered into one table. */
final class Units {
    private Units() {
    }

    static void registerAll(SemanticsTable.Builder b) {
        b.exact(Encoding.SOPP, "s_endpgm", (wave, insn) -> wave.end());
        ScalarUnits.register(b);
        ValuIntegerUnits.register(b);
        ValuFloat.register(b);
        MemoryOps.register(b);
        BvhUnit.register(b);
    }
}
