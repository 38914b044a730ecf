package org.replayfarm.gpunode.node;

import com.typesafe.config.Config;
import java.nio.file.Path;
import org.replayfarm.gpunode.cuda.CudaBackend;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.gpunode.sampling.CuptiShim;
import org.replayfarm.gpunode.sampling.NoDeviceSampler;
import org.replayfarm.gpunode.sampling.PcSampler;
import org.replayfarm.gpunode.sampling.SamplingMode;
import org.replayfarm.gpunode.sampling.SamplingSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PC sampler of a GPU node: the CUPTI shim on the cuda backend's primary context when sampling is on
 * and the node has a GPU; otherwise (no GPU, cuda-cpu, sampling off, the shim absent) the sampler that
 * says there is no device to sample, with the reason logged once.
 */
public final class GpuSampler {
    private static final Logger LOG = LoggerFactory.getLogger(GpuSampler.class);

    private GpuSampler() {
    }

    public static PcSampler forDevice(Config config, DeviceBackend backend) {
        SamplingSettings s = SamplingSettings.from(config);
        if (s.mode() == SamplingMode.OFF || !(backend instanceof CudaBackend cuda)) {
            return new NoDeviceSampler();
        }
        Path library = s.cuptiLibrary().isEmpty() ? CuptiShim.built(Path.of(System.getProperty("replayfarm.root", ".")))
                : Path.of(s.cuptiLibrary());
        try {
            return CuptiShim.load(library, cuda.primaryContext());
        } catch (PcSampler.SamplingException e) {
            LOG.error("PC sampling ({}) is on but cannot run on this GPU node: {}", s.mode().configName(), e.getMessage());
            return new NoDeviceSampler();
        }
    }
}
