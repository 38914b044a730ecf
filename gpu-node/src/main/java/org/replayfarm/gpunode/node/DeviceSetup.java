package org.replayfarm.gpunode.node;

import com.typesafe.config.Config;
import org.replayfarm.gpunode.cuda.CudaBackend;
import org.replayfarm.gpunode.cuda.GpuProbe;
import org.replayfarm.gpunode.cuda.LocalGpu;
import org.replayfarm.gpunode.device.CudaCpuBackend;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.proto.GpuDeviceInfo;

/**
 * A GPU node's device as {@code replay.gpu.backend} asks: {@code cuda} (this machine's GPU, found by the
 * probe; absent, the node says why and takes no device runs) or {@code cuda-cpu} (the translation run on
 * the node's CPU: for operators without a GPU and for the tests of the whole path).
 */
public record DeviceSetup(DeviceBackend backend, GpuDeviceInfo info) {
    public static DeviceSetup from(Config config) {
        return of(config.getString("replay.gpu.backend"));
    }

    public static DeviceSetup of(String kind) {
        switch (kind) {
            case "cuda-cpu" -> {
                CudaCpuBackend b = new CudaCpuBackend();
                return new DeviceSetup(b, GpuDeviceInfo.newBuilder().setBackend("cuda-cpu").setAvailable(true)
                        .setWhy("the CUDA C translation run on this node's CPU (no GPU)").setName("CPU")
                        .setLabel(b.label()).build());
            }
            case "cuda" -> {
                GpuProbe.Gpu g = GpuProbe.once();
                if (!g.available()) {
                    return new DeviceSetup(null, GpuDeviceInfo.newBuilder().setBackend("cuda").setAvailable(false)
                            .setWhy(g.describe()).build());
                }
                CudaBackend b = LocalGpu.get().backend();
                return new DeviceSetup(b, GpuDeviceInfo.newBuilder().setBackend("cuda").setAvailable(true)
                        .setWhy(g.describe()).setName(g.name()).setCcMajor(g.ccMajor()).setCcMinor(g.ccMinor())
                        .setMemoryBytes(g.memoryBytes()).setDriverVersion(g.driverVersion()).setLabel(b.label()).build());
            }
            default -> throw new IllegalArgumentException("replay.gpu.backend '" + kind + "': expected cuda or cuda-cpu");
        }
    }

    /** One line for the node's start: what it runs on, or why it takes no device runs. */
    public String line() {
        return info.getBackend() + (info.getAvailable() ? " (" + info.getWhy() + ")" : " unavailable (" + info.getWhy() + ")");
    }
}
