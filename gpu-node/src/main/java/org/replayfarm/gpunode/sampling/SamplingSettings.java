package org.replayfarm.gpunode.sampling;

import com.typesafe.config.Config;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A GPU node's sampling configuration ({@code replay.gpu.sampling}). The mode is the node's own choice,
 * and it decides the disclosure: "Tier A was asked for" is never inferred from which windows arrived.
 * A mode value that names two tiers, or one that is unknown, is refused: {@link #mode()} is then OFF,
 * {@link #refused()} says why, and {@link #from} logged it at ERROR.
 */
public record SamplingSettings(SamplingMode mode, Optional<String> refused, BurstConfig burst, String cuptiLibrary) {
    public static final String PATH = "replay.gpu.sampling";
    private static final Logger LOG = LoggerFactory.getLogger(SamplingSettings.class);

    public static SamplingSettings off() {
        return new SamplingSettings(SamplingMode.OFF, Optional.empty(), BurstConfig.DEFAULT, "");
    }

    public static SamplingSettings of(SamplingMode mode) {
        return new SamplingSettings(mode, Optional.empty(), BurstConfig.DEFAULT, "");
    }

    /** Reads {@code replay.gpu.sampling} of a node's configuration (reference.conf gives the defaults). */
    public static SamplingSettings from(Config config) {
        Config c = config.getConfig(PATH);
        BurstConfig burst = new BurstConfig(c.getDuration("burst", TimeUnit.NANOSECONDS),
                c.getDouble("target-pairs-per-second"), c.getDouble("max-duty"),
                c.getDuration("max-gap", TimeUnit.NANOSECONDS), c.getDouble("gain"));
        String raw = c.getString("mode");
        String library = c.getString("cupti-library");
        Optional<SamplingMode> mode = SamplingMode.single(raw);
        if (mode.isPresent()) {
            return new SamplingSettings(mode.get(), Optional.empty(), burst, library);
        }
        String why = namesTwoTiers(raw)
                ? PATH + ".mode = \"" + raw + "\" names more than one tier; choose one of off, continuous, serialized"
                : PATH + ".mode = \"" + raw + "\" is not a tier; choose one of off, continuous, serialized (or 0, 1, 2)";
        LOG.error("PC sampling refused, this node samples nothing: {}", why);
        return new SamplingSettings(SamplingMode.OFF, Optional.of(why), burst, library);
    }

    private static boolean namesTwoTiers(String raw) {
        int tiers = 0;
        for (String word : raw.split("[^A-Za-z0-9]+")) {
            if (!word.isEmpty() && SamplingMode.single(word).isPresent()) {
                tiers++;
            }
        }
        return tiers >= 2;
    }

    /** Tier A was asked for (and not refused). */
    public boolean serialized() {
        return mode == SamplingMode.SERIALIZED;
    }
}
