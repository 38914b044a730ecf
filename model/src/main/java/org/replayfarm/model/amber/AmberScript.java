package org.replayfarm.model.amber;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parsed AmberScript file (google/amber's docs/amber_script.md): what it requires of the device, its
 * shaders, buffers and images with their initial bytes, samplers, pipelines and commands in execution order.
 *
 * <p>Supported: {@code #!amber}, comments, DEVICE_FEATURE / DEVICE_EXTENSION / INSTANCE_EXTENSION (recorded),
 * {@code SET ENGINE_DATA fence_timeout_ms} (accepted, ignored), SHADER (GLSL, SPIRV-ASM, SPIRV-HEX, vertex
 * PASSTHROUGH; any stage), BUFFER (DATA_TYPE or FORMAT; SIZE n FILL / SERIES_FROM, DATA ... END), IMAGE
 * (DIM_1D/2D/3D), SAMPLER, PIPELINE compute (ATTACH, SHADER_OPTIMIZATION, BIND BUFFER/SAMPLER) and graphics
 * (kept loosely), DERIVE_PIPELINE, RUN, COPY, CLEAR*, REPEAT (unrolled) and every EXPECT form. Anything else
 * that is valid AmberScript throws {@link AmberException#unsupported(String, int)} naming it; anything invalid
 * throws an {@link AmberException} naming the line.
 */
public final class AmberScript {
    private final String sourceName;
    private final List<String> deviceFeatures;
    private final List<String> deviceExtensions;
    private final List<String> instanceExtensions;
    private final Map<String, Shader> shaders;
    private final Map<String, BufferDecl> buffers;
    private final Map<String, SamplerDecl> samplers;
    private final Map<String, Pipeline> pipelines;
    private final List<Command> commands;

    private AmberScript(String sourceName, AmberParser p) {
        this.sourceName = sourceName;
        this.deviceFeatures = List.copyOf(p.deviceFeatures);
        this.deviceExtensions = List.copyOf(p.deviceExtensions);
        this.instanceExtensions = List.copyOf(p.instanceExtensions);
        this.shaders = Collections.unmodifiableMap(new LinkedHashMap<>(p.shaders));
        this.buffers = Collections.unmodifiableMap(new LinkedHashMap<>(p.buffers));
        this.samplers = Collections.unmodifiableMap(new LinkedHashMap<>(p.samplers));
        this.pipelines = Collections.unmodifiableMap(new LinkedHashMap<>(p.pipelines));
        this.commands = List.copyOf(p.commands);
    }

    /**
     * Parses a script; {@code sourceName} (a file name, may be null) prefixes error messages.
     *
     * @throws AmberException for a malformed script or one using an unsupported feature, naming the line
     */
    public static AmberScript parse(String text, String sourceName) throws AmberException {
        AmberParser p = new AmberParser(text);
        try {
            p.parse();
        } catch (AmberException e) {
            throw e.in(sourceName);
        }
        return new AmberScript(sourceName, p);
    }

    /** The name given to {@link #parse}. */
    public String sourceName() {
        return sourceName;
    }

    /** DEVICE_FEATURE names in script order. */
    public List<String> deviceFeatures() {
        return deviceFeatures;
    }

    /** DEVICE_EXTENSION names in script order. */
    public List<String> deviceExtensions() {
        return deviceExtensions;
    }

    /** INSTANCE_EXTENSION names in script order. */
    public List<String> instanceExtensions() {
        return instanceExtensions;
    }

    /** Shaders by name, in declaration order. */
    public Map<String, Shader> shaders() {
        return shaders;
    }

    /** Buffers and images by name (one namespace, as in Amber), in declaration order. */
    public Map<String, BufferDecl> buffers() {
        return buffers;
    }

    /** Samplers by name, in declaration order. */
    public Map<String, SamplerDecl> samplers() {
        return samplers;
    }

    /** Pipelines (DERIVE_PIPELINE ones included) by name, in declaration order. */
    public Map<String, Pipeline> pipelines() {
        return pipelines;
    }

    /** Commands in execution order, REPEAT blocks unrolled. */
    public List<Command> commands() {
        return commands;
    }

    /** The initial bytes of every buffer and image, by name (fresh copies). */
    public Map<String, byte[]> initialContents() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        buffers.forEach((name, b) -> m.put(name, b.initialBytes()));
        return m;
    }
}
