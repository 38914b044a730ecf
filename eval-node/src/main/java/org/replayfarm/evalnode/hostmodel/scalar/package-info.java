/**
 * The scalar unit of a compute unit: the scalar ALU (SOP1, SOP2, SOPC, SOPK; {@code ScalarAlu},
 * {@code ScalarAluUnary}), program control and branches (SOPP; {@code Branch}) and wave control (barriers,
 * waits, sleep, traps, {@code s_getreg}/{@code s_setreg}; {@code WaveControl}). Scalar memory (SMEM) is in
 * {@code memory}. RDNA 2 ISA, "Scalar ALU Operations", "Program Flow Control".
 */
package org.replayfarm.evalnode.hostmodel.scalar;
