package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.model.testing.Toolchain;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.replayfarm.model.testing.Await;
import org.replayfarm.cli.commands.NodeCommand;
import org.replayfarm.cli.commands.RunCommand;

/**
 * Explicit bind addresses, read from the kernel's socket tables ({@code /proc}): an embedded {@code replay
 * run} listens on loopback only and serves its metrics on a free port when 9095 is taken; a {@code replay
 * node} binds its --host unless --bind (or a listener's own option) says otherwise, and 0.0.0.0 only when asked.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the tests without the shared node first, while it starts
@Tag("cluster")
class BindAddressTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    @Order(1)
    void an_embedded_run_listens_on_loopback_only_and_serves_metrics_on_a_free_port_when_9095_is_taken() throws Exception {
        long self = ProcessHandle.current().pid();
        Set<Long> before = new HashSet<>();
        Listeners.of(self).forEach(l -> before.add(l.inode()));
        ServerSocket taken = null;
        try {
            try {
                taken = new ServerSocket();
                taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9095));
            } catch (java.io.IOException alreadyTaken) {
                taken = null; // someone else holds 9095: just as good
            }
            if (taken != null) {
                before.add(Listeners.of(self).stream().filter(l -> l.port() == 9095).findFirst().orElseThrow().inode());
            }
            Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
            // the run's first line on stderr comes once its node is up (Artery, the HTTP server and the metrics
            // endpoint bound) and before its job: the listeners are read from the kernel's tables right then, while
            // the run waits on that line (a poll beside a run of a few hundred milliseconds could miss one)
            Map<Long, Listeners.Listener> seen = new HashMap<>();
            List<String> metricsUrls = new ArrayList<>();
            boolean[] metricsServed = {false};
            CliRun r = CliRun.ofAtErrLine(java.util.regex.Pattern.compile("replay run: evaluating .*; metrics at "
                    + "(http://\\S+/metrics)\n"), m -> {
                        metricsUrls.add(m.group(1));
                        List<Listeners.Listener> now;
                        try {
                            now = Listeners.of(self);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        for (Listeners.Listener l : now) {
                            if (!before.contains(l.inode())) {
                                seen.put(l.inode(), l);
                                if (!metricsServed[0] && l.loopback()) {
                                    metricsServed[0] = servesMetrics(l.port());
                                }
                            }
                        }
                    }, "run", capture.toString(), "--every-group", "--evaluators", "1", "--out",
                    dir.resolve("out").toString());
            assertEquals(0, r.exitCode(), r.out() + r.err());
            assertEquals(1, metricsUrls.size(), "the run names its metrics endpoint: " + r.err());
            List<Listeners.Listener> all = new ArrayList<>(seen.values());
            assertTrue(all.size() >= 3, "the run's listeners (Artery, HTTP, metrics) were seen: " + all);
            assertTrue(all.stream().allMatch(Listeners.Listener::loopback), "the embedded run listened beyond loopback: " + all);
            int named = URI.create(metricsUrls.get(0)).getPort();
            assertTrue(named != 9095 && all.stream().anyMatch(l -> l.port() == named),
                    "the named metrics port is one of the run's own listeners, not the taken 9095: " + metricsUrls + " " + all);
            assertTrue(metricsServed[0], "no listener of the run answered GET /metrics with 200: " + all);
        } finally {
            if (taken != null) {
                taken.close();
            }
        }
    }

    private boolean servesMetrics(int port) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200;
        } catch (Exception notHttp) {
            return false; // Artery, or a listener gone meanwhile
        }
    }

    @Test
    @Order(2)
    void a_node_binds_its_host_by_default() {
        for (String host : List.of("127.0.0.1", "10.1.2.3")) {
            var parsed = Replay.commandLine().parseArgs("node", "--role", "coordinator", "--host", host);
            NodeCommand node = (NodeCommand) parsed.subcommand().commandSpec().userObject();
            assertEquals(host, node.httpBindAddress(), "the HTTP API binds --host");
            Config extra = node.metrics.overlay(node.bindOverlay(ConfigFactory.empty()), "fail",
                    parsed.subcommand().commandSpec());
            Config config = FarmNode.config(FarmNode.Settings.of(java.util.Set.of("coordinator"), dir)
                    .withAddress(host, 0).withConfig(extra), 1);
            assertEquals(host, config.getString("replay.metrics.host"), "metrics bind --host");
            assertEquals(host, FarmNode.bindAddress(config), "Artery binds --host");
            assertEquals(host, config.getString("akka.management.http.hostname"), "Akka Management binds --host");
            assertEquals("", config.getString("akka.management.http.bind-hostname"));
        }
    }

    /**
     * A real node (its own JVM), shared by the tests below: every interface asked for, HTTP kept on loopback. It
     * starts before the first test and the tests that do not need it run meanwhile; {@link #wide()} waits for it.
     */
    private static CompletableFuture<Node> wideStarting;
    private static Path wideDir;

    @BeforeAll
    static void startWideNode() throws Exception {
        wideDir = Files.createTempDirectory("replay-bind-test");
        Path config = Files.writeString(wideDir.resolve("node.conf"), "replay.metrics.tick = 300ms\n");
        wideStarting = node(wideDir, "wide", "--bind", "0.0.0.0", "--http-bind", "127.0.0.1", "--config", config.toString());
    }

    private static Node wide() throws Exception {
        return wideStarting.get(120, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stopWideNode() {
        if (wideStarting != null) {
            try {
                wide().process.destroyForcibly();
            } catch (Exception notStarted) {
                // node() destroys a node that did not start as expected
            }
        }
        RunCommand.deleteTree(wideDir);
    }

    @Test
    void a_node_binds_another_address_only_when_asked() throws Exception {
        Node wide = wide();
        List<Listeners.Listener> w = wide.listeners();
        Map<Integer, Listeners.Listener> byPort = new HashMap<>();
        w.forEach(l -> byPort.put(l.port(), l));
        assertTrue(byPort.get(wide.port("node akka://farm@127.0.0.1:")).wildcard(), "--bind 0.0.0.0: Artery " + w);
        assertTrue(byPort.get(wide.port("metrics http://127.0.0.1:")).wildcard(), "--bind 0.0.0.0: metrics " + w);
        assertTrue(byPort.get(wide.port("http http://127.0.0.1:")).loopback(), "--http-bind 127.0.0.1: HTTP " + w);
        assertFalse(w.stream().anyMatch(l -> !l.wildcard() && !l.loopback()), w.toString());
    }

    /** Kamon's system metrics on a real node, read by a real scrape: heap, GC, threads and the process's CPU. */
    @Test
    void a_node_serves_jvm_heap_gc_thread_and_cpu_metrics() throws Exception {
        String url = "http://127.0.0.1:" + wide().port("metrics http://127.0.0.1:") + "/metrics";
        List<String> wanted = List.of(JVM_HEAP_USED, JVM_GC, JVM_THREADS, PROCESS_CPU);
        // the collectors run once a tick (300 ms here) in another process: polled
        Map<String, Double> s = Await.value("the node's scrape serving " + wanted, () -> scrape(url),
                got -> wanted.stream().allMatch(w -> got.keySet().stream().anyMatch(k -> k.startsWith(w))));
        for (String w : wanted) {
            assertTrue(s.keySet().stream().anyMatch(k -> k.startsWith(w)), "no " + w + " in the scrape: " + s.keySet());
        }
        assertTrue(s.entrySet().stream().anyMatch(e -> e.getKey().startsWith(JVM_HEAP_USED) && e.getValue() > 1 << 20),
                "heap used over 1 MiB: " + s);
        double threads = s.entrySet().stream().filter(e -> e.getKey().startsWith(JVM_THREADS))
                .mapToDouble(Map.Entry::getValue).sum();
        assertTrue(threads >= 10, "an Akka node runs at least 10 threads (by state): " + threads);
        assertTrue(s.entrySet().stream().anyMatch(e -> e.getKey().startsWith(PROCESS_CPU + "_count{") && e.getValue() > 0),
                "the process's CPU was sampled: " + s);
        // every JVM and process series the Grafana dashboard queries is one a real scrape gives
        String dashboard = Files.readString(org.replayfarm.model.testing.Toolchain.root().resolve("deploy/grafana/replay-farm.json"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\b(?:jvm|process)_[a-z0-9_]+").matcher(dashboard);
        Set<String> queried = new java.util.TreeSet<>();
        while (m.find()) {
            queried.add(m.group());
        }
        assertTrue(queried.size() >= 4, "the dashboard has JVM panels: " + queried);
        Set<String> scraped = s.keySet().stream().map(k -> k.contains("{") ? k.substring(0, k.indexOf('{')) : k)
                .collect(java.util.stream.Collectors.toSet());
        for (String q : queried) {
            assertTrue(scraped.contains(q), "the dashboard queries " + q + ", which the scrape lacks: " + scraped);
        }
    }

    static final String JVM_HEAP_USED = "jvm_memory_used_bytes_sum{";
    static final String JVM_GC = "jvm_gc_seconds_count{";
    static final String JVM_THREADS = "jvm_threads_states{";
    static final String PROCESS_CPU = "process_cpu_usage";

    /** Every sample of a Prometheus text scrape, by its name and labels as written. */
    private static Map<String, Double> scrape(String url) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        Map<String, Double> out = new java.util.TreeMap<>();
        for (String line : r.body().split("\n")) {
            if (!line.startsWith("#") && line.contains(" ")) {
                int space = line.lastIndexOf(' ');
                try {
                    out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
                } catch (NumberFormatException notASample) {
                    // skip
                }
            }
        }
        return out;
    }

    private record Node(Process process, String line) {
        int port(String after) {
            int at = line.indexOf(after);
            assertTrue(at >= 0, "'" + after + "' in " + line);
            String rest = line.substring(at + after.length());
            return Integer.parseInt(rest.split("[^0-9]")[0]);
        }

        /** Its listeners once Artery, HTTP and metrics are all up (the first line comes after they bound). */
        List<Listeners.Listener> listeners() throws Exception {
            List<Listeners.Listener> l = Listeners.of(process.pid());
            assertTrue(l.size() >= 3, "Artery, HTTP and metrics listening: " + l + " (" + line + ")");
            return l;
        }
    }

    private static CompletableFuture<Node> node(Path dir, String name, String... extra) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", classpath, "org.replayfarm.cli.Replay",
                "node", "--role", "coordinator", "--host", "127.0.0.1", "--port", "0", "--http-port", "0",
                "--metrics-port", "0", "--work-dir", dir.resolve(name).toString()));
        command.addAll(List.of(extra));
        Path err = dir.resolve(name + ".err");
        Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
        return CompletableFuture.supplyAsync(() -> {
            String first;
            try {
                first = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
                assertTrue(first != null && first.startsWith("node akka://farm@"), first + "\n" + Files.readString(err));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (AssertionError e) {
                p.destroyForcibly();
                throw e;
            }
            return new Node(p, first);
        }).orTimeout(120, TimeUnit.SECONDS).whenComplete((node, failure) -> {
            if (failure != null) { // not started in time, or not as expected: no node left running
                p.destroyForcibly();
            }
        });
    }
}
