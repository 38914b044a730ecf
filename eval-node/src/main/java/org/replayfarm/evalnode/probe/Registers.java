package org.replayfarm.evalnode.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.OpcodeFlag;

/**
 * Which registers an instruction reads and writes, for the backward slice: the registers its listing names (the first
 * operand written, the rest read, as LLVM prints them), and the implicit ones the listing does not show (EXEC for every
 * vector instruction, SCC for the scalar ALU, VCC for the e32 carry and select forms, M0 for LDS, EXEC read and written
 * by the saveexec and wrexec forms and written by v_cmpx). A register is a key:
 * SGPR n (VCC at 106, M0 at 124, EXEC at 126), {@link #SCC}, or {@link #VGPR} + n.
 */
public final class Registers {
    public static final int SCC = 128;
    public static final int VGPR = 256;
    public static final int VCC_LO = 106;
    public static final int M0 = 124;
    public static final int EXEC_LO = 126;

    private static final Pattern REGISTER = Pattern.compile(
            "\\b([vs])\\[(\\d+):(\\d+)\\]|\\b([vs])(\\d+)\\b|\\b(vcc_lo|vcc_hi|vcc|exec_lo|exec_hi|exec|m0)\\b");

    /** SALU instructions that leave SCC alone (every other SOP1/SOP2/SOPK writes it; SOPC always does). */
    private static final Set<String> SCC_KEPT = Set.of("s_mov_b32", "s_mov_b64", "s_cmov_b32", "s_cmov_b64",
            "s_brev_b32", "s_brev_b64", "s_getpc_b64", "s_setpc_b64", "s_swappc_b64", "s_rfe_b64", "s_sext_i32_i8",
            "s_sext_i32_i16", "s_bitset0_b32", "s_bitset0_b64", "s_bitset1_b32", "s_bitset1_b64", "s_ff0_i32_b32",
            "s_ff0_i32_b64", "s_ff1_i32_b32", "s_ff1_i32_b64", "s_flbit_i32_b32", "s_flbit_i32_b64", "s_flbit_i32",
            "s_flbit_i32_i64", "s_movrels_b32", "s_movrels_b64", "s_movreld_b32", "s_movreld_b64", "s_cselect_b32",
            "s_cselect_b64", "s_mul_i32", "s_mul_hi_u32", "s_mul_hi_i32", "s_pack_ll_b32_b16", "s_pack_lh_b32_b16",
            "s_pack_hh_b32_b16", "s_movk_i32", "s_cmovk_i32", "s_mulk_i32", "s_getreg_b32", "s_setreg_b32",
            "s_setreg_imm32_b32", "s_call_b64", "s_version", "s_movrelsd_2_b32", "s_bitreplicate_b64_b32",
            "s_bcnt0_i32_b32", "s_bcnt0_i32_b64", "s_bcnt1_i32_b32", "s_bcnt1_i32_b64", "s_waitcnt_vscnt",
            "s_waitcnt_vmcnt", "s_waitcnt_expcnt", "s_waitcnt_lgkmcnt", "s_subvector_loop_begin",
            "s_subvector_loop_end");
    /** Scalar instructions that read SCC. */
    private static final Set<String> SCC_READ = Set.of("s_cselect_b32", "s_cselect_b64", "s_cmov_b32", "s_cmov_b64",
            "s_cmovk_i32", "s_addc_u32", "s_subb_u32", "s_cbranch_scc0", "s_cbranch_scc1");

    private Registers() {
    }

    /** What one instruction reads and writes: register keys, in ascending order. */
    public record Access(int[] reads, int[] writes) {
    }

