/**
 * The RDNA 2 (gfx1030) host model: {@link org.replayfarm.evalnode.hostmodel.HostModel} runs the workgroups of
 * a capture's dispatch instruction by instruction and gives back each group's
 * {@link org.replayfarm.evalnode.hostmodel.GroupResult} (stores, texel stores, atomics, the first fault, the
 * counts). A {@link org.replayfarm.evalnode.hostmodel.Kernel} is the dispatch as the model sees it (program,
 * register layout, group size, wave size); {@code InitialMemory} and {@code InitialImages} are the guest memory
 * and images a group starts from.
 *
 * <p>Two tiers execute the same semantics: the reference interpreter in {@code HostModel} (each handler reads
 * its operands from the decoded instruction, lane by lane: the slow, obvious path every result is defined by)
 * and {@code FastTier}, the program compiled once into pre-resolved steps with lane loops over the
 * {@code LaneKernel}s the vector ALU registers. The hardware itself is modelled in the sub-packages:
 * {@code wave} (a wave's registers and its workgroup), {@code scalar} (the scalar ALU, branches and wave
 * control), {@code valu} (the vector ALU), {@code memory} (vector, scalar, LDS and buffer memory),
 * {@code image} (the texture unit and the BVH ray-intersection unit) and {@code semantics} (the table that
 * joins each opcode-table row to its handler and fidelity).
 */
package org.replayfarm.evalnode.hostmodel;
