/**
 * AMDGPU code objects: ELF64 files ({@link org.replayfarm.model.elf.ElfFile}), their placement at a guest address
 * with relocations applied ({@link org.replayfarm.model.elf.CodeObjectLoader}, giving a {@code LoadedCodeObject}),
 * kernel descriptors and metadata ({@code KernelDescriptor}, {@code KernelMetadata}), clang offload bundles and HIP
 * fat binaries ({@link org.replayfarm.model.elf.OffloadBundle}), and OpenCL C mangled names spelled as declarations
 * ({@code OpenClNames}). The capture builder, {@code replay disasm}, the coordinator's typed range views and source
 * lines, and every report naming a kernel use it.
 */
package org.replayfarm.model.elf;
