package org.replayfarm.evalnode.hostmodel.semantics;

/**
 * How faithfully the host model executes an instruction: bit for bit as the hardware does
 * ({@code EXACT}), within a documented error bound ({@code APPROXIMATE}: transcendentals, reciprocals,
 * square roots), or not at all ({@code UNSUPPORTED}: executing it faults the group).
 */
public enum Fidelity {
    EXACT, APPROXIMATE, UNSUPPORTED
}
