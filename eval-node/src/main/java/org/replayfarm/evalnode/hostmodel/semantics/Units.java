package org.replayfarm.evalnode.hostmodel.semantics;

import org.replayfarm.evalnode.hostmodel.image.BvhUnit;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;
import org.replayfarm.evalnode.hostmodel.scalar.ScalarUnits;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloat;
import org.replayfarm.evalnode.hostmodel.valu.ValuIntegerUnits;
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
