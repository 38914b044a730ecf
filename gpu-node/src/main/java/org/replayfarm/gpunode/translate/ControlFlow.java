package org.replayfarm.gpunode.translate;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeSet;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.OperandSpec;

/**
 * What the translator needs to know about a program's control flow: which instructions the entry can reach, which
 * start basic blocks (a label each), and which addresses an indirect jump ({@code s_setpc_b64}, {@code s_swappc_b64})
 * can reach (a case each of the address switch).
 *
 * <p>Compiled code obtains a code address only from {@code s_getpc_b64} (plus constant adds: clang's
 * {@code s_getpc_b64 s[a:b]; s_add_u32 sa, sa, sym@rel32@lo+4; s_addc_u32 sb, sb, sym@rel32@hi+12}) and as the return
 * address {@code s_swappc_b64}/{@code s_call_b64} write. A linear scan in address order propagates those values
 * through SGPR copies and the constant add/addc pair: a jump whose source is such a constant reaches it; a return
 * address is itself a block (the instruction after the call) and may go anywhere (a spill to VGPR lanes and back, a
 * copy) without adding a target. So the indirect targets are the entry, every call's return address and every
 * constant jump or call target. A jump to anything else faults on the device naming the PC and target.
 *
 * <p>When the scan cannot bound the targets — a code address from {@code s_getpc_b64} (or an address computed from
 * one) is read by anything but the tracked adds, copies, jumps, comparisons and memory bases (a store, a VGPR, an
 * ALU operation), or an address the scan lost track of at a block start reaches a jump — nothing is assumed: every
 * instruction is reachable, a block and a target ({@link #fallback} says why; {@code replay translate} prints it).
 */
final class ControlFlow {
    final TreeSet<Long> reachable = new TreeSet<>();
    final TreeSet<Long> leaders = new TreeSet<>();
    /** The cases of the address switch: every address an s_setpc/s_swappc may jump to. */
    final TreeSet<Long> targets = new TreeSet<>();
    /** Whether a reachable instruction jumps through a register (the address switch is needed). */
    boolean indirect;
    /** Whether the analysis gave up and took every instruction. */
    boolean everything;
    /** Why the analysis gave up (null when it did not). */
    String fallback;

    /** One line for the coverage report: how blocks and indirect targets were found. */
    String summary(int instructions) {
        if (everything) {
            return "control flow: every instruction is a block and an indirect target (" + fallback + ")";
        }
        return "control flow: " + leaders.size() + " blocks for " + reachable.size() + " reachable instructions"
                + (indirect ? ", " + targets.size() + " indirect targets (entry, return addresses, constant code "
                + "addresses)" : ", no indirect jumps");
    }

