package org.replayfarm.model.amber;

/**
 * A {@code SHADER}: its stage ({@code compute}, {@code vertex}, {@code fragment}, {@code geometry},
 * {@code tessellation_control}, {@code tessellation_evaluation}, {@code multi}, or a ray-tracing stage), its
 * language ({@code GLSL}, {@code SPIRV-ASM}, {@code SPIRV-HEX}, or {@code PASSTHROUGH} for Amber's built-in
 * pass-through vertex shader, which has no source here), the {@code TARGET_ENV} given (or null), the source text
 * verbatim between the SHADER line and its {@code END} line (each line ending in a newline), and the 1-based
 * line of the source's first line (of the SHADER line for PASSTHROUGH).
 */
public record Shader(String name, String stage, String language, String targetEnv, String source, int line) {
    /** Whether this is a compute shader. */
    public boolean compute() {
        return "compute".equals(stage);
    }
}
