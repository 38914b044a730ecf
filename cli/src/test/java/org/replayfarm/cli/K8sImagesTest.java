package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.model.testing.Toolchain;

/**
 * The images as built (K8sImages: Jib from scratch to an image tarball, no daemon), read and run as a
 * container runtime would: the tarball's manifest and config read with Jackson, its layers extracted in
 * order by GNU tar (a reader independent of the builder) into a root, and the entrypoint started in that
 * root with the image's user and working directory, the root read-only and /tmp and the work directory
 * writable as the pods mount them ({@code unshare}: mount and PID namespaces, {@code --root}, {@code --setuid}).
 * The config is checked against the rendered manifests (the user is the pods' runAsUser, the exposed ports
 * their container ports, the work directory their --work-dir); the files against what the node needs (every
 * jar of the manifest class path, every shared library of the runtime resolved by the image's own loader,
 * no shell, compiler, package manager or JDK tool in the CPU image). The CPU image is built and run by
 * default (about a minute cold, seconds when its inputs are unchanged); the GPU image with
 * {@code -Dreplay.images.gpu=true} (its nvcc compiles a kernel inside the image; the GPU itself is not used).
 */
@Tag("cluster")
class K8sImagesTest {
    /** The farm's user in both images and in every pod's securityContext. */
    static final long UID = K8sImages.UID;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Path> ROOTS = new LinkedHashMap<>();

    /** The image's manifest entry and config (docker-archive layout, as Jib's TarImage writes it). */
    record Read(JsonNode config, List<String> layers) {
        JsonNode c() {
            return config.get("config");
        }
    }

    static Read read(Path tar) throws Exception {
        Path dir = tar.resolveSibling(tar.getFileName() + ".read");
        K8sImages.deleteTree(dir);
        Files.createDirectories(dir);
        K8sImages.run(List.of("tar", "-xf", tar.toString(), "-C", dir.toString(), "manifest.json"), null);
        JsonNode manifest = JSON.readTree(dir.resolve("manifest.json").toFile());
        assertEquals(1, manifest.size(), "one image in " + tar);
        String configName = manifest.get(0).get("Config").asText();
        K8sImages.run(List.of("tar", "-xf", tar.toString(), "-C", dir.toString(), configName), null);
        JsonNode config = JSON.readTree(dir.resolve(configName).toFile());
        List<String> layers = new ArrayList<>();
        manifest.get(0).get("Layers").forEach(l -> layers.add(l.asText()));
        assertEquals(layers.size(), config.get("rootfs").get("diff_ids").size(), "a diff_id per layer");
        return new Read(config, layers);
    }

    /** The image's layers extracted in order into a root folder (once per image and JVM). */
    static synchronized Path root(K8sImages.Image image) throws Exception {
        Path done = ROOTS.get(image.name());
        if (done != null) {
            return done;
        }
        Read r = read(image.tar());
        Path root = image.tar().resolveSibling(image.name() + ".root");
        K8sImages.deleteTree(root);
        Files.createDirectories(root);
        Path layers = image.tar().resolveSibling(image.name() + ".layers");
        K8sImages.deleteTree(layers);
        Files.createDirectories(layers);
        List<String> cmd = new ArrayList<>(List.of("tar", "-xf", image.tar().toString(), "-C", layers.toString()));
        cmd.addAll(r.layers());
        K8sImages.run(cmd, null);
        for (String l : r.layers()) {
            K8sImages.run(List.of("tar", "-xzpf", layers.resolve(l).toString(), "-C", root.toString(), "--numeric-owner"), null);
        }
        K8sImages.deleteTree(layers);
        ROOTS.put(image.name(), root);
        return root;
    }

