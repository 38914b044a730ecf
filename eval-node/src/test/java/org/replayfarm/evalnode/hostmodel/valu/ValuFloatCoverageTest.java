package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeTable;

/** Every float instruction of the VALU tables has a handler, except those listed as left out; cube ops. */
@Tag("unit")
class ValuFloatCoverageTest {
    @TempDir
    Path dir;

    /** Float mnemonics this unit leaves to others (compares, interpolation) or does not model. */
    private static final Pattern OTHERS = Pattern.compile("v_cmpx?_.*|v_interp_.*");
    private static final Set<String> LEFT_OUT = Set.of("v_mullit_f32");

    @Test
    void every_float_valu_instruction_is_registered() {
        SemanticsTable t = SemanticsTable.gfx1030();
        List<String> missing = new ArrayList<>();
        for (Encoding e : new Encoding[] {Encoding.VOP1, Encoding.VOP2, Encoding.VOP3, Encoding.VOP3P}) {
            for (Opcode op : OpcodeTable.gfx1030().rows(e)) {
                String mn = op.mnemonic();
                boolean isFloat = mn.matches(".*_f(16|32|64)(_.*)?") || mn.startsWith("v_pk_") && mn.endsWith("_f16");
                if (!isFloat || OTHERS.matcher(mn).matches() || LEFT_OUT.contains(mn)) {
                    continue;
                }
                if (t.fidelity(op) == Fidelity.UNSUPPORTED) {
                    missing.add(e + " " + mn);
                }
            }
        }
        assertEquals(List.of(), missing);
    }

    @Test
    void cube_coordinates_pick_the_major_axis() throws Exception {
        // direction (x, y, z) = (0.5, -3, 1): y is the major axis and negative: face 3, sc = x, tc = -z, ma = 2y
        Wave w = new GuestAsm(dir).f32(0, 0.5f).f32(1, -3f).runWave(String.join("\n",
                "v_cubeid_f32 v1, s0, s1, 1.0", "v_cubesc_f32 v2, s0, s1, 1.0", "v_cubetc_f32 v3, s0, s1, 1.0",
                "v_cubema_f32 v4, s0, s1, 1.0", "v_cubeid_f32 v5, s0, 1.0, -4.0", "v_cubesc_f32 v6, -4.0, s0, 1.0",
                "v_pack_b32_f16 v7, -1.0, 2.0"));
        assertEquals(Float.floatToRawIntBits(3f), w.vgpr(1, 0));
        assertEquals(Float.floatToRawIntBits(0.5f), w.vgpr(2, 0));
        assertEquals(Float.floatToRawIntBits(-1f), w.vgpr(3, 0));
        assertEquals(Float.floatToRawIntBits(-6f), w.vgpr(4, 0));
        assertEquals(Float.floatToRawIntBits(5f), w.vgpr(5, 0), "-z face");
        assertEquals(Float.floatToRawIntBits(1f), w.vgpr(6, 0), "-x face: sc = z");
        assertEquals(0x4000BC00, w.vgpr(7, 0));
    }
}
