/**
 * Memory-instruction facts the translator's memory emitter uses: the data a memory instruction moves per lane
 * ({@link org.replayfarm.gpunode.translate.memory.AccessWidth}: bytes, sign extension, D16 half) and the atomics as
 * rt_mem.h numbers them ({@link org.replayfarm.gpunode.translate.memory.AtomicOp}).
 */
package org.replayfarm.gpunode.translate.memory;
