package org.replayfarm.gpunode.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The shim's order on its failure paths, checked by the recording stand-in: every failure disables. */
@Tag("unit")
class CuptiShimOrderTest {
    @Test
    void a_failed_start_disables_and_the_next_start_configures_again() throws Exception {
        RecordingNatives n = new RecordingNatives().failStart(1);
        CuptiShim shim = CuptiShim.over(CuptiShim.Context.fixed(0x10), n);
        shim.configure(SamplingMode.SERIALIZED);
        assertThrows(PcSampler.SamplingException.class, shim::start);
        assertTrue(n.disabled());
        shim.start();
        shim.stop();
        shim.drain();
        shim.close();
        assertEquals(List.of("initActivity", "configure 0x10", "synchronize 0x10", "start 0x10", "disable 0x10",
                "configure 0x10", "synchronize 0x10", "start 0x10", "stop 0x10", "drain 0x10", "drain 0x10",
                "disable 0x10"), n.calls);
        assertEquals(List.of(), n.violations);
    }

    @Test
    void a_full_hardware_buffer_disables_enables_and_configures_again() throws Exception {
        RecordingNatives n = new RecordingNatives().bufferFull(1);
        CuptiShim shim = CuptiShim.over(CuptiShim.Context.fixed(0x10), n);
        shim.configure(SamplingMode.SERIALIZED);
        shim.start();
        shim.drain(); // armed: activity only
        shim.stop();
        shim.drain();
        assertEquals(List.of("initActivity", "configure 0x10", "synchronize 0x10", "start 0x10", "drain-activity 0x10",
                "stop 0x10", "drain 0x10", "disable 0x10", "configure 0x10"), n.calls);
        assertEquals(List.of(), n.violations);
    }

    @Test
    void a_failed_stop_disables() throws Exception {
        RecordingNatives n = new RecordingNatives().failStop(1);
        CuptiShim shim = CuptiShim.over(CuptiShim.Context.fixed(0x10), n);
        shim.configure(SamplingMode.SERIALIZED);
        shim.start();
        assertThrows(PcSampler.SamplingException.class, shim::stop);
        assertTrue(n.disabled());
        assertEquals(List.of(), n.violations);
    }
}
