package org.replayfarm.gpunode.translate;

import java.util.Set;
import org.replayfarm.model.isa.Fields;

/**
 * SOPP: branches as gotos to block labels (uniform: every condition is scalar), s_endpgm, s_barrier as a
 * barrier resume point, waits and hints as nothing (a translation runs each wave's memory operations
 * to completion in order), s_round_mode / s_denorm_mode into MODE, s_sendmsg, s_trap and s_code_end as
 * the ISA guide describes them for a compute wave.
 */
public final class BranchEmitter implements UnitEmitter {
    /** Scheduling hints, counters and waits: no architectural effect on a wave that completes every access in order. */
    private static final Set<String> NOTHING = Set.of("s_nop", "s_wakeup", "s_waitcnt", "s_sleep", "s_setprio",
            "s_icache_inv", "s_incperflevel", "s_decperflevel", "s_ttracedata", "s_inst_prefetch", "s_clause",
            "s_wait_idle", "s_waitcnt_depctr", "s_ttracedata_imm");

    @Override
    public String unit() {
        return "branch";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        String m = cx.mnemonic();
        int simm16 = cx.fields(Fields.Sopp.class).simm16();
        if (NOTHING.contains(m)) {
            cx.line("/* no effect */");
            return;
        }
        switch (m) {
            case "s_endpgm", "s_endpgm_saved", "s_endpgm_ordered_ps_done" -> cx.line("RT_END();");
            case "s_branch" -> jump(cx, null);
            case "s_cbranch_scc0" -> jump(cx, "RT_SCC == 0");
            case "s_cbranch_scc1" -> jump(cx, "RT_SCC != 0");
            case "s_cbranch_vccz" -> jump(cx, "RT_VCC == 0");
            case "s_cbranch_vccnz" -> jump(cx, "RT_VCC != 0");
            case "s_cbranch_execz" -> jump(cx, "RT_EXEC == 0");
            case "s_cbranch_execnz" -> jump(cx, "RT_EXEC != 0");
            case "s_barrier" -> {
                int k = ++cx.state.barriers;
                cx.line("RT_BARRIER(" + k + ");");
            }
            case "s_round_mode" -> cx.line("RT_MODE = (RT_MODE & ~0xfu) | " + InsnContext.hex32(simm16 & 0xF) + ";");
            case "s_denorm_mode" -> cx.line("RT_MODE = (RT_MODE & ~0xf0u) | " + InsnContext.hex32((simm16 & 0xF) << 4)
                    + ";");
            case "s_sendmsg" -> {
                // messages a compute wave may send without effect on its results: interrupt, GS/GS_DONE,
                // save-wave, stall-wave-gen, halt-waves, ordered-PS-done, early-prim-dealloc, GS_ALLOC_REQ
                int id = simm16 & 0xF;
                if (id >= 1 && id <= 9 && id != 6) {
                    cx.line("/* message " + id + ": no effect on a compute wave */");
                } else {
                    cx.line("/* s_sendmsg message " + id + ": nothing a replay carries out */");
                    cx.line("RT_FAULT_NOW(RT_FAULT_UNSUPPORTED, " + cx.pcC() + ", -1, " + id + ");");
                }
            }
            case "s_trap" -> {
                cx.line("/* the wave traps to the trap handler: a fault */");
                cx.line("RT_FAULT_NOW(RT_FAULT_OTHER, " + cx.pcC() + ", -1, " + InsnContext.hex32(simm16) + ");");
            }
            case "s_cbranch_cdbgsys", "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user", "s_cbranch_cdbgsys_and_user" ->
                    cx.line("/* no debugger is attached to a replay: the conditional-debug flags are clear, the branch "
                            + "falls through (as in the host model) */");
            case "s_code_end" -> {
                cx.line("/* the wave ran past its program's end into the padding */");
                cx.line("RT_FAULT_NOW(RT_FAULT_UNSUPPORTED, " + cx.pcC() + ", -1, 0);");
            }
            default -> throw cx.refuse("no translation of " + m + " (kill and halt controls are not part of a "
                    + "compute replay)");
        }
    }

    private static void jump(InsnContext cx, String condition) {
        long target = Translator.branchTarget(cx.insn());
        String go = (target <= cx.pc() ? "RT_BACKEDGE(" + cx.pcC() + "); " : "") + "goto " + cx.label(target) + ";";
        cx.line(condition == null ? go : "if (" + condition + ") { " + go + " }");
    }
}
