package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.Bootstrap;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.metrics.FarmMetrics;
import picocli.CommandLine;
import org.replayfarm.cli.commands.NodeCommand;

/**
 * Every overlay of deploy/k8s rendered by kustomize and loaded as typed Kubernetes objects
 * ({@link K8sDeploy}), checked against itself where Kubernetes joins objects by name or label (selectors,
 * Services, volumes, Secrets, the scaler's target) and against the code where the application decides
 * (every container's arguments parse with the real {@code replay node} command over the ConfigMap's
 * node.conf; the ports, probe paths, discovery selector, drain, slots and metric names the manifests use
 * are those the node, so configured, uses and exports).
 */
@Tag("cluster")
class K8sManifestsTest {
    @TempDir
    static Path tmp;

    @BeforeAll
    static void kubectl() {
        K8sDeploy.assumeKubectl();
    }

    // ---- the node a container starts ----

    /** A container's {@code replay node} as parsed, and its configuration as the node would build it. */
    record Node(NodeCommand command, Config config, Set<String> roles) {
    }

    /** The kubelet's $(VAR) expansion of the container's args from its env (fieldRefs: a pod IP). */
    static List<String> expand(Container c) {
        Map<String, String> env = new HashMap<>();
        for (EnvVar e : c.getEnv()) {
            env.put(e.getName(), e.getValue() != null ? e.getValue() : "10.1.2.3");
        }
        List<String> args = new ArrayList<>();
        Pattern var = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
        for (String a : c.getArgs()) {
            Matcher m = var.matcher(a);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                assertTrue(env.containsKey(m.group(1)), c.getName() + ": args name $(" + m.group(1) + ") which env does not define");
                m.appendReplacement(sb, Matcher.quoteReplacement(env.get(m.group(1))));
            }
            m.appendTail(sb);
            args.add(sb.toString());
        }
        return args;
    }

    /** Where a file the container reads comes from: a ConfigMap key (its text) or a Secret key. */
    record Source(String kind, String name, String key, String text) {
    }

    static Source file(List<HasMetadata> all, PodSpec pod, Container c, String path) {
        for (VolumeMount m : c.getVolumeMounts()) {
            String key;
            if (m.getSubPath() != null && !m.getSubPath().isEmpty()) {
                if (!m.getMountPath().equals(path)) {
                    continue;
                }
                key = m.getSubPath();
            } else if (path.startsWith(m.getMountPath() + "/")) {
                key = path.substring(m.getMountPath().length() + 1);
            } else {
                continue;
            }
            Volume v = pod.getVolumes().stream().filter(x -> x.getName().equals(m.getName())).findFirst()
                    .orElseThrow(() -> new AssertionError("mount " + m.getName() + " names no volume of the pod"));
            if (v.getConfigMap() != null) {
                ConfigMap cm = K8sDeploy.named(all, ConfigMap.class, v.getConfigMap().getName());
                String text = cm.getData().get(key);
                assertNotNull(text, "ConfigMap " + cm.getMetadata().getName() + " has no key " + key + " (for " + path + ")");
                return new Source("ConfigMap", cm.getMetadata().getName(), key, text);
            }
            if (v.getSecret() != null) {
                return new Source("Secret", v.getSecret().getSecretName(), key, null);
            }
            throw new AssertionError(path + " is on volume " + v.getName() + ", neither a ConfigMap nor a Secret");
        }
        throw new AssertionError(c.getName() + " reads " + path + ", which no volume mount provides");
    }

    static Node node(List<HasMetadata> all, PodSpec pod, Container c) throws Exception {
        List<String> args = expand(c);
        assertEquals("node", args.get(0), "every pod runs replay node: " + args);
        CommandLine.ParseResult parsed = Replay.commandLine().parseArgs(args.toArray(String[]::new)); // throws on a bad option
        NodeCommand node = (NodeCommand) parsed.subcommand().commandSpec().userObject();
        CommandLine.Model.CommandSpec spec = parsed.subcommand().commandSpec();
        Config file = ConfigFactory.empty();
        if (node.config != null) {
            Source s = file(all, pod, c, node.config.toString());
            assertEquals("ConfigMap", s.kind(), "--config comes from a ConfigMap");
            file = ConfigFactory.parseString(s.text());
        }
        Config extra = node.discovery.overlay(node.metrics.overlay(file, "fail", spec), spec);
        Set<String> roles = new LinkedHashSet<>(node.roles);
        Config config = FarmNode.config(FarmNode.Settings.of(roles, tmp).withAddress(node.host, node.port).withConfig(extra),
                node.threads > 0 ? node.threads : 1);
        return new Node(node, config, roles);
    }

    static int port(Container c, IntOrString ref) {
        if (ref.getIntVal() != null) {
            return ref.getIntVal();
        }
        return port(c, ref.getStrVal());
    }

    static int port(Container c, String name) {
        return c.getPorts().stream().filter(p -> name.equals(p.getName())).map(ContainerPort::getContainerPort).findFirst()
                .orElseThrow(() -> new AssertionError(c.getName() + " has no container port named " + name));
    }

    static boolean selects(Map<String, String> selector, Map<String, String> labels) {
        return selector != null && !selector.isEmpty() && labels.entrySet().containsAll(selector.entrySet());
    }

    static boolean selects(LabelSelector selector, Map<String, String> labels) {
        assertTrue(selector.getMatchExpressions() == null || selector.getMatchExpressions().isEmpty(), "matchLabels only");
        return selects(selector.getMatchLabels(), labels);
    }

    static Map<String, String> podLabels(Deployment d) {
        return d.getSpec().getTemplate().getMetadata().getLabels();
    }

    // ---- the checks, each over every overlay ----

    @Test
    void every_overlay_renders_to_typed_objects_in_the_farms_namespace() throws Exception {
        for (String overlay : K8sDeploy.OVERLAYS) {
            List<HasMetadata> all = K8sDeploy.render(overlay);
            Map<String, List<String>> kinds = K8sDeploy.inventory(all);
            System.out.println(overlay + ": " + kinds);
            for (HasMetadata o : all) {
                if (o instanceof GenericKubernetesResource) {
                    assertTrue(Set.of("ScaledObject", "ServiceMonitor").contains(o.getKind()),
                            overlay + ": " + o.getKind() + " loaded without a typed model (only the CRDs are generic)");
                }
                if (!(o instanceof Namespace)) {
                    assertEquals(K8sDeploy.NAMESPACE, o.getMetadata().getNamespace(), overlay + ": " + o.getKind() + " "
                            + o.getMetadata().getName());
                }
            }
            assertEquals(K8sDeploy.NAMESPACE, K8sDeploy.ofType(all, Namespace.class).get(0).getMetadata().getName());
            Set<String> deployments = new TreeSet<>(kinds.get("Deployment"));
            Set<String> expected = new TreeSet<>(overlay.startsWith("gpu")
                    ? Set.of("replay-coordinator", "replay-eval", "replay-gpu") : Set.of("replay-coordinator", "replay-eval"));
            assertEquals(expected, deployments, overlay);
        }
    }

    @Test
    void every_pod_runs_replay_node_with_the_ports_probes_discovery_and_files_the_code_uses() throws Exception {
        for (String overlay : K8sDeploy.OVERLAYS) {
            List<HasMetadata> all = K8sDeploy.render(overlay);
            Set<String> roles = new LinkedHashSet<>();
            Map<String, Set<String>> secretsRead = new HashMap<>();
            for (Deployment d : K8sDeploy.ofType(all, Deployment.class)) {
                String name = overlay + "/" + d.getMetadata().getName();
                PodTemplateSpec template = d.getSpec().getTemplate();
                PodSpec pod = template.getSpec();
                Map<String, String> labels = podLabels(d);
                assertTrue(selects(d.getSpec().getSelector(), labels), name + ": the selector matches the pod template");
                assertEquals(1, pod.getContainers().size(), name);
                Container c = pod.getContainers().get(0);
                Node node = node(all, pod, c);
                Config cfg = node.config();
                roles.addAll(node.roles());
                assertEquals(1, node.roles().size(), name + ": one role a pod");
                assertEquals(node.roles().iterator().next(), labels.get("component"), name + ": the component label is the role");

                // discovery: the pods are what the selector the node uses finds
                assertEquals(Bootstrap.Discovery.KUBERNETES_API, Bootstrap.of(cfg).discovery(), name);
                assertTrue(cfg.getBoolean("akka.discovery.kubernetes-api.use-raw-ip"), "pods are reached at their IPs");
                String selector = cfg.getString("akka.discovery.kubernetes-api.pod-label-selector")
                        .replace("%s", cfg.getString("akka.management.cluster.bootstrap.contact-point-discovery.service-name"));
                Map<String, String> wanted = new HashMap<>();
                for (String term : selector.split(",")) {
                    String[] kv = term.split("=", 2);
                    wanted.put(kv[0], kv[1]);
                }
                assertTrue(selects(wanted, labels), name + ": its pods match discovery's selector " + selector);
                // ports and probes
                int management = cfg.getInt("akka.management.http.port");
                String portName = cfg.getString("akka.management.cluster.bootstrap.contact-point-discovery.port-name");
                assertEquals(management, port(c, portName), name + ": discovery reaches the pod at its port named " + portName);
                assertEquals(cfg.getInt("replay.metrics.port"), port(c, "metrics"), name);
                assertEquals(cfg.getInt("akka.remote.artery.canonical.port"), port(c, "remoting"), name);
                Map<String, String> scrape = template.getMetadata().getAnnotations();
                assertEquals("true", scrape.get("prometheus.io/scrape"), name);
                assertEquals(String.valueOf(port(c, "metrics")), scrape.get("prometheus.io/port"), name);
                assertEquals("/metrics", scrape.get("prometheus.io/path"), name);
                assertEquals(management, port(c, c.getReadinessProbe().getHttpGet().getPort()), name + " readiness");
                assertEquals(management, port(c, c.getLivenessProbe().getHttpGet().getPort()), name + " liveness");
                assertEquals("/" + cfg.getString("akka.management.health-checks.readiness-path"),
                        c.getReadinessProbe().getHttpGet().getPath());
                assertEquals("/" + cfg.getString("akka.management.health-checks.liveness-path"),
                        c.getLivenessProbe().getHttpGet().getPath());
                // the files it reads: the API token and Artery's TLS key, certificate and CA, from Secrets
                assertNotNull(node.command().apiTokenFile, name + " reads the API token");
                Source token = file(all, pod, c, node.command().apiTokenFile.toString());
                assertEquals("Secret", token.kind());
                secretsRead.computeIfAbsent(token.name(), k -> new TreeSet<>()).add(token.key());
                assertEquals("tls-tcp", cfg.getString("akka.remote.artery.transport"), name + ": Artery over TLS");
                assertEquals("akka.remote.artery.tcp.ssl.RotatingKeysSSLEngineProvider",
                        cfg.getString("akka.remote.artery.ssl.ssl-engine-provider"));
                for (String f : List.of("key-file", "cert-file", "ca-cert-file")) {
                    Source s = file(all, pod, c, cfg.getString("akka.remote.artery.ssl.rotating-keys-engine." + f));
                    assertEquals("Secret", s.kind(), f);
                    secretsRead.computeIfAbsent(s.name(), k -> new TreeSet<>()).add(s.key());
                }
                for (EnvVar e : c.getEnv()) {
                    if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
                        secretsRead.computeIfAbsent(e.getValueFrom().getSecretKeyRef().getName(), k -> new TreeSet<>())
                                .add(e.getValueFrom().getSecretKeyRef().getKey());
                    }
                }
                // non-root, nothing written outside its volumes
                assertTrue(pod.getSecurityContext().getRunAsNonRoot(), name);
                assertEquals(K8sImagesTest.UID, pod.getSecurityContext().getRunAsUser(), name + ": the image's user");
                assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem(), name);
                assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation(), name);
                assertTrue(c.getSecurityContext().getCapabilities().getDrop().contains("ALL"), name);
                Set<String> mounted = new TreeSet<>();
                c.getVolumeMounts().forEach(m -> mounted.add(m.getMountPath()));
                assertTrue(mounted.containsAll(Set.of("/tmp", node.command().workDir.toString())), name + ": " + mounted);
                String image = c.getImage();
                assertEquals((node.roles().contains("gpu") ? "replay-farm-gpu:" : "replay-farm:") + K8sImages.VERSION, image,
                        name + ": the image and tag the build gives (K8sImages)");

                if (node.roles().contains("coordinator")) {
                    assertEquals(1, d.getSpec().getReplicas(), "one coordinator");
                    assertEquals("Recreate", d.getSpec().getStrategy().getType(), "its volume is ReadWriteOnce");
                    assertEquals(node.command().httpPort, port(c, "http"));
                    Service svc = K8sDeploy.named(all, Service.class, "replay-coordinator");
                    assertTrue(selects(svc.getSpec().getSelector(), labels));
                    Map<String, Integer> targets = new HashMap<>();
                    for (ServicePort p : svc.getSpec().getPorts()) {
                        targets.put(p.getName(), port(c, p.getTargetPort()));
                    }
                    assertEquals(Map.of("http", node.command().httpPort, "metrics", cfg.getInt("replay.metrics.port")), targets);
                    // the journal and the captures survive a restart: the work directory is a claim
                    Volume work = pod.getVolumes().stream().filter(v -> v.getName().equals(c.getVolumeMounts().stream()
                            .filter(m -> m.getMountPath().equals(node.command().workDir.toString())).findFirst().orElseThrow()
                            .getName())).findFirst().orElseThrow();
                    assertNotNull(work.getPersistentVolumeClaim(), overlay + ": the coordinator's work directory is persistent");
                    K8sDeploy.named(all, PersistentVolumeClaim.class, work.getPersistentVolumeClaim().getClaimName());
                    Set<String> journalEnv = new TreeSet<>();
                    c.getEnv().stream().map(EnvVar::getName).filter(n -> n.startsWith("REPLAY_JOURNAL_")).forEach(journalEnv::add);
                    if (overlay.equals("postgres")) {
                        assertEquals(Set.of("REPLAY_JOURNAL_URL", "REPLAY_JOURNAL_USER", "REPLAY_JOURNAL_PASSWORD"), journalEnv);
                        String reference = references();
                        for (String e : journalEnv) {
                            assertTrue(reference.contains("${?" + e + "}"), "the coordinator's journal reads " + e);
                        }
                    } else {
                        assertEquals(Set.of(), journalEnv, overlay + ": H2 in the work directory");
                    }
                }
                if (node.roles().contains("eval") || node.roles().contains("gpu")) {
                    // scale-in drains: the grace period is the drain and 15 s to leave; the drain outlasts a slice's deadline
                    long drain = cfg.getDuration("akka.coordinated-shutdown.phases.cluster-sharding-shutdown-region.timeout",
                            TimeUnit.SECONDS);
                    Config coordinator = ConfigFactory.load();
                    long deadline = Math.max(coordinator.getDuration("replay.coordinator.slice-timeout-min", TimeUnit.SECONDS),
                            (long) (coordinator.getDouble("replay.coordinator.slice-timeout-factor")
                                    * coordinator.getDuration("replay.coordinator.slice-target", TimeUnit.MILLISECONDS) / 1000.0));
                    assertTrue(drain >= deadline && drain <= 2 * deadline,
                            name + ": the drain (" + drain + " s) outlasts a slice's deadline (" + deadline + " s), at most twice");
                    assertEquals(drain + 15, pod.getTerminationGracePeriodSeconds(), name + ": grace = drain + 15 s");
                }
                if (node.roles().contains("eval")) {
                    PodDisruptionBudget pdb = K8sDeploy.named(all, PodDisruptionBudget.class, "replay-eval");
                    assertTrue(selects(pdb.getSpec().getSelector(), labels), "the PDB selects the evaluators");
                }
            }
            assertEquals(overlay.startsWith("gpu") ? Set.of("coordinator", "eval", "gpu") : Set.of("coordinator", "eval"), roles);
            Map<String, Set<String>> expected = new HashMap<>(K8sDeploy.SECRETS);
            if (!overlay.equals("postgres")) {
                expected.remove("replay-journal");
            }
            assertEquals(expected, secretsRead, overlay + ": the Secrets and keys the pods read");
            // the Secrets hold credentials: none is in the manifests, the walkthrough creates them
            assertEquals(List.of(), all.stream().filter(o -> o.getKind().equals("Secret")).toList());
        }
    }

    @Test
    void rbac_grants_exactly_what_kubernetes_api_discovery_reads_to_the_one_account_every_pod_uses() throws Exception {
        for (String overlay : K8sDeploy.OVERLAYS) {
            List<HasMetadata> all = K8sDeploy.render(overlay);
            Set<String> accounts = new TreeSet<>();
            K8sDeploy.ofType(all, Deployment.class).forEach(d -> accounts.add(d.getSpec().getTemplate().getSpec().getServiceAccountName()));
            assertEquals(Set.of("replay-farm"), accounts, overlay);
            K8sDeploy.named(all, ServiceAccount.class, "replay-farm");
            assertEquals(List.of(), K8sDeploy.ofType(all, ClusterRole.class), "nothing cluster-wide");
            assertEquals(List.of(), K8sDeploy.ofType(all, ClusterRoleBinding.class), "nothing cluster-wide");
            List<Role> roles = K8sDeploy.ofType(all, Role.class);
            assertEquals(1, roles.size());
            List<PolicyRule> rules = roles.get(0).getRules();
            assertEquals(1, rules.size(), "one rule");
            PolicyRule rule = rules.get(0);
            // Akka Management's kubernetes-api discovery: GET /api/v1/namespaces/NS/pods?labelSelector=... (a list);
            // get and watch are what its documentation grants with it
            assertEquals(List.of(""), rule.getApiGroups(), "the core API group");
            assertEquals(List.of("pods"), rule.getResources());
            assertEquals(Set.of("get", "watch", "list"), new TreeSet<>(rule.getVerbs()));
            assertTrue(rule.getResourceNames() == null || rule.getResourceNames().isEmpty());
            assertTrue(rule.getNonResourceURLs() == null || rule.getNonResourceURLs().isEmpty());
            List<RoleBinding> bindings = K8sDeploy.ofType(all, RoleBinding.class);
            assertEquals(1, bindings.size());
            assertEquals("Role", bindings.get(0).getRoleRef().getKind());
            assertEquals(roles.get(0).getMetadata().getName(), bindings.get(0).getRoleRef().getName());
            assertEquals(1, bindings.get(0).getSubjects().size());
            assertEquals("ServiceAccount", bindings.get(0).getSubjects().get(0).getKind());
            assertEquals("replay-farm", bindings.get(0).getSubjects().get(0).getName());
            Deployment any = K8sDeploy.ofType(all, Deployment.class).get(0);
            assertFalse(Boolean.FALSE.equals(any.getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()),
                    "discovery reads the account's token");
        }
    }

    /** The text of every reference.conf on the class path (where an environment variable is bound to a setting). */
    static String references() throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        var urls = K8sManifestsTest.class.getClassLoader().getResources("reference.conf");
        while (urls.hasMoreElements()) {
            try (var in = urls.nextElement().openStream()) {
                sb.append(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).append('\n');
            }
        }
        return sb.toString();
    }

    static double cpu(Quantity q) {
        return q.getNumericalAmount().doubleValue();
    }

    @Test
    void every_container_has_requests_and_limits_and_only_gpu_pods_ask_for_gpus_on_gpu_machines() throws Exception {
        for (String overlay : K8sDeploy.OVERLAYS) {
            for (Deployment d : K8sDeploy.ofType(K8sDeploy.render(overlay), Deployment.class)) {
                String name = overlay + "/" + d.getMetadata().getName();
                PodSpec pod = d.getSpec().getTemplate().getSpec();
                boolean gpu = podLabels(d).get("component").equals("gpu");
                List<Container> containers = new ArrayList<>(pod.getContainers());
                if (pod.getInitContainers() != null) {
                    containers.addAll(pod.getInitContainers());
                }
                for (Container c : containers) {
                    Map<String, Quantity> req = c.getResources().getRequests();
                    Map<String, Quantity> lim = c.getResources().getLimits();
                    for (String r : List.of("cpu", "memory")) {
                        assertTrue(req.containsKey(r) && lim.containsKey(r), name + ": " + r + " request and limit");
                        assertTrue(cpu(req.get(r)) > 0 && cpu(req.get(r)) <= cpu(lim.get(r)), name + ": " + r + " request <= limit");
                    }
                    assertEquals(gpu, lim.containsKey("nvidia.com/gpu"), name + ": GPUs only for GPU pods");
                    assertEquals(gpu, req.containsKey("nvidia.com/gpu"), name);
                    if (gpu) {
                        assertEquals(1.0, cpu(lim.get("nvidia.com/gpu")), name + ": one GPU");
                        assertEquals(lim.get("nvidia.com/gpu"), req.get("nvidia.com/gpu"), name + ": an extended resource's request is its limit");
                    }
                    // the JVM's heap comes from the limit (MaxRAMPercentage in the image): the limit must hold the requests' work
                    assertTrue(Quantity.getAmountInBytes(lim.get("memory")).longValue() >= 2L << 30, name + " memory limit");
                }
                if (gpu) {
                    assertEquals("true", pod.getNodeSelector().get("nvidia.com/gpu.present"), name);
                    assertTrue(pod.getTolerations().stream().anyMatch(t -> "nvidia.com/gpu".equals(t.getKey())
                            && "Exists".equals(t.getOperator()) && "NoSchedule".equals(t.getEffect())), name);
                } else {
                    assertTrue(pod.getNodeSelector() == null || !pod.getNodeSelector().containsKey("nvidia.com/gpu.present"), name);
                }
                // PC sampling: the capability and the switch only in gpu-sampling
                Container c = pod.getContainers().get(0);
                List<String> added = c.getSecurityContext().getCapabilities().getAdd();
                boolean sampling = overlay.equals("gpu-sampling") && gpu;
                assertEquals(sampling ? List.of("SYS_ADMIN") : List.of(), added == null ? List.of() : added, name);
                Optional<EnvVar> mode = c.getEnv().stream().filter(e -> e.getName().equals("REPLAY_GPU_PC_SAMPLING")).findFirst();
                assertEquals(sampling, mode.isPresent(), name + ": REPLAY_GPU_PC_SAMPLING");
                if (sampling) {
                    assertTrue(Set.of("serialized", "continuous").contains(mode.get().getValue()), mode.get().getValue());
                    assertTrue(references().contains("mode = ${?REPLAY_GPU_PC_SAMPLING}"), "the GPU node reads the switch");
                }
            }
        }
    }

    @Test
    void the_scaler_targets_the_evaluators_with_a_query_of_metrics_the_coordinator_exports() throws Exception {
        Map<String, FarmMetrics.Metric> exported = new HashMap<>();
        for (FarmMetrics.Metric m : FarmMetrics.Metric.values()) {
            exported.put(m.prometheusName(), m);
        }
        Pattern term = Pattern.compile("sum\\(([a-z_:][a-z0-9_:]*)(\\{([^}]*)\\})?\\)");
        for (String overlay : K8sDeploy.OVERLAYS) {
            List<HasMetadata> all = K8sDeploy.render(overlay);
            Deployment eval = K8sDeploy.named(all, Deployment.class, "replay-eval");
            PodSpec pod = eval.getSpec().getTemplate().getSpec();
            Node node = node(all, pod, pod.getContainers().get(0));
            int slots = node.config().getStringList("akka.cluster.roles").stream().filter(r -> r.startsWith("slots-"))
                    .mapToInt(r -> Integer.parseInt(r.substring("slots-".length()))).findFirst().orElseThrow();
            List<GenericKubernetesResource> scaled = all.stream().filter(o -> o.getKind().equals("ScaledObject"))
                    .map(GenericKubernetesResource.class::cast).toList();
            List<HorizontalPodAutoscaler> hpas = K8sDeploy.ofType(all, HorizontalPodAutoscaler.class);
            if (overlay.equals("cpu-hpa")) {
                assertEquals(List.of(), scaled);
                assertEquals(1, hpas.size());
                HorizontalPodAutoscaler hpa = hpas.get(0);
                assertEquals("Deployment", hpa.getSpec().getScaleTargetRef().getKind());
                assertEquals("replay-eval", hpa.getSpec().getScaleTargetRef().getName());
                assertEquals("cpu", hpa.getSpec().getMetrics().get(0).getResource().getName());
                assertTrue(hpa.getSpec().getMinReplicas() >= 1 && hpa.getSpec().getMaxReplicas() > hpa.getSpec().getMinReplicas());
                continue;
            }
            assertEquals(List.of(), hpas, overlay + ": KEDA makes the HPA; a second one would fight it");
            assertEquals(1, scaled.size(), overlay);
            GenericKubernetesResource so = scaled.get(0);
            assertEquals("keda.sh/v1alpha1", so.getApiVersion());
            Map<String, Object> target = so.get("spec", "scaleTargetRef");
            assertEquals(Map.of("apiVersion", "apps/v1", "kind", "Deployment", "name", "replay-eval"), target);
            int min = so.<Integer>get("spec", "minReplicaCount");
            int max = so.<Integer>get("spec", "maxReplicaCount");
            // two contact points form the cluster: the coordinator and at least one evaluator
            assertTrue(min >= 1 && max > min, overlay + ": " + min + ".." + max);
            assertTrue(min + 1 >= node.config().getInt("akka.management.cluster.bootstrap.contact-point-discovery.required-contact-point-nr"));
            List<Map<String, Object>> triggers = so.get("spec", "triggers");
            assertEquals(1, triggers.size());
            assertEquals("prometheus", triggers.get(0).get("type"));
            @SuppressWarnings("unchecked")
            Map<String, String> meta = (Map<String, String>) triggers.get(0).get("metadata");
            assertEquals(slots, Integer.parseInt(meta.get("threshold")), overlay + ": the threshold is one evaluator's slots");
            String query = meta.get("query");
            Matcher m = term.matcher(query);
            Set<String> names = new TreeSet<>();
            while (m.find()) {
                FarmMetrics.Metric metric = exported.get(m.group(1));
                assertNotNull(metric, m.group(1) + " in " + query + " is no metric FarmMetrics exports");
                assertEquals(FarmMetrics.Kind.GAUGE, metric.kind(), m.group(1));
                assertEquals("coordinator", metric.role(), m.group(1) + " is the coordinator's");
                assertFalse(metric.tags().contains(FarmMetrics.JOB), m.group(1) + ": a total, not one job's series");
                Map<String, String> matchers = new HashMap<>();
                if (m.group(3) != null) {
                    for (String matcher : m.group(3).split(",")) {
                        String label = matcher.split("=")[0].trim();
                        matchers.put(label, matcher.split("=", 2)[1].trim().replace("\"", ""));
                        // namespace: the target label the Prometheus Operator puts on every series a ServiceMonitor scrapes
                        assertTrue(label.equals("namespace") || metric.tags().contains(label), matcher + " is a tag of " + m.group(1));
                    }
                }
                // one Prometheus scrapes many namespaces: only this farm's queue scales this farm's evaluators
                assertEquals(so.getMetadata().getNamespace(), matchers.get("namespace"),
                        overlay + ": " + m.group(0) + " matches the ScaledObject's own namespace");
                assertFalse(all.stream().filter(o -> o.getKind().equals("ServiceMonitor")).toList().isEmpty(),
                        overlay + ": a ServiceMonitor gives the series their namespace label");
                names.add(m.group(1));
            }
            assertEquals(Set.of("replay_queue_slices_queued", "replay_queue_slices_in_flight"), names, query);
            // QueueMetricsScrapeTest (coordinator) evaluates this query over real scrapes of a cluster with a queue
        }
    }

    @Test
    void services_monitors_and_network_policies_select_the_pods_and_ports_they_name() throws Exception {
        for (String overlay : K8sDeploy.OVERLAYS) {
            List<HasMetadata> all = K8sDeploy.render(overlay);
            List<Deployment> deployments = K8sDeploy.ofType(all, Deployment.class);
            for (Service s : K8sDeploy.ofType(all, Service.class)) {
                List<Deployment> selected = deployments.stream().filter(d -> selects(s.getSpec().getSelector(), podLabels(d))).toList();
                assertFalse(selected.isEmpty(), overlay + ": Service " + s.getMetadata().getName() + " selects pods");
                for (Deployment d : selected) {
                    for (ServicePort p : s.getSpec().getPorts()) {
                        port(d.getSpec().getTemplate().getSpec().getContainers().get(0), p.getTargetPort());
                    }
                }
            }
            List<GenericKubernetesResource> monitors = all.stream().filter(o -> o.getKind().equals("ServiceMonitor"))
                    .map(GenericKubernetesResource.class::cast).toList();
            assertEquals(overlay.equals("cpu-hpa") ? 0 : 1, monitors.size(), overlay);
            for (GenericKubernetesResource sm : monitors) {
                Map<String, String> match = sm.get("spec", "selector", "matchLabels");
                List<Service> services = K8sDeploy.ofType(all, Service.class).stream()
                        .filter(s -> selects(match, s.getMetadata().getLabels())).toList();
                assertEquals(1, services.size(), "the ServiceMonitor selects one Service (no pod scraped twice)");
                Service metrics = services.get(0);
                List<Map<String, Object>> endpoints = sm.get("spec", "endpoints");
                for (Map<String, Object> e : endpoints) {
                    assertTrue(metrics.getSpec().getPorts().stream().anyMatch(p -> p.getName().equals(e.get("port"))), e.toString());
                    assertEquals("/metrics", e.get("path"));
                }
                for (Deployment d : deployments) {
                    assertTrue(selects(metrics.getSpec().getSelector(), podLabels(d)), d.getMetadata().getName() + " is scraped");
                }
            }
            // NetworkPolicy: every farm pod is covered, its ports are container ports, and the farm reaches itself
            List<NetworkPolicy> policies = K8sDeploy.ofType(all, NetworkPolicy.class);
            assertFalse(policies.isEmpty());
            for (Deployment d : deployments) {
                Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
                Set<Integer> own = new TreeSet<>();
                c.getPorts().forEach(p -> own.add(p.getContainerPort()));
                Set<Integer> open = new TreeSet<>();
                Set<Integer> fromFarm = new TreeSet<>();
                for (NetworkPolicy np : policies) {
                    if (!selects(np.getSpec().getPodSelector(), podLabels(d))) {
                        continue;
                    }
                    assertEquals(List.of("Ingress"), np.getSpec().getPolicyTypes());
                    for (NetworkPolicyIngressRule rule : np.getSpec().getIngress()) {
                        boolean farm = rule.getFrom() != null && rule.getFrom().stream().anyMatch(f -> f.getPodSelector() != null
                                && selects(f.getPodSelector(), Map.of("app", "replay-farm", "component", "eval")));
                        for (NetworkPolicyPort p : rule.getPorts()) {
                            int n = p.getPort().getIntVal();
                            if (own.contains(n)) {
                                open.add(n);
                                if (farm) {
                                    fromFarm.add(n);
                                }
                            }
                        }
                    }
                }
                String name = overlay + "/" + d.getMetadata().getName();
                assertEquals(own, open, name + ": every port it serves is open to someone, nothing else");
                assertTrue(fromFarm.containsAll(Set.of(port(c, "remoting"), port(c, "management"))),
                        name + ": the farm's pods reach its Artery and management ports");
            }
        }
    }
}
