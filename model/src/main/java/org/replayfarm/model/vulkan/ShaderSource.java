package org.replayfarm.model.vulkan;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Compiles a Vulkan compute shader source to SPIR-V: GLSL ({@code .comp}, {@code .glsl}) and HLSL
 * ({@code .hlsl}) through glslang ({@code glslangValidator}), SPIR-V assembly ({@code .spvasm}) through
 * {@code spirv-as}; a {@code .spv} is read as it is. The target environment is Vulkan 1.2.
 */
public final class ShaderSource {
    public static final String TARGET_ENV = "vulkan1.2";

    private ShaderSource() {
    }

    /** Whether a file name is a Vulkan shader source this class takes. */
    public static boolean isShader(Path source) {
        String n = source.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".comp") || n.endsWith(".glsl") || n.endsWith(".hlsl") || n.endsWith(".spvasm") || n.endsWith(".spv");
    }

    /** SPIR-V assembly's default environment: SPIR-V 1.3 (subgroup operations; interfaces list inputs only). */
    public static final String ASM_TARGET_ENV = "spv1.3";

    /** The SPIR-V of a source; {@code entry} is HLSL's entry function (null: main). */
    public static byte[] compile(Path source, List<String> defines, List<Path> includes, String entry)
            throws VulkanException, IOException {
        return compile(source, defines, includes, entry, null);
    }

    /**
     * As {@link #compile(Path, List, List, String)}, for a target environment ({@code vulkan1.0..1.3},
     * {@code spv1.0..1.6}; null: {@link #TARGET_ENV} for GLSL and HLSL, {@link #ASM_TARGET_ENV} for SPIR-V
     * assembly). The module is then checked with {@code spirv-val}: the driver is not handed invalid SPIR-V
     * (RADV 22.3 crashes on some).
     */
    public static byte[] compile(Path source, List<String> defines, List<Path> includes, String entry, String targetEnv)
            throws VulkanException, IOException {
        byte[] spirv = translate(source, defines, includes, entry, targetEnv);
        validate(source, spirv);
        return spirv;
    }

    private static void validate(Path source, byte[] spirv) throws VulkanException, IOException {
        Path f = Files.createTempFile("replay-shader", ".spv");
        try {
            Files.write(f, spirv);
            VkTool.Output r;
            try {
                r = VkTool.exec(List.of("spirv-val", "--target-env", "vulkan1.3", f.toString()), Map.of(), 300);
            } catch (IOException e) {
                throw new VulkanException("spirv-val is not installed (" + e.getMessage() + "); install " + VkTool.PACKAGES);
            }
            if (r.exit() != 0) {
                throw new VulkanException(source + ": the SPIR-V is not valid for Vulkan (spirv-val):\n"
                        + (r.stdout() + r.stderr()).strip());
            }
        } finally {
            Files.deleteIfExists(f);
        }
    }

    private static byte[] translate(Path source, List<String> defines, List<Path> includes, String entry, String targetEnv)
            throws VulkanException, IOException {
        String n = source.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!Files.isRegularFile(source)) {
            throw new VulkanException("no such file: " + source);
        }
        if (n.endsWith(".spv")) {
            return Files.readAllBytes(source);
        }
        Path out = Files.createTempFile("replay-shader", ".spv");
        try {
            List<String> cmd = new ArrayList<>();
            String tool;
            if (n.endsWith(".spvasm")) {
                tool = "spirv-as";
                cmd.addAll(List.of(tool, "--target-env", targetEnv != null ? targetEnv : ASM_TARGET_ENV, source.toString(),
                        "-o", out.toString()));
            } else {
                tool = "glslangValidator";
                // glslang's HLSL front end decorates storage buffers BufferBlock, which SPIR-V 1.4 and later reject:
                // HLSL is compiled for Vulkan 1.1 (SPIR-V 1.3) unless told otherwise
                String env = targetEnv != null ? targetEnv : n.endsWith(".hlsl") ? "vulkan1.1" : TARGET_ENV;
                cmd.addAll(List.of(tool, "-V", "--target-env", env.startsWith("spv") ? "spirv" + env.substring(3) : env,
                        "-S", "comp"));
                if (n.endsWith(".hlsl")) {
                    cmd.addAll(List.of("-D", "-e", entry == null ? "main" : entry));
                }
                for (String d : defines) {
                    cmd.add("-D" + d);
                }
                for (Path i : includes) {
                    cmd.add("-I" + i);
                }
                cmd.add("-I" + source.toAbsolutePath().getParent());
                cmd.addAll(List.of("-o", out.toString(), source.toString()));
            }
            VkTool.Output r;
            try {
                r = VkTool.exec(cmd, Map.of(), 300);
            } catch (IOException e) {
                throw new VulkanException(tool + " is not installed (" + e.getMessage() + "); install " + VkTool.PACKAGES);
            }
            if (r.exit() != 0) {
                String msg = (r.stdout() + r.stderr()).strip();
                throw new VulkanException(source + " does not compile (" + tool + "):\n" + msg);
            }
            return Files.readAllBytes(out);
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
