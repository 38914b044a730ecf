package org.replayfarm.cli;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.replayfarm.model.testing.Toolchain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The farm's two images, built without a Docker daemon or a registry: Jib (jib-core) from {@code scratch} to
 * an image tarball ({@code docker load}/{@code crane push}/{@code skopeo copy docker-archive:} read it), with
 * every layer assembled here:
 * <ol>
 * <li>{@code rootfs}: the Debian packages the runtime links against (libc, libgcc, libstdc++, zlib, lcms2,
 * libjpeg; the GPU image adds g++ for nvcc), fetched with {@code apt-get download} into a cache under
 * {@code cli/target/images/debs} keyed by the archive's SHA-256 and unpacked with {@code dpkg-deb -x};
 * {@code /etc/passwd} and {@code /etc/group} with the non-root user {@value #UID};
 * <li>{@code jre}: a Java 17 runtime made with jlink from this JDK ({@link #MODULES}), at {@code /opt/java};
 * <li>{@code cuda} (GPU image only): the CUDA runtime, CUPTI, nvcc with what it drives (cudafe++, cicc,
 * ptxas, fatbinary, the headers) from the local toolkit ({@code /usr/local/cuda}) and the project's CUPTI shim;
 * <li>{@code libraries}: the third-party jars of the distribution, {@code /opt/replay/lib};
 * <li>{@code application}: the project's modules and {@code /opt/replay/replay.jar}, whose manifest names
 * {@code lib/*} as its class path, like cli/target/replay.jar.
 * </ol>
 * The distribution is taken from the cli module's runtime class path (cli/target/runtime-classpath.txt,
 * written by the build before the tests), since the tests run before the jar is packaged. An image is
 * rebuilt only when a digest of everything it is made of changes ({@code cli/target/images/<name>.tar}).
 */
final class K8sImages {
    private static final Logger LOG = LoggerFactory.getLogger(K8sImages.class);
    /** The farm's user in both images and in every pod's securityContext. */
    static final int UID = 10001;
    static final String HOME = "/var/lib/replay";
    static final String VERSION = "0.1.0";
    static final Path OUT = Toolchain.root().resolve("cli/target/images");
    /**
     * The runtime's modules: what {@code jdeps --print-module-deps} finds in the distribution's jars (run with
     * -Dreplay.images.jdeps=true, K8sImagesTest checks it is covered) plus what is loaded as a service:
     * jdk.crypto.ec (TLS with EC keys: Artery, the API server), jdk.zipfs, jdk.naming.dns.
     */
    static final List<String> MODULES = List.of("java.base", "java.compiler", "java.desktop", "java.instrument",
            "java.management", "java.naming", "java.net.http", "java.scripting", "java.security.jgss", "java.sql",
            "java.sql.rowset", "jdk.crypto.ec", "jdk.httpserver", "jdk.jfr", "jdk.management", "jdk.naming.dns",
            "jdk.unsupported", "jdk.zipfs");
    /** GUI natives of java.desktop that a server never loads (they link X11, ALSA, freetype): left out. */
    static final String JLINK_EXCLUDES = "**/libawt_xawt.so,**/libjawt.so,**/libsplashscreen.so,**/libfontmanager.so,"
            + "**/libjsound.so";
    /** What the JRE's libraries link against (ldd of each: K8sImagesTest resolves them inside the image). */
    static final List<String> CPU_DEBS = List.of("libc6", "libgcc-s1", "libstdc++6", "zlib1g", "liblcms2-2",
            "libjpeg62-turbo");
    /**
     * nvcc preprocesses every .cu with the host compiler (g++) even for a device-only -fatbin, and runs each
     * step through /bin/sh (dash); g++ needs its cc1plus, the C library's headers and binutils' as for host objects.
     */
    static final List<String> GPU_DEBS = List.of("dash", "g++", "gcc", "cpp", "g++-12", "gcc-12", "cpp-12", "libgcc-12-dev", "libstdc++-12-dev",
            "libc6-dev", "linux-libc-dev", "libc-dev-bin", "libcrypt1", "libcrypt-dev", "binutils",
            "binutils-x86-64-linux-gnu", "libbinutils", "libctf0", "libctf-nobfd0", "binutils-common", "libgprofng0",
            "libjansson4", "libisl23", "libmpc3", "libmpfr6", "libgmp10", "libzstd1", "libcc1-0", "libgomp1",
            "libitm1", "libatomic1", "libasan8", "liblsan0", "libtsan2", "libubsan1", "libquadmath0", "libelf1");
    /** Ports of the image: HTTP API (coordinator), Artery, Akka Management, Prometheus metrics. */
    static final List<Integer> CPU_PORTS = List.of(8080, 25520, 8558, 9095);
    static final List<Integer> GPU_PORTS = List.of(25520, 8558, 9095);
    static final String JAVA_TOOL_OPTIONS = "-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError";
    static final String CUDA = "/usr/local/cuda";
    static final String SHIM = "/opt/replay/native/libreplaycupti.so";
    /** Bumped when the recipe below changes in a way the input digest does not see. */
    private static final String RECIPE = "k8s-images/4";
    private static final Instant EPOCH_PLUS_1 = Instant.ofEpochSecond(1);

    /** A built image: its name, its tarball (docker-archive layout) and the reference it is tagged with. */
    record Image(String name, Path tar, String reference) {
    }

    private static final Map<String, Image> BUILT = new LinkedHashMap<>();

    private K8sImages() {
    }

    static synchronized Image cpu() throws Exception {
        return BUILT.computeIfAbsent("replay-farm", n -> build(n, false));
    }

    static synchronized Image gpu() throws Exception {
        return BUILT.computeIfAbsent("replay-farm-gpu", n -> build(n, true));
    }

    private static Image build(String name, boolean gpu) {
        try {
            return buildNow(name, gpu);
        } catch (Exception e) {
            throw new IllegalStateException("building the image " + name + ": " + e.getMessage(), e);
        }
    }

    private static Image buildNow(String name, boolean gpu) throws Exception {
        long t0 = System.nanoTime();
        Files.createDirectories(OUT);
        List<Path> classpath = runtimeClasspath();
        List<String> debNames = new ArrayList<>(CPU_DEBS);
        if (gpu) {
            debNames.addAll(GPU_DEBS);
        }
        List<Path> debs = fetchDebs(debNames);
        MessageDigest key = MessageDigest.getInstance("SHA-256");
        key.update((RECIPE + "\n" + name + "\n" + MODULES + "\n" + JLINK_EXCLUDES + "\n" + System.getProperty("java.home")
                + " " + System.getProperty("java.vm.version") + "\n").getBytes(StandardCharsets.UTF_8));
        for (Path d : debs) {
            key.update(d.getFileName().toString().getBytes(StandardCharsets.UTF_8));
        }
        for (Path p : classpath) {
            digestTree(key, p);
        }
        if (gpu) {
            key.update(cudaVersion().getBytes(StandardCharsets.UTF_8));
            digestTree(key, shim());
        }
        String digest = HexFormat.of().formatHex(key.digest()).substring(0, 16);
        Path tar = OUT.resolve(name + ".tar");
        Path stamp = OUT.resolve(name + ".inputs");
        String reference = name + ":" + VERSION;
        if (Files.exists(tar) && Files.exists(stamp) && Files.readString(stamp).strip().equals(digest)) {
            LOG.info("image {}: {} is up to date (inputs {})", reference, tar, digest);
            return new Image(name, tar, reference);
        }
        Path work = OUT.resolve(name + ".work");
        deleteTree(work);
        Files.createDirectories(work);

        Path rootfs = work.resolve("rootfs");
        unpack(debs, rootfs);
        writeUsers(rootfs);
        Path jre = jlink(work.resolve("jre"));
        Path dist = work.resolve("dist");
        List<Path> libraries = new ArrayList<>();
        List<Path> application = new ArrayList<>();
        distribution(classpath, dist, libraries, application);

        JibContainerBuilder image = Jib.fromScratch()
                .setFormat(ImageFormat.Docker)
                .addFileEntriesLayer(layer("rootfs", rootfs, "/", rootfs))
                .addFileEntriesLayer(layer("jre", jre, "/opt/java", jre));
        if (gpu) {
            image.addFileEntriesLayer(cudaLayer(work.resolve("cuda")));
        }
        image.addFileEntriesLayer(files("libraries", libraries, "/opt/replay/lib"))
                .addFileEntriesLayer(application(application, dist.resolve("replay.jar")));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", gpu ? "/opt/java/bin:" + CUDA + "/bin:/usr/bin:/bin" : "/opt/java/bin:/usr/bin:/bin");
        env.put("JAVA_HOME", "/opt/java");
        if (gpu) {
            env.put("CUDA_HOME", CUDA);
            env.put("LD_LIBRARY_PATH", CUDA + "/lib64");
            env.put("NVIDIA_VISIBLE_DEVICES", "all");
            env.put("NVIDIA_DRIVER_CAPABILITIES", "compute,utility");
            env.put("JAVA_TOOL_OPTIONS", JAVA_TOOL_OPTIONS + " -Dreplay.gpu.sampling.cupti-library=" + SHIM);
        } else {
            env.put("JAVA_TOOL_OPTIONS", JAVA_TOOL_OPTIONS);
        }
        Set<Port> ports = new java.util.LinkedHashSet<>();
        (gpu ? GPU_PORTS : CPU_PORTS).forEach(p -> ports.add(Port.tcp(p)));
        image.setEntrypoint("/opt/java/bin/java", "-jar", "/opt/replay/replay.jar")
                .setProgramArguments("--help")
                .setUser(UID + ":" + UID)
                .setWorkingDirectory(AbsoluteUnixPath.get(HOME))
                .setEnvironment(env)
                .setExposedPorts(ports)
                .addLabel("org.opencontainers.image.title", name)
                .addLabel("org.opencontainers.image.version", VERSION)
                .addLabel("org.replayfarm.inputs", digest);
        Path partial = OUT.resolve(name + ".tar.partial");
        image.containerize(Containerizer.to(TarImage.at(partial).named(reference))
                .setBaseImageLayersCache(OUT.resolve("jib-cache/base"))
                .setApplicationLayersCache(OUT.resolve("jib-cache/app"))
                .setOfflineMode(true)
                .setToolName("replay-farm K8sImages"));
        Files.move(partial, tar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(stamp, digest + "\n");
        deleteTree(work);
        LOG.info("image {}: built {} ({} MiB) in {} s", reference, tar, Files.size(tar) >> 20,
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
        return new Image(name, tar, reference);
    }

    // ---- inputs

    /** The cli module's runtime class path as the build wrote it, then cli's own classes. */
    static List<Path> runtimeClasspath() throws IOException {
        Path cp = Toolchain.root().resolve("cli/target/runtime-classpath.txt");
        if (!Files.exists(cp)) {
            throw new IOException(cp + " is missing: build through Maven (mvn -pl cli -am test), which writes it");
        }
        List<Path> out = new ArrayList<>();
        for (String e : Files.readString(cp).strip().split(java.io.File.pathSeparator)) {
            if (!e.isBlank()) {
                out.add(Path.of(e));
            }
        }
        out.add(Toolchain.root().resolve("cli/target/classes"));
        for (Path p : out) {
            if (!Files.exists(p)) {
                throw new IOException("the class path names " + p + ", which does not exist");
            }
        }
        return out;
    }

    /** A project module's folder (…/model/target/classes or …/model/target/model-0.1.0-SNAPSHOT.jar) below the root. */
    private static boolean isProjectModule(Path p) {
        return p.toAbsolutePath().normalize().startsWith(Toolchain.root().toAbsolutePath().normalize());
    }

    static String cudaVersion() throws IOException {
        Path v = Path.of(CUDA, "bin", "nvcc");
        if (!Files.isExecutable(v)) {
            throw new IOException("no CUDA toolkit at " + CUDA + " (the GPU image takes nvcc, the runtime and CUPTI from it)");
        }
        return run(List.of(v.toString(), "--version"), null);
    }

    static Path shim() throws IOException {
        Path s = Toolchain.root().resolve("gpu-node/target/native/libreplaycupti.so");
        if (!Files.exists(s)) {
            throw new IOException(s + " is missing: the gpu-node build makes it where CUPTI's headers are");
        }
        return s;
    }

    /**
     * The packages' archives, from the cache when one with the archive's SHA-256 (as apt's index gives it) is
     * there, else {@code apt-get download}ed and checked against it.
     */
    static List<Path> fetchDebs(List<String> packages) throws IOException {
        Path cache = OUT.resolve("debs");
        Files.createDirectories(cache);
        List<String> cmd = new ArrayList<>(List.of("apt-get", "download", "--print-uris"));
        cmd.addAll(packages);
        String uris = run(cmd, cache);
        Pattern line = Pattern.compile("^'(\\S+)' (\\S+) (\\d+) SHA256:([0-9a-f]{64})$", Pattern.MULTILINE);
        Matcher m = line.matcher(uris);
        Map<String, String> wanted = new LinkedHashMap<>();
        List<Path> out = new ArrayList<>();
        while (m.find()) {
            String file = m.group(4) + "-" + m.group(2);
            out.add(cache.resolve(file));
            if (!Files.exists(cache.resolve(file))) {
                wanted.put(m.group(2), m.group(4));
            }
        }
        if (out.size() != packages.size()) {
            throw new IOException("apt-get download --print-uris named " + out.size() + " archives for " + packages.size()
                    + " packages (run apt-get update?):\n" + uris);
        }
        if (!wanted.isEmpty()) {
            Path dl = Files.createTempDirectory(cache, "dl");
            List<String> get = new ArrayList<>(List.of("apt-get", "download", "-q"));
            for (String f : wanted.keySet()) {
                get.add(f.substring(0, f.indexOf('_')));
            }
            run(get, dl);
            for (Map.Entry<String, String> w : wanted.entrySet()) {
                Path got = dl.resolve(w.getKey());
                String sha = sha256(got);
                if (!sha.equals(w.getValue())) {
                    throw new IOException(got + ": SHA-256 " + sha + ", apt's index says " + w.getValue());
                }
                Files.move(got, cache.resolve(w.getValue() + "-" + w.getKey()), StandardCopyOption.REPLACE_EXISTING);
            }
            deleteTree(dl);
        }
        return out;
    }

    private static void unpack(List<Path> debs, Path rootfs) throws IOException {
        Files.createDirectories(rootfs);
        for (Path d : debs) {
            run(List.of("dpkg-deb", "-x", d.toString(), rootfs.toString()), null);
        }
        for (String junk : List.of("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/lintian",
                "usr/share/locale", "usr/share/gdb", "usr/share/gcc")) {
            deleteTree(rootfs.resolve(junk));
        }
        for (String dir : List.of("tmp", "proc", "dev", "sys", "etc/replay", "var/lib/replay", "usr/bin", "lib64")) {
            Files.createDirectories(rootfs.resolve(dir));
        }
        // /tmp writable by the user where no volume is mounted there (JNI natives unpack into it); Jib stores no sticky bit
        Files.setPosixFilePermissions(rootfs.resolve("tmp"), java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    }

    private static void writeUsers(Path rootfs) throws IOException {
        Files.writeString(rootfs.resolve("etc/passwd"), "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
                + "replay:x:" + UID + ":" + UID + ":replay-farm:" + HOME + ":/usr/sbin/nologin\n");
        Files.writeString(rootfs.resolve("etc/group"), "root:x:0:\nnogroup:x:65534:\nreplay:x:" + UID + ":\n");
        Files.writeString(rootfs.resolve("etc/nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");
    }

    /** jlink of {@link #MODULES} from this JDK (in process), stripped of debug data, headers and man pages. */
    private static Path jlink(Path out) throws IOException {
        ToolProvider jlink = ToolProvider.findFirst("jlink")
                .orElseThrow(() -> new IOException("no jlink in " + System.getProperty("java.home") + " (a JDK 17 builds the images)"));
        StringWriter log = new StringWriter();
        int rc = jlink.run(new PrintWriter(log), new PrintWriter(log), "--add-modules", String.join(",", MODULES),
                "--strip-debug", "--no-header-files", "--no-man-pages", "--exclude-files=" + JLINK_EXCLUDES,
                "--output", out.toString());
        if (rc != 0) {
            throw new IOException("jlink failed (" + rc + "): " + log);
        }
        return out;
    }

    /** Third-party jars as they are; project modules as jars; replay.jar with the class path manifest. */
    private static void distribution(List<Path> classpath, Path dist, List<Path> libraries, List<Path> application)
            throws IOException {
        Path lib = dist.resolve("lib");
        Files.createDirectories(lib);
        List<String> names = new ArrayList<>();
        Path cliClasses = classpath.get(classpath.size() - 1);
        for (Path p : classpath.subList(0, classpath.size() - 1)) {
            if (isProjectModule(p)) {
                Path module = p.toAbsolutePath().normalize();
                while (!module.getParent().resolve("pom.xml").equals(Toolchain.root().resolve("pom.xml"))
                        && !Files.exists(module.resolve("pom.xml"))) {
                    module = module.getParent();
                }
                String jarName = "replay-" + module.getFileName() + ".jar";
                Path jar = lib.resolve(jarName);
                if (Files.isDirectory(p)) {
                    writeJar(p, jar, null);
                } else {
                    Files.copy(p, jar);
                }
                application.add(jar);
                names.add(jarName);
            } else {
                libraries.add(p);
                names.add(p.getFileName().toString());
            }
        }
        if (new TreeSet<>(names).size() != names.size()) {
            throw new IOException("two jars of the class path have one name: " + names);
        }
        Manifest mf = new Manifest();
        mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Replay.class.getName());
        mf.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", names.stream().map(n -> "lib/" + n).toList()));
        mf.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_TITLE, "replay-farm cli");
        mf.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, "0.1.0-SNAPSHOT");
        writeJar(cliClasses, dist.resolve("replay.jar"), mf);
    }

    /** A reproducible jar of a class folder (sorted entries, fixed times). */
    private static void writeJar(Path classes, Path jar, Manifest mf) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(classes)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        FileTime t = FileTime.from(EPOCH_PLUS_1);
        try (OutputStream o = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(o)) {
            if (mf != null) {
                JarEntry e = new JarEntry("META-INF/MANIFEST.MF");
                e.setLastModifiedTime(t);
                j.putNextEntry(e);
                mf.write(j);
                j.closeEntry();
            }
            for (Path f : files) {
                String n = classes.relativize(f).toString().replace('\\', '/');
                if (mf != null && n.equals("META-INF/MANIFEST.MF")) {
                    continue;
                }
                JarEntry e = new JarEntry(n);
                e.setLastModifiedTime(t);
                j.putNextEntry(e);
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }

    // ---- layers

    /**
     * A layer of a folder tree under {@code target}; file modes as on disk, root-owned but for the user's
     * home. Symbolic links (Jib stores none) become copies of what they name inside {@code root}.
     */
    private static FileEntriesLayer layer(String name, Path dir, String target, Path root) throws IOException {
        FileEntriesLayer.Builder b = FileEntriesLayer.builder().setName(name);
        List<Path> all;
        try (Stream<Path> s = Files.walk(dir)) {
            all = s.sorted().toList();
        }
        for (Path p : all) {
            if (p.equals(dir) && target.equals("/")) {
                continue;
            }
            String rel = dir.relativize(p).toString();
            AbsoluteUnixPath in = rel.isEmpty() ? AbsoluteUnixPath.get(target) : AbsoluteUnixPath.get(target).resolve(rel);
            Path source = Files.isSymbolicLink(p) ? resolveInside(p, root) : p;
            if (source == null) {
                continue; // a dangling link (e.g. to a -dev file not in the image)
            }
            if (Files.isSymbolicLink(p) && Files.isDirectory(source)) {
                // a directory link (lib64 -> lib etc.): its files are added under the link's name
                try (Stream<Path> s = Files.walk(source)) {
                    for (Path q : s.sorted().toList()) {
                        Path src = Files.isSymbolicLink(q) ? resolveInside(q, root) : q;
                        if (src != null && !Files.isDirectory(src)) {
                            b.addEntry(src, in.resolve(source.relativize(q).toString()), mode(src), EPOCH_PLUS_1);
                        }
                    }
                }
                continue;
            }
            String owner = in.toString().equals(HOME) ? UID + ":" + UID : "0:0";
            b.addEntry(source, in, mode(source), EPOCH_PLUS_1, owner);
        }
        return b.build();
    }

    /** Where a link inside the image root finally points, resolved against that root; null when dangling. */
    static Path resolveInside(Path link, Path root) throws IOException {
        Path p = link;
        for (int hops = 0; hops < 40 && Files.isSymbolicLink(p); hops++) {
            Path t = Files.readSymbolicLink(p);
            p = t.isAbsolute() ? root.resolve(root.getRoot().relativize(t)) : p.getParent().resolve(t);
            p = p.normalize();
            if (!p.startsWith(root)) {
                return null;
            }
        }
        return Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(p) ? p : null;
    }

    private static FilePermissions mode(Path p) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
        return FilePermissions.fromPosixFilePermissions(perms);
    }

    private static FileEntriesLayer files(String name, List<Path> files, String target) throws IOException {
        FileEntriesLayer.Builder b = FileEntriesLayer.builder().setName(name);
        for (Path f : files) {
            b.addEntry(f, AbsoluteUnixPath.get(target).resolve(f.getFileName().toString()), FilePermissions.DEFAULT_FILE_PERMISSIONS,
                    EPOCH_PLUS_1);
        }
        return b.build();
    }

    private static FileEntriesLayer application(List<Path> modules, Path replayJar) throws IOException {
        FileEntriesLayer.Builder b = FileEntriesLayer.builder().setName("application");
        for (Path f : modules) {
            b.addEntry(f, AbsoluteUnixPath.get("/opt/replay/lib").resolve(f.getFileName().toString()),
                    FilePermissions.DEFAULT_FILE_PERMISSIONS, EPOCH_PLUS_1);
        }
        b.addEntry(replayJar, AbsoluteUnixPath.get("/opt/replay/replay.jar"), FilePermissions.DEFAULT_FILE_PERMISSIONS, EPOCH_PLUS_1);
        return b.build();
    }

    /** The CUDA parts of the GPU image, from the local toolkit, at the same paths; the shim beside the jars. */
    static final List<String> CUDA_PARTS = List.of("bin/nvcc", "bin/nvcc.profile", "bin/cudafe++", "bin/ptxas",
            "bin/fatbinary", "bin/nvlink", "bin/bin2c", "bin/crt", "nvvm/bin", "nvvm/lib64", "nvvm/libdevice",
            "include", "version.json");

    private static FileEntriesLayer cudaLayer(Path staging) throws IOException {
        Path cuda = Path.of(CUDA).toRealPath();
        Files.createDirectories(staging);
        FileEntriesLayer.Builder b = FileEntriesLayer.builder().setName("cuda");
        for (String part : CUDA_PARTS) {
            Path p = cuda.resolve(part);
            if (!Files.exists(p)) {
                continue;
            }
            addTree(b, p, AbsoluteUnixPath.get(CUDA).resolve(part), cuda);
        }
        // the runtime libraries the node loads (libcudart through JCuda's natives; libcupti, libnvperf for PC sampling)
        Path lib = cuda.resolve("targets/x86_64-linux/lib");
        try (Stream<Path> s = Files.list(lib)) {
            for (Path p : s.sorted().toList()) {
                String n = p.getFileName().toString();
                if (n.matches("lib(cudart|cupti|nvperf_host|nvperf_target|pcsamplingutil|nvrtc|nvrtc-builtins|nvJitLink)\\.so.*")) {
                    Path src = Files.isSymbolicLink(p) ? p.toRealPath() : p;
                    b.addEntry(src, AbsoluteUnixPath.get(CUDA + "/lib64").resolve(n), mode(src), EPOCH_PLUS_1);
                }
            }
        }
        Path cuptiLib = cuda.resolve("extras/CUPTI/lib64");
        if (Files.isDirectory(cuptiLib)) {
            addTree(b, cuptiLib, AbsoluteUnixPath.get(CUDA + "/extras/CUPTI/lib64"), cuda);
        }
        b.addEntry(shim(), AbsoluteUnixPath.get(SHIM), FilePermissions.fromOctalString("755"), EPOCH_PLUS_1);
        return b.build();
    }

    private static void addTree(FileEntriesLayer.Builder b, Path from, AbsoluteUnixPath to, Path root) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path q : s.sorted().toList()) {
                Path src = Files.isSymbolicLink(q) ? q.toRealPath() : q;
                if (Files.isDirectory(src) && Files.isSymbolicLink(q)) {
                    addTree(b, src, to.resolve(from.relativize(q).toString()), root);
                    continue;
                }
                String rel = from.relativize(q).toString();
                b.addEntry(src, rel.isEmpty() ? to : to.resolve(rel), mode(src), EPOCH_PLUS_1);
            }
        }
    }

    // ---- helpers

    static String run(List<String> cmd, Path dir) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (dir != null) {
            pb.directory(dir.toFile());
        }
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(out);
        }
        try {
            if (!p.waitFor(600, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        String s = out.toString(StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ":\n" + s);
        }
        return s;
    }

    static String sha256(Path f) throws IOException {
        try (InputStream in = Files.newInputStream(f)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0;) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Names and contents of a file or of every file below a folder. */
    private static void digestTree(MessageDigest md, Path p) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(p)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path f : files) {
            md.update(p.relativize(f).toString().getBytes(StandardCharsets.UTF_8));
            md.update(sha256(f).getBytes(StandardCharsets.UTF_8));
        }
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
