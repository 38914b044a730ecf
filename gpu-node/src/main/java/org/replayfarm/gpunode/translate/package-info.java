/**
 * The translator from gfx1030 machine code to CUDA C: {@link org.replayfarm.gpunode.translate.Translator} lists the
 * program, finds its basic blocks and routes every instruction to its unit's emitter ({@code ScalarEmitter},
 * {@code VectorEmitter}, {@code MemoryEmitter}, {@code SmemEmitter}, {@code ImageEmitter}, {@code BranchEmitter}),
 * refusing the whole program when one instruction cannot be translated; the result is a {@link
 * org.replayfarm.gpunode.translate.Translation} (kernel.cu against the runtime headers), built for the CPU by
 * {@link org.replayfarm.gpunode.translate.CpuBuild} and fed by the launch bundle ({@code LaunchBundle}). The
 * runtime headers are resources in {@code rt/} beside this package. The {@code cuda-cpu} and {@code cuda} device
 * backends and {@code replay translate} use it.
 */
package org.replayfarm.gpunode.translate;
