/**
 * Making captures: {@link org.replayfarm.model.build.CaptureBuilder} builds one from an HSA code object or plain
 * code with its kernel arguments ({@link org.replayfarm.model.build.KernelArg}, {@code DispatchShape},
 * {@code RawLayout}) laid out in the guest address space ({@code GuestLayout}); {@code SourceBuild} and
 * {@code Llvm} are the toolchain lines for OpenCL C, HIP and assembly; {@link
 * org.replayfarm.model.build.VulkanBuild} builds a capture of a Vulkan compute shader as RADV would launch it.
 * {@code replay capture build} and the benchmarks use it; the host model takes its scratch base from
 * {@code GuestLayout}.
 */
package org.replayfarm.model.build;
