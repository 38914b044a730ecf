package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.FreePorts;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.model.testing.Await;

/**
 * Akka Management's kubernetes-api discovery meeting an API server: a stand-in on loopback that speaks the
 * one call the discovery makes ({@code GET /api/v1/namespaces/NS/pods?labelSelector=...}, over TLS with the
 * service account's CA and bearer token, as in a pod) and answers with real pod lists (fabric8 model objects,
 * Kubernetes' JSON), filtered by the label selector as the API server does. Three {@code replay node
 * --discovery kubernetes-api} processes (a coordinator and two evaluators, found through their pods'
 * {@code management} ports) form one cluster with no seed nodes, and a job submitted with {@code replay submit}
 * runs on it to the same result as before. A fourth pod of another app is listed by the server but not
 * selected, and is never contacted. One evaluator is the CPU image itself (K8sImages), its entrypoint run in
 * the image's read-only root as user 10001 (K8sImagesTest#inRootCommand), where namespaces allow it
 * ({@code -Dreplay.discovery.image=false}: all from the class path).
 */
@Tag("cluster")
class KubernetesDiscoveryTest {
    static final String NAMESPACE = "replay-farm";
    static final String TOKEN = "sa-token-" + Long.toHexString(System.nanoTime());

    @TempDir
    Path dir;

    record ApiCall(String path, String labelSelector, String authorization) {
    }

    /** A loopback port nothing holds now, below the ephemeral range (FreePorts says why). */
    static int freePort() {
        return FreePorts.loopback();
    }

