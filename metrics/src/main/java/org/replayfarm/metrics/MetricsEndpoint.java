package org.replayfarm.metrics;

import com.sun.net.httpserver.HttpServer;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import kamon.Kamon;
import kamon.module.Module;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's {@code /metrics}: Kamon running in this JVM with the {@link ScrapeReporter}, served over HTTP
 * at {@code replay.metrics.host}:{@code replay.metrics.port} (0 picks a free port). Kamon is one per JVM:
 * the first endpoint of the JVM starts it (its tick is {@code replay.metrics.tick}) and the last one to
 * close stops it; every node of the JVM serves the same series, told apart by their {@code node} tag, so
 * two in-process nodes need only different ports (or port 0).
 */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);
    /** Guards the JVM's one Kamon: it is global by Kamon's design, so its users are counted here. */
    private static final Object KAMON = new Object();
    private static int users;
    private static ScrapeReporter reporter;
    private static Module.Registration registration;

    /** The {@code replay.metrics} settings. */
    public record Settings(boolean enabled, String host, int port, String path, Duration tick, Duration jobRetention,
                           boolean failIfPortTaken) {
        public static Settings from(Config config) {
            Config c = config.getConfig("replay.metrics");
            String path = c.getString("path");
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("replay.metrics.path must start with '/': '" + path + "'");
            }
            int port = c.getInt("port");
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("replay.metrics.port must be in [0, 65535]: " + port);
            }
            return new Settings(c.getBoolean("enabled"), c.getString("host"), port, path, c.getDuration("tick"),
                    c.getDuration("job-retention"), c.getString("on-port-taken").equals("fail"));
        }
    }

    private final HttpServer server;
    private final String url;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private MetricsEndpoint(HttpServer server, String url) {
        this.server = server;
        this.url = url;
    }

    /**
     * Starts Kamon (if this JVM has not) and the endpoint, on another thread: Kamon's start takes a few
     * hundred milliseconds, which then overlap the actor system's. Completes with null when metrics are
     * off, or when the port is taken and {@code replay.metrics.on-port-taken} is {@code warn}.
     */
    public static CompletableFuture<MetricsEndpoint> startAsync(Settings s, String advertisedHost) {
        if (!s.enabled()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<MetricsEndpoint> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(start(s, advertisedHost));
            } catch (IOException | RuntimeException e) {
                f.completeExceptionally(e);
            }
        }, "metrics-start");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** As {@link #startAsync}, on this thread. */
    public static MetricsEndpoint start(Settings s, String advertisedHost) throws IOException {
        if (!s.enabled()) {
            return null;
        }
        ScrapeReporter source = acquireKamon(s, advertisedHost);
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(s.host(), s.port()), 16);
        } catch (IOException e) {
            releaseKamon();
            String why = "the metrics endpoint cannot listen on " + s.host() + ":" + s.port()
                    + " (replay.metrics.port, --metrics-port, REPLAY_METRICS_PORT): " + e.getMessage();
            if (s.failIfPortTaken()) {
                throw new IOException(why, e);
            }
            LOG.warn("{}; going on without it", why);
            return null;
        }
        server.createContext(s.path(), exchange -> {
            try (exchange) {
                serve(exchange, source);
            } catch (IOException | RuntimeException e) {
                LOG.warn("serving {} failed: {}", s.path(), e.toString(), e);
                throw e;
            }
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "metrics-http");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        String host = s.host().equals("0.0.0.0") ? advertisedHost : s.host();
        return new MetricsEndpoint(server, "http://" + host + ":" + server.getAddress().getPort() + s.path());
    }

    private static void serve(com.sun.net.httpserver.HttpExchange exchange, ScrapeReporter source) throws IOException {
        byte[] body = source.scrape().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        // one scrape per connection: a scraper never finds a kept-alive connection the server dropped
        exchange.getResponseHeaders().set("Connection", "close");
        if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(405, -1);
            return;
        }
        exchange.sendResponseHeaders(200, exchange.getRequestMethod().equals("HEAD") ? -1 : body.length);
        if (exchange.getRequestMethod().equals("GET")) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static ScrapeReporter acquireKamon(Settings s, String host) {
        synchronized (KAMON) {
            if (users == 0) {
                Config kamon = ConfigFactory.empty()
                        .withValue("kamon.metric.tick-interval", ConfigValueFactory.fromAnyRef(s.tick().toMillis() + "ms"))
                        .withValue("kamon.metric.optimistic-tick-alignment", ConfigValueFactory.fromAnyRef(false))
                        // our reporter, not the stock one (see ScrapeReporter), and no agent to look for
                        .withValue("kamon.modules.prometheus-reporter.enabled", ConfigValueFactory.fromAnyRef(false))
                        .withValue("kamon.prometheus.start-embedded-http-server", ConfigValueFactory.fromAnyRef(false))
                        .withValue("kamon.init.attach-instrumentation", ConfigValueFactory.fromAnyRef(false))
                        .withValue("kamon.init.hide-banner", ConfigValueFactory.fromAnyRef(true))
                        // kamon-system-metrics: the JVM's heap, GC, threads, class loading and the process's CPU,
                        // collected once a tick; not the host's disks and interfaces (a node exporter's job), and
                        // the hiccup monitor waking every 50 ms, not every millisecond (the farm is CPU-bound)
                        .withValue("kamon.modules.host-metrics.enabled", ConfigValueFactory.fromAnyRef(false))
                        .withValue("kamon.modules.jvm-metrics.interval", ConfigValueFactory.fromAnyRef(s.tick().toMillis() + "ms"))
                        .withValue("kamon.modules.process-metrics.interval",
                                ConfigValueFactory.fromAnyRef(Math.max(1000, s.tick().toMillis()) + "ms"))
                        .withValue("kamon.instrumentation.system.process.hiccup-monitor-interval",
                                ConfigValueFactory.fromAnyRef("50ms"))
                        .withValue("kamon.environment.service", ConfigValueFactory.fromAnyRef("replay-farm"))
                        // "auto" resolves the local host name, which can take seconds where DNS is slow
                        .withValue("kamon.environment.host", ConfigValueFactory.fromAnyRef(host))
                        .withFallback(ConfigFactory.load());
                Kamon.initWithoutAttaching(kamon);
                reporter = new ScrapeReporter(Kamon.config());
                registration = Kamon.addReporter("replay-prometheus", reporter);
            }
            users++;
            return reporter;
        }
    }

    private static void releaseKamon() {
        synchronized (KAMON) {
            if (--users == 0) {
                registration.cancel();
                registration = null;
                reporter = null;
                try {
                    scala.concurrent.Await.result(Kamon.stop(), scala.concurrent.duration.Duration.create(10, TimeUnit.SECONDS));
                } catch (Exception e) {
                    LOG.warn("Kamon did not stop within 10 s: {}", e.toString());
                }
            }
        }
    }

    /** Waits for {@link #startAsync}; a failure to start is an IOException naming why. */
    public static MetricsEndpoint await(CompletableFuture<MetricsEndpoint> starting) throws IOException {
        try {
            return starting.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("the metrics endpoint did not start: " + e.getCause(), e.getCause());
        }
    }

    /** Where Prometheus scrapes this node, e.g. {@code http://10.0.0.5:9095/metrics}. */
    public String url() {
        return url;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops the endpoint (and Kamon, when it was the JVM's last); closing again does nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return; // counted once: a node closed twice must not stop Kamon under the others
        }
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
        releaseKamon();
    }
}
