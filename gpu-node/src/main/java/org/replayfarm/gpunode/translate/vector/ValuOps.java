package org.replayfarm.gpunode.translate.vector;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.ValuFacts;

/**
 * What the vector emitter knows of each VALU mnemonic: how its rt_valu.h function is called, the value
 * types of its sources and of its result. Written from the RDNA 2 ISA guide's opcode descriptions; a
 * mnemonic missing here is refused by the emitter, naming it.
 *
 * <p>Types: {@code u32 f32 u16 f16 u64 f64} (16-bit values travel in the low half of a uint32_t; f-types
 * take the abs/neg input modifiers and omod/clamp output modifiers). Kinds:
 * <ul>
 * <li>{@code P}: {@code f(a, b, c)}; {@code M}: {@code f(..., &t_m)} (the float mode); {@code C}:
 * {@code f(..., clamp)} (integer saturation); {@code L}: {@code f(a, b, lane)};</li>
 * <li>{@code CO}: {@code f(a, b, &carry)}, carry out to VCC / SDST; {@code CI}: {@code f(a, b, cin, &carry)};
 * {@code MAD64}: {@code f(a, b, c64, &carry)};</li>
 * <li>{@code CMP}: a compare ({@code rt_valu_cmp_<type>(cond, a, b[, &t_m])}); {@code CLASS}: a class test;</li>
 * <li>{@code FN}: a transcendental ({@code rt_valu_fn_<type>(k, a, &t_m)}, k in the function column);</li>
 * <li>{@code BYTE}: {@code rt_valu_cvt_f32_ubyte(a, n)}, n the row's byte index ({@code ValuFacts.byteIndex});</li>
 * <li>special moves and cross-lane rows (handled by name in the emitter): {@code MOV CND RL RFL WL PERM NOP
 * FMAC FMAMK FMAAK MOVREL SWAP};</li>
 * <li>{@code PK}: a VOP3P packed pair computed per half with the named 16-bit function ({@code PKM}: with
 * the mode; {@code PKC}: with the clamp); {@code DOT}: a VOP3P integer dot product {@code f(a, b, c, clamp)};
 * {@code DOTF}: the VOP3P f16 dot into f32 {@code f(a, b, c, &t_m)};</li>
 * <li>{@code DIVS}: v_div_scale ({@code f(a, b, c, &flag, &t_m)}, the flags a lane mask into SDST);
 * {@code FMAS}: v_div_fmas ({@code f(a, b, c, vcc bit, &t_m)}); {@code MIX}: v_fma_mix* (VOP3P, each source
 * an f32 or an f16 by OP_SEL_HI, {@code f(double, double, double, &t_m)}); {@code DOTC}: a VOP2 form
 * accumulating into its destination ({@code f(src0, vsrc1, vdst[, &t_m])}); {@code MQSAD}: v_mqsad_u32_u8
 * (128-bit accumulator and result, {@code f(a, b, c.u32[j], j)} per dword); {@code SWAPREL}: v_swaprel.</li>
 * </ul>
 */
public final class ValuOps {
    /** One row: kind, C function, result type, source types. */
    public record Op(String kind, String function, String result, String[] sources) {
        public String source(int n) {
            return sources[n];
        }

        public int count() {
            return sources.length;
        }
    }

