package org.replayfarm.model.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class FreePortsTest {
    @Test
    void ports_are_distinct_ascending_below_the_ephemeral_range_and_bindable() throws Exception {
        int[] ports = FreePorts.loopback(6);
        assertEquals(6, Arrays.stream(ports).distinct().count(), Arrays.toString(ports));
        for (int i = 0; i < ports.length; i++) {
            assertTrue(ports[i] >= FreePorts.FIRST && ports[i] < FreePorts.FIRST + FreePorts.COUNT, "in range: " + ports[i]);
            assertTrue(i == 0 || ports[i - 1] < ports[i], "ascending: " + Arrays.toString(ports));
            try (ServerSocket s = new ServerSocket(ports[i], 1, InetAddress.getLoopbackAddress())) {
                assertEquals(ports[i], s.getLocalPort());
            }
        }
    }
}
