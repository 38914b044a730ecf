package org.replayfarm.gpunode.translate.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Tag;

/**
 * The disagreements the ALU differential test found, reduced to the instruction that showed them and kept
 * as programs run on both sides (host model and translation) with every register compared; plus a smoke
 * program over the common forms. Each names the side that was wrong and why (RDNA 2 ISA guide, LLVM).
 */
@Tag("unit")
class AluRegressionTest {
    @TempDir
    Path dir;

    private static final String SETUP = """
            v_mov_b32 v1, 0x3fc00000
            v_writelane_b32 v1, 0x7fc00000, 3
            v_writelane_b32 v1, 0x00000001, 4
            v_cvt_f32_u32 v2, v0
            v_mul_f32 v3, 0x3f400000, v2
            v_mul_lo_u32 v4, v0, 0x9e3779b9
            v_xor_b32 v5, 0x5a5a1234, v4
            """;

    private void agree(int wave, String body) throws Exception {
        VectorRig rig = new VectorRig(dir, wave, 24);
        String vcc = wave == 32 ? "vcc_lo" : "vcc";
        var b = rig.build("r", SETUP + body.replace("VCC", vcc) + "s_endpgm\n");
        var d = rig.writeTranslation("r", b);
        VectorRig.await(VectorRig.compile(d), d);
        assertEquals(List.of(), VectorRig.diff(rig.host(b), rig.device(d), wave));
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void common_forms(int wave) throws Exception {
        agree(wave, """
                v_add_f32 v6, v1, v3
                v_mul_f32_e64 v7, -v3, 0.5 clamp
                v_cmp_gt_f32 VCC, v3, 4.0
                v_cndmask_b32 v8, v1, v3, VCC
                v_mov_b32_dpp v9, v4 row_shr:1 bound_ctrl:1
                v_mov_b32_dpp v10, v4 quad_perm:[3,2,1,0] row_mask:0x5 bank_mask:0xa
                v_add_nc_u32_sdwa v11, v4, v5 dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:WORD_1
                v_readlane_b32 s5, v4, 7
                v_readfirstlane_b32 s6, v5
                v_writelane_b32 v12, s5, 9
                v_fma_f32 v13, v1, -|v3|, v2
                v_cvt_f16_f32 v14, v3
                v_fma_f16 v14, v14, v14, v14 op_sel:[0,1,0,1]
                v_med3_f32 v15, v1, v2, v3
                v_bfe_u32 v16, v5, 3, 9
                v_permlane16_b32 v17, v4, s5, s6
                v_mov_b32_dpp v18, v4 dpp8:[7,6,5,4,3,2,1,0]
                """);
    }

    /**
     * Host model wrong: its float units computed and wrote lane by lane, so a DPP instruction whose
     * destination is also its source 0 read lanes already written (seed w32 0x5eed7d14: v_rndne_f16_dpp v18,
     * |v18| row_mirror; w64 0x5eedfa07: v_frexp_mant_f32_dpp v15, v15 dpp8). DPP reads every lane's source
     * before any lane writes; fixed in Valu.forActiveLanes (DPP writes are held until every lane ran).
     */
    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void dpp_float_op_reading_its_own_destination_sees_old_values(int wave) throws Exception {
        agree(wave, """
                v_cvt_f16_f32 v18, v3
                v_rndne_f16_dpp v18, |v18| row_mirror row_mask:0xf bank_mask:0xf fi:1
                v_frexp_mant_f32_dpp v3, v3 dpp8:[3,3,6,0,2,5,7,6] fi:1
                v_add_f32_dpp v2, v2, v1 row_shr:1 bound_ctrl:1
                """);
    }

    /**
     * Translation wrong: v_bfe_i32 shifted S0 logically, where the ISA shifts S0.i arithmetically, so a field
     * reaching past bit 31 takes the sign (seed w64 0x5eedfa16: v_bfe_i32 v18, 0xbb22463e, v16, v21; LLVM's
     * sbfe folding agrees).
     */
    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void bfe_i32_field_past_bit_31_is_sign_filled(int wave) throws Exception {
        agree(wave, """
                v_bfe_i32 v6, 0xbb22463e, 19, 20
                v_bfe_i32 v7, v5, v0, 31
                v_bfe_i32 v8, 0x80000000, 31, 5
                """);
    }

    /**
     * Translation wrong: v_ldexp_f64 normalised a denormal source with 2^-ilogb(x), which overflows to
     * infinity below 2^-1023, so a large exponent gave +inf where rounding toward zero gives the largest
     * finite value (seed w64 0x5eedfa0f). Normalised with frexp now.
     */
    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void ldexp_f64_of_a_denormal_in_every_round_mode(int wave) throws Exception {
        agree(wave, """
                v_mov_b32 v6, 1
                v_mov_b32 v7, 0
                v_mov_b32 v8, 2100
                v_ldexp_f64 v[10:11], v[6:7], v8
                s_round_mode 0xc
                v_ldexp_f64 v[12:13], v[6:7], v8
                v_ldexp_f64 v[14:15], v[6:7], 0x3f0
                s_round_mode 0x8
                v_ldexp_f64 v[16:17], v[6:7], v8
                v_ldexp_f64 v[18:19], v[6:7], -5
                s_round_mode 0x4
                v_ldexp_f64 v[20:21], v[6:7], -5
                """);
    }
}
