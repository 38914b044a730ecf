/**
 * A GPU node in the cluster: its device runner, which answers what device the node has and runs device-run tasks
 * ({@link org.replayfarm.gpunode.node.DeviceRunner}, with {@code DeviceSetup} choosing {@code cuda} or
 * {@code cuda-cpu}, {@code CaptureFetch} and {@code DeviceRunCodec}), and its sampling side ({@link
 * org.replayfarm.gpunode.node.GpuNode}, {@code GpuSampler}, and {@link org.replayfarm.gpunode.node.SamplingLink},
 * which sends sampling records to the coordinator's store). {@code FarmNode} starts them on a node with the gpu
 * role; the coordinator's {@code GpuNodes} and {@code RemoteDeviceBackend} talk to the runner.
 */
package org.replayfarm.gpunode.node;