    private static final String TABLE = """
            v_nop NOP - -
            v_pipeflush NOP - -
            v_clrexcp NOP - -
            v_mov_b32 MOV - u32 u32
            v_cndmask_b32 CND - u32 f32 f32
            v_readfirstlane_b32 RFL - u32 u32
            v_readlane_b32 RL - u32 u32 u32
            v_writelane_b32 WL - u32 u32 u32
            v_permlane16_b32 PERM - u32 u32 u32 u32
            v_permlanex16_b32 PERM - u32 u32 u32 u32
            v_movrels_b32 MOVREL - u32 u32
            v_movreld_b32 MOVREL - u32 u32
            v_movrelsd_b32 MOVREL - u32 u32
            v_movrelsd_2_b32 MOVREL - u32 u32
            v_swap_b32 SWAP - u32 u32
            v_fmac_f32 FMAC rt_valu_fma_f32 f32 f32 f32
            v_fmac_legacy_f32 FMAC rt_valu_fma_legacy_f32 f32 f32 f32
            v_fmac_f16 FMAC rt_valu_fma_f16 f16 f16 f16
            v_fmamk_f32 FMAMK rt_valu_fma_f32 f32 f32 f32
            v_fmaak_f32 FMAAK rt_valu_fma_f32 f32 f32 f32
            v_fmamk_f16 FMAMK rt_valu_fma_f16 f16 f16 f16
            v_fmaak_f16 FMAAK rt_valu_fma_f16 f16 f16 f16
            v_add_nc_u32 C - u32 u32 u32
            v_sub_nc_u32 C - u32 u32 u32
            v_subrev_nc_u32 C - u32 u32 u32
            v_add_nc_i32 C - u32 u32 u32
            v_sub_nc_i32 C - u32 u32 u32
            v_add_co_u32 CO - u32 u32 u32
            v_sub_co_u32 CO - u32 u32 u32
            v_subrev_co_u32 CO - u32 u32 u32
            v_add_co_ci_u32 CI - u32 u32 u32
            v_sub_co_ci_u32 CI - u32 u32 u32
            v_subrev_co_ci_u32 CI - u32 u32 u32
            v_mad_u64_u32 MAD64 - u64 u32 u32 u64
            v_mad_i64_i32 MAD64 - u64 u32 u32 u64
            v_mul_lo_u32 P - u32 u32 u32
            v_mul_hi_u32 P - u32 u32 u32
            v_mul_hi_i32 P - u32 u32 u32
            v_mul_i32_i24 P - u32 u32 u32
            v_mul_hi_i32_i24 P - u32 u32 u32
            v_mul_u32_u24 P - u32 u32 u32
            v_mul_hi_u32_u24 P - u32 u32 u32
            v_mad_i32_i24 P - u32 u32 u32 u32
            v_mad_u32_u24 P - u32 u32 u32 u32
            v_mad_u32_u16 P - u32 u16 u16 u32
            v_mad_i32_i16 P - u32 u16 u16 u32
            v_min_i32 P - u32 u32 u32
            v_max_i32 P - u32 u32 u32
            v_min_u32 P - u32 u32 u32
            v_max_u32 P - u32 u32 u32
            v_min3_i32 P - u32 u32 u32 u32
            v_max3_i32 P - u32 u32 u32 u32
            v_med3_i32 P - u32 u32 u32 u32
            v_min3_u32 P - u32 u32 u32 u32
            v_max3_u32 P - u32 u32 u32 u32
            v_med3_u32 P - u32 u32 u32 u32
            v_lshlrev_b32 P - u32 u32 u32
            v_lshrrev_b32 P - u32 u32 u32
            v_ashrrev_i32 P - u32 u32 u32
            v_lshlrev_b64 P - u64 u32 u64
            v_lshrrev_b64 P - u64 u32 u64
            v_ashrrev_i64 P - u64 u32 u64
            v_and_b32 P - u32 u32 u32
            v_or_b32 P - u32 u32 u32
            v_xor_b32 P - u32 u32 u32
            v_xnor_b32 P - u32 u32 u32
            v_not_b32 P - u32 u32
            v_xor3_b32 P - u32 u32 u32 u32
            v_or3_b32 P - u32 u32 u32 u32
            v_and_or_b32 P - u32 u32 u32 u32
            v_lshl_or_b32 P - u32 u32 u32 u32
            v_lshl_add_u32 P - u32 u32 u32 u32
            v_add_lshl_u32 P - u32 u32 u32 u32
            v_add3_u32 P - u32 u32 u32 u32
            v_xad_u32 P - u32 u32 u32 u32
            v_bfe_u32 P - u32 u32 u32 u32
            v_bfe_i32 P - u32 u32 u32 u32
            v_bfi_b32 P - u32 u32 u32 u32
            v_bfm_b32 P - u32 u32 u32
            v_alignbit_b32 P - u32 u32 u32 u32
            v_alignbyte_b32 P - u32 u32 u32 u32
            v_bfrev_b32 P - u32 u32
            v_ffbh_u32 P - u32 u32
            v_ffbl_b32 P - u32 u32
            v_ffbh_i32 P - u32 u32
            v_bcnt_u32_b32 P - u32 u32 u32
            v_mbcnt_lo_u32_b32 L - u32 u32 u32
            v_mbcnt_hi_u32_b32 L - u32 u32 u32
            v_perm_b32 P - u32 u32 u32 u32
            v_sad_u8 P - u32 u32 u32 u32
            v_sad_hi_u8 P - u32 u32 u32 u32
            v_sad_u16 P - u32 u32 u32 u32
            v_sad_u32 P - u32 u32 u32 u32
            v_lerp_u8 P - u32 u32 u32 u32
            v_cvt_pk_u16_u32 P - u32 u32 u32
            v_cvt_pk_i16_i32 P - u32 u32 u32
            v_cvt_off_f32_i4 P - f32 u32
            v_cvt_f32_ubyte0 BYTE - f32 u32
            v_cvt_f32_ubyte1 BYTE - f32 u32
            v_cvt_f32_ubyte2 BYTE - f32 u32
            v_cvt_f32_ubyte3 BYTE - f32 u32
            v_add_nc_u16 C - u16 u16 u16
            v_sub_nc_u16 C - u16 u16 u16
            v_add_nc_i16 C - u16 u16 u16
            v_sub_nc_i16 C - u16 u16 u16
            v_mul_lo_u16 P - u16 u16 u16
            v_mad_u16 C - u16 u16 u16 u16
            v_mad_i16 C - u16 u16 u16 u16
            v_lshlrev_b16 P - u16 u16 u16
            v_lshrrev_b16 P - u16 u16 u16
            v_ashrrev_i16 P - u16 u16 u16
            v_min_u16 P - u16 u16 u16
            v_max_u16 P - u16 u16 u16
            v_min_i16 P - u16 u16 u16
            v_max_i16 P - u16 u16 u16
            v_min3_u16 P - u16 u16 u16 u16
            v_max3_u16 P - u16 u16 u16 u16
            v_med3_u16 P - u16 u16 u16 u16
            v_min3_i16 P - u16 u16 u16 u16
            v_max3_i16 P - u16 u16 u16 u16
            v_med3_i16 P - u16 u16 u16 u16
            v_add_f32 M - f32 f32 f32
            v_sub_f32 M - f32 f32 f32
            v_subrev_f32 M - f32 f32 f32
            v_mul_f32 M - f32 f32 f32
            v_mul_legacy_f32 M - f32 f32 f32
            v_fma_f32 M - f32 f32 f32 f32
            v_fma_legacy_f32 M - f32 f32 f32 f32
            v_min_f32 M - f32 f32 f32
            v_max_f32 M - f32 f32 f32
            v_min3_f32 M - f32 f32 f32 f32
            v_max3_f32 M - f32 f32 f32 f32
            v_med3_f32 M - f32 f32 f32 f32
            v_ldexp_f32 M - f32 f32 u32
            v_add_f64 M - f64 f64 f64
            v_mul_f64 M - f64 f64 f64
            v_fma_f64 M - f64 f64 f64 f64
            v_min_f64 M - f64 f64 f64
            v_max_f64 M - f64 f64 f64
            v_ldexp_f64 M - f64 f64 u32
            v_add_f16 M - f16 f16 f16
            v_sub_f16 M - f16 f16 f16
            v_subrev_f16 M - f16 f16 f16
            v_mul_f16 M - f16 f16 f16
            v_fma_f16 M - f16 f16 f16 f16
            v_min_f16 M - f16 f16 f16
            v_max_f16 M - f16 f16 f16
            v_min3_f16 M - f16 f16 f16 f16
            v_max3_f16 M - f16 f16 f16 f16
            v_med3_f16 M - f16 f16 f16 f16
            v_ldexp_f16 M - f16 f16 u16
            v_trunc_f32 M - f32 f32
            v_ceil_f32 M - f32 f32
            v_floor_f32 M - f32 f32
            v_rndne_f32 M - f32 f32
            v_fract_f32 M - f32 f32
            v_trunc_f64 M - f64 f64
            v_ceil_f64 M - f64 f64
            v_floor_f64 M - f64 f64
            v_rndne_f64 M - f64 f64
            v_fract_f64 M - f64 f64
            v_trunc_f16 M - f16 f16
            v_ceil_f16 M - f16 f16
            v_floor_f16 M - f16 f16
            v_rndne_f16 M - f16 f16
            v_fract_f16 M - f16 f16
            v_frexp_mant_f32 M - f32 f32
            v_frexp_exp_i32_f32 M - u32 f32
            v_frexp_mant_f64 M - f64 f64
            v_frexp_exp_i32_f64 M - u32 f64
            v_frexp_mant_f16 M - f16 f16
            v_frexp_exp_i16_f16 M - u16 f16
            v_cvt_i32_f32 M - u32 f32
            v_cvt_u32_f32 M - u32 f32
            v_cvt_flr_i32_f32 M - u32 f32
            v_cvt_rpi_i32_f32 M - u32 f32
            v_cvt_i32_f64 M - u32 f64
            v_cvt_u32_f64 M - u32 f64
            v_cvt_i16_f16 M - u16 f16
            v_cvt_u16_f16 M - u16 f16
            v_cvt_f32_i32 M - f32 u32
            v_cvt_f32_u32 M - f32 u32
            v_cvt_f64_i32 P - f64 u32
            v_cvt_f64_u32 P - f64 u32
            v_cvt_f16_u16 M - f16 u16
            v_cvt_f16_i16 M - f16 u16
            v_cvt_f32_f64 M - f32 f64
            v_cvt_f64_f32 M - f64 f32
            v_cvt_f16_f32 M - f16 f32
            v_cvt_f32_f16 M - f32 f16
            v_cvt_pkrtz_f16_f32 M - u32 f32 f32
            v_pack_b32_f16 P - u32 f16 f16
            v_cmp_class_f32 CLASS rt_valu_cmp_class_f32 - f32 u32
            v_cmp_class_f64 CLASS rt_valu_cmp_class_f64 - f64 u32
            v_cmp_class_f16 CLASS rt_valu_cmp_class_f16 - f16 u32
            v_cmpx_class_f32 CLASS rt_valu_cmp_class_f32 - f32 u32
            v_cmpx_class_f64 CLASS rt_valu_cmp_class_f64 - f64 u32
            v_cmpx_class_f16 CLASS rt_valu_cmp_class_f16 - f16 u32
            v_rcp_f32 FN 0 f32 f32
            v_rcp_iflag_f32 FN 0 f32 f32
            v_rsq_f32 FN 1 f32 f32
            v_sqrt_f32 FN 2 f32 f32
            v_exp_f32 FN 3 f32 f32
            v_log_f32 FN 4 f32 f32
            v_sin_f32 FN 5 f32 f32
            v_cos_f32 FN 6 f32 f32
            v_rcp_f16 FN 0 f16 f16
            v_rsq_f16 FN 1 f16 f16
            v_sqrt_f16 FN 2 f16 f16
            v_exp_f16 FN 3 f16 f16
            v_log_f16 FN 4 f16 f16
            v_sin_f16 FN 5 f16 f16
            v_cos_f16 FN 6 f16 f16
            v_rcp_f64 FN 0 f64 f64
            v_rsq_f64 FN 1 f64 f64
            v_sqrt_f64 FN 2 f64 f64
            v_pk_add_f16 PKM rt_valu_add_f16 f16 f16 f16
            v_pk_mul_f16 PKM rt_valu_mul_f16 f16 f16 f16
            v_pk_fma_f16 PKM rt_valu_fma_f16 f16 f16 f16 f16
            v_pk_min_f16 PKM rt_valu_min_f16 f16 f16 f16
            v_pk_max_f16 PKM rt_valu_max_f16 f16 f16 f16
            v_pk_add_u16 PKC rt_valu_add_nc_u16 u16 u16 u16
            v_pk_sub_u16 PKC rt_valu_sub_nc_u16 u16 u16 u16
            v_pk_add_i16 PKC rt_valu_add_nc_i16 u16 u16 u16
            v_pk_sub_i16 PKC rt_valu_sub_nc_i16 u16 u16 u16
            v_pk_mad_u16 PKC rt_valu_mad_u16 u16 u16 u16 u16
            v_pk_mad_i16 PKC rt_valu_mad_i16 u16 u16 u16 u16
            v_pk_mul_lo_u16 PK rt_valu_mul_lo_u16 u16 u16 u16
            v_pk_lshlrev_b16 PK rt_valu_lshlrev_b16 u16 u16 u16
            v_pk_lshrrev_b16 PK rt_valu_lshrrev_b16 u16 u16 u16
            v_pk_ashrrev_i16 PK rt_valu_ashrrev_i16 u16 u16 u16
            v_pk_max_i16 PK rt_valu_max_i16 u16 u16 u16
            v_pk_min_i16 PK rt_valu_min_i16 u16 u16 u16
            v_pk_max_u16 PK rt_valu_max_u16 u16 u16 u16
            v_pk_min_u16 PK rt_valu_min_u16 u16 u16 u16
            v_dot2_i32_i16 DOT - u32 u32 u32 u32
            v_dot2_u32_u16 DOT - u32 u32 u32 u32
            v_dot4_i32_i8 DOT - u32 u32 u32 u32
            v_dot4_u32_u8 DOT - u32 u32 u32 u32
            v_dot8_i32_i4 DOT - u32 u32 u32 u32
            v_dot8_u32_u4 DOT - u32 u32 u32 u32
            v_div_scale_f32 DIVS - f32 f32 f32 f32
            v_div_scale_f64 DIVS - f64 f64 f64 f64
            v_div_fmas_f32 FMAS - f32 f32 f32 f32
            v_div_fmas_f64 FMAS - f64 f64 f64 f64
            v_div_fixup_f32 M - f32 f32 f32 f32
            v_div_fixup_f64 M - f64 f64 f64 f64
            v_div_fixup_f16 M - f16 f16 f16 f16
            v_trig_preop_f64 M - f64 f64 u32
            v_cubeid_f32 M - f32 f32 f32 f32
            v_cubema_f32 M - f32 f32 f32 f32
            v_cubesc_f32 M - f32 f32 f32 f32
            v_cubetc_f32 M - f32 f32 f32 f32
            v_msad_u8 P - u32 u32 u32 u32
            v_qsad_pk_u16_u8 P - u64 u64 u32 u64
            v_mqsad_pk_u16_u8 P - u64 u64 u32 u64
            v_mqsad_u32_u8 MQSAD rt_valu_mqsad_u32_u8 u32 u64 u32 u32
            v_cvt_pk_u8_f32 M - u32 f32 u32 u32
            v_cvt_pknorm_i16_f32 M - u32 f32 f32
            v_cvt_pknorm_u16_f32 M - u32 f32 f32
            v_cvt_pknorm_i16_f16 M - u32 f16 f16
            v_cvt_pknorm_u16_f16 M - u32 f16 f16
            v_cvt_norm_i16_f16 M - u16 f16
            v_cvt_norm_u16_f16 M - u16 f16
            v_sat_pk_u8_i16 P - u16 u32
            v_fma_mix_f32 MIX rt_valu_fma_mix_f32 f32 f32 f32 f32
            v_fma_mixlo_f16 MIX rt_valu_fma_mix_f16 f16 f32 f32 f32
            v_fma_mixhi_f16 MIX rt_valu_fma_mix_f16 f16 f32 f32 f32
            v_dot2_f32_f16 DOTF - f32 u32 u32 f32
            v_dot2c_f32_f16 DOTC rt_valu_dot2_f32_f16 f32 u32 u32
            v_dot4c_i32_i8 DOTC rt_valu_dot4c_i32_i8 u32 u32 u32
            v_pk_fmac_f16 DOTC rt_valu_pk_fmac_f16 u32 u32 u32
            v_swaprel_b32 SWAPREL - u32 u32
            """;

