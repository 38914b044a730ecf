package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.replayfarm.model.amber.AmberException;
import org.replayfarm.model.amber.AmberScript;
import org.replayfarm.model.amber.Binding;
import org.replayfarm.model.amber.BufferDecl;
import org.replayfarm.model.amber.Expect;
import org.replayfarm.model.amber.ExpectOutcome;
import org.replayfarm.model.amber.Pipeline;
import org.replayfarm.model.amber.SamplerDecl;
import org.replayfarm.model.amber.Shader;
import org.replayfarm.model.build.VulkanBuild;
import org.replayfarm.model.vulkan.ShaderSource;
import org.replayfarm.model.vulkan.SpirvModule;
import org.replayfarm.model.vulkan.VulkanException;
import org.replayfarm.proto.Provenance;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.vulkan.LavapipeDifferences;
import org.replayfarm.cli.vulkan.VulkanShaders;

@picocli.CommandLine.Command(name = "amber", mixinStandardHelpOptions = true,
        description = {"Run every compute RUN of an Amber script: each becomes a capture (RADV's code, lavapipe's run as "
                + "its reference), is evaluated on the host model and compared with lavapipe as replay run compares, "
                + "buffers carried between runs as Amber carries them; then every EXPECT is checked against the host "
                + "model's results.",
                "Prints one line per run and a last line 'amber: R runs, E expects passed, F failed, U unsupported'. Exit "
                        + "status 0 when all pass, 1 when a run or an EXPECT fails, 2 on an error or something unsupported "
                        + "(named with its line). Graphics pipelines are refused by name."})