    /** The pods that run {@code image} (the name before the tag), over every overlay. */
    static List<PodSpec> pods(String image) throws Exception {
        List<PodSpec> out = new ArrayList<>();
        for (String overlay : K8sDeploy.OVERLAYS) {
            List<HasMetadata> all = K8sDeploy.render(overlay);
            List<PodSpec> specs = new ArrayList<>();
            K8sDeploy.ofType(all, Deployment.class).forEach(d -> specs.add(d.getSpec().getTemplate().getSpec()));
            K8sDeploy.ofType(all, StatefulSet.class).forEach(d -> specs.add(d.getSpec().getTemplate().getSpec()));
            for (PodSpec p : specs) {
                if (p.getContainers().get(0).getImage().split(":")[0].equals(image)) {
                    out.add(p);
                }
            }
        }
        assertFalse(out.isEmpty(), "some pod runs " + image);
        return out;
    }

    static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        if (a != null) {
            a.forEach(n -> out.add(n.asText()));
        }
        return out;
    }

    static Map<String, String> env(Read r) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String e : strings(r.c().get("Env"))) {
            env.put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
        }
        return env;
    }

    /** Checks the config against the manifests' pods of that image. */
    static void checkConfig(K8sImages.Image image, Read r) throws Exception {
        JsonNode c = r.c();
        assertEquals(List.of("/opt/java/bin/java", "-jar", "/opt/replay/replay.jar"), strings(c.get("Entrypoint")));
        assertEquals(List.of("--help"), strings(c.get("Cmd")));
        assertEquals(UID + ":" + UID, c.get("User").asText(), "a numeric non-root user (runAsNonRoot can check it)");
        assertEquals(K8sImages.HOME, c.get("WorkingDir").asText());
        assertTrue(env(r).get("JAVA_TOOL_OPTIONS").contains("-XX:MaxRAMPercentage="), "the heap follows the memory limit");
        assertEquals("amd64", r.config().get("architecture").asText());
        assertEquals("linux", r.config().get("os").asText());
        Set<Integer> exposed = new TreeSet<>();
        c.get("ExposedPorts").fieldNames().forEachRemaining(p -> {
            assertTrue(p.endsWith("/tcp"), p);
            exposed.add(Integer.parseInt(p.substring(0, p.length() - 4)));
        });
        if (!K8sDeploy.kubectlPresent()) {
            return; // the manifests' side needs kustomize (K8sDeploy says so in the tests that need only it)
        }
        Set<Integer> podPorts = new TreeSet<>();
        for (PodSpec pod : pods(image.name())) {
            Container ct = pod.getContainers().get(0);
            assertEquals(UID, pod.getSecurityContext().getRunAsUser(), "the pods run as the image's user");
            assertEquals(UID, pod.getSecurityContext().getRunAsGroup(), "and its group");
            assertTrue(pod.getSecurityContext().getRunAsNonRoot());
            List<String> args = ct.getArgs();
            assertEquals("node", args.get(0), "the pods pass the entrypoint replay's arguments");
            assertEquals(K8sImages.HOME, args.get(args.indexOf("--work-dir") + 1), "the pods work in the image's WorkingDir");
            assertTrue(ct.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/tmp")),
                    "a read-only root needs /tmp mounted (JNI natives unpack there)");
            ct.getPorts().forEach(p -> podPorts.add(p.getContainerPort()));
        }
        assertEquals(podPorts, exposed, image.name() + ": it exposes the ports its pods declare");
    }

    /** Files every image has: the runtime, the jars of the manifest's class path, the user. */
    static void checkFiles(Path root, Read r) throws Exception {
        Path java = root.resolve("opt/java/bin/java");
        assertTrue(Files.isExecutable(java), java.toString());
        String release = Files.readString(root.resolve("opt/java/release"));
        assertTrue(release.contains("JAVA_VERSION=\"17."), release);
        Set<String> modules = new TreeSet<>(Arrays.asList(release.replaceAll("(?s).*MODULES=\"([^\"]*)\".*", "$1").split(" ")));
        assertTrue(modules.containsAll(K8sImages.MODULES), "the runtime's modules " + modules);
        assertFalse(modules.contains("jdk.compiler") || modules.contains("jdk.jlink"), "a runtime, not a JDK: " + modules);
        try (JarFile jar = new JarFile(root.resolve("opt/replay/replay.jar").toFile())) {
            assertEquals(Replay.class.getName(), jar.getManifest().getMainAttributes().getValue("Main-Class"));
            String[] cp = jar.getManifest().getMainAttributes().getValue("Class-Path").split(" ");
            assertEquals(K8sImages.runtimeClasspath().size() - 1, cp.length, "every jar of the runtime class path");
            for (String e : cp) {
                assertTrue(Files.isRegularFile(root.resolve("opt/replay").resolve(e)), "the class path's " + e + " is in the image");
            }
        }
        List<String> passwd = Files.readAllLines(root.resolve("etc/passwd"));
        assertTrue(passwd.contains("replay:x:" + UID + ":" + UID + ":replay-farm:" + K8sImages.HOME + ":/usr/sbin/nologin"), passwd.toString());
        assertTrue(Files.readAllLines(root.resolve("etc/group")).contains("replay:x:" + UID + ":"));
        assertTrue(Files.isDirectory(root.resolve("tmp")) && Files.isDirectory(root.resolve(K8sImages.HOME.substring(1))));
        assertEquals("rwxrwxrwx", PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("tmp"))),
                "/tmp is writable where no volume is mounted on it");
        if (uid() == 0) {
            assertEquals(UID, ((Number) Files.getAttribute(root.resolve(K8sImages.HOME.substring(1)), "unix:uid")).longValue(),
                    "the user owns its home");
        }
        assertTrue(Files.size(root.resolve("opt/java/lib/security/cacerts")) > 10_000, "CA certificates (TLS to PostgreSQL, registries)");
    }

    /**
     * Every shared library below {@code dirs} in the image, listed by the image's own loader inside the image's
     * root: none needs a library the image lacks (but those named in {@code provided}).
     */
    static void checkLibraries(Path root, List<String> dirs, Set<String> provided, String libraryPath) throws Exception {
        // the JVM's own libraries find libjvm.so and libjava.so loaded already by the launcher: the loader is told where
        Map<String, String> env = Map.of("LD_LIBRARY_PATH", libraryPath);
        List<String> libs = new ArrayList<>();
        for (String d : dirs) {
            try (Stream<Path> s = Files.walk(root.resolve(d))) {
                s.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().matches(".*\\.so(\\.[0-9.]+)?"))
                        .forEach(p -> libs.add("/" + root.relativize(p)));
            }
        }
        libs.add("/opt/java/bin/java");
        assertTrue(libs.size() > 15, libs.toString());
        List<String> missing = new ArrayList<>();
        for (String lib : libs) {
            Result res = inRoot(root, null, false, env, List.of("/lib64/ld-linux-x86-64.so.2", "--list", lib), 60);
            for (String line : res.out().split("\n")) {
                if ((line.contains("not found") || line.contains("cannot open")) && provided.stream().noneMatch(line::contains)) {
                    missing.add(lib + ": " + line.strip());
                }
            }
            assertTrue(res.rc() == 0 || !missing.isEmpty() || res.out().contains("not found"), lib + ": " + res.out());
        }
        assertEquals(List.of(), missing, "every library the image's binaries need is in the image");
    }

    record Result(int rc, String out) {
    }

    static int uid() throws IOException {
        return Integer.parseInt(K8sImages.run(List.of("id", "-u"), null).strip());
    }

    static void assumeNamespaces() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare")), "util-linux's unshare is not installed");
        if (uid() != 0) {
            Result r = run(List.of("unshare", "-r", "-m", "true"), 30);
            Assumptions.assumeTrue(r.rc() == 0, "neither root nor user namespaces here: the image is not run (" + r.out() + ")");
        }
    }

    /**
     * {@code command} run in the image's root as a container runtime would: its own mount and PID namespaces,
     * the root read-only (when {@code readOnly}), /proc, /dev, a tmpfs on /tmp, {@code work} bound on the home;
     * as the image's user and in its working directory when this runs as root (else as root of a user namespace).
     */
    static Result inRoot(Path root, Path work, boolean readOnly, Map<String, String> env, List<String> command, int timeoutS)
            throws Exception {
        return run(inRootCommand(root, work, readOnly, List.of(), command), timeoutS, env);
    }

    /**
     * The command line of {@link #inRoot}; {@code binds}: host folders mounted at the same path inside (their
     * mount points are made in the extracted root). The whole namespace dies with the outer process.
     */
    static List<String> inRootCommand(Path root, Path work, boolean readOnly, List<Path> binds, List<String> command)
            throws Exception {
        StringBuilder script = new StringBuilder("set -e\nR=\"$1\"; W=\"$2\"; RO=\"$3\"; shift 3\n"
                + "mount --bind \"$R\" \"$R\"\n"
                + "if [ \"$RO\" = ro ]; then mount -o remount,bind,ro \"$R\"; fi\n"
                + "mount -t proc proc \"$R/proc\"\n"
                + "mount --rbind /dev \"$R/dev\"\n"
                + "mount -t tmpfs -o mode=1777 tmpfs \"$R/tmp\"\n"
                + "if [ -n \"$W\" ]; then mount --bind \"$W\" \"$R" + K8sImages.HOME + "\"; fi\n");
        for (Path b : binds) {
            Path abs = b.toAbsolutePath().normalize();
            assertFalse(abs.toString().contains("'"), abs.toString());
            Path mountPoint = root.resolve(abs.getRoot().relativize(abs));
            Files.createDirectories(mountPoint);
            // under /tmp the mount point is made again in the tmpfs mounted there
            script.append("mkdir -p \"$R").append(abs).append("\" 2>/dev/null || true\n");
            script.append("mount --bind '").append(abs).append("' \"$R").append(abs).append("\"\n");
        }
        script.append("exec \"$@\"\n");
        boolean root0 = uid() == 0;
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/unshare"));
        if (!root0) {
            cmd.add("-r");
        }
        cmd.addAll(List.of("-m", "-p", "-f", "--kill-child", "--propagation", "private", "/bin/sh", "-c", script.toString(), "sh",
                root.toString(), work == null ? "" : work.toString(), readOnly ? "ro" : "rw", "/usr/bin/unshare",
                "--root=" + root, "--wd=" + K8sImages.HOME));
        if (root0) {
            cmd.addAll(List.of("--setuid", String.valueOf(UID), "--setgid", String.valueOf(UID)));
        }
        cmd.add("--");
        cmd.addAll(command);
        return cmd;
    }

    /** Whether images can be run here (root, or user namespaces), without skipping. */
    static boolean namespacesUsable() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/unshare"))) {
            return false;
        }
        return uid() == 0 || run(List.of("unshare", "-r", "-m", "true"), 30).rc() == 0;
    }

    static Result run(List<String> cmd, int timeoutS) throws Exception {
        return run(cmd, timeoutS, null);
    }

    /** {@code env}: the whole environment of the process (the image's: PATH, JAVA_HOME, ...), else this one's. */
    static Result run(List<String> cmd, int timeoutS, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (env != null) {
            pb.environment().clear();
            pb.environment().putAll(env);
        }
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread pump = new Thread(() -> {
            try (InputStream in = p.getInputStream()) {
                in.transferTo(out);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        pump.start();
        if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            pump.join(5000);
            throw new AssertionError(String.join(" ", cmd) + ": still running after " + timeoutS + " s:\n" + out);
        }
        pump.join(5000);
        return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8));
    }

    static Path workDir(String name) throws Exception {
        Path w = K8sImages.OUT.resolve(name + ".work-dir");
        K8sImages.deleteTree(w);
        Files.createDirectories(w);
        if (uid() == 0) {
            K8sImages.run(List.of("chown", UID + ":" + UID, w.toString()), null);
        }
        return w;
    }

    // ---- the CPU image

    @Test
    void the_cpu_image_config_has_the_entrypoint_user_ports_and_work_dir_the_manifests_use() throws Exception {
        K8sImages.Image image = K8sImages.cpu();
        checkConfig(image, read(image.tar()));
    }

    @Test
    void the_cpu_image_holds_a_java_17_runtime_the_distribution_and_no_build_tools() throws Exception {
        K8sImages.Image image = K8sImages.cpu();
        Read r = read(image.tar());
        assertEquals(List.of("rootfs", "jre", "libraries", "application").size(), r.layers().size(), r.layers().toString());
        Path root = root(image);
        checkFiles(root, r);
        for (String tool : List.of("bin/sh", "bin/bash", "usr/bin/sh", "usr/bin/apt-get", "usr/bin/dpkg", "usr/bin/gcc",
                "usr/bin/cc", "usr/bin/g++", "usr/bin/make", "usr/bin/mvn", "opt/java/bin/javac", "opt/java/bin/jlink",
                "opt/java/bin/jar", "usr/bin/ld")) {
            assertFalse(Files.exists(root.resolve(tool)), "no build tools, shell or package manager in the runtime: " + tool);
        }
        assumeNamespaces();
        checkLibraries(root, List.of("opt/java", "lib", "usr/lib"), Set.of(), "/opt/java/lib/server:/opt/java/lib");
    }

    @Test
    void the_cpu_image_runs_replay_as_its_user_on_a_read_only_root() throws Exception {
        K8sImages.Image image = K8sImages.cpu();
        Read r = read(image.tar());
        Path root = root(image);
        assumeNamespaces();
        List<String> entry = strings(r.c().get("Entrypoint"));
        Path work = workDir("replay-farm");
        Files.copy(Toolchain.root().resolve("examples/saxpy/saxpy.capture"), work.resolve("saxpy.capture"));
        List<String> version = new ArrayList<>(entry);
        version.add("--version");
        Result v = inRoot(root, work, true, env(r), version, 120);
        assertEquals(0, v.rc(), v.out());
        assertTrue(v.out().contains("replay"), v.out());
        List<String> runCmd = new ArrayList<>(entry);
        runCmd.addAll(List.of("run", "saxpy.capture", "--every-group", "--out", "out"));
        Result run = inRoot(root, work, true, env(r), runCmd, 300);
        assertEquals(0, run.rc(), "replay run inside the image, equal to the recorded device run:\n" + run.out());
        JsonNode report = JSON.readTree(work.resolve("out/report.json").toFile());
        assertEquals("equal", report.get("result").get("status").asText(), report.get("result").toString());
        assertTrue(report.get("farm").get("slices").asInt() > 1, "sharded over the embedded cluster's evaluators: " + report.get("farm"));
        try (Stream<Path> host = Files.list(work.resolve("out/host"))) {
            assertTrue(host.anyMatch(p -> p.getFileName().toString().startsWith("guest-")), "the host side's memory ranges");
        }
    }

    /** jdeps over the distribution: the modules it needs are in the runtime (slow: -Dreplay.images.jdeps=true). */
    @Test
    void jdeps_finds_no_module_the_runtime_lacks() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("replay.images.jdeps"), "-Dreplay.images.jdeps=true runs jdeps (about a minute)");
        List<String> cp = K8sImages.runtimeClasspath().stream().map(Path::toString).toList();
        java.util.spi.ToolProvider jdeps = java.util.spi.ToolProvider.findFirst("jdeps").orElseThrow();
        java.io.StringWriter out = new java.io.StringWriter();
        List<String> args = new ArrayList<>(List.of("--ignore-missing-deps", "--multi-release", "17", "--print-module-deps",
                "-q", "-R", "--class-path", String.join(java.io.File.pathSeparator, cp)));
        args.add(cp.get(cp.size() - 1));
        int rc = jdeps.run(new java.io.PrintWriter(out), new java.io.PrintWriter(out), args.toArray(String[]::new));
        assertEquals(0, rc, out.toString());
        Set<String> needed = new TreeSet<>(Arrays.asList(out.toString().strip().split(",")));
        assertTrue(K8sImages.MODULES.containsAll(needed), "jdeps: " + needed + ", the runtime: " + K8sImages.MODULES);
    }

    // ---- the GPU image (-Dreplay.images.gpu=true)

    @Test
    void the_gpu_image_has_cuda_cupti_nvcc_and_the_shim_and_nvcc_compiles_inside_it() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("replay.images.gpu"),
                "-Dreplay.images.gpu=true builds and checks the GPU image (the CUDA toolkit's parts: minutes)");
        K8sImages.Image image = K8sImages.gpu();
        Read r = read(image.tar());
        checkConfig(image, r);
        Map<String, String> env = env(r);
        assertEquals(K8sImages.CUDA, env.get("CUDA_HOME"), "FatbinBuild finds $CUDA_HOME/bin/nvcc");
        assertEquals("compute,utility", env.get("NVIDIA_DRIVER_CAPABILITIES"), "the NVIDIA runtime mounts the driver");
        assertTrue(env.get("JAVA_TOOL_OPTIONS").contains("-Dreplay.gpu.sampling.cupti-library=" + K8sImages.SHIM), env.toString());
        Path root = root(image);
        checkFiles(root, r);
        for (String f : List.of("usr/local/cuda/bin/nvcc", "usr/local/cuda/bin/ptxas", "usr/local/cuda/bin/fatbinary",
                "usr/local/cuda/bin/cudafe++", "usr/local/cuda/nvvm/bin/cicc", "usr/bin/g++", K8sImages.SHIM.substring(1))) {
            assertTrue(Files.isRegularFile(root.resolve(f)), f);
        }
        try (Stream<Path> s = Files.list(root.resolve("usr/local/cuda/lib64"))) {
            List<String> libs = s.map(p -> p.getFileName().toString()).toList();
            assertTrue(libs.contains("libcudart.so.13") || libs.stream().anyMatch(l -> l.startsWith("libcudart.so.")), libs.toString());
            assertTrue(libs.stream().anyMatch(l -> l.startsWith("libcupti.so.")), libs.toString());
        }
        assumeNamespaces();
        // the driver (libcuda.so.1) comes from the node through the NVIDIA container runtime
        checkLibraries(root, List.of("opt/java/lib", "usr/local/cuda/lib64", "opt/replay/native"), Set.of("libcuda.so.1"),
                "/opt/java/lib/server:/opt/java/lib:" + K8sImages.CUDA + "/lib64");
        Path work = workDir("replay-farm-gpu");
        Files.writeString(work.resolve("k.cu"), "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n");
        List<String> nvcc = new ArrayList<>(List.of(K8sImages.CUDA + "/bin/nvcc"));
        nvcc.addAll(CpuBuild.NVCC_FLAGS);
        nvcc.addAll(List.of("-fatbin", "k.cu", "-o", "k.fatbin"));
        Result c = inRoot(root, work, true, env(r), nvcc, 300);
        assertEquals(0, c.rc(), "nvcc inside the image:\n" + c.out());
        assertTrue(Files.size(work.resolve("k.fatbin")) > 1000, "a fat binary");
        List<String> version = new ArrayList<>(strings(r.c().get("Entrypoint")));
        version.add("--version");
        Result v = inRoot(root, work, true, env(r), version, 120);
        assertEquals(0, v.rc(), v.out());
    }
}
