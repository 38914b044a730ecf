/**
 * The {@code cuda} device backend, over JCuda's driver API: {@link org.replayfarm.gpunode.cuda.CudaBackend}
 * translates a capture's program, builds it with nvcc ({@code FatbinBuild}), launches the whole dispatch in the
 * device's primary context ({@code PrimaryContext}) and reads the results back; {@link
 * org.replayfarm.gpunode.cuda.GpuProbe} says whether this process has a usable GPU and {@link
 * org.replayfarm.gpunode.cuda.LocalGpu} offers it as a {@code GpuSource}; {@code CubinLines} and {@code GuestPcMap}
 * trace PC samples back to guest instructions. The GPU node's device runner and the {@code cuda} device choice use
 * it.
 */
package org.replayfarm.gpunode.cuda;
