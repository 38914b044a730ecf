package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.replayfarm.coordinator.report.SyntheticCapture.W;
import static org.replayfarm.coordinator.report.SyntheticCapture.device;
import static org.replayfarm.coordinator.report.SyntheticCapture.f32;
import static org.replayfarm.coordinator.report.SyntheticCapture.group;
import static org.replayfarm.coordinator.report.SyntheticCapture.rgba;
import static org.replayfarm.coordinator.report.SyntheticCapture.texel;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.report.DiffResult.ByteRun;
import org.replayfarm.coordinator.report.DiffResult.GroupTrace;
import org.replayfarm.coordinator.report.DiffResult.ImageDiff;
import org.replayfarm.coordinator.report.DiffResult.RangeDiff;
import org.replayfarm.coordinator.report.DiffResult.TexelRegion;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.TexelStore;

/**
 * Synthetic device runs that differ from the host's merged outputs at known texels and bytes: every
 * count, region, traced group and verdict must name exactly those places.
 */
@Tag("unit")
class DiffTest {
    @TempDir
    Path dir;

    /**
     * Every group (gx, gy) stores the 2x2 block of image 0 at (2gx, 2gy) except group (0, 1), which leaves
     * (1, 3) alone; 16 bytes of range 0 at 16 * (gx + 4gy); and adds 1 to the word at range 1 offset 0.
     * Group (0, 0) stores 1.0 at (0, 0) of image 1 and group (1, 0), which executed 3 approximate
     * instructions, stores 2.0 at (1, 0).
     */
    private Evaluation.Outcome hostEveryGroup(SyntheticCapture c) {
        for (int gy = 0; gy < 2; gy++) {
            for (int gx = 0; gx < 4; gx++) {
                c.totals.add(hostGroup(gx, gy, -1));
            }
        }
        return c.totals.outcome(Duration.ofMillis(5), 1);
    }

    private static org.replayfarm.evalnode.hostmodel.GroupResult hostGroup(int gx, int gy, int skipByte) {
        List<TexelStore> texels = new ArrayList<>();
        for (int y = 2 * gy; y < 2 * gy + 2; y++) {
            for (int x = 2 * gx; x < 2 * gx + 2; x++) {
                if (!(gx == 0 && gy == 1 && x == 1 && y == 3)) {
                    texels.add(texel(0, x, y, rgba(200, 40 * gx, 60 * gy, 255)));
                }
            }
        }
        if (gx == 0 && gy == 0) {
            texels.add(texel(1, 0, 0, f32(1.0f)));
        }
        if (gx == 1 && gy == 0) {
            texels.add(texel(1, 1, 0, f32(2.0f)));
        }
        texels.sort(java.util.Comparator.comparingInt(TexelStore::image).thenComparingLong(TexelStore::texel));
        int key = gx + 4 * gy;
        List<StoreRun> stores = new ArrayList<>();
        byte[] data = new byte[16];
        for (int i = 0; i < 16; i++) {
            data[i] = (byte) (0xA0 + key);
        }
        if (skipByte >= 0) {
            stores.add(new StoreRun(0, key * 16, java.util.Arrays.copyOfRange(data, 0, skipByte - key * 16)));
            stores.add(new StoreRun(0, skipByte + 1, java.util.Arrays.copyOfRange(data, skipByte - key * 16 + 1, 16)));
        } else {
            stores.add(new StoreRun(0, key * 16, data));
        }
        List<AtomicContribution> atomics = List.of(new AtomicContribution(1, 0, "add", 4, 1, 0, 0));
        return group(gx, gy, stores, texels, atomics, gx == 1 && gy == 0 ? 3 : 0, null);
    }

    private static byte[] copy(byte[] b) {
        return b.clone();
    }

