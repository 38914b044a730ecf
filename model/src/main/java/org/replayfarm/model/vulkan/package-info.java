/**
 * Vulkan compute shaders on Mesa: compiling a shader source to SPIR-V ({@link
 * org.replayfarm.model.vulkan.ShaderSource}), reading a SPIR-V module's compute interface ({@code SpirvModule}),
 * the farm's Vulkan helper program and the drivers it runs on ({@link org.replayfarm.model.vulkan.VkTool}: RADV's
 * null navi21 device, lavapipe), and what RADV reported for a pipeline, checked against itself and the farm's
 * decoder ({@link org.replayfarm.model.vulkan.RadvBinary}, {@code RadvLaunch}, {@code AssemblyCheck}).
 * {@code VulkanBuild} makes captures from it; the CLI's Vulkan and Amber commands use it.
 */
package org.replayfarm.model.vulkan;
