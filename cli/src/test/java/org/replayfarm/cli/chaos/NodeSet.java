package org.replayfarm.cli.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The nodes of a fault schedule as real {@code replay node} processes, each on its own loopback address
 * (127.0.0.2 the coordinator, 127.0.0.3 and up the evaluators; 127.0.0.1 is the driver's, the client's), all on
 * port 25520, Akka Management on 8558 (its {@code /cluster/members} is how the driver sees what each node
 * thinks of the others), the coordinator's API on 8080. A node that exits (downed by the split-brain resolver)
 * can be started again on the same address and work directory, as its supervisor would.
 */
public final class NodeSet implements AutoCloseable {
    static final int PORT = 25520;
    static final int MANAGEMENT = 8558;
    static final int HTTP = 8080;
    /** Where a node's Artery binds behind its proxy ({@link #proxied()}). */
    static final int PROXIED = 25521;

    /** One node: its name (coordinator, eval-1, ...), address, the role it runs. */
    public record Node(String name, String host, String role) {
        public String address() {
            return "akka://farm@" + host + ":" + PORT;
        }

        public String seed() {
            return host + ":" + PORT;
        }
    }

    private final Path dir;
    private final String commonConfig;
    private final List<Node> nodes = new ArrayList<>();
    private final Map<String, Process> running = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Integer> starts = new java.util.concurrent.ConcurrentHashMap<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Map<String, DelayProxy> proxies = new java.util.concurrent.ConcurrentHashMap<>();
    private boolean proxied;
    private int metricsPort = -1;

    /** A coordinator and {@code evaluators} evaluators, none started; {@code commonConfig} goes in every node's file. */
    public NodeSet(Path dir, int evaluators, String commonConfig) {
        this.dir = dir;
        this.commonConfig = commonConfig;
        nodes.add(new Node("coordinator", "127.0.0.2", "coordinator"));
        for (int i = 1; i <= evaluators; i++) {
            nodes.add(new Node("eval-" + i, "127.0.0." + (2 + i), "eval"));
        }
    }

    /**
     * Puts a {@link DelayProxy} in front of every node: a node binds Artery to {@value #PROXIED} while its canonical
     * address stays {@code host:}{@value #PORT}, where its proxy listens; so every peer reaches it through its proxy
     * (Akka's canonical and bind addresses, as behind a NAT). The proxy connects on from 127.0.0.1, so an nftables
     * rule between two nodes' addresses matches the peer's leg only. Call before starting any node.
     */
    public void proxied() throws IOException {
        proxied = true;
        for (Node n : nodes) {
            proxies.put(n.name(), DelayProxy.start(n.name(), new java.net.InetSocketAddress(n.host(), PORT),
                    new java.net.InetSocketAddress(n.host(), PROXIED), DelayProxy.Clock.REAL, false));
        }
    }

    /** Every node started from now on serves {@code /metrics} on its own address at {@code port} (else none does). */
    public void metrics(int port) {
        metricsPort = port;
    }

    /** Every node's proxy ({@link #proxied()}), by node name. */
    public Map<String, DelayProxy> proxies() {
        return Map.copyOf(proxies);
    }

    public Node coordinator() {
        return nodes.get(0);
    }

    /** The {@code i}-th evaluator, from 1. */
    public Node evaluator(int i) {
        return nodes.get(i);
    }

    public List<Node> all() {
        return List.copyOf(nodes);
    }

    /** The coordinator's API. */
    public String apiUrl() {
        return "http://" + coordinator().host() + ":" + HTTP;
    }

