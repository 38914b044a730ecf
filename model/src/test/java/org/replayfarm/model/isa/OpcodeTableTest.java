package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OpcodeTableTest {
    @Test
    void the_tables_load_with_over_a_thousand_rows_and_look_up_by_number_and_name() {
        OpcodeTable t = OpcodeTable.gfx1030();
        int total = 0;
        for (Encoding e : Encoding.values()) {
            total += t.rows(e).size();
        }
        assertTrue(total > 1000, "rows: " + total);
        assertEquals("v_fma_f32", t.lookup(Encoding.VOP3, 0x14B).mnemonic());
        assertEquals(0x14B, t.byMnemonic(Encoding.VOP3, "v_fma_f32").code());
        assertNull(t.lookup(Encoding.SOP1, 255));
    }

    @Test
    void two_rows_claiming_one_opcode_fail_the_build_of_the_table() {
        Opcode a = new Opcode(Encoding.SOP1, 3, "s_mov_b32", List.of(), Set.of());
        Opcode b = new Opcode(Encoding.SOP1, 3, "s_mov_b32_again", List.of(), Set.of());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OpcodeTable.build(Map.of(Encoding.SOP1, List.of(a, b))));
        assertTrue(e.getMessage().contains("opcode 3 is claimed by both s_mov_b32 and s_mov_b32_again"), e.getMessage());
    }

    @Test
    void one_mnemonic_twice_in_an_encoding_fails_the_build_of_the_table() {
        Opcode a = new Opcode(Encoding.SOP1, 3, "s_mov_b32", List.of(), Set.of());
        Opcode b = new Opcode(Encoding.SOP1, 4, "s_mov_b32", List.of(), Set.of());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OpcodeTable.build(Map.of(Encoding.SOP1, List.of(a, b))));
        assertTrue(e.getMessage().contains("appears at opcodes 3 and 4"), e.getMessage());
    }

    @Test
    void an_opcode_wider_than_its_field_is_refused() {
        Opcode a = new Opcode(Encoding.VOP2, 64, "v_wide", List.of(), Set.of());
        assertThrows(IllegalStateException.class, () -> OpcodeTable.build(Map.of(Encoding.VOP2, List.of(a))));
    }
}
