package org.replayfarm.evalnode.hostmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeTable;

/**
 * The fast tier against the reference tier, bit for bit: every group's stores, texel stores, atomics,
 * fault record and counts, and (for the random programs) every wave's final SGPRs, SCC, EXEC, MODE, PC and
 * every lane of every VGPR. Seeded random programs (llvm-mc-19 assembles them) mix every vector ALU row
 * that has a lane kernel (so the fast tier specialises it) with the forms it leaves to the reference
 * (DPP, SDWA, float compares), compares, carries, 64-bit shifts, GLOBAL loads and stores, EXEC changes
 * (down to no lane), MODE changes (all ten bits: IEEE and DX10_CLAMP too, so OMOD and CLAMP act) and, in some
 * programs, a faulting access at the end; a line llvm-mc-19 refuses fails the test unless its reason is listed in
 * {@link #MAY_BE_DROPPED}. The examples run
 * through both tiers too (a sample of the shadow pass's groups; {@code -Dtier.diff.full=true} runs every
 * group and {@code -Dtier.diff.programs=N} more programs per wave size).
 */
@Tag("corpus")
class TierDifferentialTest {
    private static final int PROGRAMS = Integer.getInteger("tier.diff.programs", 6);
    private static final int BODY = Integer.getInteger("tier.diff.body", 120);
    private static final boolean FULL = Boolean.getBoolean("tier.diff.full");

    @TempDir
    Path dir;

    @Test
    void random_programs_run_the_same_on_both_tiers() throws Exception {
        List<String> failures = new ArrayList<>();
        int instructions = 0;
        int specialised = 0;
        int faults = 0;
        long compiledRun = 0;
        for (int wave : new int[] {32, 64}) {
            for (int i = 0; i < PROGRAMS; i++) {
                long seed = 0x7135_0000L + wave * 1000L + i;
                Generator g = new Generator(wave, new Random(seed));
                GuestAsm runner = new GuestAsm(dir).groupSize(wave).buffer(g.buffer());
                if (wave == 64) {
                    runner.wave64();
                }
                Kernel kernel = assemble(runner, g.program(BODY, i % 3 == 2));
                HostModel fast = new HostModel(kernel, 1_000_000, HostModel.Tier.FAST);
                HostModel reference = new HostModel(kernel, 1_000_000, HostModel.Tier.REFERENCE);
                HostModel.Run a = fast.runKeepingState(0, 0, 0);
                HostModel.Run b = reference.runKeepingState(0, 0, 0);
                String name = "wave" + wave + " seed 0x" + Long.toHexString(seed);
                String da = GuestAsm.describe(a);
                String db = GuestAsm.describe(b);
                compiledRun += compiled(kernel, 1_000_000, db, failures, name);
                if (!da.equals(db)) {
                    failures.add(name + ": " + GuestAsm.firstDifference(da, db, "fast", "reference"));
                }
                instructions += kernel.program().instructions().size();
                specialised += fast.specialisedInstructions();
                faults += b.result().fault().isPresent() ? 1 : 0;
            }
        }
        System.out.printf("tier differential: %d programs, %d instructions (%d specialised by the fast tier, %d run "
                + "inside compiled runs), %d ending in a fault, %d disagreeing%n", 2 * PROGRAMS, instructions, specialised,
                compiledRun, faults, failures.size());
        assertEquals(List.of(), failures);
        // the programs exercise what they claim: most instructions take the fast tier's own paths, some fault
        assertTrue(specialised > instructions / 3, specialised + " of " + instructions + " specialised");
        assertTrue(faults > 0, "no program ended in a fault");
        assertTrue(compiledRun > instructions / 10, "the compiled tier ran " + compiledRun + " instructions compiled");
    }

    @Test
    void the_examples_run_the_same_on_both_tiers() throws Exception {
        Path root = GuestAsm.root();
        int groups = 0;
        long compiledRun = 0;
        for (String capture : List.of("examples/saxpy/saxpy.capture", "examples/shadow-pass/shadow.capture",
                "examples/hip-reduce/reduce.capture")) {
            Kernel kernel = new Kernel(CaptureFile.open(root.resolve(capture)));
            HostModel fast = new HostModel(kernel, HostModel.DEFAULT_BUDGET, HostModel.Tier.FAST);
            HostModel reference = new HostModel(kernel, HostModel.DEFAULT_BUDGET, HostModel.Tier.REFERENCE);
            // the compiled tier as it runs by default: runs compiled once hot, the rest on the fast tier's steps
            HostModel compiled = new HostModel(kernel, HostModel.DEFAULT_BUDGET, HostModel.Tier.COMPILED);
            List<int[]> all = GroupSelection.everyGroup().resolve(kernel.dispatch());
            int step = FULL ? 1 : Math.max(1, all.size() / 12); // a spread of groups by default
            for (int i = 0; i < all.size(); i += step) {
                int[] g = all.get(i);
                String a = GuestAsm.describe(fast.runKeepingState(g[0], g[1], g[2]));
                String b = GuestAsm.describe(reference.runKeepingState(g[0], g[1], g[2]));
                assertEquals(b, GuestAsm.describe(compiled.runKeepingState(g[0], g[1], g[2])), capture + " group " + Arrays.toString(g) + " (compiled tier)");
                assertEquals(b, a, capture + " group " + Arrays.toString(g));
                groups++;
            }
            assertTrue(fast.specialisedInstructions() > 0, capture + ": the fast tier specialised nothing");
            compiledRun += compiled.compiledInstructionsRun();
        }
        assertTrue(compiledRun > 0, "the compiled tier ran no compiled run in the examples");
        System.out.printf("tier differential: %d example groups equal on all three tiers (%d instructions inside "
                + "compiled runs)%n", groups, compiledRun);
    }

