package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The rules by which instruction bodies are shared (Shapes): which literals become parameters and with which C
 * type, which bodies stay inline, and that a body used once is not shared. The shared code's results are checked
 * end to end by the differential tests and the kernel corpus (every translation they build uses shapes).
 */
@Tag("unit")
class ShapesTest {
    @Test
    void literals_become_parameters_of_their_own_c_type() {
        Shapes.Use u = Shapes.of(List.of("uint32_t t_k = (0x5u) & (RT_WAVE - 1);",
                "uint64_t t_a = rt_pair(S(8), S(9)) + 0x100080144ull;", "RT_CHECK();"));
        assertNotNull(u);
        assertEquals(List.of("unsigned int", "int", "int", "int", "unsigned long long"), u.types());
        assertEquals(List.of("0x5u", "1", "8", "9", "0x100080144ull"), u.args());
        assertTrue(u.check(), "the closing RT_CHECK stays with the caller");
        assertFalse(u.body().contains("RT_CHECK"), u.body());
        assertTrue(u.body().contains("(p0) & (RT_WAVE - p1)"), u.body());
    }

    @Test
    void spellings_whose_type_depends_on_the_value_stay_in_the_text() {
        // a bare 0 (may be a null pointer), hex without suffix, a decimal past int, array sizes, floats
        Shapes.Use u = Shapes.of(List.of("uint8_t t_b[16]; f(0, 0x10, 4294967296, 1.5f, 2e3, t_b[3]);"));
        assertNotNull(u);
        assertEquals(List.of(), u.types(), u.body());
        assertTrue(u.body().contains("t_b[16]") && u.body().contains("f(0, 0x10, 4294967296, 1.5f, 2e3, t_b[3])"),
                u.body());
    }

    @Test
    void bodies_that_leave_the_block_stay_inline() {
        assertNull(Shapes.of(List.of("if (RT_SCC != 0) goto L_100040010;")));
        assertNull(Shapes.of(List.of("RT_END();")));
        assertNull(Shapes.of(List.of("RT_FAULT_NOW(RT_FAULT_UNSUPPORTED, 0x100040000ull, -1, 0);")));
        assertNull(Shapes.of(List.of("RT_BARRIER(1);")));
        assertNull(Shapes.of(List.of("if (rt_valu_x(C)) goto rt_stop;")), "a fault exit that is not a scalar load's");
    }

    @Test
    void a_check_inside_the_body_and_a_scalar_load_fault_exit_return_to_the_callers_check() {
        Shapes.Use mid = Shapes.of(List.of("t_m = RT_WAVE_OR(t_m);", "RT_CHECK();", "RT_SET_MASK(4, t_m);"));
        assertNotNull(mid, "an RT_CHECK inside the body");
        assertTrue(mid.body().contains("RT_SHAPE_CHECK();") && !mid.body().contains("RT_CHECK"), mid.body());
        assertTrue(mid.check(), "the caller checks after the call");
        Shapes.Use load = Shapes.of(List.of("uint32_t t_d[1];",
                "if (rt_smem_load(C, 0x100040000ull, t_a, 1, t_d)) goto rt_stop;", "S(10) = (uint32_t)(t_d[0]);"));
        assertNotNull(load, "a scalar load");
        assertTrue(load.body().contains("if (rt_smem_load(C, p0, t_a, p1, t_d)) RT_SHAPE_RETURN();"), load.body());
        assertTrue(load.check(), "the caller checks after the call: the fault set W->stop");
    }

    @Test
    void only_bodies_used_twice_are_shared_and_numbered_in_order() {
        Shapes.Table t = new Shapes.Table();
        Shapes.Use a = Shapes.of(List.of("S(10) = 0x0u;"));
        Shapes.Use b = Shapes.of(List.of("S(11) = 0x1u;"));
        Shapes.Use once = Shapes.of(List.of("S(12) = S(13) + 0x1u;"));
        t.count(a);
        t.count(b);
        t.count(once);
        assertEquals(a.key(), b.key());
        assertTrue(t.shared(a));
        assertFalse(t.shared(once));
        assertEquals("rt_i0(C, 10, 0x0u);", t.call(a));
        assertEquals("rt_i0(C, 11, 0x1u);", t.call(b));
        assertEquals("RT_SHAPE(rt_i0)(rt_ctx_t *C, int p0, unsigned int p1) {\n    rt_wave_t *W = C->w;\n    RT_TICK();\n"
                + "    S(p0) = p1;\n}\n", t.definitions());
    }

    @Test
    void a_run_is_op_words_and_arguments_in_the_table_and_rt_run_calls_each_shape_with_them() {
        Shapes.Table t = new Shapes.Table();
        Shapes.Use a = Shapes.of(List.of("S(10) = 0x7u;"));
        Shapes.Use b = Shapes.of(List.of("S(11) = 0xfffffffeu;"));
        Shapes.Use wide = Shapes.of(List.of("W->target = 0x100040008ull + S(12);", "RT_CHECK();"));
        Shapes.Use wide2 = Shapes.of(List.of("W->target = 0x1ull + S(3);", "RT_CHECK();"));
        for (Shapes.Use u : List.of(a, b, wide, wide2)) {
            t.count(u);
        }
        assertEquals(0, t.run(List.of(a, wide)));
        assertEquals(7, t.run(List.of(b, wide2)), "the second run starts after the first one's seven words");
        String defs = t.runDefinitions();
        // a: shape 0, args 10, 7; wide: shape 1 | check | last, args 0x100040008 (low, high), 12
        assertTrue(defs.contains("rt_runs[14] = {\n    0, 10, 7, " + (1 | 1L << 31 | 1L << 30) + ", " + 0x40008 + ", 1, 12, 0, 11, "
                + 0xfffffffeL + ", " + (1 | 1L << 31 | 1L << 30) + ", 1, 0, 3,\n};"), defs);
        assertTrue(defs.contains("case 0: rt_i0(C, (int)p[0], p[1]); p += 2; break;"), defs);
        assertTrue(defs.contains("case 1: rt_i1(C, rt_pair(p[0], p[1]), (int)p[2]); p += 3; break;"), defs);
        assertTrue(defs.startsWith("\n#if RT_SHAPE_RUNS\n") && defs.endsWith("#endif\n"), defs);
        assertEquals("", new Shapes.Table().runDefinitions(), "no run, no table");
    }
}
