package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.junit.jupiter.api.Tag;

/**
 * DPP16 (every gfx10 row control, ROW_MASK / BANK_MASK, BOUND_CTRL, FI), DPP8 and SDWA (source selects
 * with sign extension, destination selects with DST_UNUSED pad / sext / preserve) through {@link Valu},
 * exercised with v_mov_b32 and v_add_nc_u32. RDNA 2 ISA, "Data Parallel Processing" and "SDWA". The
 * lane each DPP control reads is worked out here from the ISA's description of the control.
 */
@Tag("unit")
class ValuDppSdwaTest {
    @TempDir
    Path dir;

    private static final int OLD = 0xC0DE0000;

    /** Source lane values: distinct per lane. */
    private static int src(int lane) {
        return 0x1100 + lane * 3;
    }

    /** The lane a DPP16 control reads for {@code lane}, or -1 outside the row. */
    private static int source(String ctrl, int lane) {
        int row = lane / 16 * 16;
        int pos = lane % 16;
        String[] kv = ctrl.split(":");
        switch (kv[0]) {
            case "quad_perm": {
                String[] sel = kv[1].replaceAll("[\\[\\]]", "").split(",");
                return lane / 4 * 4 + Integer.parseInt(sel[lane % 4]);
            }
            case "row_shl": {
                int p = pos + Integer.parseInt(kv[1]);
                return p > 15 ? -1 : row + p;
            }
            case "row_shr": {
                int p = pos - Integer.parseInt(kv[1]);
                return p < 0 ? -1 : row + p;
            }
            case "row_ror":
                return row + Math.floorMod(pos - Integer.parseInt(kv[1]), 16);
            case "row_mirror":
                return row + 15 - pos;
            case "row_half_mirror":
                return lane / 8 * 8 + 7 - lane % 8;
            case "row_share":
                return row + Integer.parseInt(kv[1]);
            case "row_xmask":
                return row + (pos ^ Integer.parseInt(kv[1]));
            default:
                throw new IllegalArgumentException(ctrl);
        }
    }