    /**
     * Every operation with a loop of its own in the fast tier ({@link FastLanes}: the integer kinds, f32
     * add/sub/subrev/mul/fma, v_cvt_f32_ubyteN; v_fmac, v_ldexp, v_frexp_exp, f32 compares of every relation
     * and v_cmpx; v_frexp_mant_f32, v_rcp_f32, v_sqrt_f32 and v_rsq_f32 with ABS/NEG, OMOD and CLAMP; v_div_scale_f32 into
     * VCC and an SGPR mask, v_div_fmas_f32 after it), each with vector, SGPR, inline and literal sources and
     * float ABS/NEG, on lanes holding zeros, denormals, infinities and NaNs beside ordinary values, under
     * MODE values (all ten bits) that flush or keep f32 denormals, round each way, and set or clear IEEE (OMOD acts
     * only when clear) and DX10_CLAMP (CLAMP keeps NaNs when clear), with a full and a partial EXEC; rcp, sqrt and
     * rsq also with SGPR and literal sources.
     */
    @Test
    void the_fast_tiers_own_lane_loops_run_the_same_on_both_tiers() throws Exception {
        String[] ints2 = {"v_and_b32", "v_or_b32", "v_xor_b32", "v_xnor_b32", "v_lshlrev_b32", "v_lshrrev_b32",
                "v_ashrrev_i32", "v_min_i32", "v_max_i32", "v_min_u32", "v_max_u32", "v_mul_lo_u32", "v_add_nc_u32",
                "v_sub_nc_u32", "v_subrev_nc_u32", "v_mul_hi_u32", "v_bcnt_u32_b32"};
        String[] ints3 = {"v_xad_u32", "v_lshl_add_u32", "v_and_or_b32", "v_lshl_or_b32", "v_add3_u32", "v_xor3_b32",
                "v_or3_b32", "v_add_lshl_u32", "v_bfe_u32", "v_bfi_b32"};
        String[] floats2 = {"v_add_f32", "v_sub_f32", "v_subrev_f32", "v_mul_f32"};
        // all ten MODE bits: IEEE (bit 9) and DX10_CLAMP (bit 8) set and clear, so OMOD (IEEE clear) and CLAMP's NaN
        // case (DX10_CLAMP clear) really act
        int[] modes = {0x3f0, 0x000, 0x310, 0x120, 0x2f1, 0x0f2, 0x3f3};
        int[] special = {0, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7f800000, 0xff800000, 0x7fc00000,
                0x7fa00000, 0x7f7fffff, 0x3f800000, 0xbf800000, 0x0c000000, 0x72000000, 0x7e7fffff, 0x7e800000,
                0xfe7fffff, 0x00800001};
        List<String> failures = new ArrayList<>();
        int programs = 0;
        Random r = new Random(0x7135_F00DL);
        for (int wave : new int[] {32, 64}) {
            String vcc = wave == 32 ? "vcc_lo" : "vcc";
            for (int mode : modes) {
                for (boolean partial : new boolean[] {false, true}) {
                    StringBuilder a = new StringBuilder();
                    a.append("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 10), 0x").append(Integer.toHexString(mode)).append('\n');
                    for (int reg = 1; reg <= 6; reg++) {
                        // ordinary values in some lanes, one special value (or its neighbour) in the others
                        a.append("v_mov_b32 v").append(reg).append(", 0x").append(Integer.toHexString(r.nextInt())).append('\n');
                        a.append("v_xor_b32 v").append(reg).append(", v").append(reg).append(", v0\n");
                        a.append("v_cmp_gt_u32 ").append(vcc).append(", ").append(1 + r.nextInt(wave - 1)).append(", v0\n");
                        a.append("v_cndmask_b32 v").append(reg).append(", 0x")
                                .append(Integer.toHexString(special[r.nextInt(special.length)])).append(", v").append(reg)
                                .append(", ").append(vcc).append('\n');
                    }
                    a.append("s_mov_b32 s8, 0x").append(Integer.toHexString(special[r.nextInt(special.length)])).append('\n');
                    a.append("s_mov_b32 s9, 0x").append(Integer.toHexString(r.nextInt())).append('\n');
                    if (partial) {
                        a.append("s_mov_b32 exec_lo, 0x5a5af0f3\n");
                    }
                    int dst = 10;
                    for (String op : ints2) {
                        a.append(op).append(" v").append(dst++).append(", v1, v2\n");
                        a.append(op).append("_e64 v").append(dst++).append(", s9, v3\n");
                        a.append(op).append(" v").append(dst++).append(", 0x1234567, v4\n");
                        a.append(op).append("_e64 v").append(dst++).append(", v5, 7\n");
                    }
                    for (String op : ints3) {
                        a.append(op).append(" v").append(dst++).append(", v1, v2, v3\n");
                        a.append(op).append(" v").append(dst++).append(", s9, v4, 9\n");
                        a.append(op).append(" v").append(dst++).append(", v5, 3, v6\n");
                    }
                    for (String op : new String[] {"v_mov_b32", "v_not_b32"}) {
                        a.append(op).append(" v").append(dst++).append(", v1\n");
                        a.append(op).append(" v").append(dst++).append(", s9\n");
                    }
                    for (int i = 0; i < 4; i++) {
                        a.append("v_cvt_f32_ubyte").append(i).append(" v").append(dst++).append(", v").append(1 + i).append('\n');
                    }
                    for (String op : floats2) {
                        a.append(op).append(" v").append(dst++).append(", v1, v2\n");
                        a.append(op).append(" v").append(dst++).append(", v3, v3\n");
                        a.append(op).append("_e64 v").append(dst++).append(", -v4, |v5|\n");
                        a.append(op).append("_e64 v").append(dst++).append(", s8, -|v6|\n");
                        a.append(op).append(" v").append(dst++).append(", 0.5, v2\n");
                        a.append(op).append(" v").append(dst++).append(", 0x7f7fffff, v1\n");
                    }
                    a.append("v_fma_f32 v").append(dst++).append(", v1, v2, v3\n");
                    a.append("v_fma_f32 v").append(dst++).append(", -v4, s8, |v5|\n");
                    a.append("v_fma_f32 v").append(dst++).append(", v6, 2.0, v1\n");
                    a.append("v_fma_f32 v").append(dst++).append(", v2, v2, -v6\n");
                    // v_fmac (the accumulator is the destination), v_ldexp (exponents that keep a normal result normal,
                    // and ones that leave the range either way), frexp, rcp/sqrt (rounding), f32 compares of every
                    // relation (VOPC to VCC, VOP3 to an SGPR mask, with ABS/NEG), then a v_cmpx last (EXEC changes)
                    a.append("v_mov_b32 v").append(dst).append(", v3\nv_fmac_f32 v").append(dst++).append(", v1, v2\n");
                    a.append("v_mov_b32 v").append(dst).append(", v6\nv_fmac_f32_e64 v").append(dst++).append(", -v4, |v5|\n");
                    a.append("v_mov_b32 v").append(dst).append(", v1\nv_fmac_f32 v").append(dst++).append(", s8, v2\n");
                    a.append("v_mov_b32 v").append(dst).append(", v2\nv_fmac_f32_e64 v").append(dst++).append(", v3, v4 clamp\n");
                    a.append("v_mov_b32 v").append(dst).append(", v5\nv_fmac_f32_e64 v").append(dst++).append(", v6, 0.5 mul:2\n");
                    for (String e : new String[] {"v0", "3", "-7", "s9", "0x7fffffff", "0x80000000", "120", "-140", "254"}) {
                        a.append("v_ldexp_f32 v").append(dst++).append(", v1, ").append(e).append('\n');
                        a.append("v_ldexp_f32 v").append(dst++).append(", -|v4|, ").append(e).append('\n');
                    }
                    a.append("v_ldexp_f32 v").append(dst++).append(", v2, v3 clamp\n");
                    a.append("v_ldexp_f32 v").append(dst++).append(", s8, v0 div:2\n");
                    for (int i = 1; i <= 6; i++) {
                        a.append("v_frexp_exp_i32_f32 v").append(dst++).append(", v").append(i).append('\n');
                        a.append("v_frexp_mant_f32 v").append(dst++).append(", v").append(i).append('\n');
                        a.append(i % 2 == 0 ? "v_rcp_f32 v" : "v_rsq_f32 v").append(dst++).append(", v").append(i).append('\n');
                        a.append("v_sqrt_f32 v").append(dst++).append(", v").append(i).append('\n');
                    }
                    a.append("v_frexp_exp_i32_f32_e64 v").append(dst++).append(", -|v2|\n");
                    a.append("v_frexp_mant_f32_e64 v").append(dst++).append(", -|v3|\n");
                    a.append("v_frexp_mant_f32_e64 v").append(dst++).append(", -v4 mul:2\n");
                    a.append("v_frexp_mant_f32_e64 v").append(dst++).append(", v5 clamp\n");
                    a.append("v_frexp_mant_f32 v").append(dst++).append(", s8\n");
                    a.append("v_frexp_mant_f32 v").append(dst++).append(", 0x7f7fffff\n");
                    // v_div_scale_f32 into VCC and an SGPR mask, v_div_fmas_f32 reading VCC (set lanes scale)
                    String mask2 = wave == 32 ? "s50" : "s[50:51]";
                    a.append("v_div_scale_f32 v").append(dst++).append(", ").append(vcc).append(", v1, v2, v3\n");
                    a.append("v_div_fmas_f32 v").append(dst++).append(", v4, v5, v6\n");
                    a.append("v_div_scale_f32 v").append(dst++).append(", ").append(mask2).append(", -v4, v5, -v6\n");
                    a.append("v_div_scale_f32 v").append(dst++).append(", ").append(vcc).append(", v3, s8, v3\n");
                    a.append("v_div_fmas_f32 v").append(dst++).append(", -v1, |v2|, v3 clamp\n");
                    a.append("v_div_fmas_f32 v").append(dst++).append(", v1, v2, v3 mul:2\n");
                    a.append("v_div_scale_f32 v").append(dst++).append(", ").append(vcc).append(", v2, v2, v5\n");
                    a.append("v_div_fmas_f32 v").append(dst++).append(", v6, v1, 0x7e800000\n");
                    a.append("v_div_scale_f32 v").append(dst++).append(", ").append(vcc).append(", v6, v5, v4\n");
                    a.append("v_div_fmas_f32 v").append(dst++).append(", v5, s9, v6\n");
                    for (String op : new String[] {"v_rcp_f32", "v_sqrt_f32", "v_rsq_f32"}) {
                        // their plain forms of v1..v6 are above; here SGPR and literal sources, with and without modifiers
                        // (the register file is nearly full: one SGPR and one literal line each)
                        a.append(op).append(" v").append(dst++).append(", s8\n");
                        a.append(op).append(" v").append(dst++).append(", 0x40490fdb\n");
                        a.append(op).append("_e64 v").append(dst++).append(", -|v").append(1 + r.nextInt(6)).append("|\n");
                        a.append(op).append("_e64 v").append(dst++).append(", -v").append(1 + r.nextInt(6))
                                .append(op.equals("v_rsq_f32") ? " clamp\n" : " mul:4\n");
                    }
                    String[] relations = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
                            "nlt", "tru"};
                    String pair = wave == 32 ? "s12" : "s[12:13]";
                    int sgpr = 14;
                    for (String c : relations) {
                        a.append("v_cmp_").append(c).append("_f32 ").append(vcc).append(", v1, v2\n");
                        a.append("v_cndmask_b32 v").append(dst++).append(", 0, 1, ").append(vcc).append('\n');
                        a.append("v_cmp_").append(c).append("_f32_e64 ").append(pair).append(", -v3, |v4|\n");
                        a.append("v_cndmask_b32_e64 v").append(dst++).append(", 0, 1, ").append(pair).append('\n');
                        a.append("v_cmp_").append(c).append("_f32 ").append(vcc).append(", s8, v5\n");
                        if (wave == 32) {
                            a.append("s_mov_b32 s").append(sgpr++).append(", vcc_lo\n");
                        } else {
                            // every lane's bit: the whole 64-bit mask
                            a.append("s_mov_b64 s[").append(sgpr).append(':').append(sgpr + 1).append("], vcc\n");
                            sgpr += 2;
                        }
                    }
                    a.append("v_cmpx_nlt_f32 v6, v1\n");
                    a.append("v_mov_b32 v").append(dst++).append(", v2\n");
                    // in place: the destination is also a source
                    a.append("v_add_f32 v1, v1, v2\nv_xor_b32 v2, v2, v3\nv_xad_u32 v3, v3, v4, v3\n");
                    a.append("s_endpgm\n");
                    GuestAsm runner = new GuestAsm(dir).groupSize(wave);
                    if (wave == 64) {
                        runner.wave64();
                    }
                    Kernel kernel = runner.kernel(a.toString());
                    HostModel fast = new HostModel(kernel, 1_000_000, HostModel.Tier.FAST);
                    HostModel reference = new HostModel(kernel, 1_000_000, HostModel.Tier.REFERENCE);
                    String da = GuestAsm.describe(fast.runKeepingState(0, 0, 0));
                    String db = GuestAsm.describe(reference.runKeepingState(0, 0, 0));
                    compiled(kernel, 1_000_000, db, failures, "wave" + wave + " mode 0x" + Integer.toHexString(mode) + (partial ? " partial" : " full"));
                    String where = "wave" + wave + " mode 0x" + Integer.toHexString(mode) + (partial ? " partial" : " full");
                    if (!da.equals(db)) {
                        failures.add(where
                                + ": " + GuestAsm.firstDifference(da, db, "fast", "reference"));
                    }
                    int lines = kernel.program().instructions().size();
                    assertTrue(fast.specialisedInstructions() > lines / 2,
                            fast.specialisedInstructions() + " of " + lines + " specialised");
                    // each family this test was written for runs through its specialised step in at least one line
                    // (a family falling back to the reference handler would agree with it and prove nothing)
                    for (String family : new String[] {"v_fmac_f32", "v_ldexp_f32", "v_frexp_exp_i32_f32", "v_frexp_mant_f32", "v_rcp_f32", "v_sqrt_f32", "v_rsq_f32", "v_div_scale_f32", "v_div_fmas_f32", "v_cmp_lt_f32",
                            "v_cmp_nlg_f32", "v_cmp_u_f32", "v_cmpx_nlt_f32"}) {
                        boolean some = kernel.program().instructions().stream()
                                .anyMatch(insn -> insn.mnemonic().equals(family) && fast.specialisedAt(insn.pc()));
                        assertTrue(some, "wave" + wave + ": no " + family + " line runs specialised");
                    }
                    programs++;
                }
            }
        }
        System.out.printf("tier differential (fast-tier loops): %d programs, %d disagreeing%n", programs, failures.size());
        assertEquals(List.of(), failures);
    }

    /**
     * OMOD and CLAMP under every combination of MODE's IEEE (bit 9) and DX10_CLAMP (bit 8): each probe line plain and
     * with mul:2, mul:4 and div:2 (f32 mul, add, rcp, sqrt, fma, frexp_mant, ldexp, fmac, so the fast tier's loops and
     * the reference both apply it), a known value, and CLAMP of NaNs; both tiers bit for bit, and the test checks
     * that OMOD really changes results when IEEE is clear (none when set) and that CLAMP keeps NaNs only without
     * DX10_CLAMP, so these lines cannot silently become no-ops on both tiers again.
     */
    @Test
    void omod_and_clamp_act_as_the_mode_says_on_both_tiers() throws Exception {
        int[] modes = {0x3f0, 0x000, 0x310, 0x120, 0x2f1, 0x0f2, 0x3f3, 0x0f0};
        int[] special = {0, 0x80000000, 0x00000001, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000,
                0x7f7fffff, 0x3f800000, 0xbf800000, 0x00800000, 0x7e800000};
        List<String> failures = new ArrayList<>();
        int omodChanges = 0;
        int programs = 0;
        Random r = new Random(0x03D0_C1A3L);
        for (int wave : new int[] {32, 64}) {
            String vcc = wave == 32 ? "vcc_lo" : "vcc";
            for (int mode : modes) {
                for (boolean partial : new boolean[] {false, true}) {
                    StringBuilder a = new StringBuilder();
                    a.append("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 10), 0x").append(Integer.toHexString(mode)).append('\n');
                    for (int reg = 1; reg <= 6; reg++) {
                        a.append("v_mov_b32 v").append(reg).append(", 0x").append(Integer.toHexString(r.nextInt())).append('\n');
                        a.append("v_xor_b32 v").append(reg).append(", v").append(reg).append(", v0\n");
                        a.append("v_cmp_gt_u32 ").append(vcc).append(", ").append(1 + r.nextInt(wave - 1)).append(", v0\n");
                        a.append("v_cndmask_b32 v").append(reg).append(", 0x")
                                .append(Integer.toHexString(special[r.nextInt(special.length)])).append(", v").append(reg)
                                .append(", ").append(vcc).append('\n');
                    }
                    a.append("s_mov_b32 s8, 0x").append(Integer.toHexString(special[r.nextInt(special.length)])).append('\n');
                    a.append("s_mov_b32 s10, 0x7fc00000\n");
                    if (partial) {
                        a.append("s_mov_b32 exec_lo, 0x5a5af0f3\n");
                    }
                    int dst = 10;
                    // OMOD probes: each line plain, then mul:2, mul:4 and div:2 (counted below: OMOD must change results
                    // when IEEE is clear), and one known value
                    int omodFrom = dst;
                    String[] omodLines = {"v_mul_f32_e64 %s, v1, v2", "v_add_f32_e64 %s, v3, s8", "v_rcp_f32_e64 %s, v4",
                            "v_sqrt_f32_e64 %s, |v5|", "v_fma_f32 %s, v1, v2, v6", "v_frexp_mant_f32_e64 %s, v2",
                            "v_ldexp_f32 %s, v3, 1", "v_fmac_f32_e64 %s, v4, v5"};
                    for (String line : omodLines) {
                        for (String o : new String[] {"", " mul:2", " mul:4", " div:2"}) {
                            if (line.startsWith("v_fmac")) {
                                a.append("v_mov_b32 v").append(dst).append(", v6\n");
                            }
                            a.append(String.format(line, "v" + dst++)).append(o).append('\n');
                        }
                    }
                    int known = dst;
                    a.append("v_mul_f32_e64 v").append(dst++).append(", 0.5, 1.0 mul:4\n");
                    // CLAMP of a NaN: 0 under DX10_CLAMP, the NaN without it
                    int nanClamp = dst;
                    a.append("v_add_f32_e64 v").append(dst++).append(", s10, v1 clamp\n");
                    a.append("v_mul_f32_e64 v").append(dst++).append(", v2, s10 clamp\n");
                    a.append("v_rsq_f32_e64 v").append(dst++).append(", s10 clamp\n");
                    a.append("v_fma_f32 v").append(dst++).append(", s10, v1, v2 clamp\n");
                    a.append("s_endpgm\n");
                    GuestAsm runner = new GuestAsm(dir).groupSize(wave);
                    if (wave == 64) {
                        runner.wave64();
                    }
                    Kernel kernel = runner.kernel(a.toString());
                    HostModel fast = new HostModel(kernel, 1_000_000, HostModel.Tier.FAST);
                    HostModel reference = new HostModel(kernel, 1_000_000, HostModel.Tier.REFERENCE);
                    HostModel.Run fastRun = fast.runKeepingState(0, 0, 0);
                    String da = GuestAsm.describe(fastRun);
                    String db = GuestAsm.describe(reference.runKeepingState(0, 0, 0));
                    compiled(kernel, 1_000_000, db, failures, "wave" + wave + " mode 0x" + Integer.toHexString(mode) + (partial ? " partial" : " full"));
                    String where = "wave" + wave + " mode 0x" + Integer.toHexString(mode) + (partial ? " partial" : " full");
                    // OMOD and CLAMP act as the mode says (so the modifier lines above are no no-ops on both tiers)
                    boolean ieee = (mode & 0x200) != 0;
                    boolean dx10 = (mode & 0x100) != 0;
                    int[] v = fastRun.group().waves().get(0).vgprFile();
                    int changed = 0;
                    for (int line = 0; line < omodLines.length; line++) {
                        int plain = omodFrom + 4 * line;
                        for (int o = 1; o <= 3; o++) {
                            for (int l = 0; l < wave; l++) {
                                changed += v[(plain + o) * wave + l] != v[plain * wave + l] ? 1 : 0;
                            }
                        }
                    }
                    int activeLanes = partial ? Integer.bitCount(0x5a5af0f3) + (wave - 32) : wave; // exec_hi stays full
                    int nanLanes = 0;
                    for (int reg = nanClamp; reg < nanClamp + 4; reg++) {
                        for (int l = 0; l < wave; l++) {
                            nanLanes += Float.isNaN(Float.intBitsToFloat(v[reg * wave + l])) ? 1 : 0;
                        }
                    }
                    omodChanges += changed;
                    if (ieee) {
                        assertEquals(0, changed, where + ": OMOD acted with IEEE set");
                        assertEquals(0x3f000000, v[known * wave], where + ": 0.5 * 1.0 mul:4 with IEEE set");
                    } else {
                        assertTrue(changed > wave, where + ": OMOD changed only " + changed + " lane results");
                        assertEquals(0x40000000, v[known * wave], where + ": 0.5 * 1.0 mul:4 with IEEE clear");
                    }
                    assertEquals(dx10 ? 0 : 4 * activeLanes, nanLanes, where + ": NaN lanes after CLAMP");
                    if (!da.equals(db)) {
                        failures.add(where + ": " + GuestAsm.firstDifference(da, db, "fast", "reference"));
                    }
                    assertTrue(fast.specialisedInstructions() > kernel.program().instructions().size() / 2,
                            where + ": " + fast.specialisedInstructions() + " specialised");
                    programs++;
                }
            }
        }
        System.out.printf("tier differential (OMOD/CLAMP): %d programs, %d lane results changed by OMOD, %d disagreeing%n",
                programs, omodChanges, failures.size());
        assertEquals(List.of(), failures);
    }

    /**
     * The fast tier's image_load / image_store ({@code image.ImageFast}): formats of 8-bit channels (tables), 32-bit
     * FLOAT/UINT/SINT channels (raw bits) and others (the codec), random texels (NaNs, denormals and every byte
     * value among them), DST_SEL orders with 0 and 1, DMASKs of one to four channels, coordinates inside and outside
     * the image (negative ones too), 1D and 2D, a 128-bit T#, a full and a partial EXEC, stores of special values
     * then loads that see the group's own texels, wave32 and wave64: registers, stores and counts bit for bit.
     */
    @Test
    void the_fast_tiers_image_loads_and_stores_run_the_same_on_both_tiers() throws Exception {
        String[] formats = {"8_8_8_8_UNORM", "8_8_8_8_SRGB", "8_UNORM", "8_8_SNORM", "8_8_8_8_UINT", "8_8_8_8_SINT",
                "8_8_8_8_USCALED", "8_SSCALED", "32_FLOAT", "32_UINT", "32_32_SINT", "32_32_32_32_FLOAT",
                "16_16_16_16_FLOAT", "10_11_11_FLOAT", "16_UNORM"};
        String[] orders = {"XYZW", "ZYXW", "X0Y1", "WZYX", "1X0W", "YYYY"};
        int[] special = {0, 0x80000000, 0x00000001, 0x7f800000, 0xff800000, 0x7fc00000, 0x3f800000, 0xbf000000,
                0x3effffff, 0x437f0000, 0x4f800000, 0xcf000000, 0x3b808081};
        Random r = new Random(0x1A6E_F457L);
        List<String> failures = new ArrayList<>();
        int programs = 0;
        for (int wave : new int[] {32, 64}) {
            String vcc = wave == 32 ? "vcc_lo" : "vcc";
            for (String format : formats) {
                String order = orders[r.nextInt(orders.length)];
                int bpt = org.replayfarm.model.image.ImageFormat.parse(format).bytesPerTexel();
                byte[] texels = new byte[16 * 6 * bpt];
                r.nextBytes(texels);
                StringBuilder a = new StringBuilder("""
                        s_load_dwordx2 s[4:5], s[0:1], 0x8
                        s_waitcnt lgkmcnt(0)
                        s_load_dwordx8 s[8:15], s[4:5], 0x0
                        s_waitcnt lgkmcnt(0)
                        v_mul_u32_u24 v1, 7, v0
                        v_and_b32 v1, 31, v1
                        v_subrev_nc_u32 v1, 3, v1
                        v_lshrrev_b32 v2, 3, v0
                        """);
                for (int reg = 20; reg < 28; reg++) {
                    a.append("v_mov_b32 v").append(reg).append(", 0x").append(Integer.toHexString(r.nextInt())).append('\n');
                    a.append("v_xor_b32 v").append(reg).append(", v").append(reg).append(", v0\n");
                    a.append("v_cmp_gt_u32 ").append(vcc).append(", ").append(1 + r.nextInt(wave - 1)).append(", v0\n");
                    a.append("v_cndmask_b32 v").append(reg).append(", 0x")
                            .append(Integer.toHexString(special[r.nextInt(special.length)])).append(", v").append(reg)
                            .append(", ").append(vcc).append('\n');
                }
                a.append("""
                        image_load v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        image_load v8, v[1:2], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
                        image_load v[9:10], v[1:2], s[8:15] dmask:0x6 dim:SQ_RSRC_IMG_2D unorm
                        image_load v[11:13], v[1:2], s[8:15] dmask:0xb dim:SQ_RSRC_IMG_2D unorm
                        image_load v14, v1, s[8:15] dmask:0x8 dim:SQ_RSRC_IMG_1D unorm
                        image_load v[15:18], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm r128
                        s_mov_b32 exec_lo, 0x5a5af0f3
                        image_store v[20:23], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        v_add_nc_u32 v3, 1, v1
                        image_store v[24:25], [v3, v2], s[8:15] dmask:0x5 dim:SQ_RSRC_IMG_2D unorm
                        image_load v[28:31], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        s_mov_b32 exec_lo, -1
                        image_load v[32:35], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        image_store v26, v3, s[8:15] dmask:0x2 dim:SQ_RSRC_IMG_1D unorm
                        image_load v[36:37], v3, s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_1D unorm
                        s_endpgm
                        """);
                GuestAsm runner = new GuestAsm(dir).groupSize(wave);
                if (wave == 64) {
                    runner.wave64();
                }
                Path raw = runner.file("img-" + format + ".raw", texels);
                Kernel kernel = runner.arg("zeros:256").arg("image:raw:" + raw + ",16x6,format=" + format + ",order=" + order)
                        .kernel(a.toString());
                HostModel fast = new HostModel(kernel, 1_000_000, HostModel.Tier.FAST);
                HostModel reference = new HostModel(kernel, 1_000_000, HostModel.Tier.REFERENCE);
                String da = GuestAsm.describe(fast.runKeepingState(0, 0, 0));
                String db = GuestAsm.describe(reference.runKeepingState(0, 0, 0));
                compiled(kernel, 1_000_000, db, failures, "wave" + wave + " " + format + " " + order);
                if (!da.equals(db)) {
                    failures.add("wave" + wave + " " + format + " " + order + ": "
                            + GuestAsm.firstDifference(da, db, "fast", "reference"));
                }
                for (String family : new String[] {"image_load", "image_store"}) {
                    long plain = kernel.program().instructions().stream().filter(i -> i.mnemonic().equals(family)).count();
                    long taken = kernel.program().instructions().stream()
                            .filter(i -> i.mnemonic().equals(family) && fast.specialisedAt(i.pc())).count();
                    assertEquals(plain, taken, "wave" + wave + " " + format + ": " + family + " lines run specialised");
                }
                programs++;
            }
        }
        System.out.printf("tier differential (fast-tier images): %d programs, %d disagreeing%n", programs, failures.size());
        assertEquals(List.of(), failures);
    }

    /**
     * The fast tier's image T# cache and its fallbacks: the same image_load / image_store executed twice in a loop
     * with the T# SGPRs changed in between (by s_mov from another image's T#, by s_load of it from memory, by s_mov of
     * the format field alone, to a 2D array's T# viewing its layer 1), so the fast tier's cached T# must miss and
     * the second pass must read and write the other image; T#s the fast path cannot take, which run the reference
     * handler (BASE_LEVEL past LAST_LEVEL, a level the capture lacks, an array layer past the captured ones); and a
     * T# whose base address lies outside every range, which faults. Two waves a group, wave32 and wave64: the whole
     * group's stores, texels, fault record (message, PC, group, wave, lane) and registers bit for bit.
     */
    @Test
    void the_fast_tiers_image_descriptor_cache_and_fallbacks_run_the_same_on_both_tiers() throws Exception {
        String[][] changes = {
                {"s_mov", "s_mov_b64 s[8:9], s[16:17]\ns_mov_b64 s[10:11], s[18:19]\ns_mov_b64 s[12:13], s[20:21]\n"
                        + "s_mov_b64 s[14:15], s[22:23]"},
                {"s_load", "s_load_dwordx8 s[8:15], s[6:7], 0x0\ns_waitcnt lgkmcnt(0)"},
                {"format only", "s_and_b32 s9, s9, 0xe00fffff\ns_and_b32 s31, s17, 0x1ff00000\ns_or_b32 s9, s9, s31"},
                {"array layer 1", "s_load_dwordx8 s[8:15], s[24:25], 0x0\ns_waitcnt lgkmcnt(0)\n"
                        + "s_and_b32 s11, s11, 0x0fffffff\ns_or_b32 s11, s11, 0xd0000000\n"
                        + "s_and_b32 s12, s12, 0xe000c000\ns_or_b32 s12, s12, 0x10002"},
                {"fallback: base level past last", "s_and_b32 s11, s11, 0xfff00fff\ns_or_b32 s11, s11, 0x2000"},
                {"fallback: level not captured", "s_and_b32 s11, s11, 0xfff00fff\ns_or_b32 s11, s11, 0x11000"},
                {"fallback: array layer not captured", "s_load_dwordx8 s[8:15], s[24:25], 0x0\ns_waitcnt lgkmcnt(0)\n"
                        + "s_and_b32 s11, s11, 0x0fffffff\ns_or_b32 s11, s11, 0xd0000000\n"
                        + "s_and_b32 s12, s12, 0xe000c000\ns_or_b32 s12, s12, 0x30003"},
                // (a T# whose address names no captured image is resolved by extent and format: 16x6 32_FLOAT matches none)
                {"fault: base outside every range", "s_mov_b32 s8, 0x7654300\ns_and_b32 s9, s9, 0xe00fff00\n"
                        + "s_and_b32 s31, s17, 0x1ff00000\ns_or_b32 s9, s9, s31\ns_or_b32 s9, s9, 0x7f"}};
        Random r = new Random(0x7D35_CAC4L);
        List<String> failures = new ArrayList<>();
        int programs = 0;
        int faults = 0;
        for (int wave : new int[] {32, 64}) {
            for (String[] change : changes) {
                StringBuilder a = new StringBuilder("""
                        s_load_dwordx2 s[26:27], s[0:1], 0x0
                        s_load_dwordx2 s[4:5], s[0:1], 0x8
                        s_load_dwordx2 s[6:7], s[0:1], 0x10
                        s_load_dwordx2 s[24:25], s[0:1], 0x18
                        s_waitcnt lgkmcnt(0)
                        s_load_dwordx8 s[8:15], s[4:5], 0x0
                        s_load_dwordx8 s[16:23], s[6:7], 0x0
                        s_waitcnt lgkmcnt(0)
                        v_mul_u32_u24 v1, 7, v0
                        v_and_b32 v1, 15, v1
                        v_subrev_nc_u32 v1, 1, v1
                        v_lshrrev_b32 v2, 3, v0
                        v_and_b32 v2, 3, v2
                        v_lshlrev_b32 v3, 2, v0
                        """);
                for (int reg = 20; reg < 24; reg++) {
                    a.append("v_mov_b32 v").append(reg).append(", 0x").append(Integer.toHexString(r.nextInt())).append('\n');
                    a.append("v_xor_b32 v").append(reg).append(", v").append(reg).append(", v0\n");
                }
                a.append("""
                        s_mov_b32 s30, 0
                        loop:
                        image_load v[4:7], v[1:2], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
                        image_store v[20:21], v[1:2], s[8:15] dmask:0x5 dim:SQ_RSRC_IMG_2D unorm
                        image_load v[8:9], v[1:2], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm
                        v_mov_b32 v44, v40
                        v_mov_b32 v45, v41
                        v_mov_b32 v46, v42
                        v_mov_b32 v47, v43
                        v_mov_b32 v48, v38
                        v_mov_b32 v49, v39
                        v_mov_b32 v40, v4
                        v_mov_b32 v41, v5
                        v_mov_b32 v42, v6
                        v_mov_b32 v43, v7
                        v_mov_b32 v38, v8
                        v_mov_b32 v39, v9
                        global_store_dword v3, v4, s[26:27]
                        v_add_nc_u32 v1, 1, v1
                        v_xor_b32 v20, 0x5555, v20
                        s_add_u32 s30, s30, 1
                        s_cmp_eq_u32 s30, 2
                        s_cbranch_scc1 done
                        """);
                a.append(change[1]).append("\ns_branch loop\ndone:\ns_endpgm\n");
                GuestAsm runner = new GuestAsm(dir).groupSize(2 * wave);
                if (wave == 64) {
                    runner.wave64();
                }
                byte[] ta = new byte[16 * 6 * 4];
                byte[] tb = new byte[8 * 4 * 4];
                float[] tc = new float[2 * 2 * 3];
                r.nextBytes(ta);
                r.nextBytes(tb);
                for (int i = 0; i < tc.length; i++) {
                    tc[i] = 100 * (i / 4) + i % 4;
                }
                Kernel kernel = runner.arg("zeros:512")
                        .arg("image:raw:" + runner.file("a.raw", ta) + ",16x6,format=8_8_8_8_UNORM")
                        .arg("image:raw:" + runner.file("b.raw", tb) + ",8x4,format=32_FLOAT")
                        .arg("image:raw:" + runner.file("c.raw", GuestAsm.floats(tc)) + ",2x2x3,format=32_FLOAT")
                        .patch(c -> {
                            org.replayfarm.proto.Capture.Builder b = c.toBuilder();
                            b.setImages(2, b.getImages(2).toBuilder()
                                    .setType(org.replayfarm.proto.ImageType.IMAGE_2D_ARRAY).setDepth(1).setLayers(3));
                            return b.build();
                        })
                        .kernel(a.toString());
                HostModel fast = new HostModel(kernel, 1_000_000, HostModel.Tier.FAST);
                HostModel reference = new HostModel(kernel, 1_000_000, HostModel.Tier.REFERENCE);
                HostModel.Run fastRun = fast.runKeepingState(0, 0, 0);
                HostModel.Run refRun = reference.runKeepingState(0, 0, 0);
                String da = GuestAsm.describe(fastRun);
                String db = GuestAsm.describe(refRun);
                compiled(kernel, 1_000_000, db, failures, "wave" + wave + " " + change[0]);
                String where = "wave" + wave + " " + change[0];
                if (!da.equals(db)) {
                    failures.add(where + ": " + GuestAsm.firstDifference(da, db, "fast", "reference"));
                }
                for (String family : new String[] {"image_load", "image_store"}) {
                    assertTrue(kernel.program().instructions().stream()
                            .filter(i -> i.mnemonic().equals(family)).allMatch(i -> fast.specialisedAt(i.pc())),
                            where + ": " + family + " lines run specialised");
                }
                boolean faulted = refRun.result().fault().isPresent();
                faults += faulted ? 1 : 0;
                // the fault record whole (message, PC, instruction, group, wave, lane), not only through describe
                assertEquals(refRun.result().fault(), fastRun.result().fault(), where + ": fault");
                if (change[0].startsWith("fault")) {
                    assertTrue(faulted, where + ": no fault");
                    assertTrue(refRun.result().fault().get().toString().contains("no captured image"),
                            where + ": " + refRun.result().fault().get());
                } else if (!change[0].startsWith("fallback")) {
                    // the second pass read another image: some lane's texel differs from the first pass's
                    assertTrue(!faulted, where + ": " + refRun.result().fault());
                    int[] v = fastRun.group().waves().get(0).vgprFile();
                    boolean differs = false;
                    for (int reg = 0; reg < 4 && !differs; reg++) {
                        for (int l = 0; l < wave && !differs; l++) {
                            differs = v[(40 + reg) * wave + l] != v[(44 + reg) * wave + l];
                        }
                    }
                    assertTrue(differs, where + ": the second pass read what the first did");
                }
                programs++;
            }
        }
        System.out.printf("tier differential (image T# changes and fallbacks): %d programs, %d faulting, %d disagreeing%n",
                programs, faults, failures.size());
        assertEquals(List.of(), failures);
    }

    /**
     * The compiled tier where a run meets the wave's budget: a loop whose body is one compiled run (vector ALU
     * instructions, scalar ones between them, the branch back at its end), with EXEC full and partial, run under every
     * budget from 30 to 75 instructions, so the budget runs out at each place inside and between runs; a run that would
     * cross it is left to the fast tier's steps, so the fault (its PC, instruction, message), the instruction and lane
     * counts and every register agree with the reference tier's, and with the fast tier's. Also runs compiled only on
     * their second visit (a run first stepped, then compiled) and two v_cndmasks reading VCC before and after a scalar
     * instruction of the same run changed it (each reads the mask at its own place).
     */
    @Test
    void budgets_run_out_inside_and_between_compiled_runs_as_on_the_other_tiers() throws Exception {
        List<String> failures = new ArrayList<>();
        int faults = 0;
        long compiledRun = 0;
        String lastFault = "";
        for (int wave : new int[] {32, 64}) {
            String vcc = wave == 32 ? "vcc_lo" : "vcc";
            for (boolean partial : new boolean[] {false, true}) {
                String program = (partial ? "s_mov_b32 exec_lo, 0x5a5af0f3\n" : "") + """
                        v_mov_b32 v1, 1.0
                        s_mov_b32 s0, 4
                        s_mov_b32 s1, 0x1234
                        loop:
                        v_add_nc_u32 v2, v0, v1
                        s_add_u32 s1, s1, 0x9e3779b9
                        v_xor_b32 v3, v2, s1
                        v_mul_f32 v4, v3, 0.5
                        s_sub_u32 s0, s0, 1
                        v_cvt_f32_u32 v5, v2
                        s_cmp_lg_u32 s0, 0
                        s_cselect_b64 %1$s, -1, 0
                        %2$s
                        v_cndmask_b32 v6, v4, v5, %3$s
                        %4$s
                        v_cndmask_b32 v9, v5, v6, %3$s
                        v_add_f32 v1, v1, v4
                        s_cmp_lg_u32 s0, 0
                        s_cbranch_scc1 loop
                        v_lshlrev_b32 v7, 2, v6
                        v_or_b32 v8, v7, v1
                        s_endpgm
                        """.formatted("s[20:21]", wave == 32 ? "s_and_b32 vcc_lo, s20, 0x33cc55aa"
                        : "s_and_b64 vcc, s[20:21], 0x33cc55aa", vcc,
                        wave == 32 ? "s_xor_b32 vcc_lo, vcc_lo, 0x0ff0f00f" : "s_xor_b64 vcc, vcc, 0x0ff0f00f");
                GuestAsm runner = new GuestAsm(dir).groupSize(wave);
                if (wave == 64) {
                    runner.wave64();
                }
                Kernel kernel = runner.kernel(program);
                for (long budget = 30; budget <= 75; budget++) {
                    String where = "wave" + wave + (partial ? " partial" : " full") + " budget " + budget;
                    HostModel.Run ref = new HostModel(kernel, budget, HostModel.Tier.REFERENCE).runKeepingState(0, 0, 0);
                    String db = GuestAsm.describe(ref);
                    String df = GuestAsm.describe(new HostModel(kernel, budget, HostModel.Tier.FAST).runKeepingState(0, 0, 0));
                    if (!df.equals(db)) {
                        failures.add(where + " (fast tier): " + GuestAsm.firstDifference(df, db, "fast", "reference"));
                    }
                    compiledRun += compiled(kernel, budget, db, failures, where);
                    HostModel second = new HostModel(kernel, budget, HostModel.Tier.COMPILED, 2);
                    String ds = GuestAsm.describe(second.runKeepingState(0, 0, 0));
                    if (!ds.equals(db)) {
                        failures.add(where + " (compiled on the second visit): "
                                + GuestAsm.firstDifference(ds, db, "compiled", "reference"));
                    }
                    faults += ref.result().fault().isPresent() ? 1 : 0;
                    lastFault = ref.result().fault().map(Object::toString).orElse("none");
                }
            }
        }
        System.out.printf("tier differential (budgets in compiled runs): %d runs out of budget, %d instructions in "
                + "compiled runs, %d disagreeing%n", faults, compiledRun, failures.size());
        assertEquals(List.of(), failures);
        assertTrue(faults > 40 && faults < 4 * 46, faults + " of " + 4 * 46 + " runs out of budget; the last: " + lastFault);
        assertTrue(compiledRun > 1000, compiledRun + " instructions in compiled runs");
    }

    /**
     * A memory fault in the middle of a compiled run: a loop whose body (vector ALU, a GLOBAL load and a store, scalar
     * instructions, the branch back) is one run split at its memory instructions, the load's address walking past the
     * buffer on the third trip; the fault record (instruction, PC, lane, message), the counts (the instructions after
     * the faulting one in its run taken back) and every register equal the reference tier's, EXEC full and partial,
     * compiled on the first and on the second visit.
     */
    @Test
    void a_fault_inside_a_compiled_run_is_the_other_tiers_fault() throws Exception {
        List<String> failures = new ArrayList<>();
        int faults = 0;
        long compiledRun = 0;
        for (int wave : new int[] {32, 64}) {
            for (boolean partial : new boolean[] {false, true}) {
                String program = (partial ? "s_mov_b32 exec_lo, 0x5a5af0f3\n" : "") + """
                        v_lshlrev_b32 v1, 2, v0
                        s_mov_b32 s10, 0
                        loop:
                        v_add_nc_u32 v2, s10, v1
                        v_mul_lo_u32 v3, v2, 3
                        s_add_u32 s10, s10, 0xc00
                        global_load_dword v4, v2, s[0:1]
                        v_xor_b32 v5, v4, v3
                        s_add_u32 s11, s11, 1
                        v_cvt_f32_u32 v6, v5
                        global_store_dword v1, v6, s[0:1] offset:256
                        v_add_f32 v7, v6, 1.0
                        s_cmp_lg_u32 s11, 6
                        s_cbranch_scc1 loop
                        s_endpgm
                        """;
                GuestAsm runner = new GuestAsm(dir).groupSize(wave).buffer(new byte[8192]);
                if (wave == 64) {
                    runner.wave64();
                }
                Kernel kernel = runner.kernel(program);
                String where = "wave" + wave + (partial ? " partial" : " full");
                HostModel.Run ref = new HostModel(kernel, 1_000_000, HostModel.Tier.REFERENCE).runKeepingState(0, 0, 0);
                String db = GuestAsm.describe(ref);
                compiledRun += compiled(kernel, 1_000_000, db, failures, where);
                String ds = GuestAsm.describe(new HostModel(kernel, 1_000_000, HostModel.Tier.COMPILED, 2)
                        .runKeepingState(0, 0, 0));
                if (!ds.equals(db)) {
                    failures.add(where + " (compiled on the second visit): "
                            + GuestAsm.firstDifference(ds, db, "compiled", "reference"));
                }
                assertTrue(ref.result().fault().isPresent() && ref.result().fault().get().instruction()
                        .startsWith("global_load"), where + ": " + ref.result().fault());
                faults++;
            }
        }
        System.out.printf("tier differential (faults in compiled runs): %d faults, %d instructions in compiled runs, "
                + "%d disagreeing%n", faults, compiledRun, failures.size());
        assertEquals(List.of(), failures);
        assertTrue(compiledRun > 0, "no compiled run");
    }

    /** Instructions the compiled tier ran inside compiled runs in this test class (they must not be none). */
    private static long compiledInstructions;

    /**
     * The compiled tier on {@code kernel}, every run compiled on its first visit (the programs here run most lines
     * once), against the reference tier's description of the same group: a failure named {@code where} if they differ.
     */
    private static long compiled(Kernel kernel, long budget, String reference, List<String> failures, String where) {
        HostModel compiled = new HostModel(kernel, budget, HostModel.Tier.COMPILED, 1);
        String dc = GuestAsm.describe(compiled.runKeepingState(0, 0, 0));
        if (!dc.equals(reference)) {
            failures.add(where + " (compiled tier): " + GuestAsm.firstDifference(dc, reference, "compiled", "reference"));
        }
        compiledInstructions += compiled.compiledInstructionsRun();
        assertTrue(compiled.compilableInstructions() == 0 || compiled.compiledInstructionsRun() > 0,
                where + ": the compiled tier has runs but ran none");
        return compiled.compiledInstructionsRun();
    }

    /**
     * Why llvm-mc-19 may refuse a line the random generator writes (its messages): the generator draws each source
     * independently, so some VOP3 lines read more scalar values (SGPRs, literals) than gfx1030's constant bus takes.
     * {@link #assemble} drops only lines refused for these reasons; any other refused line fails the test (so a
     * family's ABS/NEG/CLAMP or literal variants, or a whole form, cannot vanish unnoticed).
     */
    static final List<String> MAY_BE_DROPPED = List.of("invalid operand (violates constant bus restrictions)");

    /** Assembles, dropping the refused lines {@link #MAY_BE_DROPPED} allows and failing on any other. */
    private static Kernel assemble(GuestAsm runner, String asm) throws Exception {
        Pattern error = Pattern.compile(":(\\d+):\\d+: error: ([^\n]*)");
        List<String> dropped = new ArrayList<>();
        for (int attempt = 0; ; attempt++) {
            try {
                Kernel k = runner.kernel(asm);
                List<String> unexpected = dropped.stream()
                        .filter(line -> MAY_BE_DROPPED.stream().noneMatch(line::endsWith)).toList();
                assertEquals(List.of(), unexpected, "lines llvm-mc-19 refused (of " + dropped.size() + " dropped)");
                return k;
            } catch (IOException e) {
                Matcher m = error.matcher(e.getMessage());
                java.util.Map<Integer, String> bad = new java.util.HashMap<>();
                while (m.find()) {
                    bad.putIfAbsent(Integer.parseInt(m.group(1)), m.group(2).trim());
                }
                if (bad.isEmpty() || attempt == 4) {
                    throw e;
                }
                String[] lines = asm.split("\n", -1);
                StringBuilder kept = new StringBuilder();
                for (int i = 0; i < lines.length; i++) {
                    if (!bad.containsKey(i + 1)) {
                        kept.append(lines[i]).append('\n');
                    } else {
                        dropped.add(lines[i].trim() + " -- " + bad.get(i + 1));
                    }
                }
                asm = kept.toString();
            }
        }
    }

    /** Seeded random gfx1030 programs for one wave size. */
    static final class Generator {
        private static final int VREGS = 24; // v0-v23 hold data; v24/v25 are addresses
        private static final String[] FLOATS = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"};
        private static final int[] SPECIAL = {0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000,
                0x00000001, 0x807fffff, 0x3f800000, 0x4f800000, 0xcf000000, 0x7f7fffff};
        private final int wave;
        private final Random r;
        private final List<Opcode> kernels = new ArrayList<>();
        private final Set<String> shortForms = new HashSet<>();
        private final StringBuilder out = new StringBuilder();

        Generator(int wave, Random r) {
            this.wave = wave;
            this.r = r;
            SemanticsTable t = SemanticsTable.gfx1030();
            OpcodeTable table = OpcodeTable.gfx1030();
            for (Encoding e : new Encoding[] {Encoding.VOP1, Encoding.VOP2, Encoding.VOP3}) {
                for (Opcode op : table.rows(e)) {
                    if (e != Encoding.VOP3) {
                        shortForms.add(op.mnemonic());
                    }
                    // the lane kernels of the plain shapes (operands as the generic line below writes them; carries,
                    // selects, fmac, ldexp and frexp have lines of their own)
                    LaneKernel k = t.laneKernel(op);
                    boolean plain = k instanceof LaneKernel.Int1 || k instanceof LaneKernel.Int2 || k instanceof LaneKernel.Int3
                            || k instanceof LaneKernel.Float1 || k instanceof LaneKernel.Float2
                            || k instanceof LaneKernel.Float3 || k instanceof LaneKernel.IntToFloat;
                    if (plain && !op.mnemonic().contains("f16") && !op.mnemonic().contains("16_")) {
                        kernels.add(op);
                    }
                }
            }
        }

        byte[] buffer() {
            byte[] b = new byte[8192];
            r.nextBytes(b);
            return b;
        }

        String vcc() {
            return wave == 32 ? "vcc_lo" : "vcc";
        }

        String exec() {
            return wave == 32 ? "exec_lo" : "exec";
        }

        /** A scalar mask operand: one SGPR in wave32, a pair in wave64 (from s8-s31). */
        String smask() {
            int s = 8 + 2 * r.nextInt(12);
            return wave == 32 ? "s" + s : "s[" + s + ":" + (s + 1) + "]";
        }

        String v() {
            return "v" + r.nextInt(VREGS);
        }

        String vpair() {
            int a = r.nextInt(VREGS - 1);
            return "v[" + a + ":" + (a + 1) + "]";
        }

        String spair() {
            int a = 8 + 2 * r.nextInt(12);
            return "s[" + a + ":" + (a + 1) + "]";
        }

        /** A 32-bit source: mostly VGPRs, else an SGPR, an inline constant or (when allowed) a literal. */
        String src(boolean literal, boolean floaty) {
            int k = r.nextInt(10);
            if (k < 6) {
                return v();
            }
            if (k < 8) {
                return "s" + (8 + r.nextInt(24));
            }
            if (k == 8 || !literal) {
                return floaty && r.nextBoolean() ? FLOATS[r.nextInt(FLOATS.length)] : String.valueOf(r.nextInt(81) - 16);
            }
            return "0x" + Integer.toHexString(r.nextBoolean() ? SPECIAL[r.nextInt(SPECIAL.length)] : r.nextInt());
        }

        String src64(boolean floaty) {
            int k = r.nextInt(10);
            if (k < 7) {
                return vpair();
            }
            if (k < 9) {
                return spair();
            }
            return floaty ? FLOATS[r.nextInt(FLOATS.length)] : String.valueOf(r.nextInt(81) - 16);
        }

        String program(int body, boolean fault) {
            out.setLength(0);
            for (int i = 1; i < VREGS; i++) {
                int value = r.nextInt(3) == 0 ? SPECIAL[r.nextInt(SPECIAL.length)] : r.nextInt();
                line("v_mov_b32 v" + i + ", 0x" + Integer.toHexString(value));
                if (r.nextInt(3) == 0) {
                    line("v_xor_b32 v" + i + ", v" + i + ", v0"); // lanes differ
                }
            }
            for (int s = 8; s < 32; s++) {
                line("s_mov_b32 s" + s + ", 0x" + Integer.toHexString(r.nextInt(2) == 0 ? SPECIAL[r.nextInt(SPECIAL.length)]
                        : r.nextInt()));
            }
            for (int i = 0; i < body; i++) {
                instruction();
            }
            if (fault) {
                line("v_mov_b32 v24, 0x" + Integer.toHexString(0x100000 + r.nextInt(64) * 4));
                line("v_cndmask_b32 v24, v24, 0, " + vcc()); // some lanes stay in range, the others fault
                line("global_load_dword v1, v24, s[0:1]");
            }
            line("s_endpgm");
            return out.toString();
        }

        private void line(String s) {
            out.append('\t').append(s).append('\n');
        }

        private void instruction() {
            int k = r.nextInt(100);
            if (k < 50) {
                tableOp();
            } else if (k < 56) {
                line(r.nextBoolean() ? "v_cndmask_b32_e32 " + v() + ", " + src(true, false) + ", " + v() + ", " + vcc()
                        : "v_cndmask_b32_e64 " + v() + ", " + mod(src(false, true)) + ", " + mod(src(false, true)) + ", "
                        + smask());
            } else if (k < 64) {
                String[] cond = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};
                String type = r.nextInt(5) == 0 ? "f32" : r.nextBoolean() ? "i32" : "u32";
                // (f32 compares name their relations apart: neq and tru, not ne and t, and have the unordered ones)
                String[] fcond = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
                        "nlt", "tru"};
                String c = "v_cmp_" + (type.equals("f32") ? fcond[r.nextInt(fcond.length)] : cond[r.nextInt(cond.length)])
                        + "_" + type;
                line(r.nextBoolean() ? c + "_e32 " + vcc() + ", " + src(true, type.equals("f32")) + ", " + v()
                        : c + "_e64 " + smask() + ", " + src(false, false) + ", " + src(false, false));
            } else if (k < 70) {
                String[] ops = {"v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32"};
                String[] ci = {"v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32"};
                int o = r.nextInt(3);
                switch (r.nextInt(4)) {
                    // (gfx10 has no VOP2 v_add_co_u32 and kin: the carry-out to VCC is the VOP3b form)
                    case 0 -> line(ops[o] + "_e64 " + v() + ", " + vcc() + ", " + src(true, false) + ", " + v());
                    case 1 -> line(ops[o] + "_e64 " + v() + ", " + smask() + ", " + src(false, false) + ", "
                            + src(false, false) + (r.nextInt(4) == 0 ? " clamp" : ""));
                    case 2 -> line(ci[o] + "_e32 " + v() + ", " + vcc() + ", " + src(true, false) + ", " + v() + ", " + vcc());
                    default -> line(ci[o] + "_e64 " + v() + ", " + smask() + ", " + src(false, false) + ", "
                            + src(false, false) + ", " + smask());
                }
            } else if (k < 73) {
                line("v_mad_u64_u32 " + vpair() + ", " + smask() + ", " + src(false, false) + ", " + src(false, false)
                        + ", " + src64(false) + (r.nextInt(4) == 0 ? " clamp" : ""));
            } else if (k < 76) {
                String[] ops = {"v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64"};
                line(ops[r.nextInt(3)] + " " + vpair() + ", " + src(false, false) + ", " + src64(false));
            } else if (k < 84) {
                memory();
            } else if (k < 88) {
                // EXEC: a random mask, sometimes none, sometimes all
                int which = r.nextInt(4);
                String lo = which == 0 ? "0" : which == 1 ? "-1" : "0x" + Integer.toHexString(r.nextInt());
                line("s_mov_b32 exec_lo, " + lo);
                if (wave == 64) {
                    line("s_mov_b32 exec_hi, " + (which == 0 ? "0" : which == 1 ? "-1" : "0x" + Integer.toHexString(r.nextInt())));
                }
            } else if (k < 90) {
                // MODE: round modes, denormal controls, DX10_CLAMP and IEEE (OMOD acts only with IEEE clear)
                line("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 10), 0x" + Integer.toHexString(r.nextInt(1024)));
            } else if (k < 95) {
                // forms the fast tier leaves to the reference handler
                String[] shr = {"row_shr:1", "row_shl:2", "row_ror:3", "quad_perm:[1,0,3,2]", "row_mirror"};
                switch (r.nextInt(4)) {
                    case 0 -> line("v_add_nc_u32_dpp " + v() + ", " + v() + ", " + v() + " " + shr[r.nextInt(shr.length)]
                            + " row_mask:0xf bank_mask:0xf" + (r.nextBoolean() ? " bound_ctrl:1" : ""));
                    case 1 -> line("v_add_f32_dpp " + v() + ", " + v() + ", " + v() + " " + shr[r.nextInt(shr.length)]
                            + " row_mask:0xf bank_mask:0xf");
                    case 2 -> line("v_mov_b32_sdwa " + v() + ", " + v()
                            + " dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_" + r.nextInt(4));
                    default -> line("v_add_f16_e32 " + v() + ", " + v() + ", " + v());
                }
            } else {
                line("s_add_u32 s" + (8 + r.nextInt(24)) + ", s" + (8 + r.nextInt(24)) + ", " + src(true, false)
                        .replaceAll("^v\\d+$", "s9"));
            }
        }

        private String mod(String s) {
            if (s.startsWith("0x")) {
                return s;
            }
            int k = r.nextInt(4);
            // (NEG of a negative inline constant is written as the positive one: llvm-mc refuses "--0.5")
            return k == 0 ? (s.startsWith("-") ? s.substring(1) : "-" + s) : k == 1 ? "|" + s + "|" : k == 2 ? "-|" + s + "|" : s;
        }

        private void tableOp() {
            Opcode op = kernels.get(r.nextInt(kernels.size()));
            boolean floaty = op.mnemonic().matches(".*_f(32|64)$") && !op.mnemonic().startsWith("v_cvt_f32_")
                    || op.mnemonic().startsWith("v_cvt_f64_f32");
            List<String> srcs = new ArrayList<>();
            for (String o : op.operands()) {
                if (o.startsWith("src") || o.startsWith("vsrc")) {
                    srcs.add(o);
                }
            }
            boolean wideDst = op.operands().get(0).contains("64");
            String dst = wideDst ? vpair() : v();
            StringBuilder s = new StringBuilder();
            if (op.encoding() != Encoding.VOP3) {
                // the e32 form: src0 anything, a vsrc1 a VGPR
                s.append(op.mnemonic()).append("_e32 ").append(dst);
                for (int i = 0; i < srcs.size(); i++) {
                    boolean wide = srcs.get(i).contains("64");
                    String x = srcs.get(i).startsWith("vsrc") ? (wide ? vpair() : v())
                            : wide ? src64(floaty) : src(true, floaty);
                    s.append(", ").append(x);
                }
            } else {
                s.append(op.mnemonic()).append(shortForms.contains(op.mnemonic()) ? "_e64 " : " ").append(dst);
                for (String o : srcs) {
                    String x = o.contains("64") ? src64(floaty) : src(r.nextInt(6) == 0, floaty);
                    s.append(", ").append(floaty ? mod(x) : x);
                }
                if (floaty && r.nextInt(4) == 0) {
                    s.append(" clamp");
                }
                if (floaty && r.nextInt(5) == 0) {
                    s.append(new String[] {" mul:2", " mul:4", " div:2"}[r.nextInt(3)]);
                }
            }
            line(s.toString());
        }

        private void memory() {
            String[] widths = {"dword", "dword", "dwordx2", "dwordx3", "dwordx4", "ubyte", "sshort"};
            String w = widths[r.nextInt(widths.length)];
            boolean load = r.nextBoolean();
            int offset = 16 * r.nextInt(8) - 32;
            line("v_and_b32 v24, 0xff0, " + v()); // inside the 8 KiB buffer, room for the offset and width
            line("v_add_nc_u32 v24, 64, v24");
            String sw = w.equals("ubyte") ? "byte" : w.equals("sshort") ? "short" : w; // stores have no sign/zero forms
            int dwords = w.equals("dwordx2") ? 2 : w.equals("dwordx3") ? 3 : w.equals("dwordx4") ? 4 : 1;
            int reg = r.nextInt(VREGS - dwords);
            String data = dwords == 1 ? "v" + reg : "v[" + reg + ":" + (reg + dwords - 1) + "]";
            if (offset + 8192 - 64 + 16 >= 8192) {
                offset = 0;
            }
            if (r.nextBoolean()) {
                line((load ? "global_load_" + w + " " + data + ", v24, s[0:1]" : "global_store_" + sw + " v24, " + data
                        + ", s[0:1]") + " offset:" + offset);
            } else {
                // SADDR off: a 64-bit address in v[24:25]
                line("v_mov_b32 v25, s1");
                line("v_add_co_u32 v24, " + vcc() + ", s0, v24");
                line("v_add_co_ci_u32_e32 v25, " + vcc() + ", 0, v25, " + vcc());
                line((load ? "global_load_" + w + " " + data + ", v[24:25], off" : "global_store_" + sw + " v[24:25], "
                        + data + ", off") + " offset:" + offset);
            }
            line("s_waitcnt vmcnt(0)");
        }
    }
}
