package org.replayfarm.gpunode.sampling;

import java.util.Locale;
import java.util.Optional;

/** The tiers of PC sampling a GPU node can be configured with (seed 000). */
public enum SamplingMode {
    OFF("off", org.replayfarm.proto.SamplingMode.SAMPLING_MODE_OFF),
    /** Tier B: CUPTI's CONTINUOUS collection; kernels are not serialized. */
    CONTINUOUS("continuous", org.replayfarm.proto.SamplingMode.SAMPLING_MODE_CONTINUOUS),
    /** Tier A: KERNEL_SERIALIZED collection in duty-cycled bursts; kernels in a burst run serialized. */
    SERIALIZED("serialized", org.replayfarm.proto.SamplingMode.SAMPLING_MODE_KERNEL_SERIALIZED);

    private final String configName;
    private final org.replayfarm.proto.SamplingMode wire;

    SamplingMode(String configName, org.replayfarm.proto.SamplingMode wire) {
        this.configName = configName;
        this.wire = wire;
    }

    public String configName() {
        return configName;
    }

    public org.replayfarm.proto.SamplingMode wire() {
        return wire;
    }

    /** One tier by its name or number (off|0, continuous|1, serialized|2); empty for anything else. */
    static Optional<SamplingMode> single(String word) {
        return switch (word.trim().toLowerCase(Locale.ROOT)) {
            case "off", "0" -> Optional.of(OFF);
            case "continuous", "1" -> Optional.of(CONTINUOUS);
            case "serialized", "2" -> Optional.of(SERIALIZED);
            default -> Optional.empty();
        };
    }
}
