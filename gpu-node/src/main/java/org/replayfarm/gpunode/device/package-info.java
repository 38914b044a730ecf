/**
 * The device side of a comparison: the {@link org.replayfarm.gpunode.device.DeviceBackend} interface (run a
 * capture's dispatch elsewhere than the host model and return its final ranges and images as a {@link
 * org.replayfarm.gpunode.device.DeviceRun}), the {@code --device} spellings and how each resolves to a backend
 * ({@link org.replayfarm.gpunode.device.DeviceChoice}), and the backends other than {@code cuda}: {@code recorded},
 * {@code dir:}, {@code cuda-cpu} (the translation run on the CPU) and {@code exec:} (with its allow list and
 * shell-word splitting). The CLI's commands, the coordinator's comparison and the GPU node's device runner use it.
 */
package org.replayfarm.gpunode.device;
