package org.replayfarm.evalnode.hostmodel.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeTable;

/** Every scalar instruction of the tables has a handler, except the few left unsupported on purpose. */
@Tag("unit")
class ScalarCoverageTest {
    /** Trap-handler, debugger, halting, pixel-shader and subvector-loop instructions. */
    private static final Set<String> UNSUPPORTED = Set.of("s_rfe_b64", "s_setkill", "s_sethalt", "s_sendmsghalt",
            "s_subvector_loop_begin", "s_subvector_loop_end");
    private static final Set<String> APPROXIMATE = Set.of("s_memtime", "s_memrealtime");

    @Test
    void every_sop_and_smem_row_is_executed_except_the_documented_unsupported_ones() {
        SemanticsTable table = SemanticsTable.gfx1030();
        List<String> wrong = new ArrayList<>();
        int rows = 0;
        for (Encoding e : List.of(Encoding.SOP1, Encoding.SOP2, Encoding.SOPK, Encoding.SOPC, Encoding.SOPP,
                Encoding.SMEM)) {
            for (Opcode op : OpcodeTable.gfx1030().rows(e)) {
                rows++;
                Fidelity expected = UNSUPPORTED.contains(op.mnemonic()) ? Fidelity.UNSUPPORTED
                        : APPROXIMATE.contains(op.mnemonic()) ? Fidelity.APPROXIMATE : Fidelity.EXACT;
                if (table.fidelity(op) != expected) {
                    wrong.add(op + " is " + table.fidelity(op) + ", expected " + expected);
                }
            }
        }
        assertEquals(List.of(), wrong);
        assertEquals(214, rows, "rows in the six scalar tables");
    }
}