    @Test
    void a_device_run_equal_to_the_host_reports_no_difference_and_exit_status_0() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        Evaluation.Outcome o = hostEveryGroup(c);
        DiffResult d = Diff.compare(o.memory(), o.images(), device(copy(o.memory().range(0)), copy(o.memory().range(1)),
                copy(o.images().texels(0)), copy(o.images().texels(1))), DiffOptions.exact(true));
        assertTrue(d.equal());
        assertEquals(W * 4 - 1, d.images().get(0).compared(), "every texel but (1, 3) was stored");
        assertEquals(2, d.images().get(1).compared());
        assertEquals(128, d.ranges().get(0).compared());
        assertEquals(4, d.ranges().get(1).compared(), "the merged atomic's four bytes are compared");
        assertEquals(0, d.images().get(0).regionCount());
        RunReport.Verdict v = RunReport.verdict(o, d, 0);
        assertEquals("equal", v.status());
        assertEquals(0, v.exitStatus());
    }

    @Test
    void differing_texels_and_device_only_texels_are_counted_grouped_into_regions_and_traced_to_groups() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        Evaluation.Outcome o = hostEveryGroup(c);
        byte[] image0 = copy(o.images().texels(0));
        image0[(0 * W + 2) * 4 + 1] ^= 1;     // (2, 0) green, group (1, 0)
        image0[(0 * W + 3) * 4 + 3] ^= (byte) 0x80; // (3, 0) alpha, group (1, 0): joins (2, 0)
        image0[(2 * W + 6) * 4] ^= 4;         // (6, 2) red, group (3, 1)
        image0[(3 * W + 1) * 4 + 2] = 99;     // (1, 3): no group stored it
        DiffResult d = Diff.compare(o.memory(), o.images(), device(copy(o.memory().range(0)), copy(o.memory().range(1)),
                image0, copy(o.images().texels(1))), DiffOptions.exact(true));
        ImageDiff i = d.images().get(0);
        assertEquals(31, i.compared());
        assertEquals(3, i.differing());
        assertEquals(1, i.deviceOnly());
        assertEquals(3, i.regionCount());
        List<TexelRegion> r = i.regions();
        assertEquals(List.of(2, 0, 3, 0, 2L, 2L, 0L), List.of(r.get(0).x0(), r.get(0).y0(), r.get(0).x1(), r.get(0).y1(),
                r.get(0).texels(), r.get(0).differing(), r.get(0).deviceOnly()));
        assertEquals(List.of(new GroupTrace("(1, 0, 0)", 2, 3)), r.get(0).groups());
        assertEquals(List.of(6, 2, 6, 2, 1L), List.of(r.get(1).x0(), r.get(1).y0(), r.get(1).x1(), r.get(1).y1(), r.get(1).texels()));
        assertEquals(List.of(new GroupTrace("(3, 1, 0)", 1, 0)), r.get(1).groups());
        assertEquals(List.of(1, 3, 1L, 0L, 1L), List.of(r.get(2).x0(), r.get(2).y0(), r.get(2).texels(), r.get(2).differing(),
                r.get(2).deviceOnly()));
        assertEquals(List.of(), r.get(2).groups(), "a device-only texel has no storing group");
        assertTrue(i.differingTexels().get(2) && i.differingTexels().get(3) && i.differingTexels().get(2 * W + 6));
        assertTrue(i.deviceOnlyTexels().get(3 * W + 1));
        assertTrue(d.images().get(1).equal());
        RunReport.Verdict v = RunReport.verdict(o, d, 0);
        assertEquals("different", v.status());
        assertEquals(1, v.exitStatus());
        assertEquals(List.of("image 0 (colour): 3 of 31 compared texels differ, 1 device-only"), v.reasons());
    }

    @Test
    void differing_bytes_form_runs_device_only_bytes_count_separately_and_merged_atomics_compare_as_final_values()
            throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        Evaluation.Outcome o = hostEveryGroup(c);
        byte[] range0 = copy(o.memory().range(0));
        range0[20] ^= 1;
        range0[21] ^= 1;   // 20..21: group (1, 0)
        range0[100] ^= 1;  // group (2, 1)
        for (int i = 200; i < 204; i++) {
            range0[i] ^= 0x55; // no group stored past byte 127
        }
        byte[] range1 = copy(o.memory().range(1));
        assertEquals(SyntheticCapture.initialRange(1)[0] + 8, range1[0], "eight groups added 1");
        range1[0] ^= 2;    // the device's sum differs from the merged atomics
        DiffResult d = Diff.compare(o.memory(), o.images(), device(range0, range1, copy(o.images().texels(0)),
                copy(o.images().texels(1))), DiffOptions.exact(true));
        RangeDiff m = d.ranges().get(0);
        assertEquals(128, m.compared());
        assertEquals(3, m.differing());
        assertEquals(4, m.deviceOnly());
        assertEquals(3, m.regionCount());
        List<ByteRun> runs = m.regions();
        assertEquals(new ByteRun(0, 20, 2, 2, 0, List.of(new GroupTrace("(1, 0, 0)", 2, 3))), runs.get(0));
        assertEquals(new ByteRun(0, 100, 1, 1, 0, List.of(new GroupTrace("(2, 1, 0)", 1, 0))), runs.get(1));
        assertEquals(new ByteRun(0, 200, 4, 0, 4, List.of()), runs.get(2));
        RangeDiff bins = d.ranges().get(1);
        assertEquals(1, bins.differing());
        List<GroupTrace> all = new ArrayList<>();
        for (int gy = 0; gy < 2; gy++) {
            for (int gx = 0; gx < 4; gx++) {
                all.add(new GroupTrace("(" + gx + ", " + gy + ", 0)", 1, gx == 1 && gy == 0 ? 3 : 0));
            }
        }
        assertEquals(all, bins.regions().get(0).groups(), "an atomic's bytes trace to every group that added to it");
        assertEquals(8, bins.values().get(0).groups().size(), "and so does its listed value");
    }

    @Test
    void ulp_and_approximate_tolerances_accept_only_what_they_name() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        Evaluation.Outcome o = hostEveryGroup(c);
        byte[] image1 = copy(o.images().texels(1));
        System.arraycopy(f32(Math.nextUp(1.0f)), 0, image1, 0, 4);                                     // 1 ulp, group (0, 0)
        System.arraycopy(f32(Float.intBitsToFloat(Float.floatToIntBits(2.0f) + 4)), 0, image1, 4, 4); // 4 ulp, group (1, 0)
        var dev = device(copy(o.memory().range(0)), copy(o.memory().range(1)), copy(o.images().texels(0)), image1);

        ImageDiff exact = Diff.compare(o.memory(), o.images(), dev, DiffOptions.exact(true)).images().get(1);
        assertEquals(2, exact.differing());
        assertEquals(1, exact.regionCount(), "(0, 0) and (1, 0) touch");

        ImageDiff ulp1 = Diff.compare(o.memory(), o.images(), dev, new DiffOptions(true, 1, false)).images().get(1);
        assertEquals(1, ulp1.differing());
        assertEquals(1, ulp1.toleratedUlp());
        assertTrue(ulp1.differingTexels().get(1));

        ImageDiff ulp4 = Diff.compare(o.memory(), o.images(), dev, new DiffOptions(true, 4, false)).images().get(1);
        assertEquals(0, ulp4.differing());
        assertEquals(2, ulp4.toleratedUlp());

        ImageDiff approx = Diff.compare(o.memory(), o.images(), dev, new DiffOptions(true, 0, true)).images().get(1);
        assertEquals(2, approx.differing(), "group (0, 0) executed no approximate instruction, and 4 ulp is more "
                + "than group (1, 0)'s approximate instructions explain");
        assertEquals(0, approx.toleratedApproximate());

        // one ulp off in both texels: only the group that executed approximate instructions is excused
        byte[] oneUlp = copy(o.images().texels(1));
        System.arraycopy(f32(Math.nextUp(1.0f)), 0, oneUlp, 0, 4);
        System.arraycopy(f32(Math.nextUp(2.0f)), 0, oneUlp, 4, 4);
        var dev1 = device(copy(o.memory().range(0)), copy(o.memory().range(1)), copy(o.images().texels(0)), oneUlp);
        ImageDiff approx1 = Diff.compare(o.memory(), o.images(), dev1, new DiffOptions(true, 0, true)).images().get(1);
        assertEquals(1, approx1.differing());
        assertTrue(approx1.differingTexels().get(0), "group (0, 0) executed no approximate instruction");
        assertEquals(1, approx1.toleratedApproximate());

        // an overflow to infinity, or a NaN, is never a few ulps off
        assertEquals(1, org.replayfarm.model.compare.Ulps.between(32, 0x7F7F_FFFEL, 0x7F7F_FFFFL));
        assertEquals(Long.MAX_VALUE, org.replayfarm.model.compare.Ulps.between(32, 0x7F7F_FFFFL, 0x7F80_0000L));
        assertEquals(Long.MAX_VALUE, org.replayfarm.model.compare.Ulps.between(32, 0x7F80_0000L, 0x7FC0_0000L));
        assertEquals(Long.MAX_VALUE, org.replayfarm.model.compare.Ulps.between(16, 0x7BFFL, 0x7C00L));
        assertEquals(Long.MAX_VALUE, org.replayfarm.model.compare.Ulps.between(11, 0x7BFL, 0x7C0L));
        assertEquals(0, org.replayfarm.model.compare.Ulps.between(32, 0x7F80_0000L, 0x7F80_0000L));

        // ulps never apply to UNORM channels
        byte[] image0 = copy(o.images().texels(0));
        image0[0] ^= 1;
        ImageDiff unorm = Diff.compare(o.memory(), o.images(), device(null, null, image0, null),
                new DiffOptions(true, 100, false)).images().get(0);
        assertEquals(1, unorm.differing());
    }

    @Test
    void a_group_selection_counts_device_only_changes_only_inside_its_footprint() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        // the device ran every group: take its outputs from a full host evaluation
        SyntheticCapture full = new SyntheticCapture(dir.resolve("full"));
        Evaluation.Outcome all = hostEveryGroup(full);
        c.totals.add(hostGroup(0, 0, -1));
        c.totals.add(hostGroup(1, 0, 25)); // leaves byte 25 alone
        Evaluation.Outcome o = c.totals.outcome(Duration.ofMillis(1), 1);
        byte[] image0 = copy(all.images().texels(0));
        image0[(1 * W + 3) * 4] ^= 1;   // (3, 1): stored by group (1, 0) on the host too -> differing
        image0[(3 * W + 3) * 4] ^= 1;   // (3, 3): outside the footprint x 0..3, y 0..1
        byte[] range0 = copy(all.memory().range(0));
        range0[25] = (byte) 0xA1;       // the device's own store (the selection's host skipped it): inside 0..31
        DiffResult d = Diff.compare(o.memory(), o.images(), device(range0, copy(all.memory().range(1)), image0,
                copy(all.images().texels(1))), DiffOptions.exact(false));
        ImageDiff i = d.images().get(0);
        assertEquals(8, i.compared());
        assertEquals(1, i.differing());
        assertEquals(0, i.deviceOnly(), "texels other groups stored lie outside the footprint");
        assertEquals("mip 0: x 0..3, y 0..1", i.footprint());
        RangeDiff m = d.ranges().get(0);
        assertEquals("bytes 0..31", m.footprint());
        assertEquals(31, m.compared());
        assertEquals(0, m.differing());
        assertEquals(1, m.deviceOnly(), "byte 25 lies inside the footprint; bytes 32..127 do not count");
        assertEquals(25, m.regions().get(0).offset());
        // the same device run with every group compared: everything the other groups stored is device-only
        ImageDiff whole = Diff.compare(o.memory(), o.images(), device(null, null, image0, null), DiffOptions.exact(true))
                .images().get(0);
        assertEquals(32 - 8 - 1, whole.deviceOnly());
    }

    @Test
    void faults_and_store_conflicts_make_the_run_not_equal_and_say_why() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        c.totals.add(group(0, 0, List.of(new StoreRun(0, 0, new byte[] {1})), List.of(texel(0, 0, 0, rgba(1, 2, 3, 4))),
                List.of(), 0, null));
        c.totals.add(group(1, 0, List.of(new StoreRun(0, 0, new byte[] {2})), List.of(texel(0, 0, 0, rgba(9, 9, 9, 9))),
                List.of(), 0, new FaultRecord(1, 0, 0, 0, 3, 0x2000_0010L, "global_load_b32 v0, v[0:1], off",
                        "address 0x0 lies outside every range")));
        Evaluation.Outcome o = c.totals.outcome(Duration.ofMillis(1), 1);
        DiffResult d = Diff.compare(o.memory(), o.images(), device(copy(o.memory().range(0)), copy(o.memory().range(1)),
                copy(o.images().texels(0)), copy(o.images().texels(1))), DiffOptions.exact(false));
        assertTrue(d.equal(), "the device agrees with the later group's values");
        RunReport.Verdict v = RunReport.verdict(o, d, 2);
        assertEquals("host incomplete", v.status());
        assertEquals(1, v.exitStatus());
        assertEquals(3, v.reasons().size(), v.reasons().toString());
        assertTrue(v.reasons().get(0).startsWith("1 group(s) faulted on the host model, first: group (1, 0, 0) wave 0 lane 3"));
        assertEquals("2 store conflict(s): groups stored different values to one byte or texel", v.reasons().get(1));
        assertEquals("2 slice(s) evaluated twice hashed differently (nondeterminism)", v.reasons().get(2));
        RunReport.Verdict hostOnly = RunReport.verdict(hostEveryGroup(new SyntheticCapture(dir.resolve("b"))), null, 0);
        assertEquals("host only", hostOnly.status());
        assertEquals(0, hostOnly.exitStatus());
        assertFalse(hostOnly.reasons().iterator().hasNext());
    }

    @Test
    void a_texel_several_groups_changed_atomically_names_every_group() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir);
        long texel = 3L * W + 5;
        for (int g = 0; g < 3; g++) {
            c.totals.add(new org.replayfarm.evalnode.hostmodel.GroupResult(g, 0, 0, List.of(), List.of(), List.of(),
                    List.of(new org.replayfarm.evalnode.hostmodel.TexelAtomic(1, texel, "add", 4, 1, 0, 0)),
                    java.util.Optional.empty(), 1, 1, 1, 0, 0));
        }
        Evaluation.Outcome o = c.totals.outcome(Duration.ofMillis(5), 1);
        byte[] image1 = copy(o.images().texels(1));
        image1[(int) texel * 4] ^= 4;
        ImageDiff d = Diff.compare(o.memory(), o.images(), device(null, null, null, image1), DiffOptions.exact(true))
                .images().get(1);
        assertEquals(1, d.differing());
        assertEquals(List.of("(0, 0, 0)", "(1, 0, 0)", "(2, 0, 0)"), d.values().get(0).groups());
        assertEquals(3, d.regions().get(0).groups().size(), "every group that added to the texel, not the last alone");
        assertEquals(List.of(5L, 3L), List.of(d.values().get(0).col(), d.values().get(0).row()));
    }
}
