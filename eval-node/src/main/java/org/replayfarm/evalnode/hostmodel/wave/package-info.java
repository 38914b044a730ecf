/**
 * A wave's and a workgroup's architectural state: the scalar register file (SGPRs, VCC, EXEC, M0), the
 * VGPRs with lanes contiguous, SCC, MODE, the PC and the flat scratch base ({@link
 * org.replayfarm.evalnode.hostmodel.wave.Wave}); the waves of one group with their LDS and guest memory
 * ({@link org.replayfarm.evalnode.hostmodel.wave.Workgroup}); and the fault a guest instruction raises
 * ({@link org.replayfarm.evalnode.hostmodel.wave.GuestFault}). Operand reads the ISA defines for every unit
 * (inline constants, literals, special sources) live on the wave. RDNA 2 ISA, "State".
 */
package org.replayfarm.evalnode.hostmodel.wave;