    static ControlFlow of(NavigableMap<Long, Instruction> insns, long entry, int waveSize) {
        if (Boolean.getBoolean("replay.translate.everyInstruction")) {
            // the translation before this analysis (for comparisons: bench figures, a suspected analysis bug)
            return everything(insns, entry, "-Dreplay.translate.everyInstruction=true");
        }
        Scan scan = scan(insns, waveSize);
        if (scan.escape != null) {
            return everything(insns, entry, scan.escape);
        }
        ControlFlow cf = new ControlFlow();
        ArrayDeque<Long> todo = new ArrayDeque<>();
        todo.add(entry);
        cf.leaders.add(entry);
        cf.targets.add(entry);
        for (long c : scan.constants) {
            // a materialised code address: a callee or jump target, wherever the value travels before its jump
            cf.leaders.add(c);
            cf.targets.add(c);
            todo.add(c);
        }
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
                    cf.targets.add(next);
                    todo.add(t);
                    cf.indirect = true;
                } else if (m.equals("s_swappc_b64") || m.equals("s_setpc_b64")) {
                    cf.indirect = true;
                    Long t = scan.jumps.get(pc);
                    if (t != null) {
                        cf.leaders.add(t);
                        cf.targets.add(t);
                        todo.add(t);
                    }
                    if (m.equals("s_setpc_b64")) {
                        break;
                    }
                    cf.leaders.add(next);
                    cf.targets.add(next);
                } else if (m.startsWith("s_endpgm") || m.equals("s_code_end") || m.equals("s_trap")) {
                    break;
                }
                pc = next;
            }
        }
        return cf;
    }

    private static ControlFlow everything(NavigableMap<Long, Instruction> insns, long entry, String why) {
        ControlFlow cf = new ControlFlow();
        cf.everything = true;
        cf.fallback = why;
        cf.indirect = true;
        cf.reachable.addAll(insns.keySet());
        cf.leaders.addAll(insns.keySet());
        cf.leaders.add(entry);
        for (Instruction i : insns.values()) {
            if (i.opcode().has("branch")) {
                cf.leaders.add(Translator.branchTarget(i));
            }
        }
        cf.targets.addAll(cf.leaders);
        return cf;
    }

    /** What an SGPR holds, as far as the scan knows. */
    private enum Kind {
        /** a constant that is no code address */
        CONST,
        /** (half of) a code address from s_getpc_b64, possibly adjusted by constants */
        CODE,
        /** (half of) a return address s_swappc/s_call wrote: itself an indirect target */
        RET,
        /** (half of) some return address, value lost at a block start */
        RET_ANY,
        /** (half of) some code address, value lost at a block start or combined with an unknown */
        TAINT,
        /** loaded from memory by a scalar load (a function pointer, if a jump reads it) */
        MEM
    }

    /**
     * A register's content: its kind, its value (CODE, RET, CONST), the s_getpc_b64 or call it comes from, and for
     * a CODE half whose pair is complete (after the s_addc_u32) the whole 64-bit address.
     */
    private record Val(Kind kind, long value, long from, Long pair) {
        Val(Kind kind, long value, long from) {
            this(kind, value, from, null);
        }

        boolean code() {
            return kind == Kind.CODE || kind == Kind.TAINT;
        }

        /** A code address that may become a jump target: a CODE half not known to point outside the code. */
        boolean mayTarget(long lo, long hi) {
            return code() && (pair == null || pair >= lo && pair < hi);
        }

        boolean addressLike() {
            return kind != Kind.CONST;
        }
    }

    /** The scan's result: constant targets of jumps and calls (by the jump's PC), or why targets are unbounded. */
    private static final class Scan {
        final Map<Long, Long> jumps = new HashMap<>();
        /** every complete code address s_getpc_b64 and constant adds make that lies in the code */
        final TreeSet<Long> constants = new TreeSet<>();
        String escape;
    }

    private static Scan scan(NavigableMap<Long, Instruction> insns, int waveSize) {
        TreeSet<Long> blockStarts = new TreeSet<>();
        for (Instruction i : insns.values()) {
            if (i.opcode().has("branch")) {
                blockStarts.add(Translator.branchTarget(i));
            }
        }
        Scan out = new Scan();
        long codeLo = insns.isEmpty() ? 0 : insns.firstKey();
        long codeHi = insns.isEmpty() ? 0 : insns.lastKey() + insns.lastEntry().getValue().length();
        Map<Integer, Val> known = new HashMap<>();
        Val carry = null; // SCC as the carry of a tracked s_add_u32 (null: unknown)
        for (Instruction i : insns.values()) {
            if (blockStarts.contains(i.pc())) {
                // control merges here: what the linear predecessor left may not be what arrives
                known.replaceAll((r, v) -> switch (v.kind()) {
                    case CODE, TAINT -> v.mayTarget(codeLo, codeHi) ? new Val(Kind.TAINT, 0, v.from()) : null;
                    case RET, RET_ANY -> new Val(Kind.RET_ANY, 0, v.from());
                    case CONST, MEM -> null;
                });
                known.values().removeIf(java.util.Objects::isNull);
                carry = null;
            }
            String m = i.mnemonic();
            Fields f = i.fields();
            long pc = i.pc();
            long next = pc + i.length();
            if (m.equals("s_getpc_b64") && f instanceof Fields.Sop1 s) {
                put(known, s.sdst(), new Val(Kind.CODE, next & 0xFFFF_FFFFL, pc));
                put(known, s.sdst() + 1, new Val(Kind.CODE, next >>> 32, pc));
                continue;
            }
            if ((m.equals("s_swappc_b64") || m.equals("s_setpc_b64")) && f instanceof Fields.Sop1 s) {
                Val lo = known.get(s.ssrc0());
                Val hi = known.get(s.ssrc0() + 1);
                if (lo != null && hi != null && (lo.kind() == Kind.TAINT || hi.kind() == Kind.TAINT)) {
                    out.escape = "PC " + hex(pc) + ": " + m + " jumps to a code address (from s_getpc_b64 at "
                            + hex(lo.kind() == Kind.TAINT ? lo.from() : hi.from())
                            + ") that crosses a block start, whose value the scan does not follow";
                    return out;
                }
                if (lo != null && lo.kind() == Kind.MEM || hi != null && hi.kind() == Kind.MEM) {
                    // a function pointer loaded from memory: its targets are data the scan does not read
                    out.escape = "PC " + hex(pc) + ": " + m + " jumps through s[" + s.ssrc0() + ":" + (s.ssrc0() + 1)
                            + "], loaded from memory at " + hex((lo != null && lo.kind() == Kind.MEM ? lo : hi).from());
                    return out;
                }
                if (lo != null && hi != null && (lo.code() || hi.code() || lo.kind() == Kind.RET)
                        && lo.kind() != Kind.RET_ANY && hi.kind() != Kind.RET_ANY) {
                    out.jumps.put(pc, hi.value() << 32 | lo.value());
                }
                if (m.equals("s_swappc_b64")) {
                    // the callee may write any SGPR; what it leaves is unknown (a code address it computes is
                    // checked where it computes it)
                    known.clear();
                    put(known, s.sdst(), new Val(Kind.RET, next & 0xFFFF_FFFFL, pc));
                    put(known, s.sdst() + 1, new Val(Kind.RET, next >>> 32, pc));
                }
                carry = null;
                continue;
            }
            if (m.equals("s_call_b64") && f instanceof Fields.Sopk s) {
                known.clear();
                put(known, s.sdst(), new Val(Kind.RET, next & 0xFFFF_FFFFL, pc));
                put(known, s.sdst() + 1, new Val(Kind.RET, next >>> 32, pc));
                carry = null;
                continue;
            }
            if ((m.equals("s_mov_b32") || m.equals("s_mov_b64")) && f instanceof Fields.Sop1 s) {
                int n = m.endsWith("64") ? 2 : 1;
                for (int k = 0; k < n; k++) {
                    Val v = operand(i, s.ssrc0() + (s.ssrc0() < 106 ? k : 0), known);
                    if (n == 2 && k == 1 && s.ssrc0() >= 106) {
                        v = null; // a 64-bit inline constant or literal: its high half is not tracked
                    }
                    if (v != null && v.mayTarget(codeLo, codeHi) && s.sdst() + k >= 106) {
                        out.escape = escape(i, v);
                        return out;
                    }
                    put(known, s.sdst() + k, v);
                }
                continue;
            }
            if ((m.equals("s_add_u32") || m.equals("s_addc_u32")) && f instanceof Fields.Sop2 s) {
                Val a = operand(i, s.ssrc0(), known);
                Val b = operand(i, s.ssrc1(), known);
                boolean withCarry = m.equals("s_addc_u32");
                boolean address = (a != null && a.addressLike()) || (b != null && b.addressLike());
                if (!address && (a == null || b == null || withCarry && carry == null)) {
                    put(known, s.sdst(), null);
                    carry = null;
                    continue;
                }
                long from = a != null && a.addressLike() ? a.from() : b != null ? b.from() : pc;
                if (a == null || b == null || a.kind() == Kind.TAINT || b.kind() == Kind.TAINT
                        || a.kind() == Kind.RET_ANY || b.kind() == Kind.RET_ANY || withCarry && carry == null) {
                    put(known, s.sdst(), address ? new Val(Kind.TAINT, 0, from) : null);
                    carry = address ? new Val(Kind.TAINT, 0, from) : null;
                    continue;
                }
                long sum = a.value() + b.value() + (withCarry ? carry.value() : 0);
                Val lo = known.get(s.sdst() - 1);
                if (address && withCarry && lo != null && lo.kind() == Kind.CODE && lo.from() == from) {
                    // the pair is complete: both halves know the whole address (data past the code is no target)
                    long whole = (sum & 0xFFFF_FFFFL) << 32 | lo.value();
                    put(known, s.sdst() - 1, new Val(Kind.CODE, lo.value(), from, whole));
                    put(known, s.sdst(), new Val(Kind.CODE, sum & 0xFFFF_FFFFL, from, whole));
                    if (whole >= codeLo && whole < codeHi) {
                        out.constants.add(whole); // a code address: reachable, a block and an indirect target
                    }
                } else {
                    put(known, s.sdst(), new Val(address ? Kind.CODE : Kind.CONST, sum & 0xFFFF_FFFFL, from));
                }
                carry = new Val(Kind.CONST, sum >>> 32, from);
                continue;
            }
            // any other instruction: a code address it reads (other than as a memory base or in a comparison)
            // escapes the scan
            for (int r : reads(i)) {
                Val v = known.get(r);
                if (v != null && v.mayTarget(codeLo, codeHi) && !(v.kind() == Kind.CODE && v.pair() != null
                        && copies(m))) {
                    out.escape = escape(i, v);
                    return out;
                }
            }
            for (int r : writes(i, waveSize)) {
                known.remove(r);
            }
            if (f instanceof Fields.Smem sm && i.opcode().memory().isLoad()) {
                for (int k = 0; k < width(i, "sdata"); k++) {
                    put(known, sm.sdata() + k, new Val(Kind.MEM, 0, pc));
                }
            }
            if (!(f instanceof Fields.Sopp) && !(f instanceof Fields.Smem)) {
                carry = null; // SCC may have changed
            }
            if (m.contains("readlane") || m.contains("readfirstlane") || m.startsWith("s_movreld")
                    || m.startsWith("v_cmp") || m.startsWith("v_cmpx")) {
                // SGPR destinations not in the decoded fields' plain form: forget constants, keep what reads
                // would still see as a code address only if not overwritten (unknown: forget all but addresses)
                if (m.startsWith("s_movreld") || m.contains("readlane") || m.contains("readfirstlane")) {
                    int d = f instanceof Fields.Vop3 v ? v.vdst() : f instanceof Fields.Vop1 v ? v.vdst() : -1;
                    if (d >= 0 && d < 106) {
                        known.remove(d);
                    } else {
                        known.clear();
                    }
                }
            }
        }
        return out;
    }

    /**
     * Instructions that move a whole code address unchanged (a spill to a VGPR lane or to memory, a copy into a
     * VGPR): its value is already an indirect target, so a copy of it adds none.
     */
    private static boolean copies(String m) {
        return m.equals("v_writelane_b32") || m.equals("v_mov_b32") || m.startsWith("s_store")
                || m.startsWith("s_scratch_store");
    }

    private static String escape(Instruction i, Val v) {
        return "PC " + hex(i.pc()) + ": " + i.mnemonic() + " reads a code address (from " + (v.kind() == Kind.RET
                || v.kind() == Kind.RET_ANY ? "the call" : "s_getpc_b64") + " at " + hex(v.from())
                + ") in a way the scan does not follow";
    }

    private static void put(Map<Integer, Val> known, int reg, Val v) {
        if (reg < 0 || reg >= 106) {
            return;
        }
        if (v == null) {
            known.remove(reg);
        } else {
            known.put(reg, v);
        }
    }

    private static Val operand(Instruction i, int code, Map<Integer, Val> known) {
        if (code < 106) {
            return known.get(code);
        }
        if (code >= 128 && code <= 192) {
            return new Val(Kind.CONST, code - 128, i.pc());
        }
        if (code >= 193 && code <= 208) {
            return new Val(Kind.CONST, (192L - code) & 0xFFFF_FFFFL, i.pc());
        }
        if (code == 255 && i.literal().isPresent()) {
            return new Val(Kind.CONST, Integer.toUnsignedLong(i.literal().getAsInt()), i.pc());
        }
        return null;
    }

    /** How many consecutive SGPRs the row's named destination spans (its type: b64 two, xN N/32), 0 without one. */
    private static int width(Instruction i, String operand) {
        OperandSpec o = i.opcode().operand(operand);
        if (o == null) {
            return 0;
        }
        int n = o.registers();
        return n > 0 ? n : o.type().endsWith("64") ? 2 : 1;
    }

    private static void add(java.util.List<Integer> out, int code, int n) {
        if (code >= 0 && code < 106) {
            for (int k = 0; k < n && code + k < 106; k++) {
                out.add(code + k);
            }
        }
    }

    /**
     * The SGPRs an instruction reads as data (the first register of each operand; SMEM store data whole). Memory bases (SMEM sbase,
     * MUBUF/MTBUF/MIMG resources and samplers, FLAT saddr) are not counted: reading memory at a code address does not
     * make a jump target of anything.
     */
    private static java.util.List<Integer> reads(Instruction i) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        String m = i.mnemonic();
        // one register per operand: a 64-bit operand's low half is enough (both halves of a code address are
        // tracked, and half of one cannot be jumped to without being combined again); two would see a neighbour
        int w = 1;
        Fields f = i.fields();
        if (f instanceof Fields.Sop1 s) {
            add(out, s.ssrc0(), w);
        } else if (f instanceof Fields.Sop2 s) {
            add(out, s.ssrc0(), w);
            add(out, s.ssrc1(), w);
        } else if (f instanceof Fields.Sopc s) {
            // comparisons read code addresses without making targets of anything (SCC only)
            return out;
        } else if (f instanceof Fields.Sopk s) {
            if (!m.equals("s_movk_i32") && !m.equals("s_getreg_b32") && !m.equals("s_call_b64")) {
                add(out, s.sdst(), 1);
            }
        } else if (f instanceof Fields.Smem s) {
            add(out, s.soffset(), 1);
            if (i.opcode().memory().isStore() || i.opcode().memory().isAtomic()) {
                add(out, s.sdata(), width(i, "sdata"));
            }
        } else if (f instanceof Fields.Vop1 v) {
            add(out, v.src0(), 1);
        } else if (f instanceof Fields.Vop2 v) {
            add(out, v.src0(), 1);
        } else if (f instanceof Fields.Vopc v) {
            add(out, v.src0(), 1);
        } else if (f instanceof Fields.Vop3 v) {
            add(out, v.src0(), 1);
            add(out, v.src1(), 1);
            add(out, v.src2(), 1);
        } else if (f instanceof Fields.Vop3p v) {
            add(out, v.src0(), 1);
            add(out, v.src1(), 1);
            add(out, v.src2(), 1);
        } else if (f instanceof Fields.Mubuf b) {
            add(out, b.soffset(), 1);
        } else if (f instanceof Fields.Mtbuf b) {
            add(out, b.soffset(), 1);
        }
        return out;
    }

    /** The SGPRs an instruction surely writes (never more: forgetting a register that keeps an address is unsafe). */
    private static java.util.List<Integer> writes(Instruction i, int waveSize) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        String m = i.mnemonic();
        Fields f = i.fields();
        if (f instanceof Fields.Sop1 s) {
            add(out, s.sdst(), width(i, "sdst"));
        } else if (f instanceof Fields.Sop2 s) {
            add(out, s.sdst(), width(i, "sdst"));
        } else if (f instanceof Fields.Sopk s) {
            if (m.equals("s_movk_i32") || m.equals("s_getreg_b32") || m.equals("s_addk_i32") || m.equals("s_mulk_i32")) {
                add(out, s.sdst(), 1);
            }
        } else if (f instanceof Fields.Smem s) {
            if (i.opcode().memory().isLoad()) {
                add(out, s.sdata(), width(i, "sdata"));
            }
        } else if (f instanceof Fields.Vop3 v) {
            if (v.sdst() >= 0) {
                add(out, v.sdst(), 1);
            }
            if (m.startsWith("v_cmp_")) {
                // a VOPC in VOP3 form writes its lane mask to the SGPR(s) in VDST (v_cmpx_ writes EXEC only)
                add(out, v.vdst(), waveSize == 64 ? 2 : 1);
            }
        }
        return out;
    }

    private static String hex(long pc) {
        return "0x" + Long.toHexString(pc);
    }
}
