package org.replayfarm.coordinator.node;

import akka.actor.typed.ActorSystem;
import com.typesafe.config.Config;
import java.nio.file.Path;
import org.replayfarm.gpunode.node.DeviceRunner;
import org.replayfarm.gpunode.node.DeviceSetup;
import org.replayfarm.gpunode.node.GpuNode;
import org.replayfarm.gpunode.node.GpuSampler;
import org.replayfarm.gpunode.sampling.PcSampler;

/**
 * The gpu role of a node ({@value GpuNode#ROLE}): its device ({@code replay.gpu.backend}, or one a test gives),
 * the {@link GpuNode}'s PC sampling as the node's {@code replay.gpu.sampling} says (its records go to the
 * coordinators' sampling stores), and the device runner that runs device runs for coordinators, keeping their
 * captures under the work directory's {@code gpu-captures}. Everything it starts is an actor of the node's actor
 * system and stops with it.
 */
public final class GpuRole implements AutoCloseable {
    private final GpuNode gpu;
    private final DeviceSetup device;

    private GpuRole(GpuNode gpu, DeviceSetup device) {
        this.gpu = gpu;
        this.device = device;
    }

    /**
     * Starts the role on a node whose actor system has started; {@code deviceOverride} and {@code sampler}, when
     * not null, stand for the configured device and the device's sampler.
     */
    public static GpuRole start(ActorSystem<Void> system, Config config, Path workDir, DeviceSetup deviceOverride,
                                PcSampler sampler) {
        DeviceSetup device = deviceOverride != null ? deviceOverride : DeviceSetup.from(config);
        PcSampler pc = sampler != null ? sampler : GpuSampler.forDevice(config, device.backend());
        GpuNode gpu = GpuNode.start(system, pc, System.currentTimeMillis());
        DeviceRunner.start(system, device.backend(), device.info(), workDir.resolve("gpu-captures"), gpu);
        return new GpuRole(gpu, device);
    }

    public GpuNode gpu() {
        return gpu;
    }

    public DeviceSetup device() {
        return device;
    }

    /** Nothing of its own to close: its actors stop with the node's actor system. */
    @Override
    public void close() {
    }
}
