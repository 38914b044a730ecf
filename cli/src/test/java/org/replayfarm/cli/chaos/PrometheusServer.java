package org.replayfarm.cli.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.cli.chaos.NodeSet.Node;
import org.replayfarm.model.testing.Await;

/**
 * Debian's {@code prometheus}, started by the fault driver inside its namespace on 127.0.0.1:{@value #PORT}: it
 * scrapes every node's {@code /metrics} each second as job {@code replay-farm-metrics} with the label
 * {@code namespace="replay-farm"} (what the ServiceMonitor's scrape gives in Kubernetes, so that the KEDA
 * ScaledObject's query is evaluated as written) and evaluates the rules shipped in {@code deploy/prometheus} each
 * second. The driver asks it over its HTTP API what a scaler and an alert manager would see.
 */
public final class PrometheusServer implements AutoCloseable {
    static final int PORT = 9090;
    static final String URL = "http://127.0.0.1:" + PORT;
    static final String BINARY = "/usr/bin/prometheus";

    private final Process process;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private PrometheusServer(Process process) {
        this.process = process;
    }

    /** Starts Prometheus scraping {@code nodes}' metrics ports with the rules of {@code rulesDir}; returns once it is ready. */
    public static PrometheusServer start(Path dir, List<Node> nodes, int metricsPort, Path rulesDir)
            throws IOException, InterruptedException {
        StringBuilder targets = new StringBuilder();
        for (Node n : nodes) {
            targets.append(targets.isEmpty() ? "" : ", ").append('"').append(n.host()).append(':').append(metricsPort).append('"');
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global: {scrape_interval: 1s, evaluation_interval: 1s, scrape_timeout: 900ms}
                rule_files: ["%s"]
                scrape_configs:
                  - job_name: replay-farm-metrics
                    static_configs:
                      - targets: [%s]
                        labels: {namespace: replay-farm}
                """.formatted(rulesDir.toAbsolutePath().resolve("replay-farm.rules.yml"), targets));
        Process p = new ProcessBuilder(BINARY, "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("prometheus-data"),
                "--web.listen-address=127.0.0.1:" + PORT).redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.err").toFile()).start();
        PrometheusServer server = new PrometheusServer(p);
        Await.until("prometheus ready on " + URL, Duration.ofSeconds(120), () -> {
            if (!p.isAlive()) {
                throw new IOException("prometheus exited " + p.exitValue() + ": " + Files.readString(dir.resolve("prometheus.err")));
            }
            return server.ready();
        });
        return server;
    }

    /**
     * The KEDA ScaledObject's query as the repository ships it ({@code deploy/k8s/components/keda/scaledobject.yaml},
     * its {@code query:} line).
     */
    public static String kedaQuery(Path root) throws IOException {
        Matcher m = Pattern.compile("(?m)^\\s*query:\\s*(.+)$")
                .matcher(Files.readString(root.resolve("deploy/k8s/components/keda/scaledobject.yaml")));
        if (!m.find()) {
            throw new IOException("no query: line in deploy/k8s/components/keda/scaledobject.yaml");
        }
        return m.group(1).strip();
    }

    private boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(URL + "/-/ready")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The value of an instant query returning one scalar-like sample now; empty when it returns no sample. */
    public Optional<Double> value(String query) throws IOException, InterruptedException {
        JsonNode result = get("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8)).path("data").path("result");
        if (result.size() == 0) {
            return Optional.empty();
        }
        return Optional.of(Double.parseDouble(result.get(0).path("value").get(1).asText()));
    }

    /** The alerts pending or firing now, each as {@code NAME STATE label=value ...}. */
    public List<String> alerts() throws IOException, InterruptedException {
        List<String> out = new ArrayList<>();
        for (JsonNode a : get("/api/v1/alerts").path("data").path("alerts")) {
            StringBuilder s = new StringBuilder(a.path("labels").path("alertname").asText()).append(' ').append(a.path("state").asText());
            a.path("labels").fields().forEachRemaining(f -> {
                if (!f.getKey().equals("alertname")) {
                    s.append(' ').append(f.getKey()).append('=').append(f.getValue().asText());
                }
            });
            out.add(s.toString());
        }
        return out;
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(URL + path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("prometheus " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return History.JSON.readTree(r.body());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