public final class AmberCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE.amber")
    Path script;

    @Option(names = "--compiler", paramLabel = "aco|llvm", defaultValue = "aco", description = "RADV's compiler (default aco).")
    String compiler;

    @Option(names = "--wave32", description = "Compile for wave32.")
    boolean wave32;

    @Option(names = "--wave64", description = "Compile for wave64 (RADV's default for compute).")
    boolean wave64;

    @Option(names = "--wave-size", paramLabel = "32|64", description = "The same as --wave32 / --wave64 (capture native-run's spelling).")
    void waveSize(int n) {
        Replay.checkWaveSize(spec, n);
        wave64 |= n == 64;
        wave32 |= n == 32;
    }

    @Option(names = "--device", paramLabel = "DEVICE", description = "Also compare with this device, as replay run --device does "
            + "(default: lavapipe's recorded run).")
    String device;

    @Option(names = "--ulp", paramLabel = "N", defaultValue = "4",
            description = "Against lavapipe: a float value of a buffer within N units in the last place counts as an "
                    + "approximate difference SPIR-V allows (default ${DEFAULT-VALUE}); so does a denormal one side "
                    + "flushed to zero. The run line reports the ulps measured; anything else is a difference.")
    int ulp;

    @Option(names = "--out", paramLabel = "DIR", description = "Keep each run's capture and replay run output in DIR/run-<n>.")
    Path out;

    /** One compute RUN made into a capture: what the runner and capture build --amber share. */
    record Built(VulkanBuild.Result result, Pipeline pipeline, Map<String, String> bufferOfBinding) {
    }

    @Override
    public Integer call() throws Exception {
        var o = spec.commandLine().getOut();
        AmberScript parsed;
        try {
            parsed = AmberScript.parse(Files.readString(script), script.getFileName().toString());
        } catch (AmberException e) {
            o.println("amber: 0 runs, 0 expects passed, 0 failed, " + (e.unsupported() ? 1 : 0) + " unsupported");
            spec.commandLine().getErr().println("replay amber: " + e.getMessage());
            return 2;
        } catch (java.io.IOException e) {
            spec.commandLine().getErr().println("replay amber: cannot read " + script + " (" + e.getMessage() + ")");
            return 2;
        }
        Map<String, byte[]> contents = new LinkedHashMap<>(parsed.initialContents());
        Path work = out != null ? Files.createDirectories(out) : Files.createTempDirectory("replay-amber");
        int runs = 0;
        int passed = 0;
        int failed = 0;
        int unsupported = 0;
        boolean error = false;
        boolean runFailed = false;
        try {
            for (org.replayfarm.model.amber.Command c : parsed.commands()) {
                if (c instanceof org.replayfarm.model.amber.Command.Run r) {
                    runs++;
                    Path dir = Files.createDirectories(work.resolve("run-" + runs));
                    try {
                        Built b = build(spec, parsed, r, contents, dir, compiler, wave32, wave64, true);
                        Path capture = dir.resolve("run.capture");
                        b.result().built().write(capture);
                        List<String> args = new ArrayList<>(List.of("run", capture.toString(), "--every-group", "--out",
                                dir.resolve("replay").toString()));
                        if (device != null) {
                            args.addAll(List.of("--device", device));
                        }
                        StringWriter sink = new StringWriter();
                        var cli = Replay.commandLine();
                        cli.setOut(new PrintWriter(sink, true));
                        cli.setErr(new PrintWriter(sink, true));
                        int code = cli.execute(args.toArray(String[]::new));
                        String result = Files.exists(dir.resolve("replay/summary.txt"))
                                ? Files.readString(dir.resolve("replay/summary.txt")) : sink.toString();
                        String verdict = result.lines().filter(l -> l.startsWith("result")).findFirst()
                                .map(l -> l.substring(6).strip()).orElse("no result (exit " + code + ")");
                        o.printf("run %d (line %d): RUN %s %d %d %d: %s, %s wave%d: host model vs %s: %s%n", runs, r.line(),
                                r.pipeline(), r.x(), r.y(), r.z(), b.result().radv().driver(),
                                compiler.toLowerCase(Locale.ROOT), b.result().radv().waveSize(),
                                device != null ? device : b.result().built().metadata().getRuns(0).getLabel(), verdict);
                        for (String n : b.result().notes()) {
                            if (!n.startsWith("decoder: all")) {
                                o.printf("run %d: %s%n", runs, n);
                            }
                        }
                        if (code == 1 && device == null) {
                            String approximate = approximate(parsed, b, dir.resolve("replay"));
                            if (approximate != null) {
                                o.printf("run %d: %s%n", runs, approximate);
                                code = 0;
                            }
                        }
                        if (code == 1) {
                            runFailed = true;
                        } else if (code != 0) {
                            spec.commandLine().getErr().println(sink);
                            error = true;
                        }
                        // the host model's results become the buffers' contents, as the device's would
                        Path host = dir.resolve("replay").resolve("host");
                        for (Map.Entry<String, String> e : b.bufferOfBinding().entrySet()) {
                            Integer range = b.result().rangeOfBinding().get(e.getKey());
                            Integer image = b.result().imageOfBinding().get(e.getKey());
                            Path f = range != null ? host.resolve("guest-" + range + ".bin")
                                    : image != null ? host.resolve("image-" + image + ".raw") : null;
                            if (f != null && Files.exists(f)) {
                                contents.put(e.getValue(), Files.readAllBytes(f));
                            }
                        }
                    } catch (AmberException e) {
                        o.printf("run %d (line %d): %s%n", runs, r.line(), e.getMessage());
                        if (e.unsupported()) {
                            unsupported++;
                        } else {
                            error = true;
                        }
                    } catch (VulkanException e) {
                        o.printf("run %d (line %d): %s%n", runs, r.line(), e.getMessage());
                        error = true;
                    }
                } else if (c instanceof org.replayfarm.model.amber.Command.GraphicsRun g) {
                    o.printf("line %d: RUN %s: a graphics pipeline; replay amber runs compute pipelines only (unsupported)%n",
                            g.line(), g.pipeline());
                    unsupported++;
                } else if (c instanceof org.replayfarm.model.amber.Command.Clear cl) {
                    o.printf("line %d: %s: a graphics command (unsupported)%n", cl.line(), cl.text().strip());
                    unsupported++;
                } else if (c instanceof org.replayfarm.model.amber.Command.Copy cp) {
                    byte[] from = contents.get(cp.from());
                    contents.put(cp.to(), from == null ? null : from.clone());
                } else if (c instanceof Expect e) {
                    ExpectOutcome outcome = e.check(contents::get);
                    if (outcome.passed()) {
                        passed++;
                    } else {
                        failed++;
                        o.println(outcome.message());
                    }
                }
            }
        } finally {
            if (out == null) {
                RunCommand.deleteTree(work);
            }
        }
        o.printf("amber: %d runs, %d expects passed, %d failed, %d unsupported%n", runs, passed, failed, unsupported);
        return error || unsupported > 0 ? 2 : failed > 0 || runFailed ? 1 : 0;
    }

    /**
     * {@code capture build --amber FILE --run N}: the capture of the script's Nth compute RUN, the buffers
     * carried from the runs before it as lavapipe left them (the reference world, which the capture records).
     */
    static int buildCapture(CommandSpec spec, Path script, int wanted, String compiler, boolean wave32, boolean wave64,
                            boolean reference, Path out) throws Exception {
        AmberScript parsed;
        try {
            parsed = AmberScript.parse(Files.readString(script), script.getFileName().toString());
        } catch (AmberException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        List<org.replayfarm.model.amber.Command.Run> runs = parsed.commands().stream()
                .filter(c -> c instanceof org.replayfarm.model.amber.Command.Run)
                .map(c -> (org.replayfarm.model.amber.Command.Run) c).toList();
        if (runs.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), script + " has no compute RUN");
        }
        int n = wanted == 0 && runs.size() == 1 ? 1 : wanted;
        if (n < 1 || n > runs.size()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), script + " has " + runs.size()
                    + " compute RUNs; choose one with --run 1.." + runs.size());
        }
        Map<String, byte[]> contents = new LinkedHashMap<>(parsed.initialContents());
        Path work = Files.createTempDirectory("replay-amber");
        try {
            int seen = 0;
            for (org.replayfarm.model.amber.Command c : parsed.commands()) {
                if (c instanceof org.replayfarm.model.amber.Command.Copy cp) {
                    byte[] from = contents.get(cp.from());
                    contents.put(cp.to(), from == null ? null : from.clone());
                }
                if (!(c instanceof org.replayfarm.model.amber.Command.Run r)) {
                    continue;
                }
                seen++;
                Path dir = Files.createDirectories(work.resolve("run-" + seen));
                try {
                    Built b = build(spec, parsed, r, contents, dir, compiler, wave32, wave64, seen < n || reference);
                    if (seen == n) {
                        b.result().built().write(out);
                        var o = spec.commandLine().getOut();
                        b.result().notes().forEach(o::println);
                        o.printf("wrote %s: RUN %s (line %d), %s%n", out, r.pipeline(), r.line(),
                                reference ? "lavapipe's run recorded" : "no reference run");
                        return Replay.EXIT_OK;
                    }
                    // carry lavapipe's results into the next run
                    Path capture = dir.resolve("run.capture");
                    b.result().built().write(capture);
                    org.replayfarm.model.capture.CaptureFile file = org.replayfarm.model.capture.CaptureFile.open(capture);
                    var run = file.metadata().getRuns(0);
                    Map<Integer, String> byRange = new LinkedHashMap<>();
                    Map<Integer, String> byImage = new LinkedHashMap<>();
                    b.result().rangeOfBinding().forEach((k, v) -> byRange.put(v, b.bufferOfBinding().get(k)));
                    b.result().imageOfBinding().forEach((k, v) -> byImage.put(v, b.bufferOfBinding().get(k)));
                    for (var rc : run.getRangesList()) {
                        contents.put(byRange.get(rc.getRangeIndex()), bytes(file.blob(rc.getData())));
                    }
                    for (var ic : run.getImagesList()) {
                        contents.put(byImage.get(ic.getImageIndex()), bytes(file.blob(ic.getTexels())));
                    }
                } catch (AmberException | VulkanException e) {
                    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "RUN at line " + r.line() + ": "
                            + e.getMessage());
                }
            }
            throw new IllegalStateException("run " + n + " not reached");
        } finally {
            RunCommand.deleteTree(work);
        }
    }

    private static byte[] bytes(java.nio.ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /**
     * When every difference from lavapipe lies in float values of buffers, within --ulp or a denormal flushed to
     * zero, what was found; null when any other difference exists (or an image differs).
     */
    private String approximate(AmberScript script, Built b, Path replay) throws java.io.IOException {
        int floats = 0;
        long ulps = 0;
        int flushed = 0;
        for (Map.Entry<String, String> e : b.bufferOfBinding().entrySet()) {
            Integer range = b.result().rangeOfBinding().get(e.getKey());
            Integer image = b.result().imageOfBinding().get(e.getKey());
            if (image != null) {
                byte[] h = Files.readAllBytes(replay.resolve("host").resolve("image-" + image + ".raw"));
                byte[] d = Files.readAllBytes(replay.resolve("device").resolve("image-" + image + ".raw"));
                if (!java.util.Arrays.equals(h, d)) {
                    return null;
                }
                continue;
            }
            if (range == null) {
                continue;
            }
            Path h = replay.resolve("host").resolve("guest-" + range + ".bin");
            Path d = replay.resolve("device").resolve("guest-" + range + ".bin");
            if (!Files.exists(h) || !Files.exists(d)) {
                continue;
            }
            BufferDecl decl = script.buffers().get(e.getValue());
            LavapipeDifferences.Found f = LavapipeDifferences.classify(decl, Files.readAllBytes(h), Files.readAllBytes(d));
            if (!f.approximateOnly(ulp)) {
                return null;
            }
            floats += f.floats();
            ulps = Math.max(ulps, f.maxUlps());
            flushed += f.flushed();
        }
        if (floats == 0 && flushed == 0) {
            return null;
        }
        return "approximate, as SPIR-V allows: " + floats + " float value(s) within " + ulps + " ulp(s) of lavapipe's"
                + (flushed > 0 ? ", " + flushed + " denormal(s) flushed to zero on one side" : "") + " (limit --ulp " + ulp + ")";
    }

    /** Builds the capture of one compute RUN from the buffers' current contents. */
    static Built build(CommandSpec spec, AmberScript script, org.replayfarm.model.amber.Command.Run run, Map<String, byte[]> contents, Path dir,
                       String compiler, boolean wave32, boolean wave64, boolean reference)
            throws AmberException, VulkanException, java.io.IOException, org.replayfarm.model.capture.CaptureFormatException {
        Pipeline p = script.pipelines().get(run.pipeline());
        if (p == null) {
            throw AmberException.error("RUN names no pipeline '" + run.pipeline() + "'", run.line());
        }
        if (!p.compute()) {
            throw AmberException.unsupported("graphics pipeline '" + p.name() + "'", run.line());
        }
        Shader shader = script.shaders().get(p.shaderName());
        Path src = dir.resolve(p.shaderName() + (shader.language().equals("SPIRV-ASM") ? ".spvasm" : ".comp"));
        if (shader.language().equals("SPIRV-HEX")) {
            throw AmberException.unsupported("SPIRV-HEX shader '" + shader.name() + "'", shader.line());
        }
        Files.writeString(src, shader.source());
        // Amber's default environment is Vulkan 1.0 / SPIR-V 1.0; GLSL without one is compiled for Vulkan 1.2
        String env = shader.targetEnv() != null && !shader.targetEnv().isEmpty() ? shader.targetEnv()
                : shader.language().equals("SPIRV-ASM") ? "spv1.0" : null;
        byte[] spirv = ShaderSource.compile(src, List.of(), List.of(), null, env);
        SpirvModule module = SpirvModule.parse(spirv);
        List<VulkanBuild.BindingArg> bindings = new ArrayList<>();
        Map<String, String> bufferOfBinding = new LinkedHashMap<>();
        for (Binding b : p.bindings()) {
            String element = b.element() < 0 ? "" : "[" + b.element() + "]";
            String key = b.set() + "." + b.binding() + element;
            if (b.kind() == Binding.Kind.SAMPLER) {
                bindings.add(new VulkanBuild.BindingArg(b.set(), b.binding(), b.element(), sampler(script, b.what(), b.line())));
                continue;
            }
            BufferDecl decl = script.buffers().get(b.what());
            byte[] bytes = contents.get(b.what());
            if (decl == null || bytes == null) {
                throw AmberException.error("BIND names no buffer '" + b.what() + "'", b.line());
            }
            if (b.descriptorOffset() != 0 || (b.descriptorRange() >= 0 && b.descriptorRange() != bytes.length)) {
                throw AmberException.unsupported("DESCRIPTOR_OFFSET / DESCRIPTOR_RANGE", b.line());
            }
            if (b.baseMipLevel() != 0) {
                throw AmberException.unsupported("BASE_MIP_LEVEL " + b.baseMipLevel() + " (a view from a mip level other "
                        + "than 0)", b.line());
            }
            Path data = dir.resolve("binding-" + b.set() + "-" + b.binding() + (b.element() < 0 ? "" : "-" + b.element()) + ".bin");
            Files.write(data, bytes);
            bufferOfBinding.put(key, b.what());
            String value = switch (b.kind()) {
                case STORAGE -> "buffer:" + data;
                case UNIFORM -> "uniform:" + data;
                case STORAGE_DYNAMIC -> "dynamic-buffer:" + data + ",offset=" + b.offset();
                case UNIFORM_DYNAMIC -> "dynamic-uniform:" + data + ",offset=" + b.offset();
                case UNIFORM_TEXEL_BUFFER, STORAGE_TEXEL_BUFFER -> "texel-buffer:" + data + ",format=" + format(decl, b.line());
                case STORAGE_IMAGE, SAMPLED_IMAGE, COMBINED_IMAGE_SAMPLER -> image(decl, data, b.line());
                case SAMPLER -> throw new IllegalStateException();
            };
            bindings.add(new VulkanBuild.BindingArg(b.set(), b.binding(), b.element(), value));
            if (b.kind() == Binding.Kind.COMBINED_IMAGE_SAMPLER) {
                bindings.add(new VulkanBuild.BindingArg(b.set(), b.binding(), sampler(script, b.samplerName(), b.line())));
            }
        }
        List<String> push = new ArrayList<>();
        if (p.pushConstantBuffer().isPresent()) {
            byte[] pc = contents.get(p.pushConstantBuffer().get());
            int want = (int) module.pushConstantBytes();
            byte[] block = java.util.Arrays.copyOf(pc, want);
            push.add("bytes:" + HexFormat.of().formatHex(block));
        }
        VulkanBuild.Options options = VulkanShaders.options(spec, compiler, wave32, wave64, p.entryPoint(),
                run.x() + "," + run.y() + "," + run.z(), List.of(), push, reference);
        options = new VulkanBuild.Options(options.compiler(), options.waveSize(), options.entry(), options.groupsX(),
                options.groupsY(), options.groupsZ(), bindings, push, reference);
        Provenance provenance = Provenance.newBuilder().setTool("replay amber")
                .addArguments(script.sourceName()).addArguments("RUN " + run.pipeline() + " (line " + run.line() + ")").build();
        return new Built(VulkanBuild.build(spirv, options, provenance), p, bufferOfBinding);
    }

    private static String format(BufferDecl decl, int line) throws AmberException {
        if (decl.format() == null) {
            throw AmberException.error("buffer '" + decl.name() + "' has no FORMAT (a texel buffer or image needs one)", line);
        }
        try {
            return VulkanBuild.formatOfVk(decl.format().vkFormat()).name();
        } catch (IllegalArgumentException e) {
            throw AmberException.unsupported("format " + decl.format() + " of '" + decl.name() + "'", line);
        }
    }

    private static String image(BufferDecl decl, Path data, int line) throws AmberException {
        if (!decl.image()) {
            throw AmberException.unsupported("a BUFFER bound as an image ('" + decl.name() + "'); declare it with IMAGE", line);
        }
        if (decl.mipLevels() > 1) {
            // the script's data fills level 0; what the other levels hold is the runner's to choose
            throw AmberException.unsupported("IMAGE " + decl.name() + " MIP_LEVELS " + decl.mipLevels() + " (mipmapped "
                    + "images: capture build --source takes image:raw:...,mips=N with every level's texels)", line);
        }
        String size = decl.width() + "x" + Math.max(1, decl.height()) + (decl.depth() > 1 ? "x" + decl.depth() : "");
        return "image:raw:" + data + "," + size + ",format=" + format(decl, line)
                + (decl.samples() > 1 ? ",samples=" + decl.samples() : "");
    }

    private static String sampler(AmberScript script, String name, int line) throws AmberException {
        SamplerDecl s = script.samplers().get(name);
        if (s == null) {
            throw AmberException.error("no SAMPLER '" + name + "'", line);
        }
        String filter = filter(s.magFilter()) + "/" + filter(s.minFilter());
        String mode = mode(s.addressModeU()) + "/" + mode(s.addressModeV()) + "/" + mode(s.addressModeW());
        String border = switch (s.borderColor()) {
            case FLOAT_TRANSPARENT_BLACK, INT_TRANSPARENT_BLACK -> "transparent_black";
            case FLOAT_OPAQUE_BLACK, INT_OPAQUE_BLACK -> "opaque_black";
            case FLOAT_OPAQUE_WHITE, INT_OPAQUE_WHITE -> "opaque_white";
        };
        return "sampler:" + filter + "," + mode + (s.normalizedCoords() ? "" : ",unnormalized") + ",border=" + border;
    }

    private static String filter(SamplerDecl.Filter f) {
        return f == SamplerDecl.Filter.LINEAR ? "bilinear" : "point";
    }

    private static String mode(SamplerDecl.AddressMode m) {
        return switch (m) {
            case REPEAT -> "wrap";
            case MIRRORED_REPEAT -> "mirror";
            case CLAMP_TO_EDGE -> "clamp";
            case CLAMP_TO_BORDER -> "border";
            case MIRROR_CLAMP_TO_EDGE -> "mirror_once";
        };
    }
}
