/**
 * The coordinator's side of device runs on GPU nodes: {@link org.replayfarm.coordinator.device.GpuNodes} finds the
 * GPU nodes' device runners through the receptionist and offers a job's {@code cuda} (or {@code auto}) device run
 * to them as a {@code GpuSource}, {@link org.replayfarm.coordinator.device.RemoteDeviceBackend} runs one on a GPU
 * node (moving to the next one when a node leaves), and {@link org.replayfarm.coordinator.device.HotGuestMetrics}
 * puts a run's hottest guest instructions on {@code /metrics}. The coordinator node ({@code FarmNode}) sets them
 * up.
 */
package org.replayfarm.coordinator.device;
