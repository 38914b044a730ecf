package org.replayfarm.gpunode.translate;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeSet;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * What the translator needs to know about a program's control flow: which instructions the entry can
 * reach and which start basic blocks. Direct branches and s_call are followed; an s_swappc whose target is
 * the usual constant {@code s_getpc_b64; s_add_u32 lo, lo, K; s_addc_u32 hi, hi, K'} is followed to its
 * callee, and the instruction after every call is a block (s_setpc returns there). When a reachable
 * s_swappc's target is not such a constant, nothing is assumed: every instruction is reachable and
 * starts a block, so any address the program computes has its label.
 */
final class ControlFlow {
    final TreeSet<Long> reachable = new TreeSet<>();
    final TreeSet<Long> leaders = new TreeSet<>();
    /** Whether a reachable instruction jumps through a register (the address switch is needed). */
    boolean indirect;
    /** Whether the analysis gave up and took every instruction. */
    boolean everything;

    static ControlFlow of(NavigableMap<Long, Instruction> insns, long entry) {
        ControlFlow cf = new ControlFlow();
        Map<Long, Long> calls = constantCalls(insns);
        ArrayDeque<Long> todo = new ArrayDeque<>();
        todo.add(entry);
        cf.leaders.add(entry);
        while (!todo.isEmpty()) {
            long pc = todo.pop();
            while (!cf.reachable.contains(pc)) {
                Instruction i = insns.get(pc);
                if (i == null) {
                    break; // no instruction here: the translation faults at this PC
                }
                cf.reachable.add(pc);
                String m = i.mnemonic();
                long next = pc + i.length();
                if (i.opcode().has("branch")) {
                    long t = Translator.branchTarget(i);
                    cf.leaders.add(t);
                    todo.add(t);
                    if (m.equals("s_branch")) {
                        break;
                    }
                } else if (m.equals("s_call_b64")) {
                    long t = next + 4L * (short) ((Fields.Sopk) i.fields()).simm16();
                    cf.leaders.add(t);
                    cf.leaders.add(next);
                    todo.add(t);
                    cf.indirect = true;
                } else if (m.equals("s_swappc_b64")) {
                    cf.indirect = true;
                    cf.leaders.add(next);
                    Long t = calls.get(pc);
                    if (t == null) {
                        return everything(insns, entry);
                    }
                    cf.leaders.add(t);
                    todo.add(t);
                } else if (m.equals("s_setpc_b64")) {
                    cf.indirect = true;
                    break;
                } else if (m.startsWith("s_endpgm") || m.equals("s_code_end") || m.equals("s_trap")) {
                    break;
                }
                pc = next;
            }
        }
        return cf;
    }

    private static ControlFlow everything(NavigableMap<Long, Instruction> insns, long entry) {
        ControlFlow cf = new ControlFlow();
        cf.everything = true;
        cf.indirect = true;
        cf.reachable.addAll(insns.keySet());
        cf.leaders.addAll(insns.keySet());
        cf.leaders.add(entry);
        for (Instruction i : insns.values()) {
            if (i.opcode().has("branch")) {
                cf.leaders.add(Translator.branchTarget(i));
            }
        }
        return cf;
    }

    /**
     * s_swappc targets that are constants: a straight-line scan that tracks SGPRs written by s_getpc_b64
     * and adjusted by s_add_u32 / s_addc_u32 with constant operands; any other write, and any block start
     * (a branch target), forgets what it knew.
     */
    private static Map<Long, Long> constantCalls(NavigableMap<Long, Instruction> insns) {
        TreeSet<Long> targets = new TreeSet<>();
        for (Instruction i : insns.values()) {
            if (i.opcode().has("branch")) {
                targets.add(Translator.branchTarget(i));
            }
        }
        Map<Long, Long> out = new HashMap<>();
        Map<Integer, Long> known = new HashMap<>();
        long carry = -1;
        for (Instruction i : insns.values()) {
            if (targets.contains(i.pc())) {
                known.clear();
                carry = -1;
            }
            String m = i.mnemonic();
            Fields f = i.fields();
            if (m.equals("s_getpc_b64") && f instanceof Fields.Sop1 s) {
                long pc = i.pc() + 4;
                known.put(s.sdst(), pc & 0xFFFF_FFFFL);
                known.put(s.sdst() + 1, pc >>> 32);
                continue;
            }
            if (m.equals("s_swappc_b64") && f instanceof Fields.Sop1 s) {
                Long lo = known.get(s.ssrc0());
                Long hi = known.get(s.ssrc0() + 1);
                if (lo != null && hi != null) {
                    out.put(i.pc(), hi << 32 | lo);
                }
                known.remove(s.sdst());
                known.remove(s.sdst() + 1);
                known.keySet().removeIf(r -> r < 106); // the callee may write any SGPR
                continue;
            }
            if ((m.equals("s_add_u32") || m.equals("s_addc_u32")) && f instanceof Fields.Sop2 s) {
                Long a = constant(i, s.ssrc0(), known);
                Long b = constant(i, s.ssrc1(), known);
                if (a != null && b != null && (m.equals("s_add_u32") || carry >= 0)) {
                    long sum = a + b + (m.equals("s_addc_u32") ? carry : 0);
                    known.put(s.sdst(), sum & 0xFFFF_FFFFL);
                    carry = sum >>> 32;
                    continue;
                }
                known.remove(s.sdst());
                carry = -1;
                continue;
            }
            // any other scalar write forgets its destination (and SCC, the carry)
            int dst = -1;
            if (f instanceof Fields.Sop1 s) {
                dst = s.sdst();
            } else if (f instanceof Fields.Sop2 s) {
                dst = s.sdst();
            } else if (f instanceof Fields.Sopk s) {
                dst = s.sdst();
            } else if (f instanceof Fields.Smem s) {
                dst = s.sdata();
            } else if (f instanceof Fields.Vop3 v && v.sdst() >= 0) {
                dst = v.sdst();
            }
            if (dst >= 0) {
                for (int k = 0; k < 16; k++) {
                    known.remove(dst + k);
                }
            }
            if (!(f instanceof Fields.Sopp)) {
                carry = -1;
            }
            if (m.contains("readlane") || m.contains("readfirstlane") || f instanceof Fields.Vopc
                    || m.startsWith("v_cmp") || m.startsWith("s_movreld")) {
                known.clear();
            }
        }
        return out;
    }

    private static Long constant(Instruction i, int code, Map<Integer, Long> known) {
        if (code < 128) {
            return known.get(code);
        }
        if (code <= 192) {
            return (long) (code - 128);
        }
        if (code <= 208) {
            return (long) (192 - code) & 0xFFFF_FFFFL;
        }
        if (code == 255 && i.literal().isPresent()) {
            return Integer.toUnsignedLong(i.literal().getAsInt());
        }
        return null;
    }
}
