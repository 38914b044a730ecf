package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.isa.ValuFacts.CompareType;
import org.replayfarm.model.isa.ValuFacts.Condition;

/**
 * The typed VALU facts ({@link ValuFacts}) every vector ALU row carries once the tables load: each compare row's
 * relation, type and EXEC target agree between its VOPC and VOP3 forms and with the operand types the tables
 * took from llvm-objdump-19; the ubyte index and the 64-bit shifts; the scalar destination of the VOP3b rows;
 * and a row whose name claims what its operands do not fit is refused.
 */
@Tag("unit")
class ValuFactsTest {
    private final OpcodeTable t = OpcodeTable.gfx1030();

    @Test
    void every_compare_row_has_its_relation_type_and_target_in_both_encodings() {
        int compares = 0;
        for (Opcode op : t.rows(Encoding.VOPC)) {
            ValuFacts.Compare c = op.valu().compare();
            assertNotNull(c, op.toString());
            Opcode vop3 = t.byMnemonic(Encoding.VOP3, op.mnemonic());
            assertNotNull(vop3, "VOP3 form of " + op);
            assertEquals(c, vop3.valu().compare(), op.mnemonic());
            assertEquals(op.mnemonic().startsWith("v_cmpx_"), c.toExec(), op.mnemonic());
            String name = "v_" + (c.toExec() ? "cmpx" : "cmp") + "_" + c.condition().name().toLowerCase() + "_"
                    + c.type().name().toLowerCase();
            assertEquals(op.mnemonic(), name);
            compares++;
        }
        assertEquals(t.rows(Encoding.VOPC).size(), compares);
        ValuFacts.Compare lt = t.byMnemonic(Encoding.VOPC, "v_cmp_lt_f32").valu().compare();
        assertEquals(new ValuFacts.Compare(false, Condition.LT, CompareType.F32), lt);
        assertEquals(new ValuFacts.Compare(true, Condition.NE, CompareType.U32),
                t.byMnemonic(Encoding.VOP3, "v_cmpx_ne_u32").valu().compare());
        assertEquals(Condition.CLASS, t.byMnemonic(Encoding.VOPC, "v_cmp_class_f64").valu().compare().condition());
        assertFalse(CompareType.U64.signed());
        assertEquals(16, CompareType.I16.bits());
        assertNull(t.byMnemonic(Encoding.VOP2, "v_add_f32").valu().compare());
    }

    @Test
    void bytes_shifts_and_scalar_destinations() {
        for (int n = 0; n < 4; n++) {
            assertEquals(n, t.byMnemonic(Encoding.VOP1, "v_cvt_f32_ubyte" + n).valu().byteIndex());
            assertEquals(n, t.byMnemonic(Encoding.VOP3, "v_cvt_f32_ubyte" + n).valu().byteIndex());
        }
        assertEquals(-1, t.byMnemonic(Encoding.VOP1, "v_cvt_f32_u32").valu().byteIndex());
        assertEquals(ValuFacts.Shift64.LEFT, t.byMnemonic(Encoding.VOP3, "v_lshlrev_b64").valu().shift64());
        assertEquals(ValuFacts.Shift64.RIGHT_LOGICAL, t.byMnemonic(Encoding.VOP3, "v_lshrrev_b64").valu().shift64());
        assertEquals(ValuFacts.Shift64.RIGHT_ARITHMETIC, t.byMnemonic(Encoding.VOP3, "v_ashrrev_i64").valu().shift64());
        assertNull(t.byMnemonic(Encoding.VOP2, "v_lshlrev_b32").valu().shift64());
        assertTrue(t.byMnemonic(Encoding.VOP3, "v_add_co_u32").valu().scalarDestination());
        assertTrue(t.byMnemonic(Encoding.VOP3, "v_div_scale_f32").valu().scalarDestination());
        assertFalse(t.byMnemonic(Encoding.VOP3, "v_cmp_lt_f32").valu().scalarDestination()); // vdst:mask, ABS kept
        assertFalse(t.byMnemonic(Encoding.VOP3, "v_fma_f32").valu().scalarDestination());
        // every VALU row has facts, no other row has
        for (Encoding e : Encoding.values()) {
            for (Opcode op : t.rows(e)) {
                assertEquals(ValuFacts.isValu(e), op.valu() != null, op.toString());
            }
        }
    }

    @Test
    void a_row_whose_name_its_operands_do_not_fit_is_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Opcode(Encoding.VOPC, 1,
                "v_cmp_lt_f32", List.of("sdst:lanemask", "src0:b32", "vsrc1:f32"), Set.of()));
        assertTrue(e.getMessage().contains("src0 is b32 but the name says f32"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Opcode(Encoding.VOPC, 1, "v_cmp_lg_u32",
                List.of("sdst:lanemask", "src0:b32", "vsrc1:b32"), Set.of()));
        assertTrue(e.getMessage().contains("does not apply"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Opcode(Encoding.VOPC, 1, "v_cmp_lt",
                List.of("sdst:lanemask", "src0:b32", "vsrc1:b32"), Set.of()));
        assertTrue(e.getMessage().contains("cannot read the compare"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Opcode(Encoding.VOP3, 1, "v_lshlrev_b64",
                List.of("vdst:b64", "src0:b32", "src1:b32"), Set.of()));
        assertTrue(e.getMessage().contains("64-bit shift"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Opcode(Encoding.VOP1, 1, "v_cvt_f32_ubyte4",
                List.of("vdst:f32", "src0:b32"), Set.of()));
        assertTrue(e.getMessage().contains("byte"), e.getMessage());
    }
}
