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
    /** Natives that accept every call and report a settable number of dropped kernel records. */
    private static final class Natives implements CuptiShim.Natives {
        long dropped;

        @Override
        public int configure(long context, int collectionMode, Object[] namesOut, String[] messageOut) {
            namesOut[0] = new String[] {"smsp__pcsamp_warps_issue_stalled_wait"};
            return 0;
        }

        @Override
        public int start(long context, String[] messageOut) {
            return 0;
        }

        @Override
        public int stop(long context, String[] messageOut) {
            return 0;
        }

        @Override
        public int drain(long context, Object sink, String[] messageOut) {
            return 0;
        }

        @Override
        public long timestamp() {
            return 0;
        }

        @Override
        public long kernelsDropped() {
            return dropped;
        }
    }

    @Test
    void a_drain_that_finds_kernel_records_dropped_warns_once_with_how_many() throws Exception {
        Natives natives = new Natives();
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
        } finally {
            logger.detachAppender(log);
        }
    }
}
