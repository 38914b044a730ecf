package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.internal.KubernetesDeserializer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.replayfarm.model.testing.Toolchain;

/**
 * deploy/k8s as Kubernetes sees it: each overlay rendered by kustomize ({@code kubectl kustomize}, the
 * kustomize built into kubectl; v5 here) and every document loaded as a typed Kubernetes object (fabric8
 * kubernetes-model: apps/v1 Deployment, v1 Service, ...; the CRDs of KEDA and the Prometheus Operator as
 * generic resources). Renders are cached per overlay for the tests of one JVM.
 */
final class K8sDeploy {
    static final Path ROOT = Toolchain.root().resolve("deploy/k8s");
    static final String NAMESPACE = "replay-farm";
    /** The overlays a user applies (deploy/README.md). */
    static final List<String> OVERLAYS = List.of("cpu", "cpu-hpa", "gpu", "gpu-sampling", "postgres");
    /**
     * The Secrets the manifests read and the keys each must hold; the walkthrough creates exactly these.
     * replay-journal only in the postgres overlay.
     */
    static final Map<String, Set<String>> SECRETS = Map.of(
            "replay-farm-tls", Set.of("tls.key", "tls.crt", "ca.crt"),
            "replay-api-token", Set.of("token"),
            "replay-journal", Set.of("url", "user", "password"));

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final ObjectMapper TYPED = new ObjectMapper()
            .registerModule(new SimpleModule().addDeserializer(KubernetesResource.class, new KubernetesDeserializer()));
    private static final Map<String, List<HasMetadata>> RENDERED = new ConcurrentHashMap<>();

    private K8sDeploy() {
    }

    static boolean kubectlPresent() {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "kubectl")));
    }

    static void assumeKubectl() {
        Assumptions.assumeTrue(kubectlPresent(), "kubectl (with kustomize v4+) is not installed here: deploy/k8s overlays "
                + "are not rendered, so none of their checks ran");
    }

    /** {@code kubectl kustomize DIR}: the YAML a {@code kubectl apply -k DIR} would send. */
    static String kustomize(Path dir) throws Exception {
        Process p = new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "kubectl kustomize " + dir);
        assertEquals(0, p.exitValue(), "kubectl kustomize " + dir + ":\n" + out);
        return out;
    }

    /** The overlay's objects, typed. The first call renders every overlay at once (one kustomize each, in parallel). */
    static synchronized List<HasMetadata> render(String overlay) throws Exception {
        if (RENDERED.isEmpty()) {
            Map<String, java.util.concurrent.CompletableFuture<String>> renders = new TreeMap<>();
            for (String o : OVERLAYS) {
                renders.put(o, java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return kustomize(ROOT.resolve("overlays").resolve(o));
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                }));
            }
            for (Map.Entry<String, java.util.concurrent.CompletableFuture<String>> e : renders.entrySet()) {
                try {
                    RENDERED.put(e.getKey(), load(e.getValue().join()));
                } catch (java.util.concurrent.CompletionException x) {
                    throw x.getCause() instanceof Exception c ? c : x;
                }
            }
        }
        List<HasMetadata> objects = RENDERED.get(overlay);
        assertNotNull(objects, "no overlay " + overlay + " (deploy/k8s/overlays: " + OVERLAYS + ")");
        return objects;
    }

    /** Every YAML document of {@code yaml} as a typed Kubernetes object. */
    static List<HasMetadata> load(String yaml) throws Exception {
        List<HasMetadata> out = new ArrayList<>();
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc == null || doc.isNull() || doc.isMissingNode()) {
                    continue;
                }
                KubernetesResource r = TYPED.treeToValue(doc, KubernetesResource.class);
                assertTrue(r instanceof HasMetadata, "a Kubernetes object with metadata: " + doc);
                out.add((HasMetadata) r);
            }
        }
        return out;
    }

    static <T extends HasMetadata> List<T> ofType(List<HasMetadata> objects, Class<T> type) {
        return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static <T extends HasMetadata> T named(List<HasMetadata> objects, Class<T> type, String name) {
        return ofType(objects, type).stream().filter(o -> o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " named " + name));
    }

    /** Kind to names, for messages. */
    static Map<String, List<String>> inventory(List<HasMetadata> objects) {
        Map<String, List<String>> m = new TreeMap<>();
        objects.forEach(o -> m.computeIfAbsent(o.getKind(), k -> new ArrayList<>()).add(o.getMetadata().getName()));
        return m;
    }
}
