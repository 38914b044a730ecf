package org.replayfarm.evalnode.hostmodel;

import java.util.List;
import java.util.Optional;

/**
 * What evaluating one group produced: its stores, texel stores (final value per texel, ordered by image
 * then texel), atomic contributions to memory and to texels (image atomics), the fault that stopped it (if
 * any), and what it executed: wave instructions, lane instructions (active lanes summed), and how many
 * of the wave instructions were exact, approximate or unsupported.
 */
public record GroupResult(int x, int y, int z, List<StoreRun> stores, List<TexelStore> texels,
                          List<AtomicContribution> atomics, List<TexelAtomic> texelAtomics,
                          Optional<FaultRecord> fault, long waveInstructions, long laneInstructions, long exact,
                          long approximate, long unsupported) {
    public GroupResult {
        stores = List.copyOf(stores);
        texels = List.copyOf(texels);
        atomics = List.copyOf(atomics);
        texelAtomics = List.copyOf(texelAtomics);
    }

    /** A result with no image atomics. */
    public GroupResult(int x, int y, int z, List<StoreRun> stores, List<TexelStore> texels,
                       List<AtomicContribution> atomics, Optional<FaultRecord> fault, long waveInstructions,
                       long laneInstructions, long exact, long approximate, long unsupported) {
        this(x, y, z, stores, texels, atomics, List.of(), fault, waveInstructions, laneInstructions, exact, approximate,
                unsupported);
    }
}
