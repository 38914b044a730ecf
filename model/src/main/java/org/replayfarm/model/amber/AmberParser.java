package org.replayfarm.model.amber;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The AmberScript parser behind {@link AmberScript#parse}: line by line, one command per line. */
final class AmberParser {
    private static final Set<String> STAGES = Set.of("compute", "vertex", "fragment", "geometry",
            "tessellation_evaluation", "tessellation_control", "multi", "ray_generation", "any_hit", "closest_hit",
            "miss", "intersection", "callable");
    private static final Set<String> LANGUAGES = Set.of("GLSL", "SPIRV-ASM", "SPIRV-HEX");
    private static final Set<String> OTHER_LANGUAGES = Set.of("HLSL", "OPENCL-C", "SPIRV-BIN");
    /** Top-level AmberScript commands this package does not support. */
    private static final Set<String> UNSUPPORTED_COMMANDS = Set.of("STRUCT", "VIRTUAL_FILE",
            "ACCELERATION_STRUCTURE", "DEVICE_PROPERTY", "DEBUG");
    private static final Set<String> REPEATABLE = Set.of("RUN", "COPY", "CLEAR", "CLEAR_COLOR", "CLEAR_DEPTH",
            "CLEAR_STENCIL", "EXPECT");
    /** Pipeline body commands that are only valid in a graphics pipeline. */
    private static final Set<String> GRAPHICS_ONLY = Set.of("FRAMEBUFFER_SIZE", "VERTEX_DATA", "INDEX_DATA",
            "VIEWPORT", "DEPTH", "STENCIL", "BLEND", "POLYGON_MODE", "PATCH_CONTROL_POINTS");
    /** Pipeline body commands that open a block closed by END. */
    private static final Set<String> BODY_BLOCKS = Set.of("SHADER_OPTIMIZATION", "COMPILE_OPTIONS", "DEPTH",
            "STENCIL", "BLEND", "SUBGROUP");

    private final String[] raw;
    private final List<List<String>> tokens = new ArrayList<>();
    private int next; // index of the next line to read

    final List<String> deviceFeatures = new ArrayList<>();
    final List<String> deviceExtensions = new ArrayList<>();
    final List<String> instanceExtensions = new ArrayList<>();
    final Map<String, Shader> shaders = new LinkedHashMap<>();
    final Map<String, BufferDecl> buffers = new LinkedHashMap<>();
    final Map<String, SamplerDecl> samplers = new LinkedHashMap<>();
    final Map<String, Pipeline> pipelines = new LinkedHashMap<>();
    final List<Command> commands = new ArrayList<>();

    AmberParser(String text) {
        raw = text.split("\r?\n", -1);
        for (String line : raw) {
            int hash = line.indexOf('#');
            String code = hash >= 0 ? line.substring(0, hash) : line;
            String trimmed = code.strip();
            tokens.add(trimmed.isEmpty() ? List.of() : List.of(trimmed.split("\\s+")));
        }
    }

    /** The tokens of one line, read left to right. */
    private static final class Cur {
        final int line;
        final List<String> t;
        int p;

        Cur(int line, List<String> t, int p) {
            this.line = line;
            this.t = t;
            this.p = p;
        }

        boolean more() {
            return p < t.size();
        }

        String peek() {
            return more() ? t.get(p) : null;
        }

        boolean accept(String keyword) {
            if (keyword.equals(peek())) {
                p++;
                return true;
            }
            return false;
        }

        String next(String what) throws AmberException {
            if (!more()) {
                throw AmberException.error("missing " + what + " in " + t.get(0), line);
            }
            return t.get(p++);
        }

        void expect(String keyword) throws AmberException {
            String s = next(keyword);
            if (!s.equals(keyword)) {
                throw AmberException.error("expected " + keyword + " but found '" + s + "' in " + t.get(0), line);
            }
        }

        void end() throws AmberException {
            if (more()) {
                throw AmberException.error("extra parameters after " + t.get(0) + ": '" + t.get(p) + "'", line);
            }
        }

        String text() {
            return String.join(" ", t);
        }
    }

    void parse() throws AmberException {
        if (raw.length == 0 || !raw[0].strip().startsWith("#!amber")) {
            throw AmberException.unsupported("a script without '#!amber' on its first line (VkScript)", 1);
        }
        next = 0;
        while (next < raw.length) {
            int index = next++;
            List<String> t = tokens.get(index);
            if (t.isEmpty()) {
                continue;
            }
            Cur c = new Cur(index + 1, t, 1);
            String cmd = t.get(0);
            switch (cmd) {
                case "DEVICE_FEATURE" -> named(c, "feature name", deviceFeatures);
                case "DEVICE_EXTENSION" -> named(c, "extension name", deviceExtensions);
                case "INSTANCE_EXTENSION" -> named(c, "extension name", instanceExtensions);
                case "SET" -> set(c);
                case "SHADER" -> shader(c);
                case "BUFFER" -> buffer(c);
                case "IMAGE" -> image(c);
                case "SAMPLER" -> sampler(c);
                case "PIPELINE" -> pipeline(c);
                case "DERIVE_PIPELINE" -> derivePipeline(c);
                case "REPEAT" -> repeat(c);
                default -> {
                    if (REPEATABLE.contains(cmd)) {
                        commands.add(repeatable(c));
                    } else if (UNSUPPORTED_COMMANDS.contains(cmd)) {
                        throw AmberException.unsupported(cmd, c.line);
                    } else {
                        throw AmberException.error("unknown command '" + cmd + "'", c.line);
                    }
                }
            }
        }
    }

    private static void named(Cur c, String what, List<String> into) throws AmberException {
        into.add(c.next(what));
        c.end();
    }

    private void set(Cur c) throws AmberException {
        String what = c.next("ENGINE_DATA");
        if (!what.equals("ENGINE_DATA")) {
            throw AmberException.unsupported("SET " + what, c.line);
        }
        String variable = c.next("engine data variable");
        if (!variable.equals("fence_timeout_ms")) {
            throw AmberException.unsupported("SET ENGINE_DATA " + variable, c.line);
        }
        Numbers.count(c.next("fence_timeout_ms value"), "fence_timeout_ms", c.line);
        c.end();
    }

    // ---- shaders ----

    private void shader(Cur c) throws AmberException {
        String stage = c.next("shader type");
        String name = c.next("shader name");
        String language = c.next("shader format");
        if (shaders.containsKey(name)) {
            throw AmberException.error("shader '" + name + "' is already declared", c.line);
        }
        if (!STAGES.contains(stage)) {
            throw AmberException.error("unknown shader type '" + stage + "'", c.line);
        }
        if (language.equals("PASSTHROUGH")) {
            if (!stage.equals("vertex")) {
                throw AmberException.error("only a vertex shader can be PASSTHROUGH", c.line);
            }
            c.end();
            shaders.put(name, new Shader(name, stage, "PASSTHROUGH", null, null, c.line));
            return;
        }
        if (OTHER_LANGUAGES.contains(language)) {
            throw AmberException.unsupported("SHADER format " + language, c.line);
        }
        if (!LANGUAGES.contains(language)) {
            throw AmberException.error("unknown shader format '" + language + "'", c.line);
        }
        String targetEnv = null;
        if (c.accept("TARGET_ENV")) {
            targetEnv = c.next("target environment");
        }
        if ("VIRTUAL_FILE".equals(c.peek()) || "FILE".equals(c.peek())) {
            throw AmberException.unsupported("SHADER source from " + c.peek(), c.line);
        }
        c.end();
        int first = next;
        StringBuilder source = new StringBuilder();
        while (next < raw.length) {
            String line = raw[next];
            String[] words = line.strip().split("\\s+", 2);
            if (words[0].equals("END") || words[0].startsWith("END#")) {
                break;
            }
            source.append(line).append('\n');
            next++;
        }
        if (next >= raw.length) {
            throw AmberException.error("SHADER " + name + " has no END", c.line);
        }
        endLine(next++);
        if (source.toString().isBlank()) {
            throw AmberException.error("SHADER " + name + " is empty", c.line);
        }
        shaders.put(name, new Shader(name, stage, language, targetEnv, source.toString(), first + 1));
    }

    /** Checks that the END line at {@code index} has nothing after END. */
    private void endLine(int index) throws AmberException {
        List<String> t = tokens.get(index);
        if (t.size() > 1) {
            throw AmberException.error("extra parameters after END: '" + t.get(1) + "'", index + 1);
        }
    }

    // ---- buffers and images ----

    /** The values of a DATA ... END initializer: tokens with their lines. */
    private record Word(String text, int line) {
    }

    private List<Word> dataUntilEnd(Cur c) throws AmberException {
        List<Word> words = new ArrayList<>();
        Cur cur = c;
        while (true) {
            while (cur.more()) {
                String s = cur.t.get(cur.p++);
                if (s.equals("END")) {
                    cur.end();
                    return words;
                }
                words.add(new Word(s, cur.line));
            }
            if (next >= raw.length) {
                throw AmberException.error("DATA has no END", c.line);
            }
            int index = next++;
            cur = new Cur(index + 1, tokens.get(index), 0);
        }
    }

    private void declare(String name, int line) throws AmberException {
        if (buffers.containsKey(name)) {
            throw AmberException.error("buffer '" + name + "' is already declared", line);
        }
    }

    private AmberFormat format(String name, int line) throws AmberException {
        AmberFormat f = AmberFormat.byName(name);
        if (f == null) {
            throw AmberException.unsupported("format " + name, line);
        }
        if (f.depth()) {
            throw AmberException.unsupported("depth format " + name, line);
        }
        return f;
    }

    private DataType dataType(String name, int line) throws AmberException {
        DataType t = DataType.parse(name);
        if (t != null) {
            return t;
        }
        if (name.matches("[A-Z][A-Z0-9_]*")) {
            throw AmberException.unsupported("DATA_TYPE " + name + " (a format or struct name)", line);
        }
        throw AmberException.error("invalid data type '" + name + "'", line);
    }

    private void buffer(Cur c) throws AmberException {
        String name = c.next("buffer name");
        declare(name, c.line);
        String kw = c.next("DATA_TYPE or FORMAT");
        DataType type = null;
        AmberFormat format = null;
        DataType.Layout layout = DataType.Layout.STD430;
        int mipLevels = 1;
        if (kw.equals("DATA_TYPE")) {
            type = dataType(c.next("data type"), c.line);
            if (c.accept("STD140")) {
                layout = DataType.Layout.STD140;
            } else {
                c.accept("STD430");
            }
        } else if (kw.equals("FORMAT")) {
            format = format(c.next("format"), c.line);
            int[] ms = mipsAndSamples(c);
            mipLevels = ms[0];
            if (ms[1] != 1) {
                throw AmberException.unsupported("SAMPLES " + ms[1] + " (multisampled images) on a BUFFER; declare an "
                        + "IMAGE", c.line);
            }
        } else {
            throw AmberException.error("expected DATA_TYPE or FORMAT after BUFFER " + name + ", found '" + kw + "'",
                    c.line);
        }
        Init init = new Init(type != null ? type.slots(layout) : format.dataSlots(),
                type != null ? type.stride(layout) : format.bytesPerTexel(), type != null && (type.vector() || type.matrix())
                        || format != null && format.dataSlots().size() > 1);
        byte[] bytes;
        int count;
        String initializer = c.more() ? c.next("initializer") : null;
        if (initializer == null) {
            if (type != null) {
                throw AmberException.error("BUFFER " + name + " has no initializer (SIZE or DATA)", c.line);
            }
            count = 0;
            bytes = new byte[0];
        } else if (initializer.equals("SIZE")) {
            count = Numbers.count(c.next("size"), "SIZE", c.line);
            bytes = init.sized(c, count);
        } else if (initializer.equals("DATA")) {
            List<Word> words = dataUntilEnd(c);
            int n = init.slots.size();
            if (words.size() % n != 0) {
                throw AmberException.error("BUFFER " + name + " DATA gives " + words.size()
                        + " values, not a multiple of the " + n + " per element", c.line);
            }
            count = words.size() / n;
            bytes = new byte[Math.multiplyExact(count, init.stride)];
            init.data(words, bytes);
        } else if (initializer.equals("FILE") || initializer.equals("WIDTH")) {
            throw AmberException.unsupported("BUFFER ... " + initializer, c.line);
        } else {
            throw AmberException.error("unknown initializer '" + initializer + "' for BUFFER " + name, c.line);
        }
        buffers.put(name, new BufferDecl(name, BufferDecl.Kind.BUFFER, type, format, layout, count, null, 1, 1, 1,
                mipLevels, 1, bytes, c.line));
    }

    /** Optional MIP_LEVELS and SAMPLES after a format; returns the MIP level count and the samples. */
    private static int[] mipsAndSamples(Cur c) throws AmberException {
        int mips = 1;
        int samples = 1;
        while (true) {
            if (c.accept("MIP_LEVELS")) {
                mips = Numbers.count(c.next("MIP_LEVELS value"), "MIP_LEVELS", c.line);
                if (mips < 1) {
                    throw AmberException.error("MIP_LEVELS must be at least 1", c.line);
                }
            } else if (c.accept("SAMPLES")) {
                samples = Numbers.count(c.next("SAMPLES value"), "SAMPLES", c.line);
                if (samples != 1 && samples != 2 && samples != 4 && samples != 8 && samples != 16) {
                    throw AmberException.error("SAMPLES must be 1, 2, 4, 8 or 16, not " + samples, c.line);
                }
            } else {
                return new int[] {mips, samples};
            }
        }
    }

    private void image(Cur c) throws AmberException {
        String name = c.next("image name");
        declare(name, c.line);
        String kw = c.next("FORMAT or DATA_TYPE");
        DataType type = null;
        AmberFormat format = null;
        if (kw.equals("FORMAT")) {
            format = format(c.next("format"), c.line);
        } else if (kw.equals("DATA_TYPE")) {
            type = dataType(c.next("data type"), c.line);
        } else {
            throw AmberException.error("expected FORMAT or DATA_TYPE after IMAGE " + name + ", found '" + kw + "'",
                    c.line);
        }
        int[] ms = mipsAndSamples(c);
        int mipLevels = ms[0];
        int samples = ms[1];
        String dim = c.next("dimensionality");
        if (!dim.equals("DIM_1D") && !dim.equals("DIM_2D") && !dim.equals("DIM_3D")) {
            throw AmberException.error("unknown image dimensionality '" + dim + "'", c.line);
        }
        c.expect("WIDTH");
        int width = positive(c.next("WIDTH value"), "WIDTH", c.line);
        int height = 1;
        int depth = 1;
        if (c.accept("HEIGHT")) {
            height = positive(c.next("HEIGHT value"), "HEIGHT", c.line);
        } else if (!dim.equals("DIM_1D")) {
            throw AmberException.error("IMAGE " + name + " " + dim + " needs a HEIGHT", c.line);
        }
        if (c.accept("DEPTH")) {
            depth = positive(c.next("DEPTH value"), "DEPTH", c.line);
        } else if (dim.equals("DIM_3D")) {
            throw AmberException.error("IMAGE " + name + " DIM_3D needs a DEPTH", c.line);
        }
        if (dim.equals("DIM_1D") && height != 1 || !dim.equals("DIM_3D") && depth != 1) {
            throw AmberException.error("IMAGE " + name + " " + dim + " has too many dimensions", c.line);
        }
        if (samples > 1 && (!dim.equals("DIM_2D") || mipLevels > 1)) {
            throw AmberException.error("IMAGE " + name + " SAMPLES " + samples + ": a multisampled image is DIM_2D of one "
                    + "MIP level", c.line);
        }
        int count = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(width, height), depth), samples);
        DataType.Layout layout = DataType.Layout.STD430;
        Init init = new Init(type != null ? type.slots(layout) : format.dataSlots(),
                type != null ? type.stride(layout) : format.bytesPerTexel(), type != null && (type.vector() || type.matrix())
                        || format != null && format.dataSlots().size() > 1);
        byte[] bytes;
        String initializer = c.more() ? c.next("initializer") : null;
        if (initializer == null) {
            bytes = new byte[Math.multiplyExact(count, init.stride)];
        } else if (initializer.equals("DATA")) {
            List<Word> words = dataUntilEnd(c);
            if (words.size() > (long) count * init.slots.size()) {
                throw AmberException.error("IMAGE " + name + " DATA gives " + words.size() + " values for "
                        + count + " texels of " + init.slots.size(), c.line);
            }
            bytes = new byte[Math.multiplyExact(count, init.stride)];
            init.data(words, bytes);
        } else if (initializer.equals("FILL") || initializer.equals("SERIES_FROM")) {
            c.p--;
            bytes = init.sized(c, count);
        } else if (initializer.equals("FILE")) {
            throw AmberException.unsupported("IMAGE ... FILE", c.line);
        } else {
            throw AmberException.error("unknown initializer '" + initializer + "' for IMAGE " + name, c.line);
        }
        buffers.put(name, new BufferDecl(name, BufferDecl.Kind.IMAGE, type, format, layout, count, dim, width, height,
                depth, mipLevels, samples, bytes, c.line));
    }

    private static int positive(String s, String what, int line) throws AmberException {
        int v = Numbers.count(s, what, line);
        if (v == 0) {
            throw AmberException.error(what + " must be positive", line);
        }
        return v;
    }

    /** Writes initial values into an element array of {@code stride}-byte elements with {@code slots}. */
    private static final class Init {
        final List<ValueSlot> slots;
        final int stride;
        final boolean multi;

        Init(List<ValueSlot> slots, int stride, boolean multi) {
            this.slots = slots;
            this.stride = stride;
            this.multi = multi;
        }

        /** FILL v or SERIES_FROM s INC_BY i for {@code count} elements, then the end of the line. */
        byte[] sized(Cur c, int count) throws AmberException {
            byte[] bytes = new byte[Math.multiplyExact(count, stride)];
            String how = c.next("FILL or SERIES_FROM");
            if (how.equals("FILL")) {
                String v = c.next("FILL value");
                Expect.Literal[] lits = new Expect.Literal[slots.size()];
                for (int k = 0; k < slots.size(); k++) {
                    lits[k] = literal(v, slots.get(k), "FILL", c.line);
                }
                for (int e = 0; e < count; e++) {
                    for (int k = 0; k < slots.size(); k++) {
                        write(bytes, e * stride, slots.get(k), lits[k]);
                    }
                }
            } else if (how.equals("SERIES_FROM")) {
                if (multi) {
                    throw AmberException.error("SERIES_FROM needs a one-component type (Amber refuses vectors, "
                            + "matrices and multi-component formats)", c.line);
                }
                ValueSlot slot = slots.get(0);
                String start = c.next("SERIES_FROM value");
                c.expect("INC_BY");
                String inc = c.next("INC_BY value");
                Expect.Literal s = literal(start, slot, "SERIES_FROM", c.line);
                Expect.Literal d = literal(inc, slot, "INC_BY", c.line);
                double fv = s.value();
                long iv = s.bits();
                for (int e = 0; e < count; e++) {
                    if (slot.isFloat()) {
                        slot.writeFloat(bytes, e * stride, fv);
                        fv += d.value(); // repeated addition, as Amber's counter does
                    } else {
                        slot.writeBits(bytes, e * stride, iv);
                        iv += d.bits();
                    }
                }
            } else if (how.equals("FILE")) {
                throw AmberException.unsupported("... SIZE n FILE", c.line);
            } else {
                throw AmberException.error("expected FILL or SERIES_FROM, found '" + how + "'", c.line);
            }
            c.end();
            return bytes;
        }

        void data(List<Word> words, byte[] bytes) throws AmberException {
            int n = slots.size();
            for (int i = 0; i < words.size(); i++) {
                ValueSlot slot = slots.get(i % n);
                Word w = words.get(i);
                write(bytes, (i / n) * stride, slot, literal(w.text(), slot, "DATA", w.line()));
            }
        }

        private static void write(byte[] bytes, int base, ValueSlot slot, Expect.Literal lit) {
            if (slot.isFloat()) {
                slot.writeFloat(bytes, base, lit.value());
            } else {
                slot.writeBits(bytes, base, lit.bits());
            }
        }
    }

    /** A literal read for a slot: a decimal float for a float slot, an integer (decimal or hex) otherwise. */
    static Expect.Literal literal(String s, ValueSlot slot, String what, int line) throws AmberException {
        if (slot.isFloat()) {
            if (Numbers.isHex(s)) {
                throw AmberException.unsupported("hex value " + s + " for a float component in " + what, line);
            }
            return new Expect.Literal(s, 0, Numbers.decimal(s, what, line));
        }
        long bits = Numbers.integer(s, what, line);
        if (!Numbers.fits(bits, slot.bits(), s.startsWith("-"))) {
            throw AmberException.error("value " + s + " in " + what + " does not fit " + slot.bits() + " bits", line);
        }
        return new Expect.Literal(s, bits, Numbers.asDouble(bits, s.startsWith("-")));
    }

    // ---- samplers ----

    private void sampler(Cur c) throws AmberException {
        String name = c.next("sampler name");
        if (samplers.containsKey(name)) {
            throw AmberException.error("sampler '" + name + "' is already declared", c.line);
        }
        SamplerDecl.Filter mag = SamplerDecl.Filter.NEAREST;
        SamplerDecl.Filter min = SamplerDecl.Filter.NEAREST;
        SamplerDecl.MipmapMode mip = SamplerDecl.MipmapMode.NEAREST;
        SamplerDecl.AddressMode[] address = {SamplerDecl.AddressMode.REPEAT, SamplerDecl.AddressMode.REPEAT,
            SamplerDecl.AddressMode.REPEAT};
        SamplerDecl.BorderColor border = SamplerDecl.BorderColor.FLOAT_TRANSPARENT_BLACK;
        float minLod = 0f;
        float maxLod = 1f;
        boolean normalized = true;
        while (c.more()) {
            String key = c.next("sampler parameter");
            switch (key) {
                case "MAG_FILTER" -> mag = filter(c);
                case "MIN_FILTER" -> min = filter(c);
                case "MIPMAP_MODE" -> mip = filter(c) == SamplerDecl.Filter.LINEAR ? SamplerDecl.MipmapMode.LINEAR
                        : SamplerDecl.MipmapMode.NEAREST;
                case "ADDRESS_MODE_U" -> address[0] = addressMode(c);
                case "ADDRESS_MODE_V" -> address[1] = addressMode(c);
                case "ADDRESS_MODE_W" -> address[2] = addressMode(c);
                case "BORDER_COLOR" -> {
                    String v = c.next("border color");
                    border = switch (v) {
                        case "float_transparent_black" -> SamplerDecl.BorderColor.FLOAT_TRANSPARENT_BLACK;
                        case "int_transparent_black" -> SamplerDecl.BorderColor.INT_TRANSPARENT_BLACK;
                        case "float_opaque_black" -> SamplerDecl.BorderColor.FLOAT_OPAQUE_BLACK;
                        case "int_opaque_black" -> SamplerDecl.BorderColor.INT_OPAQUE_BLACK;
                        case "float_opaque_white" -> SamplerDecl.BorderColor.FLOAT_OPAQUE_WHITE;
                        case "int_opaque_white" -> SamplerDecl.BorderColor.INT_OPAQUE_WHITE;
                        default -> throw AmberException.error("unknown BORDER_COLOR '" + v + "'", c.line);
                    };
                }
                case "MIN_LOD" -> minLod = (float) Numbers.decimal(c.next("MIN_LOD value"), "MIN_LOD", c.line);
                case "MAX_LOD" -> maxLod = (float) Numbers.decimal(c.next("MAX_LOD value"), "MAX_LOD", c.line);
                case "NORMALIZED_COORDS" -> normalized = true;
                case "UNNORMALIZED_COORDS" -> normalized = false;
                case "COMPARE", "COMPARE_OP" -> throw AmberException.unsupported("SAMPLER " + key, c.line);
                default -> throw AmberException.error("unknown SAMPLER parameter '" + key + "'", c.line);
            }
        }
        if (!normalized) {
            minLod = 0f;
            maxLod = 0f;
        }
        if (maxLod < minLod) {
            throw AmberException.error("SAMPLER " + name + " MAX_LOD is below MIN_LOD", c.line);
        }
        samplers.put(name, new SamplerDecl(name, mag, min, mip, address[0], address[1], address[2], border, minLod,
                maxLod, normalized, c.line));
    }

    private static SamplerDecl.Filter filter(Cur c) throws AmberException {
        String v = c.next("filter");
        return switch (v) {
            case "nearest" -> SamplerDecl.Filter.NEAREST;
            case "linear" -> SamplerDecl.Filter.LINEAR;
            default -> throw AmberException.error("unknown filter '" + v + "'", c.line);
        };
    }

    private static SamplerDecl.AddressMode addressMode(Cur c) throws AmberException {
        String v = c.next("address mode");
        return switch (v) {
            case "repeat" -> SamplerDecl.AddressMode.REPEAT;
            case "mirrored_repeat" -> SamplerDecl.AddressMode.MIRRORED_REPEAT;
            case "clamp_to_edge" -> SamplerDecl.AddressMode.CLAMP_TO_EDGE;
            case "clamp_to_border" -> SamplerDecl.AddressMode.CLAMP_TO_BORDER;
            // the docs list mirrored_clamp_to_edge, Amber's parser reads mirror_clamp_to_edge
            case "mirror_clamp_to_edge", "mirrored_clamp_to_edge" -> SamplerDecl.AddressMode.MIRROR_CLAMP_TO_EDGE;
            default -> throw AmberException.error("unknown address mode '" + v + "'", c.line);
        };
    }

    // ---- pipelines ----

    /** A pipeline while its body is read. */
    private static final class Builder {
        String name;
        boolean compute;
        String shaderName;
        String entryPoint;
        List<Pipeline.Attach> attached = new ArrayList<>();
        List<Binding> bindings = new ArrayList<>();
        String pushConstant;
        Map<String, List<String>> optimizations = new LinkedHashMap<>();
        List<String> body = new ArrayList<>();
        String derivedFrom;
        int line;

        Pipeline build() {
            return new Pipeline(name, compute, shaderName, entryPoint, attached, bindings,
                    Optional.ofNullable(pushConstant), optimizations, body, derivedFrom, line);
        }

        static Builder of(Pipeline p) {
            Builder b = new Builder();
            b.compute = p.compute();
            b.shaderName = p.shaderName();
            b.entryPoint = p.entryPoint();
            b.attached = new ArrayList<>(p.attached());
            b.bindings = new ArrayList<>(p.bindings());
            b.pushConstant = p.pushConstantBuffer().orElse(null);
            b.optimizations = new LinkedHashMap<>(p.shaderOptimizations());
            b.body = new ArrayList<>(p.bodyLines());
            return b;
        }
    }

    private void pipeline(Cur c) throws AmberException {
        String type = c.next("pipeline type");
        String name = c.next("pipeline name");
        c.end();
        if (type.equals("ray_tracing")) {
            throw AmberException.unsupported("PIPELINE ray_tracing", c.line);
        }
        if (!type.equals("compute") && !type.equals("graphics")) {
            throw AmberException.error("unknown pipeline type '" + type + "'", c.line);
        }
        Builder b = new Builder();
        b.compute = type.equals("compute");
        body(c, name, b);
    }

    private void derivePipeline(Cur c) throws AmberException {
        String name = c.next("pipeline name");
        c.expect("FROM");
        String parentName = c.next("parent pipeline");
        c.end();
        Pipeline parent = pipelines.get(parentName);
        if (parent == null) {
            throw AmberException.error("unknown pipeline '" + parentName + "' in DERIVE_PIPELINE", c.line);
        }
        Builder b = Builder.of(parent);
        b.derivedFrom = parentName;
        body(c, name, b);
    }

    private void body(Cur c, String name, Builder b) throws AmberException {
        if (pipelines.containsKey(name)) {
            throw AmberException.error("pipeline '" + name + "' is already declared", c.line);
        }
        b.name = name;
        b.line = c.line;
        while (true) {
            if (next >= raw.length) {
                throw AmberException.error("PIPELINE " + name + " has no END", c.line);
            }
            int index = next++;
            List<String> t = tokens.get(index);
            if (t.isEmpty()) {
                continue;
            }
            Cur l = new Cur(index + 1, t, 1);
            String cmd = t.get(0);
            if (cmd.equals("END")) {
                l.end();
                break;
            }
            if (b.compute) {
                computeBodyLine(l, b);
            } else {
                graphicsBodyLine(l, b);
            }
        }
        if (b.compute && b.shaderName == null) {
            throw AmberException.error("compute pipeline " + name + " attaches no shader", c.line);
        }
        pipelines.put(name, b.build());
    }

    private void computeBodyLine(Cur l, Builder b) throws AmberException {
        String cmd = l.t.get(0);
        switch (cmd) {
            case "ATTACH" -> {
                Pipeline.Attach a = attach(l);
                Shader s = shaders.get(a.shader());
                if (!a.stage().equals("compute")) {
                    throw AmberException.error("shader '" + s.name() + "' (" + a.stage()
                            + ") cannot be attached to compute pipeline " + b.name, l.line);
                }
                b.attached.clear();
                b.attached.add(a);
                b.shaderName = a.shader();
                b.entryPoint = a.entryPoint();
            }
            case "SHADER_OPTIMIZATION" -> {
                String shader = l.next("shader name");
                if (!shaders.containsKey(shader)) {
                    throw AmberException.error("unknown shader '" + shader + "' in SHADER_OPTIMIZATION", l.line);
                }
                l.end();
                List<String> passes = new ArrayList<>();
                for (Word w : blockUntilEnd(l, "SHADER_OPTIMIZATION")) {
                    passes.add(w.text());
                }
                b.optimizations.put(shader, List.copyOf(passes));
            }
            case "BIND" -> bind(l, b);
            case "COMPILE_OPTIONS" -> throw AmberException.unsupported("COMPILE_OPTIONS (OpenCL-C)", l.line);
            case "SET" -> throw AmberException.unsupported("SET KERNEL (OpenCL-C)", l.line);
            case "SUBGROUP" -> throw AmberException.unsupported("SUBGROUP (subgroup size control)", l.line);
            default -> {
                if (GRAPHICS_ONLY.contains(cmd)) {
                    throw AmberException.error(cmd + " is only valid in a graphics pipeline (" + b.name
                            + " is compute)", l.line);
                }
                throw AmberException.error("unknown command '" + cmd + "' in pipeline " + b.name, l.line);
            }
        }
    }

    /** Words of the lines after {@code l} up to a line that is END. */
    private List<Word> blockUntilEnd(Cur l, String what) throws AmberException {
        List<Word> words = new ArrayList<>();
        while (true) {
            if (next >= raw.length) {
                throw AmberException.error(what + " has no END", l.line);
            }
            int index = next++;
            List<String> t = tokens.get(index);
            if (!t.isEmpty() && t.get(0).equals("END")) {
                endLine(index);
                return words;
            }
            for (String s : t) {
                words.add(new Word(s, index + 1));
            }
        }
    }

    private void graphicsBodyLine(Cur l, Builder b) throws AmberException {
        String cmd = l.t.get(0);
        b.body.add(l.text());
        if (cmd.equals("ATTACH")) {
            b.attached.add(attach(l));
        } else if (BODY_BLOCKS.contains(cmd)) {
            // a block: keep its lines up to its END
            while (true) {
                if (next >= raw.length) {
                    throw AmberException.error(cmd + " has no END", l.line);
                }
                int index = next++;
                List<String> t = tokens.get(index);
                if (t.isEmpty()) {
                    continue;
                }
                b.body.add(String.join(" ", t));
                if (t.get(0).equals("END")) {
                    break;
                }
            }
        }
    }

    private Pipeline.Attach attach(Cur l) throws AmberException {
        String name = l.next("shader name");
        Shader s = shaders.get(name);
        if (s == null) {
            throw AmberException.error("unknown shader '" + name + "' in ATTACH", l.line);
        }
        String stage = s.stage();
        String entry = "main";
        if (l.accept("TYPE")) {
            stage = l.next("shader type");
            if (!STAGES.contains(stage)) {
                throw AmberException.error("unknown shader type '" + stage + "'", l.line);
            }
        } else if (stage.equals("multi")) {
            throw AmberException.error("ATTACH of multi shader '" + name + "' needs TYPE", l.line);
        }
        if (l.accept("ENTRY_POINT")) {
            entry = l.next("entry point");
        }
        if ("SPECIALIZE".equals(l.peek())) {
            throw AmberException.unsupported("ATTACH ... SPECIALIZE (specialization constants)", l.line);
        }
        l.end();
        return new Pipeline.Attach(name, stage, entry, l.line);
    }

    private void bind(Cur l, Builder b) throws AmberException {
        String object = l.next("BUFFER or SAMPLER");
        switch (object) {
            case "BUFFER" -> bindBuffer(l, b);
            case "SAMPLER" -> {
                String name = l.next("sampler name");
                if (!samplers.containsKey(name)) {
                    throw AmberException.error("unknown sampler '" + name + "' in BIND", l.line);
                }
                if ("KERNEL".equals(l.peek())) {
                    throw AmberException.unsupported("BIND ... KERNEL (OpenCL-C)", l.line);
                }
                int[] sb = setAndBinding(l);
                l.end();
                add(b, new Binding(name, Binding.Kind.SAMPLER, sb[0], sb[1], 0, 0, -1, 0, null, l.line));
            }
            case "BUFFER_ARRAY" -> bindBufferArray(l, b);
            case "SAMPLER_ARRAY" -> {
                List<String> names = new ArrayList<>();
                while (l.more() && !"DESCRIPTOR_SET".equals(l.peek()) && !"KERNEL".equals(l.peek())) {
                    String name = l.next("sampler name");
                    if (!samplers.containsKey(name)) {
                        throw AmberException.error("unknown sampler '" + name + "' in BIND SAMPLER_ARRAY", l.line);
                    }
                    names.add(name);
                }
                if ("KERNEL".equals(l.peek())) {
                    throw AmberException.unsupported("BIND ... KERNEL (OpenCL-C)", l.line);
                }
                if (names.isEmpty()) {
                    throw AmberException.error("BIND SAMPLER_ARRAY names no sampler", l.line);
                }
                int[] sb = setAndBinding(l);
                l.end();
                addArray(b, sb, names, Binding.Kind.SAMPLER, l.line);
            }
            case "ACCELERATION_STRUCTURE" -> throw AmberException.unsupported("BIND " + object, l.line);
            default -> throw AmberException.error("expected BUFFER or SAMPLER after BIND, found '" + object + "'",
                    l.line);
        }
    }

    private void bindBuffer(Cur l, Builder b) throws AmberException {
        String name = l.next("buffer name");
        if (!buffers.containsKey(name)) {
            throw AmberException.error("unknown buffer '" + name + "' in BIND", l.line);
        }
        if ("KERNEL".equals(l.peek())) {
            throw AmberException.unsupported("BIND ... KERNEL (OpenCL-C)", l.line);
        }
        l.expect("AS");
        String as = l.next("buffer type");
        if (as.equals("push_constant")) {
            l.end();
            if (b.pushConstant != null && !b.pushConstant.equals(name)) {
                throw AmberException.error("pipeline " + b.name + " already has push constant buffer '"
                        + b.pushConstant + "'", l.line);
            }
            b.pushConstant = name;
            return;
        }
        if (as.equals("color") || as.equals("depth_stencil") || as.equals("resolve")) {
            throw AmberException.error("BIND ... AS " + as + " is only valid in a graphics pipeline", l.line);
        }
        Binding.Kind kind = Binding.Kind.byAmberName(as);
        if (kind == null) {
            throw AmberException.error("unknown buffer type '" + as + "' in BIND", l.line);
        }
        String sampler = null;
        if (kind == Binding.Kind.COMBINED_IMAGE_SAMPLER) {
            l.expect("SAMPLER");
            sampler = l.next("sampler name");
            if (!samplers.containsKey(sampler)) {
                throw AmberException.error("unknown sampler '" + sampler + "' in BIND", l.line);
            }
        }
        if ("KERNEL".equals(l.peek())) {
            throw AmberException.unsupported("BIND ... KERNEL (OpenCL-C)", l.line);
        }
        int[] sb = setAndBinding(l);
        long offset = 0;
        boolean hasOffset = false;
        long descriptorOffset = 0;
        long descriptorRange = -1;
        int baseMip = 0;
        while (l.more()) {
            String key = l.next("BIND parameter");
            switch (key) {
                case "OFFSET" -> {
                    if (!kind.dynamic()) {
                        throw AmberException.error("OFFSET is only for dynamic buffers", l.line);
                    }
                    offset = Numbers.count(l.next("OFFSET value"), "OFFSET", l.line);
                    hasOffset = true;
                }
                case "DESCRIPTOR_OFFSET" -> {
                    requireBuffer(kind, key, l.line);
                    descriptorOffset = Numbers.count(l.next("DESCRIPTOR_OFFSET value"), key, l.line);
                }
                case "DESCRIPTOR_RANGE" -> {
                    requireBuffer(kind, key, l.line);
                    descriptorRange = Numbers.integer(l.next("DESCRIPTOR_RANGE value"), key, l.line);
                }
                case "BASE_MIP_LEVEL" -> {
                    if (!kind.image()) {
                        throw AmberException.error("BASE_MIP_LEVEL is only for images", l.line);
                    }
                    baseMip = Numbers.count(l.next("BASE_MIP_LEVEL value"), key, l.line);
                }
                default -> throw AmberException.error("unexpected '" + key + "' in BIND", l.line);
            }
        }
        if (kind.dynamic() && !hasOffset) {
            throw AmberException.error("BIND of a dynamic buffer needs an OFFSET", l.line);
        }
        add(b, new Binding(name, kind, sb[0], sb[1], offset, descriptorOffset, descriptorRange, baseMip, sampler,
                l.line));
    }

    /**
     * {@code BIND BUFFER_ARRAY B0 B1 ... AS KIND DESCRIPTOR_SET s BINDING b}: element i of the binding's array
     * is Bi. Dynamic buffers (an OFFSET each) and combined image samplers (a sampler each) in arrays, and the
     * DESCRIPTOR_OFFSET / DESCRIPTOR_RANGE / BASE_MIP_LEVEL parameters of an array, are refused by name.
     */
    private void bindBufferArray(Cur l, Builder b) throws AmberException {
        List<String> names = new ArrayList<>();
        while (l.more() && !"AS".equals(l.peek()) && !"KERNEL".equals(l.peek())) {
            String name = l.next("buffer name");
            if (!buffers.containsKey(name)) {
                throw AmberException.error("unknown buffer '" + name + "' in BIND BUFFER_ARRAY", l.line);
            }
            names.add(name);
        }
        if ("KERNEL".equals(l.peek())) {
            throw AmberException.unsupported("BIND ... KERNEL (OpenCL-C)", l.line);
        }
        if (names.isEmpty()) {
            throw AmberException.error("BIND BUFFER_ARRAY names no buffer", l.line);
        }
        l.expect("AS");
        String as = l.next("buffer type");
        Binding.Kind kind = Binding.Kind.byAmberName(as);
        if (kind == null) {
            throw AmberException.error("unknown buffer type '" + as + "' in BIND BUFFER_ARRAY", l.line);
        }
        if (kind.dynamic() || kind == Binding.Kind.COMBINED_IMAGE_SAMPLER) {
            throw AmberException.unsupported("BIND BUFFER_ARRAY ... AS " + as, l.line);
        }
        int[] sb = setAndBinding(l);
        if (l.more()) {
            throw AmberException.unsupported("BIND BUFFER_ARRAY ... " + l.peek(), l.line);
        }
        addArray(b, sb, names, kind, l.line);
    }

    private static void addArray(Builder b, int[] sb, List<String> names, Binding.Kind kind, int line) {
        b.bindings.removeIf(x -> x.set() == sb[0] && x.binding() == sb[1]);
        for (int e = 0; e < names.size(); e++) {
            b.bindings.add(new Binding(names.get(e), kind, sb[0], sb[1], 0, 0, -1, 0, null, line, e));
        }
    }

    private static void requireBuffer(Binding.Kind kind, String key, int line) throws AmberException {
        if (kind != Binding.Kind.STORAGE && kind != Binding.Kind.UNIFORM && !kind.dynamic()) {
            throw AmberException.error(key + " is only for uniform and storage buffers", line);
        }
    }

    private static int[] setAndBinding(Cur l) throws AmberException {
        l.expect("DESCRIPTOR_SET");
        int set = Numbers.count(l.next("DESCRIPTOR_SET value"), "DESCRIPTOR_SET", l.line);
        l.expect("BINDING");
        int binding = Numbers.count(l.next("BINDING value"), "BINDING", l.line);
        return new int[] {set, binding};
    }

    /** Adds a binding, replacing one at the same set and binding (as Amber's ClearBuffers/ClearSamplers do). */
    private static void add(Builder b, Binding binding) {
        b.bindings.removeIf(x -> x.set() == binding.set() && x.binding() == binding.binding());
        b.bindings.add(binding);
    }

    // ---- commands ----

    private void repeat(Cur c) throws AmberException {
        int count = Numbers.count(c.next("REPEAT count"), "REPEAT count", c.line);
        c.end();
        List<Command> body = new ArrayList<>();
        while (true) {
            if (next >= raw.length) {
                throw AmberException.error("REPEAT has no END", c.line);
            }
            int index = next++;
            List<String> t = tokens.get(index);
            if (t.isEmpty()) {
                continue;
            }
            Cur l = new Cur(index + 1, t, 1);
            if (t.get(0).equals("END")) {
                l.end();
                break;
            }
            if (!REPEATABLE.contains(t.get(0))) {
                throw AmberException.error(t.get(0) + " is not allowed in REPEAT", l.line);
            }
            body.add(repeatable(l));
        }
        for (int i = 0; i < count; i++) {
            commands.addAll(body);
        }
    }

    private Command repeatable(Cur c) throws AmberException {
        return switch (c.t.get(0)) {
            case "RUN" -> run(c);
            case "COPY" -> copy(c);
            case "EXPECT" -> expect(c);
            default -> clear(c);
        };
    }

    private Command run(Cur c) throws AmberException {
        String name = c.next("pipeline name");
        if (name.equals("TIMED_EXECUTION")) {
            name = c.next("pipeline name"); // a timing flag: nothing to run differently
        }
        Pipeline p = pipelines.get(name);
        if (p == null) {
            throw AmberException.error("unknown pipeline '" + name + "' in RUN", c.line);
        }
        String what = c.next("RUN parameters");
        if (Numbers.isInteger(what)) {
            if (!p.compute()) {
                throw AmberException.error("RUN x y z needs a compute pipeline; " + name + " is graphics", c.line);
            }
            int x = Numbers.count(what, "RUN x", c.line);
            int y = Numbers.count(c.next("y"), "RUN y", c.line);
            int z = Numbers.count(c.next("z"), "RUN z", c.line);
            c.end();
            return new Command.Run(name, x, y, z, c.line);
        }
        if (what.equals("DRAW_RECT") || what.equals("DRAW_GRID") || what.equals("DRAW_ARRAY")) {
            if (p.compute()) {
                throw AmberException.error("RUN " + what + " needs a graphics pipeline; " + name + " is compute",
                        c.line);
            }
            return new Command.GraphicsRun(name, c.line, c.text());
        }
        if (what.equals("RAYGEN")) {
            throw AmberException.unsupported("RUN ... RAYGEN (ray tracing)", c.line);
        }
        throw AmberException.error("invalid RUN parameter '" + what + "'", c.line);
    }

    private Command copy(Cur c) throws AmberException {
        String from = c.next("buffer name");
        c.expect("TO");
        String to = c.next("buffer name");
        c.end();
        for (String n : List.of(from, to)) {
            if (!buffers.containsKey(n)) {
                throw AmberException.error("unknown buffer '" + n + "' in COPY", c.line);
            }
        }
        if (from.equals(to)) {
            throw AmberException.error("COPY origin and destination are the same buffer", c.line);
        }
        return new Command.Copy(from, to, c.line);
    }

    private Command clear(Cur c) throws AmberException {
        String name = c.next("pipeline name");
        Pipeline p = pipelines.get(name);
        if (p == null) {
            throw AmberException.error("unknown pipeline '" + name + "' in " + c.t.get(0), c.line);
        }
        if (p.compute()) {
            throw AmberException.error(c.t.get(0) + " needs a graphics pipeline; " + name + " is compute", c.line);
        }
        return new Command.Clear(name, c.line, c.text());
    }

    private BufferDecl bufferNamed(String name, String in, int line) throws AmberException {
        BufferDecl d = buffers.get(name);
        if (d == null) {
            throw AmberException.error("unknown buffer '" + name + "' in " + in, line);
        }
        return d;
    }

    private Command expect(Cur c) throws AmberException {
        String name = c.next("buffer name");
        if (Set.of("IDX", "EQ_BUFFER", "RMSE_BUFFER", "EQ_HISTOGRAM_EMD_BUFFER").contains(name)) {
            throw AmberException.error("missing buffer name between EXPECT and " + name, c.line);
        }
        BufferDecl decl = bufferNamed(name, "EXPECT", c.line);
        String kw = c.next("IDX or comparator");
        switch (kw) {
            case "EQ_BUFFER", "RMSE_BUFFER", "EQ_HISTOGRAM_EMD_BUFFER" -> {
                BufferDecl other = bufferNamed(c.next("second buffer name"), "EXPECT " + kw, c.line);
                if (!decl.sameLayout(other)) {
                    throw AmberException.error("EXPECT " + kw + " cannot compare buffers of differing format ("
                            + decl.typeName() + " and " + other.typeName() + ")", c.line);
                }
                if (kw.equals("EQ_BUFFER")) {
                    c.end();
                    return new Expect.BufferEquals(decl, other, c.line);
                }
                c.expect("TOLERANCE");
                double tol = Numbers.decimal(c.next("TOLERANCE value"), "TOLERANCE", c.line);
                c.end();
                if (kw.equals("RMSE_BUFFER")) {
                    return new Expect.Rmse(decl, other, tol, c.line);
                }
                List<ValueSlot> slots = decl.slots();
                boolean ok = slots.size() == 4 && slots.stream().allMatch(s -> s.bits() == 8
                        && (s.kind() == ValueSlot.Kind.UINT || s.kind() == ValueSlot.Kind.UNORM));
                if (!ok) {
                    throw AmberException.error("EQ_HISTOGRAM_EMD_BUFFER only compares four 8-bit unsigned "
                            + "channels, not " + decl.typeName(), c.line);
                }
                return new Expect.HistogramEmd(decl, other, tol, c.line);
            }
            case "IDX" -> {
                return expectIdx(c, decl);
            }
            default -> throw AmberException.error("missing IDX in EXPECT (found '" + kw + "')", c.line);
        }
    }

    private Command expectIdx(Cur c, BufferDecl decl) throws AmberException {
        long x = Numbers.count(c.next("IDX value"), "IDX", c.line);
        Integer y = null;
        if (c.more() && Numbers.isInteger(c.peek())) {
            y = Numbers.count(c.next("Y value"), "IDX y", c.line);
        }
        if (c.accept("SIZE")) {
            if (y == null) {
                throw AmberException.error("EXPECT ... SIZE needs IDX x y", c.line);
            }
            int w = positive(c.next("width"), "SIZE width", c.line);
            int h = positive(c.next("height"), "SIZE height", c.line);
            String cmp = c.next("EQ_RGB or EQ_RGBA");
            boolean rgba = cmp.equals("EQ_RGBA");
            if (!rgba && !cmp.equals("EQ_RGB")) {
                throw AmberException.error("unknown comparator '" + cmp + "' in EXPECT ... SIZE", c.line);
            }
            List<Integer> expected = new ArrayList<>();
            for (int k = 0; k < (rgba ? 4 : 3); k++) {
                String ch = "RGBA".substring(k, k + 1);
                int v = Numbers.count(c.next(ch + " value"), ch, c.line);
                if (v > 255) {
                    throw AmberException.error(ch + " value " + v + " is not in 0..255", c.line);
                }
                expected.add(v);
            }
            if (!rgba) {
                expected.add(0);
            }
            List<Expect.Tolerance> tolerances = List.of();
            if (c.accept("TOLERANCE")) {
                tolerances = tolerances(c);
                if (tolerances.size() > (rgba ? 4 : 3)) {
                    throw AmberException.error("TOLERANCE for an " + cmp + " comparison has at most "
                            + (rgba ? 4 : 3) + " values", c.line);
                }
            }
            c.end();
            if (decl.format() == null) {
                throw AmberException.unsupported("EXPECT ... " + cmp + " on DATA_TYPE buffer " + decl.name(), c.line);
            }
            return new Expect.Probe(decl, (int) x, y, w, h, rgba, expected, tolerances, c.line);
        }
        List<Expect.Tolerance> tolerances = List.of();
        if (c.accept("TOLERANCE")) {
            tolerances = tolerances(c);
        }
        String cmp = c.next("comparator");
        Expect.Comparator comparator;
        try {
            comparator = Expect.Comparator.valueOf(cmp);
        } catch (IllegalArgumentException e) {
            throw AmberException.error("unexpected '" + cmp + "' in EXPECT (expected EQ, NE, LT, LE, GT or GE)",
                    c.line);
        }
        if (y != null) {
            throw AmberException.error("EXPECT " + cmp + " takes one IDX (a byte offset), not x and y", c.line);
        }
        if (!tolerances.isEmpty() && comparator != Expect.Comparator.EQ) {
            throw AmberException.error("TOLERANCE is only available with EQ", c.line);
        }
        if (x % decl.stride() != 0) {
            throw AmberException.error("EXPECT IDX " + x + " is not a multiple of the element size " + decl.stride()
                    + " of buffer " + decl.name() + " (IDX is a byte offset)", c.line);
        }
        List<ValueSlot> slots = decl.slots();
        List<Expect.Literal> values = new ArrayList<>();
        while (c.more()) {
            values.add(literal(c.next("value"), slots.get(values.size() % slots.size()), "EXPECT", c.line));
        }
        if (values.isEmpty()) {
            throw AmberException.error("EXPECT has no values to compare", c.line);
        }
        return new Expect.Values(decl, x, comparator, tolerances, values, c.line);
    }

    /** 1..4 tolerances, each a number with an optional % (attached or as the next word). */
    private static List<Expect.Tolerance> tolerances(Cur c) throws AmberException {
        List<Expect.Tolerance> list = new ArrayList<>();
        while (c.more() && list.size() < 5) {
            String s = c.peek();
            boolean percent = s.endsWith("%");
            String number = percent ? s.substring(0, s.length() - 1) : s;
            if (!Numbers.isFloat(number)) {
                break;
            }
            c.p++;
            if (!percent && "%".equals(c.peek())) {
                c.p++;
                percent = true;
            }
            double v = Numbers.decimal(number, "TOLERANCE", c.line);
            if (v < 0) {
                throw AmberException.error("TOLERANCE " + s + " is negative", c.line);
            }
            list.add(new Expect.Tolerance(v, percent));
        }
        if (list.isEmpty()) {
            throw AmberException.error("TOLERANCE without values", c.line);
        }
        if (list.size() > 4) {
            throw AmberException.error("TOLERANCE has at most 4 values", c.line);
        }
        return list;
    }
}
