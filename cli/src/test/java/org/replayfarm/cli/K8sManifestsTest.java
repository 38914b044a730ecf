package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.replayfarm.coordinator.cluster.Bootstrap;
import org.replayfarm.coordinator.cluster.FarmNode;
import picocli.CommandLine;

/**
 * deploy/k8s checked against the code, not against itself: every container's arguments parse with the
 * real {@code replay node} command, and the ports, probe paths, discovery label selector and drain time
 * the manifests name are those the node, so configured, uses.
 */
class K8sManifestsTest {
    private static final Path DIR = Path.of("..", "deploy", "k8s");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static List<JsonNode> documents(Path file) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(Files.readString(file, StandardCharsets.UTF_8))) {
            while (it.hasNext()) {
                JsonNode n = it.next();
                if (n != null && !n.isNull() && !n.isMissingNode()) {
                    docs.add(n);
                }
            }
        }
        return docs;
    }

    private static List<JsonNode> resources() throws IOException {
        JsonNode kustomization = documents(DIR.resolve("kustomization.yaml")).get(0);
        List<JsonNode> all = new ArrayList<>();
        Set<String> listed = new LinkedHashSet<>();
        for (JsonNode r : kustomization.path("resources")) {
            listed.add(r.asText());
            all.addAll(documents(DIR.resolve(r.asText())));
        }
        try (Stream<Path> files = Files.list(DIR)) {
            Set<String> yamls = new LinkedHashSet<>(files.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".yaml") && !f.equals("kustomization.yaml")).sorted().toList());
            assertEquals(yamls, new java.util.TreeSet<>(listed), "kustomization.yaml lists every manifest");
        }
        return all;
    }

    private static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> d.path("kind").asText().equals(kind)).toList();
    }

    private static Map<String, String> labels(JsonNode n) {
        Map<String, String> m = new HashMap<>();
        n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
        return m;
    }

    /** The kubelet's $(VAR) expansion of container args from the container's env (fieldRefs: a pod IP). */
    private static List<String> expand(JsonNode container) {
        Map<String, String> env = new HashMap<>();
        for (JsonNode e : container.path("env")) {
            env.put(e.path("name").asText(), e.has("value") ? e.path("value").asText() : "10.1.2.3");
        }
        List<String> args = new ArrayList<>();
        Pattern var = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
        for (JsonNode a : container.path("args")) {
            Matcher m = var.matcher(a.asText());
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                assertTrue(env.containsKey(m.group(1)), "args name $(" + m.group(1) + ") which env does not define");
                m.appendReplacement(sb, Matcher.quoteReplacement(env.get(m.group(1))));
            }
            m.appendTail(sb);
            args.add(sb.toString());
        }
        return args;
    }

    /** A node's configuration exactly as {@code replay node ARGS} would start it (without starting it). */
    private record Node(NodeCommand command, Config config) {
    }

    private static Node parse(List<String> args) {
        assertEquals("node", args.get(0), "every pod runs replay node: " + args);
        CommandLine cli = Replay.commandLine();
        CommandLine.ParseResult parsed = cli.parseArgs(args.toArray(String[]::new)); // throws on any bad option
        NodeCommand node = (NodeCommand) parsed.subcommand().commandSpec().userObject();
        assertFalse(node.roles.isEmpty(), "a --role: " + args);
        for (String r : node.roles) {
            assertTrue(Set.of("coordinator", "eval", "gpu").contains(r), "role " + r);
        }
        CommandLine.Model.CommandSpec spec = parsed.subcommand().commandSpec();
        Config extra = node.discovery.overlay(node.metrics.overlay(ConfigFactory.empty(), "fail", spec), spec);
        Config config = FarmNode.config(FarmNode.Settings.of(new LinkedHashSet<>(node.roles), Path.of("/tmp"))
                .withAddress(node.host, node.port).withConfig(extra), 1);
        return new Node(node, config);
    }

    private static int port(JsonNode container, JsonNode portRef) {
        if (portRef.isInt()) {
            return portRef.asInt();
        }
        for (JsonNode p : container.path("ports")) {
            if (p.path("name").asText().equals(portRef.asText())) {
                return p.path("containerPort").asInt();
            }
        }
        throw new AssertionError("no container port named " + portRef);
    }

    @Test
    void every_pod_runs_replay_node_with_the_ports_probes_and_discovery_the_code_uses() throws Exception {
        List<JsonNode> docs = resources();
        List<JsonNode> deployments = ofKind(docs, "Deployment");
        assertEquals(3, deployments.size());
        Set<String> roles = new LinkedHashSet<>();
        Set<String> accounts = new LinkedHashSet<>();
        for (JsonNode d : deployments) {
            String name = d.path("metadata").path("name").asText();
            JsonNode pod = d.path("spec").path("template");
            Map<String, String> podLabels = labels(pod.path("metadata").path("labels"));
            labels(d.path("spec").path("selector").path("matchLabels")).forEach((k, v) ->
                    assertEquals(v, podLabels.get(k), name + ": the selector matches the pod template"));
            accounts.add(pod.path("spec").path("serviceAccountName").asText());
            JsonNode container = pod.path("spec").path("containers").get(0);
            Node node = parse(expand(container));
            Config c = node.config();
            roles.addAll(node.command().roles);

            assertEquals(Bootstrap.Discovery.KUBERNETES_API, Bootstrap.of(c).discovery(), name);
            assertTrue(Bootstrap.of(c).managementEnabled(), name);
            String selector = c.getString("akka.discovery.kubernetes-api.pod-label-selector")
                    .replace("%s", c.getString("akka.management.cluster.bootstrap.contact-point-discovery.service-name"));
            for (String term : selector.split(",")) {
                String[] kv = term.split("=", 2);
                assertEquals(kv[1], podLabels.get(kv[0]), name + ": its pods match discovery's selector " + selector);
            }

            int management = c.getInt("akka.management.http.port");
            assertEquals(8558, management, "Akka Management's default port");
            assertEquals(management, port(container, new com.fasterxml.jackson.databind.node.TextNode("management")), name);
            assertEquals(c.getInt("replay.metrics.port"), port(container, new com.fasterxml.jackson.databind.node.TextNode("metrics")), name);
            assertEquals(9095, c.getInt("replay.metrics.port"));
            assertEquals(node.command().port, port(container, new com.fasterxml.jackson.databind.node.TextNode("remoting")), name);
            assertEquals(c.getInt("replay.metrics.port"),
                    pod.path("metadata").path("annotations").path("prometheus.io/port").asInt(), name + " scrape port");
            JsonNode ready = container.path("readinessProbe").path("httpGet");
            JsonNode alive = container.path("livenessProbe").path("httpGet");
            assertEquals(management, port(container, ready.path("port")), name + " readiness on the management port");
            assertEquals(management, port(container, alive.path("port")), name + " liveness on the management port");
            assertEquals("/" + c.getString("akka.management.health-checks.readiness-path"), ready.path("path").asText());
            assertEquals("/" + c.getString("akka.management.health-checks.liveness-path"), alive.path("path").asText());

            if (node.command().roles.contains("coordinator")) {
                assertEquals(1, d.path("spec").path("replicas").asInt(), "one coordinator");
                assertEquals(node.command().httpPort, port(container, new com.fasterxml.jackson.databind.node.TextNode("http")));
                JsonNode service = ofKind(docs, "Service").stream()
                        .filter(s -> labels(s.path("spec").path("selector")).entrySet().stream()
                                .allMatch(e -> e.getValue().equals(podLabels.get(e.getKey())))).findFirst().orElseThrow();
                Map<String, Integer> targets = new HashMap<>();
                for (JsonNode p : service.path("spec").path("ports")) {
                    targets.put(p.path("name").asText(), port(container, p.path("targetPort")));
                }
                assertEquals(Map.of("http", node.command().httpPort, "metrics", c.getInt("replay.metrics.port")), targets);
                assertEquals(c.getInt("replay.metrics.port"),
                        service.path("metadata").path("annotations").path("prometheus.io/port").asInt());
                assertEquals("true", service.path("metadata").path("annotations").path("prometheus.io/scrape").asText());
            }
            if (node.command().roles.contains("eval")) {
                long drain = c.getDuration("akka.coordinated-shutdown.phases.cluster-sharding-shutdown-region.timeout",
                        TimeUnit.SECONDS);
                assertTrue(pod.path("spec").path("terminationGracePeriodSeconds").asLong() > drain,
                        name + ": the grace period outlasts the drain (" + drain + " s)");
                assertTrue(container.path("resources").path("requests").has("cpu"), "the HPA needs a CPU request");
                JsonNode hpa = ofKind(docs, "HorizontalPodAutoscaler").get(0);
                assertEquals(name, hpa.path("spec").path("scaleTargetRef").path("name").asText());
                assertEquals("cpu", hpa.path("spec").path("metrics").get(0).path("resource").path("name").asText());
                JsonNode pdb = ofKind(docs, "PodDisruptionBudget").get(0);
                labels(pdb.path("spec").path("selector").path("matchLabels"))
                        .forEach((k, v) -> assertEquals(v, podLabels.get(k), "the PDB selects the evaluators"));
            }
            if (node.command().roles.contains("gpu")) {
                assertEquals(1, container.path("resources").path("limits").path("nvidia.com/gpu").asInt(), name);
                assertTrue(pod.path("spec").has("nodeSelector") && pod.path("spec").has("tolerations"), name);
            }
        }
        assertEquals(Set.of("coordinator", "eval", "gpu"), roles);

        assertEquals(1, accounts.size(), "one service account for every pod: " + accounts);
        String account = accounts.iterator().next();
        assertEquals(account, ofKind(docs, "ServiceAccount").get(0).path("metadata").path("name").asText());
        JsonNode role = ofKind(docs, "Role").get(0);
        JsonNode rule = role.path("rules").get(0);
        assertEquals("", rule.path("apiGroups").get(0).asText(), "the core API group");
        assertEquals("pods", rule.path("resources").get(0).asText());
        Set<String> verbs = new LinkedHashSet<>();
        rule.path("verbs").forEach(v -> verbs.add(v.asText()));
        assertTrue(verbs.containsAll(Set.of("get", "watch", "list")), verbs.toString());
        JsonNode binding = ofKind(docs, "RoleBinding").get(0);
        assertEquals(role.path("metadata").path("name").asText(), binding.path("roleRef").path("name").asText());
        assertEquals(account, binding.path("subjects").get(0).path("name").asText());
        assertEquals("ServiceAccount", binding.path("subjects").get(0).path("kind").asText());
        assertNotNull(ofKind(docs, "Namespace").get(0));
    }

    @Test
    void kubectl_kustomize_renders_the_base() throws Exception {
        boolean present = Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "kubectl")));
        Assumptions.assumeTrue(present, "kubectl is not installed here: rendering deploy/k8s is not checked");
        Process p = new ProcessBuilder("kubectl", "kustomize", DIR.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        List<JsonNode> rendered = new ArrayList<>();
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(out)) {
            it.forEachRemaining(rendered::add);
        }
        assertEquals(resources().size(), rendered.size(), "every resource rendered");
        for (JsonNode r : rendered) {
            if (!r.path("kind").asText().equals("Namespace")) {
                assertEquals("replay-farm", r.path("metadata").path("namespace").asText(), r.path("kind").asText());
            }
        }
    }
}
