/**
 * Vulkan compute shaders: built through RADV into device-addressed captures ({@link
 * org.replayfarm.cli.vulkan.VulkanShaders}), and where the host model and lavapipe may differ in an Amber buffer
 * ({@code LavapipeDifferences}).
 */
package org.replayfarm.cli.vulkan;
