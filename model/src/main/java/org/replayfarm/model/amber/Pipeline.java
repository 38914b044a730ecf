package org.replayfarm.model.amber;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code PIPELINE} (or {@code DERIVE_PIPELINE}). A compute pipeline has its one compute shader and entry
 * point ({@code main} unless ENTRY_POINT was given), its bindings (a later BIND at the same set and binding
 * replaces an earlier one, as in Amber), its push-constant buffer, and the SHADER_OPTIMIZATION passes per
 * shader (recorded, not applied). A graphics pipeline is kept loosely for a runner to refuse by name: the
 * shaders it attaches and its body lines (comments stripped); its bindings are not parsed.
 * {@link #derivedFrom()} names the parent of a DERIVE_PIPELINE (null otherwise).
 */
public record Pipeline(String name, boolean compute, String shaderName, String entryPoint, List<Attach> attached,
        List<Binding> bindings, Optional<String> pushConstantBuffer, Map<String, List<String>> shaderOptimizations,
        List<String> bodyLines, String derivedFrom, int line) {

    /** An ATTACH: the shader, the stage given by TYPE (the shader's own stage otherwise) and entry point. */
    public record Attach(String shader, String stage, String entryPoint, int line) {
    }

    public Pipeline {
        attached = List.copyOf(attached);
        bindings = List.copyOf(bindings);
        shaderOptimizations = Map.copyOf(shaderOptimizations);
        bodyLines = List.copyOf(bodyLines);
    }
}
