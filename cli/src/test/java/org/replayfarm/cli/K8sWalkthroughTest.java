package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * deploy/README.md's walkthrough, every command of every {@code sh} block, checked in order against what
 * it acts on: {@code ./replay} lines parse with the real command line (every flag exists, the capture is
 * there, the URL is the port-forward's); {@code kubectl} lines name the farm's namespace, overlays that
 * render, Deployments, Services, ports, ScaledObjects (and the HPA KEDA makes for one) that the applied
 * overlay has, and create exactly the Secrets and keys the pods read; {@code deploy/build-images} is the
 * script that builds the images K8sImagesTest checks (the GPU one with {@code --gpu}), and {@code skopeo copy}
 * lines push the tarballs it writes under the image names and tag the manifests use; {@code openssl} lines run for real here (when openssl
 * is installed) and make a certificate their CA verifies, in the files the Secret takes. A command of a
 * kind this test does not know fails it, so a new step cannot slip in unchecked.
 */
@Tag("cluster")
class K8sWalkthroughTest {
    static final Path README = Toolchain.root().resolve("deploy/README.md");
    static final Map<String, String> VARIABLES = Map.of("$job", "job-1", "$PWD", "/home/user/replay-farm");

    @TempDir
    Path work;

    /** The walkthrough's commands, in order: each line of each ```sh block. */
    static List<String> commands() throws Exception {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : Files.readAllLines(README)) {
            if (line.startsWith("```")) {
                in = line.equals("```sh");
                continue;
            }
            if (in && !line.isBlank() && !line.strip().startsWith("#")) {
                out.add(line.strip());
            }
        }
        return out;
    }

    /** A shell line's words: quotes removed, variables the walkthrough sets replaced. */
    static List<String> words(String line) {
        List<String> w = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char ch : line.toCharArray()) {
            if (quote != 0) {
                if (ch == quote) {
                    quote = 0;
                } else {
                    cur.append(ch);
                }
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
                any = true;
            } else if (Character.isWhitespace(ch)) {
                if (cur.length() > 0 || any) {
                    w.add(cur.toString());
                }
                cur.setLength(0);
                any = false;
            } else {
                cur.append(ch);
            }
        }
        assertEquals(0, quote, "unbalanced quotes: " + line);
        if (cur.length() > 0 || any) {
            w.add(cur.toString());
        }
        List<String> out = new ArrayList<>();
        for (String s : w) {
            for (Map.Entry<String, String> v : VARIABLES.entrySet()) {
                s = s.replace(v.getKey(), v.getValue());
            }
            out.add(s);
        }
        return out;
    }

    /** What the walkthrough has done so far. */
    final class State {
        Path cwd = Toolchain.root();
        final Deque<Path> previous = new ArrayDeque<>();
        String overlay;                                  // the overlay applied
        final Map<String, Set<String>> secrets = new LinkedHashMap<>();
        final Map<String, String> built = new HashMap<>(); // image name -> its tarball, relative to the root
        final Set<String> pushed = new TreeSet<>();
        final Map<Integer, Integer> forwarded = new HashMap<>(); // local port -> container port
        final Set<String> files = new TreeSet<>();       // files the openssl lines made (here, in work)
        boolean tokenExported;
        boolean submitted;
    }

    List<HasMetadata> applied(State s) throws Exception {
        assertNotNull(s.overlay, "an overlay is applied before its objects are used");
        return K8sDeploy.render(s.overlay);
    }

    @Test
    void every_command_of_the_walkthrough_names_what_the_manifests_and_the_cli_have() throws Exception {
        K8sDeploy.assumeKubectl();
        State s = new State();
        List<String> commands = commands();
        assertTrue(commands.size() > 20, "the walkthrough: " + commands);
        Set<String> kinds = new TreeSet<>();
        for (String line : commands) {
            String command = line.endsWith(" &") ? line.substring(0, line.length() - 2) : line;
            Matcher assign = Pattern.compile("^[a-z_]+=\\$\\((.*)\\)$").matcher(command);
            if (assign.matches()) {
                command = assign.group(1);
            }
            List<String> w = words(command);
            kinds.add(w.get(0));
            try {
                switch (w.get(0)) {
                    case "deploy/build-images" -> buildImages(s, w);
                    case "skopeo" -> skopeo(s, w);
                    case "kustomize" -> kustomize(s, w);
                    case "cd" -> cd(s, w);
                    case "mvn" -> assertEquals(List.of("mvn", "-B", "-q", "-DskipTests", "package"), w,
                            "the distribution build the images and ./replay use");
                    case "kubectl" -> kubectl(s, w);
                    case "openssl" -> openssl(s, command, w);
                    case "export" -> {
                        assertTrue(w.get(1).startsWith("REPLAY_API_TOKEN_FILE="), "the clients read REPLAY_API_TOKEN_FILE");
                        assertTrue(w.get(1).endsWith("/token"), "the token file the Secret was made from");
                        s.tokenExported = true;
                    }
                    case "./replay" -> replay(s, w);
                    case "curl" -> curl(s, w);
                    default -> fail("a walkthrough command this test does not check: " + line);
                }
            } catch (AssertionError e) {
                throw new AssertionError("walkthrough command `" + line + "`: " + e.getMessage(), e);
            }
        }
        System.out.println("walkthrough: " + commands.size() + " commands checked (" + kinds + ")");
        assertTrue(s.submitted, "the walkthrough submits a job");
        // every Secret the pods of the postgres overlay (which reads them all) need was created, with its keys
        assertEquals(K8sDeploy.SECRETS, s.secrets, "the Secrets the walkthrough creates are those the pods read");
    }

    /** The script runs the image build and its checks, the GPU image with --gpu. */
    void buildImages(State s, List<String> w) throws Exception {
        Path script = Toolchain.root().resolve(w.get(0));
        assertTrue(Files.isExecutable(script), w.get(0));
        String text = Files.readString(script);
        assertTrue(text.contains("-Dtest=" + K8sImagesTest.class.getSimpleName()), "it builds through the checks: " + script);
        assertTrue(text.contains("-Dreplay.images.gpu=\"$gpu\""), "--gpu switches the GPU image on");
        assertTrue(w.size() == 1 || w.subList(1, w.size()).equals(List.of("--gpu")), "its only flag is --gpu: " + w);
        Path out = Toolchain.root().relativize(K8sImages.OUT);
        s.built.put("replay-farm", out.resolve("replay-farm.tar").toString());
        if (w.contains("--gpu")) {
            s.built.put("replay-farm-gpu", out.resolve("replay-farm-gpu.tar").toString());
        }
    }

    /** skopeo copy docker-archive:TARBALL docker://REGISTRY/NAME:TAG, for an image built before. */
    void skopeo(State s, List<String> w) {
        assertEquals("copy", w.get(1));
        assertEquals(4, w.size(), "skopeo copy SOURCE DESTINATION: " + w);
        assertTrue(w.get(2).startsWith("docker-archive:"), "Jib's tarball is a docker-archive: " + w.get(2));
        assertTrue(w.get(3).startsWith("docker://"), w.get(3));
        String image = w.get(3).substring("docker://".length());
        String name = image.substring(image.lastIndexOf('/') + 1, image.lastIndexOf(':'));
        assertEquals(s.built.get(name), w.get(2).substring("docker-archive:".length()), "the tarball the build wrote for " + name);
        assertEquals(K8sImages.VERSION, image.substring(image.lastIndexOf(':') + 1), "the tag the build gives the image");
        s.pushed.add(image);
    }

    void kustomize(State s, List<String> w) throws Exception {
        assertEquals(List.of("kustomize", "edit", "set", "image"), w.subList(0, 4));
        Path overlays = Toolchain.root().resolve("deploy/k8s/overlays");
        assertEquals(overlays, s.cwd.getParent(), "run in an overlay's folder: " + s.cwd);
        String overlay = s.cwd.getFileName().toString();
        String[] kv = w.get(4).split("=", 2);
        Set<String> images = new TreeSet<>();
        for (Deployment d : K8sDeploy.ofType(K8sDeploy.render(overlay), Deployment.class)) {
            d.getSpec().getTemplate().getSpec().getContainers().forEach(c -> images.add(c.getImage().split(":")[0]));
        }
        assertTrue(images.contains(kv[0]), overlay + " runs image " + kv[0] + ": " + images);
        assertTrue(s.pushed.contains(kv[1]), "the image pushed before: " + kv[1]);
    }

    void cd(State s, List<String> w) {
        if (w.get(1).equals("-")) {
            s.cwd = s.previous.pop();
            return;
        }
        s.previous.push(s.cwd);
        s.cwd = s.cwd.resolve(w.get(1)).normalize();
        assertTrue(Files.isDirectory(s.cwd), w.get(1));
    }

    void openssl(State s, String command, List<String> w) throws Exception {
        boolean present = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "openssl")));
        Matcher out = Pattern.compile("(?:-out|-keyout|>)\\s*(\\S+)").matcher(command);
        while (out.find()) {
            s.files.add(out.group(1));
        }
        if (!present) {
            return; // the files it would make are noted; the certificate is not checked here
        }
        Process p = new ProcessBuilder("bash", "-c", command).directory(work.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command);
        assertEquals(0, p.exitValue(), command + ":\n" + output);
        if (w.get(1).equals("x509")) {
            // the node certificate is signed by the CA the pods trust, and names the service all pods share
            Process v = new ProcessBuilder("openssl", "verify", "-CAfile", "ca.crt", "tls.crt").directory(work.toFile())
                    .redirectErrorStream(true).start();
            String verified = new String(v.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(v.waitFor(60, TimeUnit.SECONDS) && v.exitValue() == 0, verified);
            Process t = new ProcessBuilder("openssl", "x509", "-in", "tls.crt", "-noout", "-ext", "subjectAltName")
                    .directory(work.toFile()).redirectErrorStream(true).start();
            String san = new String(t.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(t.waitFor(60, TimeUnit.SECONDS) && san.contains("DNS:replay-farm"), "the SAN was copied: " + san);
        }
    }

    void kubectl(State s, List<String> w) throws Exception {
        List<String> args = new ArrayList<>(w.subList(1, w.size()));
        String namespace = null;
        int n = args.indexOf("-n");
        if (n >= 0) {
            namespace = args.get(n + 1);
            args.remove(n + 1);
            args.remove(n);
            assertEquals(K8sDeploy.NAMESPACE, namespace, "the farm's namespace");
        }
        String verb = args.get(0);
        switch (verb) {
            case "create" -> {
                if (args.get(1).equals("namespace")) {
                    assertEquals(K8sDeploy.NAMESPACE, args.get(2));
                    return;
                }
                assertEquals(List.of("secret", "generic"), args.subList(1, 3));
                assertNotNull(namespace, "a Secret in the farm's namespace");
                String name = args.get(3);
                Set<String> keys = new TreeSet<>();
                for (String a : args.subList(4, args.size())) {
                    if (a.startsWith("--from-file=")) {
                        String f = a.substring("--from-file=".length());
                        String key = f.contains("=") ? f.substring(0, f.indexOf('=')) : Path.of(f).getFileName().toString();
                        String file = f.contains("=") ? f.substring(f.indexOf('=') + 1) : f;
                        assertTrue(s.files.contains(file), "the file " + file + " an earlier step made");
                        keys.add(key);
                    } else if (a.startsWith("--from-literal=")) {
                        keys.add(a.substring("--from-literal=".length()).split("=", 2)[0]);
                    } else {
                        fail("create secret: " + a);
                    }
                }
                assertEquals(K8sDeploy.SECRETS.get(name), keys, "Secret " + name + " holds the keys the pods read");
                s.secrets.put(name, keys);
            }
            case "apply", "delete" -> {
                assertEquals("-k", args.get(1));
                Path dir = Toolchain.root().resolve(args.get(2)).normalize();
                assertEquals(K8sDeploy.ROOT.resolve("overlays"), dir.getParent(), "an overlay: " + args.get(2));
                String overlay = dir.getFileName().toString();
                assertTrue(K8sDeploy.OVERLAYS.contains(overlay), overlay);
                if (verb.equals("apply")) {
                    // every Secret the overlay's pods read exists by now
                    Set<String> needed = new TreeSet<>(K8sDeploy.SECRETS.keySet());
                    if (!overlay.equals("postgres")) {
                        needed.remove("replay-journal");
                    }
                    assertTrue(s.secrets.keySet().containsAll(needed), "the Secrets " + needed + " exist before the apply");
                    s.overlay = overlay;
                } else {
                    assertEquals(s.overlay, overlay, "deletes what was applied");
                }
                K8sDeploy.render(overlay);
            }
            case "rollout" -> {
                assertEquals("status", args.get(1));
                deployment(s, ref(args.get(2), "deploy"));
                for (String a : args.subList(3, args.size())) {
                    assertTrue(a.startsWith("--timeout="), a);
                }
            }
            case "get" -> get(s, args);
            case "port-forward" -> {
                String target = args.get(1);
                String[] ports = args.get(2).split(":");
                int local = Integer.parseInt(ports[0]);
                int remote = Integer.parseInt(ports[1]);
                if (target.startsWith("svc/")) {
                    Service svc = K8sDeploy.named(applied(s), Service.class, ref(target, "svc"));
                    ServicePort p = svc.getSpec().getPorts().stream().filter(x -> x.getPort() == remote).findFirst()
                            .orElseThrow(() -> new AssertionError(target + " has no port " + remote));
                    Deployment d = K8sDeploy.ofType(applied(s), Deployment.class).stream()
                            .filter(x -> K8sManifestsTest.selects(svc.getSpec().getSelector(), K8sManifestsTest.podLabels(x)))
                            .findFirst().orElseThrow();
                    s.forwarded.put(local, K8sManifestsTest.port(d.getSpec().getTemplate().getSpec().getContainers().get(0),
                            p.getTargetPort()));
                } else {
                    Container c = deployment(s, ref(target, "deploy")).getSpec().getTemplate().getSpec().getContainers().get(0);
                    assertTrue(c.getPorts().stream().map(ContainerPort::getContainerPort).anyMatch(x -> x == remote),
                            target + " serves " + remote);
                    s.forwarded.put(local, remote);
                }
            }
            case "patch" -> {
                assertEquals("scaledobject", args.get(1));
                GenericKubernetesResource so = scaledObject(s, args.get(2));
                assertEquals(List.of("--type", "merge", "-p"), args.subList(3, 6));
                JsonNode patch = new ObjectMapper().readTree(args.get(6));
                Map<String, Object> spec = so.get("spec");
                patch.path("spec").fieldNames().forEachRemaining(f -> assertTrue(spec.containsKey(f), "the ScaledObject has spec." + f));
            }
            case "scale" -> {
                deployment(s, ref(args.get(1), "deploy"));
                assertTrue(args.get(2).matches("--replicas=[0-9]+"), args.get(2));
            }
            default -> fail("kubectl " + verb);
        }
    }

    static String ref(String typed, String type) {
        assertTrue(typed.startsWith(type + "/"), typed + " is " + type + "/NAME");
        return typed.substring(type.length() + 1);
    }

    Deployment deployment(State s, String name) throws Exception {
        return K8sDeploy.named(applied(s), Deployment.class, name);
    }

    GenericKubernetesResource scaledObject(State s, String name) throws Exception {
        return applied(s).stream().filter(o -> o.getKind().equals("ScaledObject") && o.getMetadata().getName().equals(name))
                .map(GenericKubernetesResource.class::cast).findFirst()
                .orElseThrow(() -> new AssertionError(s.overlay + " has no ScaledObject " + name));
    }

    void get(State s, List<String> args) throws Exception {
        String kind = args.get(1);
        List<String> rest = args.subList(2, args.size());
        switch (kind) {
            case "pods" -> {
                assertEquals("-l", rest.get(0));
                Map<String, String> selector = new HashMap<>();
                for (String term : rest.get(1).split(",")) {
                    String[] kv = term.split("=", 2);
                    selector.put(kv[0], kv[1]);
                }
                for (Deployment d : K8sDeploy.ofType(applied(s), Deployment.class)) {
                    assertTrue(K8sManifestsTest.selects(selector, K8sManifestsTest.podLabels(d)),
                            rest.get(1) + " lists the pods of " + d.getMetadata().getName());
                }
            }
            case "scaledobject" -> scaledObject(s, rest.get(0));
            case "hpa" -> {
                // KEDA names the HPA it makes for a ScaledObject keda-hpa-<name>
                assertTrue(rest.get(0).startsWith("keda-hpa-"), rest.get(0));
                scaledObject(s, rest.get(0).substring("keda-hpa-".length()));
            }
            case "deploy" -> deployment(s, rest.get(0));
            default -> fail("kubectl get " + kind);
        }
        for (String flag : rest.subList(kind.equals("pods") ? 2 : 1, rest.size())) {
            assertTrue(Set.of("--watch", "-o", "wide").contains(flag), "kubectl get flag " + flag);
        }
    }

    void replay(State s, List<String> w) throws Exception {
        List<String> args = w.subList(1, w.size());
        // throws on an unknown command, flag or bad value, as ./replay would
        picocli.CommandLine.ParseResult parsed = Replay.commandLine().parseArgs(args.toArray(String[]::new));
        assertTrue(parsed.hasSubcommand(), w.toString());
        String url = parsed.subcommand().matchedOptionValue("--coordinator", "");
        Matcher m = Pattern.compile("http://localhost:([0-9]+)").matcher(url);
        assertTrue(m.matches(), "--coordinator " + url);
        Integer target = s.forwarded.get(Integer.parseInt(m.group(1)));
        assertNotNull(target, url + " is a port-forward of the walkthrough");
        Container coordinator = deployment(s, "replay-coordinator").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(K8sManifestsTest.port(coordinator, "http"), target, url + " reaches the coordinator's HTTP port");
        assertTrue(s.tokenExported, "the API token is exported before a client runs");
        if (args.get(0).equals("submit")) {
            List<String> captures = new ArrayList<>();
            parsed.subcommand().matchedPositionals().forEach(p -> captures.addAll(p.stringValues()));
            assertFalse(captures.isEmpty(), "a capture to submit");
            for (String p : captures) {
                assertTrue(Files.isRegularFile(Toolchain.root().resolve(p)), "the capture " + p);
            }
            s.submitted = true;
        } else {
            assertTrue(s.submitted, "a job was submitted before `" + String.join(" ", w) + "`");
        }
    }

    void curl(State s, List<String> w) throws Exception {
        String url = w.get(w.size() - 1);
        Matcher m = Pattern.compile("localhost:([0-9]+)(/.*)").matcher(url);
        assertTrue(m.matches(), url);
        Integer target = s.forwarded.get(Integer.parseInt(m.group(1)));
        assertNotNull(target, url + " is a port-forward of the walkthrough");
        Container c = deployment(s, "replay-coordinator").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(K8sManifestsTest.port(c, "management"), target, url + " is Akka Management's");
        assertEquals("/cluster/members", m.group(2), "Akka Management's cluster route (KubernetesDiscoveryTest reads it)");
        for (String flag : w.subList(1, w.size() - 1)) {
            assertEquals("-s", flag);
        }
    }

    @Test
    void a_command_the_check_does_not_know_or_a_wrong_name_fails_it() throws Exception {
        K8sDeploy.assumeKubectl();
        State s = new State();
        AssertionError unknownFlag = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> {
            try {
                s.forwarded.put(8080, 8080);
                s.overlay = "cpu";
                s.tokenExported = true;
                replay(s, words("./replay submit examples/saxpy/saxpy.capture --every-groups --coordinator http://localhost:8080"));
            } catch (picocli.CommandLine.ParameterException e) {
                throw new AssertionError(e.getMessage());
            }
        });
        assertTrue(unknownFlag.getMessage().contains("--every-groups"), unknownFlag.getMessage());
        AssertionError wrongDeployment = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> kubectl(s, words("kubectl -n replay-farm rollout status deploy/replay-evaluator")));
        assertTrue(wrongDeployment.getMessage().contains("replay-evaluator"));
        AssertionError wrongKey = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> kubectl(s, words("kubectl -n replay-farm create secret generic replay-api-token --from-literal=api-token=x")));
        assertTrue(wrongKey.getMessage().contains("replay-api-token"), wrongKey.getMessage());
        assertFalse(words("a 'b c' \"$job\"").contains("$job"));
        assertEquals(List.of("a", "b c", "job-1"), words("a 'b c' \"$job\""));
    }
}
