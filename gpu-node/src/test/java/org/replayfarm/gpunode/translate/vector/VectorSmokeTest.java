package org.replayfarm.gpunode.translate.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VectorSmokeTest {
    @TempDir
    Path dir;

    @Test
    void smoke() throws Exception {
        VectorRig rig = new VectorRig(dir, 32, 8);
        String asm = """
                v_mov_b32 v1, 0x3fc00000
                v_add_f32 v2, v1, v0
                v_cvt_f32_u32 v3, v0
                v_mul_f32_e64 v4, -v3, 0.5 clamp
                v_cmp_gt_f32 vcc_lo, v3, 4.0
                v_cndmask_b32 v5, v1, v3, vcc_lo
                v_mov_b32_dpp v6, v0 row_shr:1 bound_ctrl:1
                v_add_nc_u32_sdwa v7, v0, v0 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:DWORD
                v_readlane_b32 s5, v0, 7
                s_endpgm
                """;
        var b = rig.build("smoke", asm);
        var d = rig.writeTranslation("smoke", b);
        Process p = VectorRig.compile(d);
        VectorRig.await(p, d);
        List<String> diff = VectorRig.diff(rig.host(b), rig.device(d), 32);
        assertEquals(List.of(), diff);
    }
}
