package org.replayfarm.model.vulkan;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The farm's Vulkan helper ({@code vkcompute.c}, a resource of this package) and the drivers it runs on.
 * The helper is built with gcc against the system's Vulkan loader the first time it is needed, into a
 * cache folder named by the source's hash; Mesa's ICDs are found where Debian's mesa-vulkan-drivers
 * installs them. Each configuration (RADV's null navi21 with ACO or LLVM, wave32 or wave64, or lavapipe)
 * is its own process: the drivers read their environment when the instance is created.
 */
public final class VkTool {
    /** Debian packages that give what this needs, for the message when something is missing. */
    public static final String PACKAGES = "mesa-vulkan-drivers glslang-tools spirv-tools libvulkan-dev";
    private static final List<Path> ICD_DIRS = List.of(Path.of("/usr/share/vulkan/icd.d"), Path.of("/etc/vulkan/icd.d"),
            Path.of("/usr/local/share/vulkan/icd.d"));
    private static Path built;

    private VkTool() {
    }

    /** The output of one helper run. */
    public record Output(String stdout, String stderr, int exit) {
    }

    /** Which driver a run uses. */
    public enum Driver {
        RADV("radeon_icd"), LAVAPIPE("lvp_icd");

        private final String icd;

        Driver(String icd) {
            this.icd = icd;
        }
    }

    /** The ICD manifest of a driver. */
    public static Path icd(Driver driver) throws VulkanException {
        for (Path dir : ICD_DIRS) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (var list = Files.list(dir)) {
                Optional<Path> found = list.filter(p -> p.getFileName().toString().startsWith(driver.icd)
                        && p.getFileName().toString().endsWith(".json")).sorted().findFirst();
                if (found.isPresent()) {
                    return found.get();
                }
            } catch (IOException e) {
                // try the next folder
            }
        }
        throw new VulkanException((driver == Driver.RADV ? "RADV" : "lavapipe") + " is not installed (no " + driver.icd
                + "*.json in " + ICD_DIRS + "); install Debian's mesa-vulkan-drivers (" + PACKAGES + ")");
    }

    /** The helper, built on first use. */
    public static synchronized Path helper() throws VulkanException {
        if (built != null && Files.isExecutable(built)) {
            return built;
        }
        byte[] source;
        try (InputStream in = VkTool.class.getResourceAsStream("vkcompute.c")) {
            source = in.readAllBytes();
        } catch (IOException | NullPointerException e) {
            throw new VulkanException("the Vulkan helper's source is missing from the classpath", e);
        }
        String hash = org.replayfarm.model.capture.Sha256.hex(org.replayfarm.model.capture.Sha256.of(source)).substring(0, 16);
        String base = System.getenv("XDG_CACHE_HOME");
        Path cache = (base != null && !base.isEmpty() ? Path.of(base) : Path.of(System.getProperty("user.home"), ".cache"))
                .resolve("replay-farm").resolve("vkcompute-" + hash);
        Path exe = cache.resolve("vkcompute");
        if (Files.isExecutable(exe)) {
            built = exe;
            return exe;
        }
        try {
            Files.createDirectories(cache);
            Path src = cache.resolve("vkcompute.c");
            Files.write(src, source);
            Path tmp = cache.resolve("vkcompute.tmp" + ProcessHandle.current().pid());
            Output out = exec(List.of("gcc", "-O1", "-o", tmp.toString(), src.toString(), "-lvulkan"), Map.of(), 120);
            if (out.exit() != 0) {
                String why = out.stderr().contains("vulkan/vulkan.h") || out.stderr().contains("-lvulkan")
                        ? " (the Vulkan headers or loader are missing: install " + PACKAGES + ")" : "";
                throw new VulkanException("building the Vulkan helper with gcc failed" + why + ":\n" + out.stderr().strip());
            }
            Files.move(tmp, exe, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new VulkanException("building the Vulkan helper in " + cache + ": " + e.getMessage(), e);
        }
        built = exe;
        return exe;
    }

    /** Runs the helper on a driver with extra environment. */
    public static Output run(Driver driver, Map<String, String> env, List<String> args) throws VulkanException {
        List<String> cmd = new ArrayList<>();
        cmd.add(helper().toString());
        cmd.addAll(args);
        java.util.HashMap<String, String> e = new java.util.HashMap<>(env);
        e.put("VK_ICD_FILENAMES", icd(driver).toString());
        e.put("VK_DRIVER_FILES", icd(driver).toString());
        try {
            return exec(cmd, e, 600);
        } catch (IOException ex) {
            throw new VulkanException("running the Vulkan helper: " + ex.getMessage(), ex);
        }
    }

    /** Runs a tool; a missing tool is an IOException naming it. */
    public static Output exec(List<String> cmd, Map<String, String> env, long timeoutSeconds) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        // the user's settings for these drivers would change the code or the device: only ours apply
        pb.environment().keySet().removeIf(k -> k.startsWith("RADV_") || k.startsWith("ACO_") || k.startsWith("VK_") || k.startsWith("REPLAY_VK_")
                || k.startsWith("LP_") || k.startsWith("MESA_"));
        pb.environment().putAll(env);
        Path err = Files.createTempFile("replay-vk", ".err");
        try {
            pb.redirectError(err.toFile());
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new IOException(cmd.get(0) + " could not be started (" + e.getMessage() + ")", e);
            }
            p.getOutputStream().close();
            byte[] stdout = p.getInputStream().readAllBytes();
            try {
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(cmd.get(0) + " did not finish within " + timeoutSeconds + " s");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while " + cmd.get(0) + " ran");
            }
            return new Output(new String(stdout, StandardCharsets.UTF_8), Files.readString(err), p.exitValue());
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