    /** Float compare conditions in opcode order (ISA: VOPC opcodes 0..15 of each type). */
    public static final String[] FLOAT_CONDITIONS = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg",
            "ngt", "nle", "neq", "nlt", "tru"};
    /** Integer compare conditions in opcode order. */
    public static final String[] INT_CONDITIONS = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};

    private static final Map<String, Op> OPS = parse();

    private ValuOps() {
    }

    private static Map<String, Op> parse() {
        Map<String, Op> m = new HashMap<>();
        for (String line : TABLE.strip().split("\n")) {
            String[] w = line.strip().split(" +");
            String[] src = w.length > 4 ? java.util.Arrays.copyOfRange(w, 4, w.length) : new String[0];
            if (src.length == 1 && src[0].equals("-")) {
                src = new String[0];
            }
            if (m.put(w[0], new Op(w[1], w[2], w[3], src)) != null) {
                throw new IllegalStateException("ValuOps lists " + w[0] + " twice");
            }
        }
        return m;
    }

    /**
     * The translation of a row, compares included (the row's {@link ValuFacts.Compare}: relation and type), or
     * null when it is not translated.
     */
    public static Op lookup(Opcode row) {
        Op op = OPS.get(row.mnemonic());
        if (op != null) {
            return op;
        }
        Compare c = compare(row);
        if (c == null) {
            return null;
        }
        return new Op("CMP", "rt_valu_cmp_" + c.type(), "-", new String[] {c.valueType(), c.valueType()});
    }

    /** Every mnemonic of the table (compares excepted). */
    public static java.util.Set<String> mnemonics() {
        return java.util.Collections.unmodifiableSet(OPS.keySet());
    }

    /**
     * A compare row's facts as the runtime takes them: the condition's number (its place in {@link
     * #FLOAT_CONDITIONS} or {@link #INT_CONDITIONS}) and the operand type's name.
     */
    public record Compare(boolean exec, int condition, String type) {
        /** The value type of the operands: f16 f32 f64 u16 u32 u64. */
        public String valueType() {
            return switch (type) {
                case "f16", "f32", "f64" -> type;
                case "i16", "u16" -> "u16";
                case "i32", "u32" -> "u32";
                default -> "u64";
            };
        }

        public boolean floating() {
            return type.startsWith("f");
        }
    }

    /** The compare of a v_cmp / v_cmpx row (VOPC or VOP3) from its {@link ValuFacts}, or null (class tests too). */
    public static Compare compare(Opcode row) {
        ValuFacts.Compare f = row.valu() == null ? null : row.valu().compare();
        if (f == null || f.condition() == ValuFacts.Condition.CLASS) {
            return null;
        }
        String type = f.type().name().toLowerCase(Locale.ROOT);
        int condition = List.of(f.type().isFloat() ? FLOAT_CONDITIONS : INT_CONDITIONS)
                .indexOf(f.condition().name().toLowerCase(Locale.ROOT));
        return condition < 0 ? null : new Compare(f.toExec(), condition, type);
    }
}