    /** Starts {@code nodes} side by side, each joining {@code seeds}; returns once each printed its first line. */
    public void startAll(List<Node> nodes, List<Node> seeds) throws IOException, InterruptedException {
        List<CompletableFuture<Process>> started = new ArrayList<>();
        for (Node n : nodes) {
            started.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return start(n, seeds);
                } catch (IOException | InterruptedException e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }));
        }
        for (CompletableFuture<Process> f : started) {
            try {
                f.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw new IOException(e.getCause().getMessage(), e.getCause());
            }
        }
    }

    /** Starts {@code node} joining {@code seeds} (empty: it joins itself); returns once it printed its first line. */
    public Process start(Node node, List<Node> seeds) throws IOException, InterruptedException {
        int n = starts.merge(node.name(), 1, Integer::sum);
        Path config = dir.resolve(node.name() + ".conf");
        // the node's connections start from its own address, so that a rule between two addresses is a rule
        // between two nodes; the management endpoint shows what this node sees of the others
        Files.writeString(config, commonConfig + "\nakka.remote.artery.advanced.tcp.outbound-client-hostname = \""
                + node.host() + "\"\nreplay.cluster.management.enabled = on\nreplay.cluster.management.port = "
                + MANAGEMENT + "\n" + (proxied ? "akka.remote.artery.bind.port = " + PROXIED + "\n" : ""));
        String classpath = System.getProperty("java.class.path");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-cp", classpath,
                "org.replayfarm.cli.Replay", "node", "--role", node.role(), "--host", node.host(), "--port",
                String.valueOf(PORT), "--config", config.toString(), "--work-dir",
                dir.resolve(node.name()).toString()));
        command.addAll(metricsPort < 0 ? List.of("--no-metrics") : List.of("--metrics-port", String.valueOf(metricsPort)));
        if (node.role().equals("coordinator")) {
            command.addAll(List.of("--http-port", String.valueOf(HTTP)));
        } else {
            command.addAll(List.of("--threads", "1"));
        }
        for (Node s : seeds) {
            command.addAll(List.of("--seed", s.seed()));
        }
        Path err = log(node, n);
        Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
        running.put(node.name(), p);
        String line = firstLine(p);
        if (line == null || !line.startsWith("node " + node.address())) {
            throw new IOException(node.name() + " did not start: " + line + "\n" + Files.readString(err));
        }
        return p;
    }

    /** The stderr file of the {@code n}-th start of {@code node} (from 1). */
    public Path log(Node node, int n) {
        return dir.resolve(node.name() + (n == 1 ? "" : "-" + n) + ".err");
    }

    /** How many times {@code node} was started. */
    public int starts(Node node) {
        return starts.getOrDefault(node.name(), 0);
    }

    public Process process(Node node) {
        return running.get(node.name());
    }

    /** Whether {@code node}'s latest process still runs. */
    public boolean alive(Node node) {
        Process p = running.get(node.name());
        return p != null && p.isAlive();
    }

    /**
     * What {@code node} sees of the cluster (Akka Management's {@code /cluster/members}): {@code members} with
     * their {@code status}, {@code unreachable} with who observed it.
     */
    public JsonNode members(Node node) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://" + node.host() + ":" + MANAGEMENT
                + "/cluster/members")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(node.name() + "'s /cluster/members answered " + r.statusCode() + ": " + r.body());
        }
        return History.JSON.readTree(r.body());
    }

    /** The addresses {@code node} sees Up, and whether it sees any member unreachable. */
    public List<String> upMembers(Node node) throws IOException, InterruptedException {
        List<String> up = new ArrayList<>();
        for (JsonNode m : members(node).path("members")) {
            if (m.path("status").asText().equals("Up")) {
                up.add(m.path("node").asText());
            }
        }
        return up;
    }

    /** The addresses {@code node} sees unreachable now. */
    public List<String> unreachable(Node node) throws IOException, InterruptedException {
        List<String> out = new ArrayList<>();
        for (JsonNode m : members(node).path("unreachable")) {
            out.add(m.path("node").asText());
        }
        return out;
    }

    private static String firstLine(Process p) throws InterruptedException {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return "(no line within 120 s: " + e + ")";
        }
    }

    @Override
    public void close() {
        running.values().forEach(Process::destroyForcibly);
        proxies.values().forEach(DelayProxy::close);
        for (Process p : running.values()) {
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
