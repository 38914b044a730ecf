package org.replayfarm.evalnode.hostmodel.scalar;

import static org.replayfarm.evalnode.hostmodel.scalar.ScalarAlu.sop1;

import java.util.function.Predicate;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * Program flow: the PC-relative branches (SOPP), s_call_b64 (SOPK) and the PC moves of SOP1
 * (s_getpc_b64, s_setpc_b64, s_swappc_b64). A relative target is the address of the next instruction
 * plus SIMM16 (signed) dwords: PC + 4 + SIMM16 * 4. s_getpc_b64 and the return addresses of
 * s_swappc_b64 and s_call_b64 are the address of the next instruction. RDNA 2 ISA guide, "Program
 * Flow Control". All exact.
 *
 * <p>The debugger branches (s_cbranch_cdbgsys, s_cbranch_cdbguser, and their _or_/_and_ forms) test
 * the conditional-debug flags the debugger sets in the wave; a replay runs without a debugger, so the
 * flags are clear and the branches fall through.
 */
public final class Branch {
    private Branch() {
    }

    public static void register(SemanticsTable.Builder b) {
        branch(b, "s_branch", w -> true);
        branch(b, "s_cbranch_scc0", w -> !w.scc());
        branch(b, "s_cbranch_scc1", Wave::scc);
        // VCCZ and EXECZ look at the wave's mask: vcc_lo / exec_lo in wave32, the pair in wave64
        branch(b, "s_cbranch_vccz", w -> w.vcc() == 0);
        branch(b, "s_cbranch_vccnz", w -> w.vcc() != 0);
        branch(b, "s_cbranch_execz", w -> w.exec() == 0);
        branch(b, "s_cbranch_execnz", w -> w.exec() != 0);
        // no debugger attached: both conditional-debug flags are 0
        branch(b, "s_cbranch_cdbgsys", w -> false);
        branch(b, "s_cbranch_cdbguser", w -> false);
        branch(b, "s_cbranch_cdbgsys_or_user", w -> false);
        branch(b, "s_cbranch_cdbgsys_and_user", w -> false);

        b.exact(Encoding.SOP1, "s_getpc_b64", (w, insn) -> w.setSgpr64(sop1(insn).sdst(), next(insn)));
        b.exact(Encoding.SOP1, "s_setpc_b64", (w, insn) -> w.jump(w.source64(sop1(insn).ssrc0(), insn, false)));
        b.exact(Encoding.SOP1, "s_swappc_b64", (w, insn) -> {
            Fields.Sop1 s = sop1(insn);
            long target = w.source64(s.ssrc0(), insn, false);
            w.setSgpr64(s.sdst(), next(insn));
            w.jump(target);
        });
        b.exact(Encoding.SOPK, "s_call_b64", (w, insn) -> {
            Fields.Sopk k = (Fields.Sopk) insn.fields();
            w.setSgpr64(k.sdst(), next(insn));
            w.jump(next(insn) + 4L * (short) k.simm16());
        });
    }

    /** The address of the instruction after {@code insn}. */
    static long next(Instruction insn) {
        return insn.pc() + insn.length();
    }

    private static void branch(SemanticsTable.Builder b, String mnemonic, Predicate<Wave> taken) {
        b.exact(Encoding.SOPP, mnemonic, (w, insn) -> {
            if (taken.test(w)) {
                w.jump(next(insn) + 4L * (short) ((Fields.Sopp) insn.fields()).simm16());
            }
        });
    }
}
