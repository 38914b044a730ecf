package org.replayfarm.gpunode.translate;

import org.replayfarm.model.isa.Instruction;

/**
 * Which unit translates an instruction: by encoding, and for MUBUF by whether its row is a formatted access
 * ({@code MemoryAccess.format}).
 */
public final class Routing {
    private Routing() {
    }

    public static Unit route(Instruction insn) {
        return switch (insn.encoding()) {
            case SOP1, SOP2, SOPC, SOPK -> Unit.SCALAR;
            case SOPP -> Unit.BRANCH;
            case SMEM -> Unit.SMEM;
            case VOP1, VOP2, VOP3, VOP3P, VOPC, VINTRP -> Unit.VECTOR;
            case DS, FLAT, GLOBAL, SCRATCH -> Unit.MEMORY;
            case MUBUF -> insn.opcode().memory().format() ? Unit.IMAGE : Unit.MEMORY;
            case MIMG, MTBUF -> Unit.IMAGE;
            case EXP -> Unit.NONE;
        };
    }
}
