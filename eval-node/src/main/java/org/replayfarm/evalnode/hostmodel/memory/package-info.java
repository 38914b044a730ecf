/**
 * Memory as a workgroup sees it: guest memory with its stores, atomics and store tracing ({@code
 * GroupMemory}), address spaces and apertures ({@code MemorySpaces}), vector memory (GLOBAL, FLAT, SCRATCH;
 * {@code VectorMemory}), scalar memory (SMEM; {@code ScalarMemory}), the local data share (DS; {@code Lds}),
 * buffer memory (MUBUF, MTBUF with their descriptors and formats; {@code BufferMemory}, {@code BufferFormats})
 * and the access helpers every memory instruction shares ({@code MemoryOps}). Beside the reference handlers, the
 * fast tier's step for GLOBAL dword loads and stores ({@code GlobalFast}), which the compiled tier's runs call
 * between their segments. RDNA 2 ISA, "Scalar Memory
 * Operations", "Vector Memory Buffer Instructions", "Flat, Scratch and Global Instructions", "Data Share
 * Operations".
 */
package org.replayfarm.evalnode.hostmodel.memory;
