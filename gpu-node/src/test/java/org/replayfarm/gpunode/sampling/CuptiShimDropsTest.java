package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Kernel activity records the native shim had no room for are counted there ({@code nativeKernelsDropped});
 * each drain that finds the count grown says so once, with how many were lost since the drain before.
 */
@Tag("unit")
class CuptiShimDropsTest {
    @Test
    void a_drain_that_finds_kernel_records_dropped_warns_once_with_how_many() throws Exception {
        RecordingNatives natives = new RecordingNatives();
        CuptiShim shim = CuptiShim.over(CuptiShim.Context.fixed(0x10), natives);
        Logger logger = (Logger) LoggerFactory.getLogger(CuptiShim.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        logger.addAppender(log);
        try {
            shim.configure(SamplingMode.SERIALIZED);
            shim.drain();
            natives.dropped = 3;
            shim.drain();
            shim.drain();
            natives.dropped = 5;
            shim.drain();
            List<String> warnings = log.list.stream().filter(e -> e.getLevel() == Level.WARN)
                    .map(ILoggingEvent::getFormattedMessage).toList();
            assertEquals(2, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).startsWith("3 kernel activity record(s) lost"), warnings.get(0));
            assertTrue(warnings.get(1).startsWith("2 kernel activity record(s) lost"), warnings.get(1));
            assertEquals(5, shim.kernelsDropped());
            assertEquals(List.of(), natives.violations);
        } finally {
            logger.detachAppender(log);
        }
    }
}