    /** The registers {@code insn} (listed as {@code text}) reads and writes, in a wave of {@code waveSize}. */
    public static Access of(Instruction insn, String text, int waveSize) {
        String mnemonic = insn.mnemonic();
        List<List<Integer>> operands = operands(text, waveSize);
        TreeSet<Integer> reads = new TreeSet<>();
        TreeSet<Integer> writes = new TreeSet<>();
        MemoryAccess memory = insn.opcode().memory();
        boolean vector = vector(insn.encoding());
        boolean branch = insn.opcode().has(OpcodeFlag.BRANCH);
        boolean writesFirst = !operands.isEmpty() && !branch && insn.encoding() != Encoding.SOPC
                && insn.encoding() != Encoding.SOPP && !mnemonic.startsWith("v_cmpx_");
        if (memory != null && (memory.kind() == MemoryAccess.Kind.STORE
                || (memory.kind() == MemoryAccess.Kind.ATOMIC && !text.contains(" glc")))) {
            writesFirst = false;
        }
        for (int i = 0; i < operands.size(); i++) {
            boolean written = (i == 0 && writesFirst) || (i == 1 && writesFirst && carryOut(mnemonic)
                    && operands.get(1).stream().allMatch(r -> r < VGPR));
            (written ? writes : reads).addAll(operands.get(i));
            if (i == 0 && written && keepsDestination(mnemonic, text)) {
                reads.addAll(operands.get(0));
            }
        }
        if (vector) {
            reads.add(EXEC_LO);
            if (waveSize == 64) {
                reads.add(EXEC_LO + 1);
            }
        }
        if (mnemonic.startsWith("v_cmpx_") || mnemonic.contains("saveexec") || mnemonic.contains("wrexec")) {
            writes.add(EXEC_LO);
            if (waveSize == 64) {
                writes.add(EXEC_LO + 1);
            }
        }
        if (mnemonic.contains("saveexec") || mnemonic.contains("wrexec")) {
            reads.add(EXEC_LO);
            if (waveSize == 64) {
                reads.add(EXEC_LO + 1);
            }
        }
        if (SCC_READ.contains(mnemonic)) {
            reads.add(SCC);
        }
        if (mnemonic.equals("s_cbranch_vccz") || mnemonic.equals("s_cbranch_vccnz") || (mnemonic.endsWith("_e32")
                && (mnemonic.startsWith("v_cndmask") || mnemonic.contains("_ci_") || mnemonic.startsWith("v_subb")))) {
            reads.add(VCC_LO);
            if (waveSize == 64) {
                reads.add(VCC_LO + 1);
            }
        }
        if (mnemonic.startsWith("s_cbranch_exec")) {
            reads.add(EXEC_LO);
            if (waveSize == 64) {
                reads.add(EXEC_LO + 1);
            }
        }
        if (mnemonic.startsWith("ds_") || mnemonic.contains("movrel") || mnemonic.startsWith("v_interp")) {
            reads.add(M0);
        }
        boolean salu = insn.encoding() == Encoding.SOP1 || insn.encoding() == Encoding.SOP2
                || insn.encoding() == Encoding.SOPK || insn.encoding() == Encoding.SOPC;
        if (salu && (insn.encoding() == Encoding.SOPC || !SCC_KEPT.contains(mnemonic))) {
            writes.add(SCC);
        }
        return new Access(reads.stream().mapToInt(Integer::intValue).toArray(),
                writes.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * Whether the instruction reads its destination too: accumulating forms (mac, fmac, dot2c, SOPK's addk and mulk),
     * conditional moves and bit sets, and partial writes (d16 loads, v_writelane, movreld, SDWA preserving the rest).
     */
    private static boolean keepsDestination(String mnemonic, String text) {
        return mnemonic.contains("mac") || mnemonic.startsWith("v_dot2c") || mnemonic.equals("s_addk_i32")
                || mnemonic.equals("s_mulk_i32") || mnemonic.startsWith("s_cmov") || mnemonic.startsWith("s_bitset")
                || mnemonic.contains("d16") || mnemonic.startsWith("v_writelane") || mnemonic.contains("movreld")
                || text.contains("UNUSED_PRESERVE");
    }

    /** VOP3b: a VALU instruction whose second operand is a carry or condition it writes. */
    private static boolean carryOut(String mnemonic) {
        return mnemonic.contains("_co_") || mnemonic.startsWith("v_div_scale") || mnemonic.startsWith("v_mad_u64")
                || mnemonic.startsWith("v_mad_i64");
    }

    static boolean vector(Encoding e) {
        return switch (e) {
            case SOP1, SOP2, SOPK, SOPC, SOPP, SMEM -> false;
            default -> true;
        };
    }

    /** The registers each operand of a listing names, operand by operand (splitting at top-level commas). */
    public static List<List<Integer>> operands(String text, int waveSize) {
        int space = text.indexOf(' ');
        List<List<Integer>> out = new ArrayList<>();
        if (space < 0) {
            return out;
        }
        for (String operand : text.substring(space + 1).split(",")) {
            List<Integer> regs = new ArrayList<>();
            Matcher m = REGISTER.matcher(operand);
            while (m.find()) {
                if (m.group(1) != null || m.group(4) != null) {
                    boolean v = "v".equals(m.group(1) != null ? m.group(1) : m.group(4));
                    int lo = Integer.parseInt(m.group(1) != null ? m.group(2) : m.group(5));
                    int hi = m.group(1) != null ? Integer.parseInt(m.group(3)) : lo;
                    for (int r = lo; r <= hi; r++) {
                        if (v) {
                            regs.add(VGPR + r);
                        } else if (r < 128) {
                            regs.add(r);
                        }
                    }
                } else {
                    switch (m.group(6)) {
                        case "vcc" -> {
                            regs.add(VCC_LO);
                            if (waveSize == 64) {
                                regs.add(VCC_LO + 1);
                            }
                        }
                        case "vcc_lo" -> regs.add(VCC_LO);
                        case "vcc_hi" -> regs.add(VCC_LO + 1);
                        case "exec" -> {
                            regs.add(EXEC_LO);
                            if (waveSize == 64) {
                                regs.add(EXEC_LO + 1);
                            }
                        }
                        case "exec_lo" -> regs.add(EXEC_LO);
                        case "exec_hi" -> regs.add(EXEC_LO + 1);
                        default -> regs.add(M0);
                    }
                }
            }
            if (!regs.isEmpty() || operand.strip().startsWith("null") || !operand.isBlank()) {
                out.add(regs);
            }
        }
        return out;
    }

    /** A register key as the listing spells it. */
    public static String name(int key) {
        if (key >= VGPR) {
            return "v" + (key - VGPR);
        }
        return switch (key) {
            case SCC -> "scc";
            case VCC_LO -> "vcc_lo";
            case VCC_LO + 1 -> "vcc_hi";
            case M0 -> "m0";
            case EXEC_LO -> "exec_lo";
            case EXEC_LO + 1 -> "exec_hi";
            default -> "s" + key;
        };
    }
}
