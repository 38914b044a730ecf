package org.replayfarm.evalnode.hostmodel.valu;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * Every cross-lane form whose destination is also a source: DPP16 (row shifts, quad_perm, mirror, share,
 * xmask, with and without BOUND_CTRL), DPP8, SDWA and the permlanes, in integer, float (f32, f16, FMAC,
 * a conversion) and move forms, on both tiers and both wave sizes. Each lane must read every source as it
 * was before the instruction, whatever order the lanes are written in: {@code v_add_f32_dpp v2, v2, v2
 * row_shr:1} over 0, 1, 2, ... gives 0 1 3 5 7 9 ... on the hardware (each lane adds its left neighbour's
 * old value), not a running sum. The expected lanes are worked out here from the ISA's description of
 * each control, from the values the program wrote before the instruction.
 */
@Tag("unit")
class ValuOverlapTest {
    @TempDir
    Path dir;

    static List<Arguments> shapes() {
        List<Arguments> a = new ArrayList<>();
        for (HostModel.Tier t : HostModel.Tier.values()) {
            a.add(Arguments.of(t, 32));
            a.add(Arguments.of(t, 64));
        }
        return a;
    }

    private static int f(int lane) {
        return Float.floatToRawIntBits(lane);
    }

    private static int add(int a, int b) {
        return Float.floatToRawIntBits(Float.intBitsToFloat(a) + Float.intBitsToFloat(b));
    }

    /** Lane values of the integer cases: distinct in every byte and half. */
    private static int n(int lane) {
        return 0x01020304 * (lane + 1) + (lane << 20);
    }

    /** The lane a DPP16 row shift right by k reads, or -1 outside the row. */
    private static int shr(int lane, int k) {
        return lane % 16 - k < 0 ? -1 : lane - k;
    }

    /** The f16 bit pattern of a whole number below 2048 (exact: the exponent and the bits below the top one). */
    private static int h(int v) {
        if (v == 0) {
            return 0;
        }
        int e = 31 - Integer.numberOfLeadingZeros(v);
        return (e + 15) << 10 | (v << (10 - e)) & 0x3FF;
    }

    private record Case(String asm, IntUnaryOperator before, IntUnaryOperator after, int mask) {
    }

    @ParameterizedTest(name = "{0} wave{1}")
    @MethodSource("shapes")
    void a_destination_that_is_also_a_source_reads_every_lane_from_before_the_instruction(HostModel.Tier tier,
                                                                                         int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave).tier(tier);
        int[] dpp8 = {7, 6, 5, 4, 3, 2, 1, 0};
        List<Case> cases = List.of(
                // the review's case: float DPP16 row_shr without BOUND_CTRL (lanes without a source keep theirs)
                new Case("v_add_f32_dpp vD, vD, vD row_shr:1", ValuOverlapTest::f,
                        l -> shr(l, 1) < 0 ? f(l) : add(f(shr(l, 1)), f(l)), -1),
                new Case("v_add_f32_dpp vD, vD, vD row_shr:1 bound_ctrl:1", ValuOverlapTest::f,
                        l -> shr(l, 1) < 0 ? f(l) : add(f(shr(l, 1)), f(l)), -1),
                new Case("v_add_nc_u32_dpp vD, vD, vD row_shr:1", ValuOverlapTest::n,
                        l -> shr(l, 1) < 0 ? n(l) : n(shr(l, 1)) + n(l), -1),
                new Case("v_mul_f32_dpp vD, vD, vD row_share:0", ValuOverlapTest::f,
                        l -> Float.floatToRawIntBits((float) (l / 16 * 16) * l), -1),
                new Case("v_sub_f32_dpp vD, vD, vD row_mirror", ValuOverlapTest::f,
                        l -> Float.floatToRawIntBits((float) (l / 16 * 16 + 15 - l % 16) - l), -1),
                new Case("v_max_f32_dpp vD, vD, vD quad_perm:[3,2,1,0]", ValuOverlapTest::f,
                        l -> f(Math.max(l, l / 4 * 4 + 3 - l % 4)), -1),
                new Case("v_xor_b32_dpp vD, vD, vD row_xmask:5", ValuOverlapTest::n,
                        l -> n(l / 16 * 16 + (l % 16 ^ 5)) ^ n(l), -1),
                new Case("v_mov_b32_dpp vD, vD row_ror:3", ValuOverlapTest::n,
                        l -> n(l / 16 * 16 + Math.floorMod(l % 16 - 3, 16)), -1),
                new Case("v_fmac_f32_dpp vD, vD, vD row_shr:2 bound_ctrl:1", ValuOverlapTest::f,
                        l -> f(shr(l, 2) < 0 ? l : shr(l, 2) * l + l), -1),
                new Case("v_cvt_f32_u32_dpp vD, vD row_half_mirror", l -> l,
                        l -> f(l / 8 * 8 + 7 - l % 8), -1),
                new Case("v_add_f16_dpp vD, vD, vD row_shr:1", l -> h(l),
                        l -> shr(l, 1) < 0 ? h(l) : h(shr(l, 1) + l), 0xFFFF),
                new Case("v_add_f32_dpp vD, vD, vD dpp8:[7,6,5,4,3,2,1,0]", ValuOverlapTest::f,
                        l -> add(f(l / 8 * 8 + dpp8[l % 8]), f(l)), -1),
                new Case("v_add_nc_u32_dpp vD, vD, vD dpp8:[7,6,5,4,3,2,1,0]", ValuOverlapTest::n,
                        l -> n(l / 8 * 8 + dpp8[l % 8]) + n(l), -1),
                new Case("v_mov_b32_dpp vD, vD dpp8:[1,2,3,4,5,6,7,0]", ValuOverlapTest::n,
                        l -> n(l / 8 * 8 + (l % 8 + 1) % 8), -1),
                new Case("v_add_f32_sdwa vD, vD, vD dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:DWORD "
                        + "src1_sel:DWORD", ValuOverlapTest::f, l -> f(2 * l), -1),
                new Case("v_add_nc_u32_sdwa vD, vD, vD dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 "
                        + "src1_sel:WORD_1", ValuOverlapTest::n,
                        l -> ((n(l) & 0xFF) + (n(l) >>> 16)) << 16 | n(l) & 0xFFFF, -1),
                new Case("v_mov_b32_sdwa vD, vD dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2",
                        ValuOverlapTest::n, l -> n(l) & 0xFFFF00FF | (n(l) >>> 16 & 0xFF) << 8, -1),
                // permlanes: lane n of a row reads lane 15 - n of its row (16) or of the other row (x16)
                new Case("v_permlane16_b32 vD, vD, s20, s21", ValuOverlapTest::n,
                        l -> n(l / 16 * 16 + 15 - l % 16), -1),
                new Case("v_permlanex16_b32 vD, vD, s20, s21", ValuOverlapTest::n,
                        l -> n((l / 16 ^ 1) * 16 + 15 - l % 16), -1));
        StringBuilder p = new StringBuilder();
        p.append(GuestAsm.scalar("s20", 0x89ABCDEF, 9)).append(GuestAsm.scalar("s21", 0x01234567, 9));
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            int d = 20 + i;
            p.append(t.lanes(d, c.before())).append(c.asm().replace("vD", "v" + d)).append('\n');
        }
        var out = t.run(p.toString());
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            int d = 20 + i;
            t.expect(out, d, l -> c.after().applyAsInt(l) & c.mask(), l -> out.wave(0).vgpr(d, l) & c.mask(),
                    c.asm() + " (" + tier + ")");
        }
    }
}
