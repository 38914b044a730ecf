package org.replayfarm.cli.chaos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.cli.chaos.DelayProxy.Direction;
import org.replayfarm.cli.chaos.DelayProxy.Event;
import org.replayfarm.model.testing.Await;

/**
 * The delay proxy on loopback between a client and a server of the test's own: the bytes pass unchanged and in
 * order, each chunk leaves no sooner than its drawn delay after it came (read from the proxy's record of its own
 * clock), and a chunk held on one connection is overtaken by one on another (a clock the test moves: the order is
 * the events', not a timing's).
 */
@Tag("unit")
class DelayProxyTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private final List<AutoCloseable> open = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    @Test
    void bytes_pass_both_ways_unchanged_in_order_each_chunk_held_at_least_its_drawn_delay() throws Exception {
        ServerSocket server = listen();
        Thread echo = new Thread(() -> {
            try (Socket s = server.accept()) {
                s.getInputStream().transferTo(s.getOutputStream());
            } catch (IOException ignored) {
                // the test fails on what the client reads
            }
        });
        echo.setDaemon(true);
        echo.start();
        DelayProxy proxy = proxy(server, DelayProxy.Clock.REAL);
        proxy.delay(DelayProxy.Delay.jitter(4, 3, 36));
        byte[] sent = new byte[300_000];
        new Random(7).nextBytes(sent);
        byte[] got;
        try (Socket client = new Socket(LOOPBACK, proxy.address().getPort())) {
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = client.getOutputStream();
                    for (int i = 0; i < sent.length; i += 1000) {
                        out.write(sent, i, Math.min(1000, sent.length - i));
                        out.flush();
                    }
                    client.shutdownOutput();
                } catch (IOException ignored) {
                    // the test fails on what the client reads
                }
            });
            writer.start();
            got = client.getInputStream().readAllBytes();
            writer.join();
        }
        assertArrayEquals(sent, got, "the bytes came back through the proxy both ways unchanged");

        List<Event> events = proxy.events();
        Map<String, Event> arrived = new HashMap<>();
        Map<Direction, Long> lastDelivered = new HashMap<>();
        long delivered = 0;
        for (Event e : events) {
            String key = e.connection() + e.direction().name() + e.chunk();
            if (e.kind() == Event.Kind.ARRIVED) {
                assertTrue(e.delay() >= 1_000_000 && e.delay() <= 7_000_000, "a delay within 4 ms ± 3 ms: " + e);
                arrived.put(key, e);
                continue;
            }
            Event a = arrived.get(key);
            assertTrue(a != null, "a chunk delivered before it arrived: " + e);
            assertTrue(e.at() >= a.at() + a.delay(), "chunk held less than its delay: " + a + " then " + e);
            assertEquals(a.bytes(), e.bytes(), e.toString());
            long before = lastDelivered.getOrDefault(e.direction(), -1L);
            assertEquals(before + 1, e.chunk(), "a connection's chunks leave in their order: " + e);
            lastDelivered.put(e.direction(), e.chunk());
            delivered += e.bytes();
        }
        assertEquals(2L * sent.length, delivered, "every byte was delivered once each way");
        assertTrue(proxy.summary().contains("delayed"), proxy.summary());
    }

    @Test
    void a_chunk_held_on_one_connection_is_overtaken_by_one_sent_after_it_on_another() throws Exception {
        ServerSocket server = listen();
        BlockingQueue<Integer> received = new LinkedBlockingQueue<>();
        Thread acceptor = new Thread(() -> {
            try {
                for (int i = 0; i < 2; i++) {
                    Socket s = server.accept();
                    open.add(s);
                    Thread reader = new Thread(() -> {
                        try {
                            InputStream in = s.getInputStream();
                            int b;
                            while ((b = in.read()) >= 0) {
                                received.add(b);
                            }
                        } catch (IOException ignored) {
                            // the test fails on what was received
                        }
                    });
                    reader.setDaemon(true);
                    reader.start();
                }
            } catch (IOException ignored) {
                // the test fails on what was received
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        ManualClock clock = new ManualClock();
        DelayProxy proxy = proxy(server, clock);
        proxy.delay((connection, direction, chunk) -> connection == 0 ? 300_000_000L : 0L);

        Socket first = new Socket(LOOPBACK, proxy.address().getPort());
        open.add(first);
        first.getOutputStream().write('A');
        Await.until("the proxy holding A", () -> proxy.events().stream()
                .anyMatch(e -> e.kind() == Event.Kind.ARRIVED && e.connection() == 0));
        Socket second = new Socket(LOOPBACK, proxy.address().getPort());
        open.add(second);
        second.getOutputStream().write('B');
        assertEquals('B', received.poll(60, TimeUnit.SECONDS), "B, sent after A, arrives first");
        assertTrue(proxy.events().stream().noneMatch(e -> e.kind() == Event.Kind.DELIVERED && e.connection() == 0),
                "A waits for its 300 ms: the clock has not moved");
        clock.set(299_999_999L);
        clock.set(300_000_000L);
        assertEquals('A', received.poll(60, TimeUnit.SECONDS), "A leaves once its delay has passed");
        Event a = proxy.events().stream().filter(e -> e.kind() == Event.Kind.DELIVERED && e.connection() == 0)
                .findFirst().orElseThrow();
        assertEquals(300_000_000L, a.at(), "A left at its arrival plus its delay: " + a);
    }

    @Test
    void a_jitter_wider_than_its_mean_is_refused_by_name() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DelayProxy.Delay.jitter(100, 200, 1));
        assertTrue(e.getMessage().contains("100 ms ± 200 ms"), e.getMessage());
    }

    /** A clock that moves only when the test says: a waiting chunk leaves once it is set to its due time or later. */
    private static final class ManualClock implements DelayProxy.Clock {
        private long now;

        @Override
        public synchronized long now() {
            return now;
        }

        synchronized void set(long nanos) {
            now = nanos;
            notifyAll();
        }

        @Override
        public synchronized void awaitReached(long nanos) throws InterruptedException {
            while (now < nanos) {
                wait();
            }
        }
    }

    private ServerSocket listen() throws IOException {
        ServerSocket s = new ServerSocket(0, 50, LOOPBACK);
        open.add(s);
        return s;
    }

    private DelayProxy proxy(ServerSocket target, DelayProxy.Clock clock) throws IOException {
        DelayProxy p = DelayProxy.start("test", new InetSocketAddress(LOOPBACK, 0),
                new InetSocketAddress(LOOPBACK, target.getLocalPort()), clock, true);
        open.add(p);
        return p;
    }
}
