package org.replayfarm.cli.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy that delays what passes through it, as Toxiproxy's latency toxic does: put between a node and its
 * peers (the peers connect to the proxy, which connects on to the node), it holds every chunk it reads for a
 * delay drawn afresh for that chunk ({@link Delay}), then writes it on. A connection's bytes stay in their order,
 * as TCP keeps them: a chunk leaves at its arrival plus its delay, or after the chunk before it if that is later.
 * Chunks on different connections are not ordered among themselves, so jitter reorders what one node sends
 * another over its several connections (Artery's control, ordinary and large-message streams).
 * <p>
 * Time comes from a {@link Clock} ({@link Clock#REAL} in the fault driver; a test can move a clock of its own), and
 * with {@code record} on every chunk's arrival and delivery is kept in {@link #events()}, in the order they
 * happened, so that what the proxy did can be checked from its record rather than by timing it.
 */
public final class DelayProxy implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DelayProxy.class);
    private static final int CHUNK = 64 * 1024;

    /** How long a chunk waits, in nanoseconds, drawn for each chunk. */
    @FunctionalInterface
    public interface Delay {
        long nanos(int connection, Direction direction, long chunk);

        Delay NONE = (c, d, i) -> 0;

        /**
         * {@code meanMillis} ± {@code spreadMillis}, uniform, from a generator seeded with {@code seed} (the same
         * seed draws the same delays in the same order of asking).
         */
        static Delay jitter(long meanMillis, long spreadMillis, long seed) {
            if (meanMillis < 0 || spreadMillis < 0 || spreadMillis > meanMillis) {
                throw new IllegalArgumentException("a delay of " + meanMillis + " ms ± " + spreadMillis
                        + " ms: both must be at least 0 and the spread no more than the mean");
            }
            Random random = new Random(seed);
            return (c, d, i) -> {
                long ms;
                synchronized (random) {
                    ms = meanMillis - spreadMillis + (long) (random.nextDouble() * (2 * spreadMillis + 1));
                }
                return Math.min(ms, meanMillis + spreadMillis) * 1_000_000L;
            };
        }
    }

    /** Which way a chunk goes: from the client to the target, or back. */
    public enum Direction { UP, DOWN }

    /** Where the proxy's time comes from, and how it waits for a moment to come. */
    public interface Clock {
        long now();

        /** Returns once {@link #now()} is at least {@code nanos}. */
        void awaitReached(long nanos) throws InterruptedException;

        Clock REAL = new Clock() {
            @Override
            public long now() {
                return System.nanoTime();
            }

            @Override
            public void awaitReached(long nanos) throws InterruptedException {
                for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                }
            }
        };
    }

    /** A chunk {@code ARRIVED} (read from one side; {@code delay} drawn, {@code due} when it may leave) or {@code DELIVERED}. */
    public record Event(Kind kind, int connection, Direction direction, long chunk, int bytes, long at, long delay,
                        long due) {
        public enum Kind { ARRIVED, DELIVERED }
    }

    private final String name;
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Clock clock;
    private final boolean record;
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicLong chunks = new AtomicLong();
    private final AtomicLong delayedChunks = new AtomicLong();
    private final AtomicLong maxDelay = new AtomicLong();
    private volatile Delay delay = Delay.NONE;
    private volatile boolean closed;

    private DelayProxy(String name, ServerSocket server, InetSocketAddress target, Clock clock, boolean record) {
        this.name = name;
        this.server = server;
        this.target = target;
        this.clock = clock;
        this.record = record;
    }

    /**
     * Listens on {@code listen} and forwards every connection to {@code target}, with no delay until
     * {@link #delay(Delay)} sets one. {@code record}: keep every chunk's events (a test's; the driver keeps counts).
     */
    public static DelayProxy start(String name, InetSocketAddress listen, InetSocketAddress target, Clock clock,
                                   boolean record) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(listen);
        DelayProxy proxy = new DelayProxy(name, server, target, clock, record);
        Thread t = new Thread(proxy::accept, "proxy-" + name + "-accept");
        t.setDaemon(true);
        t.start();
        return proxy;
    }

    /** Where the proxy listens (its port, when started on port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /** The delay every chunk read from now on waits. */
    public void delay(Delay d) {
        delay = d;
    }

    /** What happened to each chunk, in order (empty unless started with {@code record}). */
    public List<Event> events() {
        return new ArrayList<>(events);
    }

    /** Chunks forwarded, chunks that waited, and the longest wait drawn, in one line (for a history's note). */
    public String summary() {
        return name + ": " + connections.get() + " connections, " + chunks.get() + " chunks, " + delayedChunks.get()
                + " delayed, longest " + maxDelay.get() / 1_000_000 + " ms";
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("proxy {} stopped accepting: {}", name, e.toString());
                }
                return;
            }
            int id = connections.getAndIncrement();
            Thread t = new Thread(() -> connect(id, client), "proxy-" + name + "-" + id);
            t.setDaemon(true);
            t.start();
        }
    }

    private void connect(int id, Socket client) {
        sockets.add(client);
        Socket upstream = new Socket();
        sockets.add(upstream);
        try {
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            upstream.connect(target, 5000);
        } catch (IOException e) {
            log.debug("proxy {} connection {}: {} unreachable: {}", name, id, target, e.toString());
            closeBoth(client, upstream);
            return;
        }
        AtomicInteger open = new AtomicInteger(2);
        pipe(id, Direction.UP, client, upstream, open);
        pipe(id, Direction.DOWN, upstream, client, open);
    }

    /** A reader stamping each chunk and a writer letting it go when due, for one direction of one connection. */
    private void pipe(int id, Direction direction, Socket from, Socket to, AtomicInteger open) {
        BlockingQueue<Object[]> queue = new LinkedBlockingQueue<>();
        Object end = new Object();
        Thread reader = new Thread(() -> {
            long due = Long.MIN_VALUE;
            try {
                InputStream in = from.getInputStream();
                byte[] buf = new byte[CHUNK];
                for (long i = 0; ; i++) {
                    int n = in.read(buf);
                    if (n < 0) {
                        break;
                    }
                    long at = clock.now();
                    long d = delay.nanos(id, direction, i);
                    due = Math.max(at + d, due);
                    byte[] bytes = java.util.Arrays.copyOf(buf, n);
                    if (record) {
                        events.add(new Event(Event.Kind.ARRIVED, id, direction, i, n, at, d, due));
                    }
                    chunks.incrementAndGet();
                    if (d > 0) {
                        delayedChunks.incrementAndGet();
                        maxDelay.accumulateAndGet(d, Math::max);
                    }
                    queue.add(new Object[] {i, bytes, d, due});
                }
            } catch (IOException e) {
                log.debug("proxy {} connection {} {}: {}", name, id, direction, e.toString());
            }
            queue.add(new Object[] {end});
        }, "proxy-" + name + "-" + id + "-" + direction + "-read");
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Object[] c = queue.take();
                    if (c[0] == end) {
                        to.shutdownOutput(); // the other side's end of stream, once what came before it is out
                        if (open.decrementAndGet() == 0) {
                            closeBoth(from, to);
                        }
                        break;
                    }
                    long due = (long) c[3];
                    clock.awaitReached(due);
                    byte[] bytes = (byte[]) c[1];
                    out.write(bytes);
                    out.flush();
                    if (record) {
                        events.add(new Event(Event.Kind.DELIVERED, id, direction, (long) c[0], bytes.length,
                                clock.now(), (long) c[2], due));
                    }
                }
            } catch (IOException e) {
                log.debug("proxy {} connection {} {}: {}", name, id, direction, e.toString());
                closeBoth(from, to);
            } catch (InterruptedException e) {
                closeBoth(from, to);
            }
        }, "proxy-" + name + "-" + id + "-" + direction + "-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    private void closeBoth(Socket a, Socket b) {
        for (Socket s : List.of(a, b)) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing what already failed
            }
            sockets.remove(s);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
