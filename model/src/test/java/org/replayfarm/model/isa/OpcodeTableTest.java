package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
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

    private static List<Opcode> parse(Encoding e, String text) throws Exception {
        return OpcodeTable.parse(e, e + ".tsv", new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static String refusal(Encoding e, String text) {
        return assertThrows(IllegalStateException.class, () -> parse(e, text)).getMessage();
    }

    @Test
    void an_unknown_flag_is_refused_naming_file_line_and_flag() {
        String m = refusal(Encoding.SOPP, "# SOPP\n# comment\n2\ts_branch\tsimm16:label\tbranch,brnach\n");
        assertTrue(m.startsWith("SOPP.tsv:3: s_branch: unknown flag 'brnach'"), m);
    }

    @Test
    void a_valued_flag_needs_its_value_and_a_plain_flag_takes_none() {
        String m = refusal(Encoding.SOPP, "2\ts_branch\tsimm16:label\tbranch=1\n");
        assertTrue(m.startsWith("SOPP.tsv:1: s_branch: flag 'branch=1' takes no value"), m);
        m = refusal(Encoding.MIMG, "0\timage_load\tvdata:vdata\tcoords,vdata\n");
        assertTrue(m.contains("MIMG.tsv:1") && m.contains("'vdata' needs a value"), m);
        m = refusal(Encoding.SOPP, "2\ts_branch\tsimm16:label\tbranch,branch\n");
        assertTrue(m.contains("SOPP.tsv:1") && m.contains("given twice"), m);
    }

    @Test
    void flags_and_operands_are_typed_and_the_row_text_is_kept_for_the_printers() throws Exception {
        Opcode op = parse(Encoding.MIMG, "0\timage_load\tvdata:vdata vaddr:vaddr\tcoords,vdata=1|2|3|4|5\n").get(0);
        assertTrue(op.has(OpcodeFlag.COORDS) && op.has("coords"));
        assertFalse(op.has(OpcodeFlag.LOD));
        assertEquals("1|2|3|4|5", op.flagValue(OpcodeFlag.VDATA));
        assertEquals(List.of(new OperandSpec("vdata", "vdata"), new OperandSpec("vaddr", "vaddr")), op.operandList());
        assertEquals(List.of("vdata:vdata", "vaddr:vaddr"), op.operands());
        assertEquals(Set.of("coords", "vdata=1|2|3|4|5"), op.flags());
        assertThrows(IllegalArgumentException.class, () -> op.has("cords"));
        Opcode g = OpcodeTable.gfx1030().byMnemonic(Encoding.GLOBAL, "global_load_dwordx3");
        assertEquals(3, g.operand("vdst").registers());
        assertEquals("gvaddr", g.operandType("vaddr"));
        assertNull(g.operandType("src0"));
    }

    @Test
    void a_memory_row_whose_name_no_rule_reads_or_whose_widths_disagree_is_refused() {
        String m = refusal(Encoding.DS, "0\tds_frob_u32\taddr:v1 data0:v1 offset:u16\t-\n");
        assertTrue(m.startsWith("DS.tsv:1: ds_frob_u32: cannot read the memory access"), m);
        m = refusal(Encoding.GLOBAL, "13\tglobal_load_dwordx2\tvdst:v1 vaddr:gvaddr saddr:gsaddr offset:s12\tload\n");
        assertTrue(m.contains("GLOBAL.tsv:1: global_load_dwordx2: operand vdst:v1 but the name says 2 registers"), m);
        m = refusal(Encoding.GLOBAL, "28\tglobal_store_dword\tvaddr:gvaddr data:v1 saddr:gsaddr offset:s12\tload\n");
        assertTrue(m.contains("the name says STORE"), m);
        m = refusal(Encoding.MUBUF, "81\tbuffer_atomic_cmpswap_x2\tvdata:v2 vaddr:bvaddr srsrc:rsrc soffset:soffset offset:u12\tatomic\n");
        assertTrue(m.contains("vdata:v2 but the name says 4 registers"), m);
        m = refusal(Encoding.DS, "0\tds_add_u32\tvdst:v1 addr:v1 data0:v1 offset:u16\t-\n");
        assertTrue(m.contains("non-returning atomic with a vdst"), m);
    }

    @Test
    void every_memory_row_has_its_facts_and_no_other_row_has_any() {
        OpcodeTable t = OpcodeTable.gfx1030();
        Set<Encoding> memory = Set.of(Encoding.DS, Encoding.FLAT, Encoding.GLOBAL, Encoding.SCRATCH, Encoding.MUBUF,
                Encoding.MTBUF, Encoding.SMEM, Encoding.MIMG);
        int rows = 0;
        for (Encoding e : Encoding.values()) {
            for (Opcode op : t.rows(e)) {
                if (memory.contains(e)) {
                    assertNotNull(op.memory(), op.toString());
                    rows++;
                } else {
                    assertNull(op.memory(), op.toString());
                }
            }
        }
        assertTrue(rows > 450, "memory rows " + rows);
    }

    private static MemoryAccess facts(Encoding e, String mnemonic) {
        return OpcodeTable.gfx1030().byMnemonic(e, mnemonic).memory();
    }

    @Test
    void the_facts_say_what_the_names_say() {
        MemoryAccess a = facts(Encoding.GLOBAL, "global_load_sbyte_d16_hi");
        assertEquals(MemoryAccess.Kind.LOAD, a.kind());
        assertEquals(1, a.bytes());
        assertTrue(a.signed());
        assertEquals(MemoryAccess.Half.HIGH, a.half());
        a = facts(Encoding.SCRATCH, "scratch_load_ushort");
        assertEquals(2, a.bytes());
        assertFalse(a.signed());
        assertFalse(a.d16());
        a = facts(Encoding.FLAT, "flat_store_short_d16_hi");
        assertEquals(MemoryAccess.Kind.STORE, a.kind());
        assertEquals(MemoryAccess.Half.HIGH, a.half());
        a = facts(Encoding.MUBUF, "buffer_atomic_fcmpswap_x2");
        assertEquals(AtomicOp.FCMPSWAP, a.atomic());
        assertTrue(a.wide() && a.atomic().compares() && a.atomic().floating());
        assertEquals(MemoryAccess.Returns.IF_GLC, a.returns());
        a = facts(Encoding.DS, "ds_cmpst_rtn_f64");
        assertEquals(AtomicOp.FCMPSWAP, a.atomic());
        assertEquals(8, a.bytes());
        assertEquals(MemoryAccess.Returns.YES, a.returns());
        assertEquals(MemoryAccess.Returns.NO, facts(Encoding.DS, "ds_min_u32").returns());
        assertEquals(AtomicOp.UMIN, facts(Encoding.DS, "ds_min_u32").atomic());
        assertEquals(AtomicOp.SMAX, facts(Encoding.DS, "ds_max_rtn_i64").atomic());
        assertEquals(AtomicOp.FADD, facts(Encoding.DS, "ds_add_rtn_f32").atomic());
        assertEquals(AtomicOp.SWAP, facts(Encoding.DS, "ds_wrxchg_rtn_b64").atomic());
        assertEquals(new MemoryAccess.Pair(8, 512), facts(Encoding.DS, "ds_read2st64_b64").pair());
        assertEquals(new MemoryAccess.Pair(4, 4), facts(Encoding.DS, "ds_write2_b32").pair());
        assertEquals(new MemoryAccess.Pair(4, 256), facts(Encoding.DS, "ds_wrxchg2st64_rtn_b32").pair());
        a = facts(Encoding.MUBUF, "buffer_load_format_d16_xyz");
        assertTrue(a.format() && a.d16());
        assertEquals(3, a.components());
        assertEquals(MemoryAccess.Half.LOW, a.half());
        a = facts(Encoding.MUBUF, "buffer_store_format_d16_hi_x");
        assertEquals(MemoryAccess.Half.HIGH, a.half());
        assertEquals(1, a.components());
        assertFalse(facts(Encoding.MUBUF, "buffer_load_dwordx3").format());
        assertEquals(12, facts(Encoding.MUBUF, "buffer_load_dwordx3").bytes());
        assertTrue(facts(Encoding.MTBUF, "tbuffer_store_format_xy").format());
        assertEquals(16, facts(Encoding.SMEM, "s_buffer_load_dwordx16").dwords());
        assertEquals(MemoryAccess.Kind.OTHER, facts(Encoding.SMEM, "s_memtime").kind());
        assertEquals(MemoryAccess.Kind.OTHER, facts(Encoding.DS, "ds_bpermute_b32").kind());
        assertTrue(facts(Encoding.GLOBAL, "global_store_dword_addtid").addtid());
        assertEquals(AtomicOp.CSUB, facts(Encoding.GLOBAL, "global_atomic_csub").atomic());
        assertEquals(AtomicOp.UMAX, facts(Encoding.MIMG, "image_atomic_umax").atomic());
    }
}