    private static final String[] CONTROLS = {"quad_perm:[3,2,1,0]", "quad_perm:[1,1,0,2]", "row_shl:1", "row_shl:15",
        "row_shr:3", "row_shr:15", "row_ror:5", "row_ror:15", "row_mirror", "row_half_mirror", "row_share:7",
        "row_share:0", "row_xmask:5", "row_xmask:15"};

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void every_row_control_reads_its_lane_and_out_of_row_lanes_keep_the_old_value_or_read_zero(int wave)
            throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        StringBuilder p = new StringBuilder(t.lanes(1, ValuDppSdwaTest::src));
        for (int i = 0; i < CONTROLS.length; i++) {
            p.append("v_mov_b32 v").append(20 + i).append(", 0x").append(Integer.toHexString(OLD)).append('\n');
            p.append("v_mov_b32_dpp v").append(20 + i).append(", v1 ").append(CONTROLS[i]).append('\n');
            p.append("v_mov_b32_dpp v").append(40 + i).append(", v1 ").append(CONTROLS[i]).append(" bound_ctrl:1\n");
        }
        var out = t.run(p.toString());
        for (int i = 0; i < CONTROLS.length; i++) {
            String ctrl = CONTROLS[i];
            t.expect(out, 20 + i, l -> source(ctrl, l) < 0 ? OLD : src(source(ctrl, l)), ctrl);
            t.expect(out, 40 + i, l -> source(ctrl, l) < 0 ? 0 : src(source(ctrl, l)), ctrl + " bound_ctrl");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void row_and_bank_masks_leave_the_disabled_rows_and_banks_unwritten(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        String p = t.lanes(1, ValuDppSdwaTest::src) + t.lanes(2, l -> 1000 * l)
                + "v_mov_b32 v20, 0x" + Integer.toHexString(OLD) + "\n"
                + "v_mov_b32_dpp v20, v1 row_ror:1 row_mask:0x5 bank_mask:0xf\n"
                + "v_mov_b32 v21, 0x" + Integer.toHexString(OLD) + "\n"
                + "v_mov_b32_dpp v21, v1 quad_perm:[0,0,0,0] row_mask:0xf bank_mask:0x6\n"
                + "v_mov_b32 v22, 0x" + Integer.toHexString(OLD) + "\n"
                + "v_add_nc_u32_dpp v22, v1, v2 row_shr:1 row_mask:0xa bank_mask:0x9 bound_ctrl:1\n";
        var out = t.run(p);
        t.expect(out, 20, l -> (0x5 >> (l / 16) & 1) == 0 ? OLD : src(source("row_ror:1", l)), "row_mask 0x5");
        t.expect(out, 21, l -> (0x6 >> (l / 4 % 4) & 1) == 0 ? OLD : src(l / 4 * 4), "bank_mask 0x6");
        t.expect(out, 22, l -> {
            if ((0xa >> (l / 16) & 1) == 0 || (0x9 >> (l / 4 % 4) & 1) == 0) {
                return OLD;
            }
            int from = source("row_shr:1", l);
            return (from < 0 ? 0 : src(from)) + 1000 * l;
        }, "v_add_nc_u32 row and bank masks");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void inactive_source_lanes_are_invalid_unless_fi_fetches_them(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long active = wave == 32 ? 0xAAAA_F0F0L : 0x5555_AAAA_FF00_F0F0L;
        String p = t.lanes(1, ValuDppSdwaTest::src)
                + "v_mov_b32 v20, 0x" + Integer.toHexString(OLD) + "\n"
                + "v_mov_b32 v21, 0x" + Integer.toHexString(OLD) + "\n"
                + "v_mov_b32 v22, 0x" + Integer.toHexString(OLD) + "\n"
                + "v_mov_b32 v23, 0x" + Integer.toHexString(OLD) + "\n"
                + "v_mov_b32 v24, 0x" + Integer.toHexString(OLD) + "\n"
                + t.exec(active, 9)
                + "v_mov_b32_dpp v20, v1 row_shl:1\n"
                + "v_mov_b32_dpp v21, v1 row_shl:1 bound_ctrl:1\n"
                + "v_mov_b32_dpp v22, v1 row_shl:1 fi:1\n"
                + "v_mov_b32_dpp v23, v1 dpp8:[1,0,3,2,5,4,7,6]\n"
                + "v_mov_b32_dpp v24, v1 dpp8:[1,0,3,2,5,4,7,6] fi:1\n";
        var out = t.run(p);
        IntUnaryOperator row = l -> source("row_shl:1", l);
        boolean[] on = new boolean[wave];
        for (int l = 0; l < wave; l++) {
            on[l] = (active >>> l & 1) != 0;
        }
        t.expect(out, 20, l -> !on[l] || row.applyAsInt(l) < 0 || !on[row.applyAsInt(l)] ? OLD
                : src(row.applyAsInt(l)), "no bound_ctrl: invalid source leaves the lane");
        t.expect(out, 21, l -> !on[l] ? OLD : row.applyAsInt(l) < 0 || !on[row.applyAsInt(l)] ? 0
                : src(row.applyAsInt(l)), "bound_ctrl: invalid source reads 0");
        t.expect(out, 22, l -> !on[l] ? OLD : row.applyAsInt(l) < 0 ? OLD : src(row.applyAsInt(l)),
                "fi: inactive lanes are fetched");
        t.expect(out, 23, l -> !on[l] ? OLD : on[l ^ 1] ? src(l ^ 1) : 0, "dpp8 without fi reads 0 from inactive lanes");
        t.expect(out, 24, l -> !on[l] ? OLD : src(l ^ 1), "dpp8 fi");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void dpp8_selects_a_lane_within_each_group_of_eight(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        int[] sel = {7, 0, 0, 3, 6, 2, 5, 1};
        var out = t.run(t.lanes(1, ValuDppSdwaTest::src) + t.lanes(2, l -> l * 5)
                + "v_mov_b32_dpp v20, v1 dpp8:[7,0,0,3,6,2,5,1]\n"
                + "v_add_nc_u32_dpp v21, v1, v2 dpp8:[7,0,0,3,6,2,5,1]\n");
        t.expect(out, 20, l -> src(l / 8 * 8 + sel[l % 8]), "dpp8 mov");
        t.expect(out, 21, l -> src(l / 8 * 8 + sel[l % 8]) + l * 5, "dpp8 add: only src0 moves");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void a_dpp_destination_that_is_also_the_source_reads_the_values_from_before_the_instruction(int wave)
            throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        var out = t.run(t.lanes(1, ValuDppSdwaTest::src) + "v_mov_b32_dpp v1, v1 row_shr:1 bound_ctrl:1\n");
        t.expect(out, 1, l -> l % 16 == 0 ? 0 : src(l - 1), "row_shr in place");
    }

    private static int sdwaInput(int lane) {
        return GuestAsm.a(lane) ^ (lane * 0x01030507);
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void sdwa_source_selects_zero_or_sign_extend_and_destination_selects_pad_sext_or_preserve(int wave)
            throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        String[] srcSel = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
        String[] dstSel = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
        StringBuilder p = new StringBuilder(t.lanes(1, ValuDppSdwaTest::sdwaInput)).append(t.lanes(2, l -> 0x1000 * l + 7));
        int reg = 20;
        for (String s : srcSel) {
            p.append("v_mov_b32_sdwa v").append(reg++).append(", v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:")
                    .append(s).append('\n');
            p.append("v_mov_b32_sdwa v").append(reg++).append(", sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:")
                    .append(s).append('\n');
        }
        for (String d : dstSel) {
            for (String unused : new String[] {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"}) {
                p.append("v_mov_b32 v").append(reg).append(", 0x5a5a5a5a\n");
                p.append("v_mov_b32_sdwa v").append(reg++).append(", v1 dst_sel:").append(d).append(" dst_unused:")
                        .append(unused).append(" src0_sel:DWORD\n");
            }
        }
        p.append("v_mov_b32 v").append(reg).append(", 0x5a5a5a5a\n");
        p.append("v_add_nc_u32_sdwa v").append(reg).append(", sext(v1), v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE ")
                .append("src0_sel:BYTE_2 src1_sel:WORD_1\n");
        var out = t.run(p.toString());
        reg = 20;
        for (int s = 0; s < 7; s++) {
            int sel = s;
            t.expect(out, reg++, l -> extract(sdwaInput(l), sel, false), "src0_sel " + srcSel[s]);
            t.expect(out, reg++, l -> extract(sdwaInput(l), sel, true), "sext src0_sel " + srcSel[s]);
        }
        for (int d = 0; d < 7; d++) {
            int offset = d < 4 ? 8 * d : d < 6 ? 16 * (d - 4) : 0;
            int width = d < 4 ? 8 : d < 6 ? 16 : 32;
            for (int unused = 0; unused < 3; unused++) {
                int u = unused;
                t.expect(out, reg++, l -> {
                    int v = sdwaInput(l);
                    int r = 0;
                    for (int i = 0; i < 32; i++) {
                        int bitValue;
                        if (i >= offset && i < offset + width) {
                            bitValue = v >>> (i - offset) & 1;
                        } else if (u == 2) {
                            bitValue = 0x5a5a5a5a >>> i & 1;
                        } else if (u == 1 && i >= offset + width) {
                            bitValue = v >>> (width - 1) & 1;
                        } else {
                            bitValue = 0;
                        }
                        r |= bitValue << i;
                    }
                    return r;
                }, "dst_sel " + dstSel[d] + " unused " + u);
            }
        }
        t.expect(out, reg, l -> {
            int sum = extract(sdwaInput(l), 2, true) + ((0x1000 * l + 7) >>> 16);
            return (sum << 16) | 0x5a5a;
        }, "v_add_nc_u32_sdwa");
    }

    /** The SDWA selection of {@code v}: byte 0-3, word 4-5, dword 6; zero- or sign-extended. */
    private static int extract(int v, int sel, boolean sext) {
        if (sel == 6) {
            return v;
        }
        int width = sel < 4 ? 8 : 16;
        int offset = sel < 4 ? 8 * sel : 16 * (sel - 4);
        long field = (v & 0xFFFFFFFFL) >>> offset & ((1L << width) - 1);
        if (sext && (field >>> (width - 1)) == 1) {
            field -= 1L << width;
        }
        return (int) field;
    }
}
