package org.replayfarm.evalnode.hostmodel.valu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.junit.jupiter.api.Tag;

/**
 * Cross-lane and move instructions (RDNA 2 ISA, VOP1/VOP2/VOP3): readlane / writelane / readfirstlane,
 * mbcnt, the M0-relative moves, swaps, permlane16 / permlanex16 and cndmask.
 */
@Tag("unit")
class ValuLaneTest {
    @TempDir
    Path dir;

    private static int value(int lane) {
        return 0x5000 + lane * 11;
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void readfirstlane_reads_the_lowest_active_lane_and_readlane_writelane_ignore_exec(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long active = wave == 32 ? 0xFFFF_FFE0L : 0xFFFF_0000_0000_0000L;
        int first = Long.numberOfTrailingZeros(active);
        String p = t.lanes(1, ValuLaneTest::value) + GuestAsm.scalar("s4", 37, 9)
                + "v_mov_b32 v2, 7\n" + t.exec(active, 9)
                + "v_readfirstlane_b32 s10, v1\n"
                + "v_readlane_b32 s11, v1, 3\n"
                + "v_readlane_b32 s12, v1, s4\n"
                + "v_writelane_b32 v2, 0x1234, 2\n"
                + "v_writelane_b32 v2, s10, s4\n";
        var out = t.run(p);
        Wave w = out.wave(0);
        assertEquals(value(first), w.sgpr(10), "first active lane");
        assertEquals(value(3), w.sgpr(11), "readlane of an inactive lane");
        assertEquals(value(37 % wave), w.sgpr(12), "lane select taken modulo the wave size");
        assertEquals(0x1234, w.vgpr(2, 2), "writelane into an inactive lane");
        assertEquals(value(first), w.vgpr(2, 37 % wave));
        assertEquals(7, w.vgpr(2, 1), "other lanes untouched");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void mbcnt_counts_the_mask_bits_below_each_lane(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long mask = 0x9E37_79B9_7F4A_7C15L;
        String p = GuestAsm.scalar("s4", (int) mask, 9) + GuestAsm.scalar("s5", (int) (mask >>> 32), 9)
                + "v_mbcnt_lo_u32_b32 v20, -1, 0\n"
                + "v_mbcnt_hi_u32_b32 v20, -1, v20\n"
                + "v_mbcnt_lo_u32_b32 v21, s4, 100\n"
                + "v_mbcnt_hi_u32_b32 v21, s5, v21\n";
        var out = t.run(p);
        t.expect(out, 20, l -> l, "lane id");
        t.expect(out, 21, l -> {
            int n = 100;
            for (int i = 0; i < l && i < 64; i++) {
                // wave32: mbcnt_hi has no lanes below it in the high half
                if (i < 32 || wave == 64) {
                    n += (int) (mask >>> i & 1);
                }
            }
            return n;
        }, "masked count");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void m0_relative_moves_index_the_vgprs(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        StringBuilder p = new StringBuilder();
        for (int r = 0; r < 8; r++) {
            int k = r;
            p.append(t.lanes(10 + r, l -> value(l) + 0x100000 * k));
        }
        p.append(GuestAsm.scalar("m0", 3, 9))
                .append("v_movrels_b32 v20, v10\n")        // v20 = v13
                .append("v_movreld_b32 v21, v11\n")         // v24 = v11
                .append("v_movrelsd_b32 v25, v12\n")        // v28 = v15
                .append(GuestAsm.scalar("m0", 0x00020004, 9))
                .append("v_movrelsd_2_b32 v30, v10\n")      // v32 = v14
                .append("v_mov_b32 v40, 1\nv_mov_b32 v41, 2\n")
                .append("v_swaprel_b32 v38, v37\n");        // swap v40 (38+2) and v41 (37+4)
        var out = t.run(p.toString());
        t.expect(out, 20, l -> value(l) + 0x300000, "movrels");
        t.expect(out, 24, l -> value(l) + 0x100000, "movreld");
        t.expect(out, 28, l -> value(l) + 0x500000, "movrelsd");
        t.expect(out, 32, l -> value(l) + 0x400000, "movrelsd_2");
        t.expect(out, 40, l -> 2, "swaprel destination");
        t.expect(out, 41, l -> 1, "swaprel source");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void swap_exchanges_only_active_lanes(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long active = 0x0F0F_0F0F_0F0F_0F0FL & t.allLanes();
        var out = t.run(t.lanes(1, ValuLaneTest::value) + t.lanes(2, l -> -l) + t.exec(active, 9)
                + "v_swap_b32 v1, v2\n");
        t.expect(out, 1, l -> (active >>> l & 1) != 0 ? -l : value(l), "v1");
        t.expect(out, 2, l -> (active >>> l & 1) != 0 ? value(l) : -l, "v2");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void permlane16_reads_within_the_row_and_permlanex16_from_the_other_row(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long select = 0x0123_4567_89AB_CDEFL ^ 0x5A5A_0000_A5A5_0000L;
        long active = wave == 32 ? 0xFFFF_F0FFL : 0xFFFF_FFFF_FFFF_F0FFL;
        int old = 0x0DD0;
        String p = t.lanes(1, ValuLaneTest::value) + GuestAsm.scalar("s4", (int) select, 9)
                + GuestAsm.scalar("s5", (int) (select >>> 32), 9)
                + "v_mov_b32 v20, 0x" + Integer.toHexString(old) + "\n"
                + "v_mov_b32 v21, 0x" + Integer.toHexString(old) + "\n"
                + "v_mov_b32 v22, 0x" + Integer.toHexString(old) + "\n"
                + "v_mov_b32 v23, 0x" + Integer.toHexString(old) + "\n"
                + t.exec(active, 9)
                + "v_permlane16_b32 v20, v1, s4, s5\n"
                + "v_permlanex16_b32 v21, v1, s4, s5\n"
                + "v_permlane16_b32 v22, v1, s4, s5 op_sel:[1,0]\n"
                + "v_permlane16_b32 v23, v1, s4, s5 op_sel:[0,1]\n";
        var out = t.run(p);
        for (int v = 20; v <= 23; v++) {
            boolean cross = v == 21;
            boolean fi = v == 22;
            boolean bc = v == 23;
            t.expect(out, v, l -> {
                if ((active >>> l & 1) == 0) {
                    return old;
                }
                int sel = (int) (select >>> (4 * (l % 16)) & 15);
                int from = (cross ? (l / 16 ^ 1) * 16 : l / 16 * 16) + sel;
                if ((active >>> from & 1) == 0 && !fi) {
                    return bc ? 0 : old;
                }
                return value(from);
            }, "permlane v" + v);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void cndmask_picks_src1_where_the_mask_is_set(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        long mask = 0x1234_5678_9ABC_DEF0L & t.allLanes();
        String p = t.lanes(1, ValuLaneTest::value) + t.lanes(2, l -> ~l) + t.mask(10, mask, 9)
                + t.lanes(3, l -> (int) (mask >>> l & 1)) + "v_cmp_ne_u32_e32 " + t.vcc() + ", 0, v3\n"
                + "v_cndmask_b32_e32 v20, v1, v2, " + t.vcc() + "\n"
                + "v_cndmask_b32_e64 v21, v1, v2, " + t.maskOperand(10) + "\n"
                + "v_cndmask_b32_e64 v22, v1, -v2, " + t.maskOperand(10) + "\n"
                + "v_cndmask_b32_e64 v23, |v2|, 5, " + t.maskOperand(10) + "\n";
        var out = t.run(p);
        t.expect(out, 20, l -> (mask >>> l & 1) != 0 ? ~l : value(l), "vcc");
        t.expect(out, 21, l -> (mask >>> l & 1) != 0 ? ~l : value(l), "sgpr mask");
        t.expect(out, 22, l -> (mask >>> l & 1) != 0 ? ~l ^ 0x80000000 : value(l), "neg flips the sign bit");
        t.expect(out, 23, l -> (mask >>> l & 1) != 0 ? 5 : ~l & 0x7FFFFFFF, "abs clears the sign bit");
    }

    @ParameterizedTest
    @ValueSource(ints = {32, 64})
    void readfirstlane_with_exec_zero_reads_lane_0_and_nops_change_nothing(int wave) throws Exception {
        GuestAsm t = new GuestAsm(dir).waveSize(wave);
        var out = t.run(t.lanes(1, ValuLaneTest::value) + "v_nop\nv_pipeflush\nv_clrexcp\n"
                + "v_cmpx_eq_u32_e32 -1, v1\n"
                + "v_readfirstlane_b32 s10, v1\n"
                + "v_mov_b32 v1, 0\n");
        assertEquals(0L, out.wave(0).exec());
        assertEquals(value(0), out.wave(0).sgpr(10));
        t.expect(out, 1, ValuLaneTest::value, "nothing written with EXEC zero");
    }
}