    static Pod pod(String name, Map<String, String> labels, int management) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE).withLabels(labels).endMetadata()
                .withNewSpec().addNewContainer().withName("replay").withImage("replay-farm:0.1.0")
                .withPorts(new ContainerPortBuilder().withName("remoting").withContainerPort(25520).build(),
                        new ContainerPortBuilder().withName("management").withContainerPort(management).build())
                .endContainer().endSpec()
                .withNewStatus().withPhase("Running").withPodIP("127.0.0.1").endStatus().build();
    }

    /** A self-signed certificate for 127.0.0.1 (keytool): the API server's key and, as PEM, the pods' ca.crt. */
    SSLContext serverTls(Path caPem) throws Exception {
        Path store = dir.resolve("apiserver.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "apiserver", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=kube-apiserver", "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                store.toString(), "-storepass", "changeit");
        run(keytool, "-exportcert", "-rfc", "-alias", "apiserver", "-keystore", store.toString(), "-storepass", "changeit",
                "-file", caPem.toString());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        return tls;
    }

    static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", command) + ": " + out);
    }

    String logs(int node) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String f : List.of(".out", ".err")) {
            Path p = dir.resolve("node-" + node + f);
            if (Files.exists(p)) {
                List<String> lines = Files.readAllLines(p);
                sb.append("--- node-").append(node).append(f).append('\n')
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()))).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * The pods' node.conf (deploy/k8s base ConfigMap: Artery over TLS with Akka's rotating-keys engine) with
     * the key, certificate and CA made by deploy/README.md's openssl commands, run here; the files sit in a
     * folder of the test instead of the Secret's mount point. Without openssl the cluster runs plain TCP.
     */
    String artery() throws Exception {
        boolean openssl = java.util.stream.Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "openssl")));
        if (!openssl) {
            System.out.println("openssl is not installed: the cluster runs Artery over plain TCP, not the pods' TLS");
            return "";
        }
        Path tls = Files.createDirectories(dir.resolve("tls"));
        for (String command : K8sWalkthroughTest.commands()) {
            if (command.startsWith("openssl req") || command.startsWith("openssl x509")) {
                Process p = new ProcessBuilder("bash", "-c", command).directory(tls.toFile()).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, command + ": " + out);
            }
        }
        io.fabric8.kubernetes.api.model.ConfigMap cm = K8sDeploy.load(Files.readString(K8sDeploy.ROOT.resolve("base/node-config.yaml")))
                .stream().filter(o -> o instanceof io.fabric8.kubernetes.api.model.ConfigMap)
                .map(io.fabric8.kubernetes.api.model.ConfigMap.class::cast).findFirst().orElseThrow();
        return cm.getData().get("node.conf") + """
                akka.remote.artery.ssl.rotating-keys-engine {
                  key-file = "%s"
                  cert-file = "%s"
                  ca-cert-file = "%s"
                }
                """.formatted(tls.resolve("tls.key"), tls.resolve("tls.crt"), tls.resolve("ca.crt"));
    }

    @Test
    void three_nodes_find_each_other_through_the_pods_api_and_run_a_job() throws Exception {
        int[] management = {freePort(), freePort(), freePort()};
        // the pod of another app listens on its "management" port and counts whoever connects
        ServerSocket strangerSocket = new ServerSocket(0, 8, java.net.InetAddress.getLoopbackAddress());
        int stranger = strangerSocket.getLocalPort();
        java.util.concurrent.atomic.AtomicInteger strangerContacts = new java.util.concurrent.atomic.AtomicInteger();
        Thread strangerThread = new Thread(() -> {
            while (!strangerSocket.isClosed()) {
                try (java.net.Socket s = strangerSocket.accept()) {
                    strangerContacts.incrementAndGet();
                } catch (java.io.IOException e) {
                    return;
                }
            }
        }, "stranger-pod");
        strangerThread.setDaemon(true);
        strangerThread.start();
        int http = freePort();
        List<Pod> pods = List.of(
                pod("replay-coordinator-7d9f-abcde", Map.of("app", "replay-farm", "component", "coordinator"), management[0]),
                pod("replay-eval-5c6b-fghij", Map.of("app", "replay-farm", "component", "eval"), management[1]),
                pod("replay-eval-5c6b-klmno", Map.of("app", "replay-farm", "component", "eval"), management[2]),
                pod("someone-else-1", Map.of("app", "other"), stranger));
        ObjectMapper json = new ObjectMapper();
        List<ApiCall> calls = new CopyOnWriteArrayList<>();
        Path ca = dir.resolve("ca.crt");
        HttpsServer api = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        api.setHttpsConfigurator(new HttpsConfigurator(serverTls(ca)));
        api.createContext("/", (HttpExchange ex) -> {
            String path = ex.getRequestURI().getPath();
            String query = ex.getRequestURI().getRawQuery();
            String selector = null;
            if (query != null) {
                for (String kv : query.split("&")) {
                    if (kv.startsWith("labelSelector=")) {
                        selector = URLDecoder.decode(kv.substring("labelSelector=".length()), StandardCharsets.UTF_8);
                    }
                }
            }
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            calls.add(new ApiCall(path, selector, auth));
            int status;
            byte[] body;
            if (!("Bearer " + TOKEN).equals(auth)) {
                status = 401;
                body = "{\"kind\":\"Status\",\"code\":401}".getBytes(StandardCharsets.UTF_8);
            } else if (!ex.getRequestMethod().equals("GET") || !path.equals("/api/v1/namespaces/" + NAMESPACE + "/pods")) {
                status = 404;
                body = "{\"kind\":\"Status\",\"code\":404}".getBytes(StandardCharsets.UTF_8);
            } else {
                List<Pod> selected = new ArrayList<>();
                for (Pod p : pods) {
                    boolean all = true;
                    for (String term : selector == null ? new String[0] : selector.split(",")) {
                        String[] kv = term.split("=", 2);
                        all &= kv.length == 2 && kv[1].equals(p.getMetadata().getLabels().get(kv[0]));
                    }
                    if (all) {
                        selected.add(p);
                    }
                }
                status = 200;
                body = json.writeValueAsBytes(new PodListBuilder().withNewMetadata().withResourceVersion("1").endMetadata()
                        .withItems(selected).build());
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(status, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        api.start();
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN);
        Path conf = dir.resolve("node.conf");
        Files.writeString(conf, """
                # what a pod has in /var/run/secrets/kubernetes.io/serviceaccount
                akka.discovery.kubernetes-api {
                  api-ca-path = "%s"
                  api-token-path = "%s"
                  pod-namespace = "%s"
                }
                akka.management.cluster.bootstrap.contact-point-discovery {
                  stable-margin = 1s
                  interval = 500ms
                }
                akka.cluster.split-brain-resolver.stable-after = 3s
                """.formatted(ca, token, NAMESPACE) + artery());
        Map<String, String> env = Map.of("KUBERNETES_SERVICE_HOST", "127.0.0.1",
                "KUBERNETES_SERVICE_PORT", String.valueOf(api.getAddress().getPort()));
        String[] roles = {"coordinator", "eval", "eval"};
        // one evaluator runs from the CPU image where images can run (root or user namespaces; K8sImagesTest)
        boolean fromImage = !"false".equals(System.getProperty("replay.discovery.image")) && K8sImagesTest.namespacesUsable();
        K8sImagesTest.Read imageConfig = null;
        Path imageRoot = null;
        if (fromImage) {
            K8sImages.Image image = K8sImages.cpu();
            imageConfig = K8sImagesTest.read(image.tar());
            imageRoot = K8sImagesTest.root(image);
        } else {
            System.out.println("no namespaces here: every node runs from the class path, none from the image");
        }
        List<Process> nodes = new ArrayList<>();
        try {
            String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            for (int i = 0; i < 3; i++) {
                List<String> command = new ArrayList<>(List.of(java, "-Xmx384m", "-XX:TieredStopAtLevel=1", "-cp", classpath,
                        "org.replayfarm.cli.Replay", "node", "--role", roles[i], "--discovery", "kubernetes-api",
                        "--host", "127.0.0.1", "--port", "0", "--management-port", String.valueOf(management[i]),
                        "--required-contact-points", "3", "--metrics-port", "0", "--config", conf.toString(),
                        "--work-dir", dir.resolve("node-" + i).toString()));
                if (roles[i].equals("coordinator")) {
                    command.addAll(List.of("--http-host", "127.0.0.1", "--http-port", String.valueOf(http)));
                } else {
                    command.addAll(List.of("--threads", "1"));
                }
                ProcessBuilder pb = new ProcessBuilder(command);
                if (i == 2 && fromImage) {
                    // the second evaluator is the CPU image's entrypoint in the image's root, as its pod runs it
                    Path work = dir.resolve("node-" + i);
                    Files.createDirectories(work);
                    List<String> args = new ArrayList<>(command.subList(command.indexOf("node"), command.size()));
                    args.set(args.indexOf("--work-dir") + 1, K8sImages.HOME);
                    List<String> inImage = new ArrayList<>(K8sImagesTest.strings(imageConfig.c().get("Entrypoint")));
                    inImage.addAll(args);
                    pb = new ProcessBuilder(K8sImagesTest.inRootCommand(imageRoot, work, true, List.of(dir), inImage));
                    pb.environment().clear();
                    pb.environment().putAll(K8sImagesTest.env(imageConfig));
                    pb.environment().merge("JAVA_TOOL_OPTIONS", "-Xmx384m -XX:TieredStopAtLevel=1", (a, b) -> a + " " + b);
                    if (K8sImagesTest.uid() == 0) {
                        K8sImages.run(List.of("chown", "-R", K8sImages.UID + ":" + K8sImages.UID, dir.toString()), null);
                    }
                }
                pb.environment().putAll(env);
                pb.redirectError(dir.resolve("node-" + i + ".err").toFile());
                pb.redirectOutput(dir.resolve("node-" + i + ".out").toFile()); // its log, which nobody may leave unread
                nodes.add(pb.start());
            }
            for (int i = 0; i < 3; i++) {
                Path out = dir.resolve("node-" + i + ".out");
                Process node = nodes.get(i);
                Await.until("node " + i + " printing its address (or ending)",
                        () -> Files.readString(out).startsWith("node akka://farm@") || !node.isAlive());
                if (!Files.readString(out).startsWith("node akka://farm@")) {
                    fail("node " + i + " did not start:\n" + logs(i));
                }
            }

            // the cluster forms through the pods the API listed: three members Up, each at its pod's management port
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            // another process's management endpoint (it may not serve yet: a failed look counts as not yet)
            JsonNode members = Await.value("three members Up at the management endpoint", () -> {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management[0]
                        + "/cluster/members")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                return r.statusCode() == 200 ? json.readTree(r.body()) : null;
            }, m -> {
                if (m == null) {
                    return false;
                }
                long up = 0;
                for (JsonNode n : m.path("members")) {
                    up += n.path("status").asText().equals("Up") ? 1 : 0;
                }
                return up == 3;
            });
            assertTrue(members != null && members.path("members").size() == 3, "three members: " + members + "\nAPI calls: " + calls
                    + "\n" + logs(0) + logs(1));
            Set<String> memberRoles = new TreeSet<>();
            for (JsonNode m : members.path("members")) {
                assertEquals("Up", m.path("status").asText(), m.toString());
                m.path("roles").forEach(r -> memberRoles.add(r.asText()));
            }
            assertTrue(memberRoles.containsAll(Set.of("coordinator", "eval")), memberRoles.toString());
            if (fromImage) {
                // the member on evaluator 2's port is the image's JVM: the launcher picked up the image's environment
                assertTrue(Files.readString(dir.resolve("node-2.err")).contains("Picked up JAVA_TOOL_OPTIONS: "
                        + K8sImagesTest.env(imageConfig).get("JAVA_TOOL_OPTIONS")), logs(2));
            }

            // every node asked the API for the farm's pods, with the service account's token, as a pod would
            assertFalse(calls.isEmpty());
            for (ApiCall c : calls) {
                assertEquals("/api/v1/namespaces/" + NAMESPACE + "/pods", c.path());
                assertEquals("app=replay-farm", c.labelSelector(), "discovery's selector (replay.cluster.pod-label-selector)");
                assertEquals("Bearer " + TOKEN, c.authorization());
            }
            assertEquals(0, strangerContacts.get(), "the pod of another app was never contacted");

            // a job on the cluster formed this way
            String url = "http://127.0.0.1:" + http;
            Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
            CliRun submitted = CliRun.of("submit", saxpy.toString(), "--every-group", "--coordinator", url);
            assertEquals(0, submitted.exitCode(), submitted.err());
            String job = submitted.out().trim();
            CliRun watch = CliRun.of("watch", job, "--coordinator", url);
            assertEquals(0, watch.exitCode(), watch.out() + watch.err());
            assertTrue(watch.out().startsWith("job " + job + " finished: "), watch.out());
            CliRun results = CliRun.of("results", job, "--coordinator", url, "--out", dir.resolve("out").toString());
            assertEquals(0, results.exitCode(), results.out() + results.err());
            assertTrue(results.out().contains("equal (exit status 0)"), results.out());
            assertTrue(Files.isRegularFile(dir.resolve("out").resolve("report.json")));
        } finally {
            nodes.forEach(Process::destroyForcibly);
            for (Process p : nodes) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
            api.stop(0);
            strangerSocket.close();
        }
    }
}
