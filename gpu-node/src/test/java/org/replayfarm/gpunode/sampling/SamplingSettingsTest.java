package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** replay.gpu.sampling.mode: off by default, one tier or refused loudly. */
@Tag("unit")
class SamplingSettingsTest {
    private static SamplingSettings with(String mode) {
        return SamplingSettings.from(ConfigFactory.parseString("replay.gpu.sampling.mode = \"" + mode + "\"")
                .withFallback(ConfigFactory.defaultReference()));
    }

    @Test
    void sampling_is_off_by_default_with_the_seed_burst_defaults() {
        SamplingSettings s = SamplingSettings.from(ConfigFactory.defaultReference());
        assertEquals(SamplingMode.OFF, s.mode());
        assertTrue(s.refused().isEmpty());
        assertEquals(BurstConfig.DEFAULT, s.burst());
    }

    @Test
    void each_tier_is_chosen_by_name_or_number() {
        assertEquals(SamplingMode.SERIALIZED, with("serialized").mode());
        assertEquals(SamplingMode.SERIALIZED, with(" 2 ").mode());
        assertEquals(SamplingMode.CONTINUOUS, with("Continuous").mode());
        assertEquals(SamplingMode.CONTINUOUS, with("1").mode());
        assertEquals(SamplingMode.OFF, with("0").mode());
    }

    @Test
    void a_value_naming_two_tiers_or_none_is_refused_with_an_error_and_samples_nothing() {
        Logger logger = (Logger) LoggerFactory.getLogger(SamplingSettings.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try {
            for (String bad : List.of("continuous,serialized", "serialized|continuous", "1 2", "fast", "")) {
                SamplingSettings s = with(bad);
                assertEquals(SamplingMode.OFF, s.mode(), bad);
                assertTrue(s.refused().orElseThrow().contains("\"" + bad + "\""), s.refused().toString());
            }
            assertTrue(with("continuous,serialized").refused().orElseThrow().contains("more than one tier"));
            assertTrue(with("fast").refused().orElseThrow().contains("is not a tier"));
            List<ILoggingEvent> errors = log.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
            assertEquals(7, errors.size(), "one ERROR per refusal");
            assertTrue(errors.get(0).getFormattedMessage().contains("PC sampling refused"));
        } finally {
            logger.detachAppender(log);
        }
    }
}
