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

    /** The SPIR-V of a source; {@code entry} is HLSL's entry function (null: main). */
    public static byte[] compile(Path source, List<String> defines, List<Path> includes, String entry)
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
                cmd.addAll(List.of(tool, "--target-env", TARGET_ENV, source.toString(), "-o", out.toString()));
            } else {
                tool = "glslangValidator";
                cmd.addAll(List.of(tool, "-V", "--target-env", TARGET_ENV, "-S", "comp"));
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
