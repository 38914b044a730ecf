package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.Toolchain;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * deploy/docker's two images checked against what they package and where they run (neither is built on
 * the project's machines: no Docker daemon, and no registry to pull eclipse-temurin or nvidia/cuda from):
 * the build stage copies every module of the reactor and every folder outside them the build reads; the
 * runtime stage copies the jar the cli module's pom names and its lib/ where the jar's manifest class path
 * (lib/) finds it; the entrypoint is that jar, so the manifests' {@code args: [node, ...]} run
 * {@code replay node}; the user is the numeric uid the manifests' runAsUser names; the exposed ports are
 * the containers' ports; the CPU image is a JRE without build tools; the GPU image has nvcc, CUPTI and the
 * shim where the node is told to load it.
 */
class K8sImagesTest {
    /** The farm's user in both images and in every pod's securityContext. */
    static final long UID = 10001;
    static final Path DOCKER = Toolchain.root().resolve("deploy/docker");

    record Instruction(String keyword, String args) {
    }

    record Stage(String from, String name, List<Instruction> instructions) {
        List<String> all(String keyword) {
            return instructions.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::args).toList();
        }

        String last(String keyword) {
            List<String> a = all(keyword);
            assertFalse(a.isEmpty(), "the stage from " + from + " has a " + keyword);
            return a.get(a.size() - 1);
        }
    }

    /** A Dockerfile's stages: comments dropped, continuation lines joined, ARGs before the first FROM substituted there. */
    static List<Stage> parse(Path dockerfile) throws Exception {
        List<String> lines = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (String raw : Files.readAllLines(dockerfile)) {
            String line = raw.strip();
            if (line.startsWith("#") || (line.isEmpty() && cur.length() == 0)) {
                continue;
            }
            if (line.endsWith("\\")) {
                cur.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            cur.append(line);
            if (cur.length() > 0) {
                lines.add(cur.toString());
            }
            cur.setLength(0);
        }
        Map<String, String> globalArgs = new LinkedHashMap<>();
        List<Stage> stages = new ArrayList<>();
        for (String l : lines) {
            String[] kv = l.split("\\s+", 2);
            String keyword = kv[0].toUpperCase();
            String args = kv.length > 1 ? kv[1] : "";
            if (keyword.equals("ARG") && stages.isEmpty()) {
                String[] a = args.split("=", 2);
                globalArgs.put(a[0], a.length > 1 ? a[1] : "");
            } else if (keyword.equals("FROM")) {
                for (Map.Entry<String, String> e : globalArgs.entrySet()) {
                    args = args.replace("${" + e.getKey() + "}", e.getValue());
                }
                String[] f = args.split("\\s+(?i:as)\\s+");
                stages.add(new Stage(f[0], f.length > 1 ? f[1] : "", new ArrayList<>()));
            } else {
                assertFalse(stages.isEmpty(), dockerfile + ": " + l + " before any FROM");
                stages.get(stages.size() - 1).instructions().add(new Instruction(keyword, args));
            }
        }
        return stages;
    }

    static List<String> jsonArray(String s) throws Exception {
        List<String> out = new ArrayList<>();
        new ObjectMapper().readTree(s).forEach(n -> out.add(n.asText()));
        return out;
    }

    static Document pom(Path p) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(p.toFile());
    }

    static String text(Document d, String tag) {
        NodeList n = d.getElementsByTagName(tag);
        assertTrue(n.getLength() > 0, "the pom has <" + tag + ">");
        return n.item(0).getTextContent().trim();
    }

    /** Checks shared by both images; returns the runtime stage. */
    static Stage checkImage(Path dockerfile, Set<Integer> podPorts) throws Exception {
        List<Stage> stages = parse(dockerfile);
        assertEquals(2, stages.size(), dockerfile + ": a build stage and a runtime stage");
        Stage build = stages.get(0);
        Stage run = stages.get(1);
        Path root = Toolchain.root();

        // the build stage has every folder the reactor reads
        Set<String> copied = new TreeSet<>();
        for (String c : build.all("COPY")) {
            String[] parts = c.split("\\s+");
            for (int i = 0; i < parts.length - 1; i++) {
                copied.add(parts[i].replaceAll("/$", ""));
            }
        }
        Document parent = pom(root.resolve("pom.xml"));
        NodeList modules = parent.getElementsByTagName("module");
        Set<String> needed = new TreeSet<>(Set.of("pom.xml"));
        for (int i = 0; i < modules.getLength(); i++) {
            String module = modules.item(i).getTextContent().trim();
            needed.add(module);
            Matcher outside = Pattern.compile("\\$\\{project\\.basedir\\}/\\.\\./([A-Za-z0-9_.-]+)")
                    .matcher(Files.readString(root.resolve(module).resolve("pom.xml")));
            while (outside.find()) {
                needed.add(outside.group(1));
            }
        }
        assertTrue(copied.containsAll(needed), dockerfile + ": the build stage copies " + needed + ", has " + copied);
        assertTrue(build.all("RUN").stream().anyMatch(r -> r.contains("mvn ") && r.contains(" package")), "it builds the distribution");

        // the runtime stage: the jar the cli pom names, its lib/ beside it, that jar as the entrypoint
        Document cli = pom(root.resolve("cli/pom.xml"));
        String jar = "/src/cli/target/" + text(cli, "finalName") + ".jar";
        String prefix = text(cli, "classpathPrefix");
        assertEquals(Replay.class.getName(), text(cli, "mainClass"));
        String lib = ((Element) cli.getElementsByTagName("outputDirectory").item(0)).getTextContent().trim()
                .replace("${project.build.directory}", "/src/cli/target");
        Map<String, String> into = new LinkedHashMap<>();
        for (String c : run.all("COPY")) {
            String[] parts = c.split("\\s+");
            assertEquals("--from=" + build.name(), parts[0], "the runtime copies from the build stage only: " + c);
            into.put(parts[1], parts[2]);
        }
        String jarInImage = into.get(jar);
        assertNotNull(jarInImage, dockerfile + " copies " + jar + ": " + into);
        String libInImage = into.get(lib);
        assertEquals(Path.of(jarInImage).getParent().resolve(prefix.replaceAll("/$", "")).toString(), libInImage,
                "the jar's manifest finds its class path " + prefix + " beside it");
        assertEquals(List.of("java", "-jar", jarInImage), jsonArray(run.last("ENTRYPOINT")));
        assertEquals(List.of("--help"), jsonArray(run.last("CMD")));
        // the manifests' args start with "node": the entrypoint then runs replay node
        assertEquals(0, Replay.commandLine().execute("node", "--help"), "replay node exists");

        // who runs it and where
        assertEquals(String.valueOf(UID), run.last("USER"), "a numeric user (runAsNonRoot can check it)");
        assertTrue(run.all("RUN").stream().anyMatch(r -> r.contains("useradd") && r.contains("--uid " + UID)
                && r.contains("--home-dir " + run.last("WORKDIR"))), "the user exists and owns the work directory");
        assertEquals("/var/lib/replay", run.last("WORKDIR"));
        Set<Integer> exposed = new TreeSet<>();
        for (String e : run.all("EXPOSE")) {
            for (String p : e.split("\\s+")) {
                exposed.add(Integer.parseInt(p));
            }
        }
        assertEquals(podPorts, exposed, dockerfile + ": it exposes the ports its pods declare");
        String env = String.join(" ", run.all("ENV"));
        assertTrue(env.contains("-XX:MaxRAMPercentage="), "the heap follows the container's memory limit");
        return run;
    }

    /** The container ports of the pods that run {@code image}, over every overlay. */
    static Set<Integer> ports(String image) throws Exception {
        Set<Integer> ports = new TreeSet<>();
        for (String overlay : K8sDeploy.OVERLAYS) {
            List<HasMetadata> all = K8sDeploy.render(overlay);
            for (Deployment d : K8sDeploy.ofType(all, Deployment.class)) {
                Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
                if (c.getImage().startsWith(image + ":")) {
                    c.getPorts().forEach(p -> ports.add(p.getContainerPort()));
                    List<String> args = c.getArgs();
                    assertEquals("node", args.get(0), "the pods pass the entrypoint replay's arguments");
                    String workDir = args.get(args.indexOf("--work-dir") + 1);
                    assertEquals("/var/lib/replay", workDir, "the pods work in the image's WORKDIR");
                }
            }
        }
        assertFalse(ports.isEmpty(), "some pod runs " + image);
        return ports;
    }

    @Test
    void the_cpu_image_is_a_java_17_runtime_with_the_distribution_run_as_a_non_root_user() throws Exception {
        K8sDeploy.assumeKubectl();
        Stage run = checkImage(DOCKER.resolve("Dockerfile"), ports("replay-farm"));
        assertTrue(run.from().matches("eclipse-temurin:17-jre(-.*)?"), "a Java 17 runtime, not a JDK: " + run.from());
        for (String r : run.all("RUN")) {
            assertFalse(r.matches(".*\\b(apt-get|apk|yum|dnf) .*"), "no packages (build tools) added to the runtime: " + r);
        }
    }

    @Test
    void the_gpu_image_has_cuda_a_jre_nvcc_cupti_and_the_sampling_shim_where_the_node_loads_it() throws Exception {
        K8sDeploy.assumeKubectl();
        Stage run = checkImage(DOCKER.resolve("Dockerfile.gpu"), ports("replay-farm-gpu"));
        assertTrue(run.from().matches("nvidia/cuda:[0-9.]+-runtime-ubuntu[0-9.]+"), "a CUDA runtime base: " + run.from());
        String install = String.join(" ", run.all("RUN"));
        for (String pkg : List.of("openjdk-17-jre-headless", "g++", "\"cuda-nvcc-$v\"", "\"cuda-cupti-$v\"")) {
            assertTrue(install.contains(pkg), "the runtime installs " + pkg);
        }
        // nvcc where FatbinBuild looks ($CUDA_HOME/bin/nvcc), the shim where the node is told to load it
        String env = String.join(" ", run.all("ENV"));
        assertTrue(env.contains("CUDA_HOME=/usr/local/cuda"), env);
        assertTrue(env.contains("NVIDIA_DRIVER_CAPABILITIES=compute,utility"), env);
        Matcher shim = Pattern.compile("-Dreplay\\.gpu\\.sampling\\.cupti-library=(\\S+?)\"?(\\s|$)").matcher(env);
        assertTrue(shim.find(), env);
        assertTrue(ConfigFactory.load().hasPath("replay.gpu.sampling.cupti-library"), "the node reads that setting");
        assertTrue(run.all("COPY").stream().anyMatch(c -> c.endsWith(" " + shim.group(1))
                        && c.contains("gpu-node/target/native/" + org.replayfarm.gpunode.sampling.CuptiShim.LIBRARY)),
                "the shim the gpu-node build makes is copied to " + shim.group(1));
        List<Stage> stages = parse(DOCKER.resolve("Dockerfile.gpu"));
        assertTrue(stages.get(0).from().matches("nvidia/cuda:[0-9.]+-devel-ubuntu[0-9.]+"), "the shim builds against CUPTI's headers");
        assertTrue(String.join(" ", stages.get(0).all("RUN")).contains("test -f gpu-node/target/native/libreplaycupti.so"),
                "the build fails if the shim was skipped");
        assertEquals(stages.get(0).from().replace("-devel-", "-runtime-"), run.from(), "one CUDA version in both stages");
    }
}
