package org.replayfarm.evalnode.hostmodel;

import org.replayfarm.model.isa.Instruction;

/**
 * An optional hook that sees every write a group makes to guest memory and images, with the wave, lane,
 * PC and instruction that made it ({@link HostModel#runTraced}). Used to name the instruction that stored a
 * differing element; a run without a tracer pays nothing but a null check per instruction.
 */
public interface StoreTracer {
    /**
     * One write. {@code range}/{@code offset} for guest memory (else -1), {@code image}/{@code texel} for a
     * texel (else -1); {@code kind} is {@code store}, {@code atomic OP}, {@code texel store} or
     * {@code texel atomic OP}; {@code value} the bytes written (an atomic's new value), little-endian.
     */
    record Event(int wave, int lane, long pc, Instruction instruction, String kind, int range, long offset, int image,
                 long texel, byte[] value) {
    }

    void written(Event event);
}
