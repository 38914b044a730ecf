package org.replayfarm.evalnode.hostmodel.semantics;

import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Instruction;

/**
 * What one instruction does to a wave (and through it to its workgroup's LDS and memory). A handler
 * that does not branch leaves the PC alone: the interpreter advances it past the instruction.
 */
@FunctionalInterface
public interface Semantics {
    void execute(Wave wave, Instruction insn);
}
