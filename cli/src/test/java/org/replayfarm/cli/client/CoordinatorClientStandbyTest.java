package org.replayfarm.cli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A client given one coordinator that stands by (503 with X-Replay-Standby: its cluster has not yet made it the
 * active one, or a failover is under way) asks again after each Retry-After instead of failing at once.
 */
@Tag("unit")
class CoordinatorClientStandbyTest {

    @Test
    void a_standby_answer_is_asked_again_until_the_coordinator_is_active() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/captures/", exchange -> {
            int n = asked.incrementAndGet();
            if (n <= 2) {
                exchange.getResponseHeaders().add("X-Replay-Standby", "true");
                exchange.getResponseHeaders().add("Retry-After", "1");
                exchange.sendResponseHeaders(503, -1);
            } else {
                exchange.sendResponseHeaders(404, -1);
            }
            exchange.close();
        });
        server.start();
        try {
            var client = new CoordinatorClient("http://127.0.0.1:" + server.getAddress().getPort());
            long t0 = System.nanoTime();
            assertFalse(client.hasCapture("ab".repeat(32)), "the active coordinator's answer: not there");
            long waitedMs = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(3, asked.get(), "two standby answers, then the active one");
            assertTrue(waitedMs >= 1_500, "it waited the Retry-After between asks: " + waitedMs + " ms");
        } finally {
            server.stop(0);
        }
    }
}
