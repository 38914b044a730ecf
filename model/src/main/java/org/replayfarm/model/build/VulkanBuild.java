package org.replayfarm.model.build;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.replayfarm.model.capture.CaptureFormatException;
import org.replayfarm.model.capture.CaptureWriter;
import org.replayfarm.model.image.ImageDescriptor;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.SamplerDescriptor;
import org.replayfarm.model.vulkan.RadvBinary;
import org.replayfarm.model.vulkan.SpirvModule;
import org.replayfarm.model.vulkan.SpirvModule.DescriptorKind;
import org.replayfarm.model.vulkan.VkTool;
import org.replayfarm.model.vulkan.VulkanException;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.DenormMode;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.ImageContents;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.NumericFormat;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.RangeContents;
import org.replayfarm.proto.RecordedRun;
import org.replayfarm.proto.RegisterLayout;
import org.replayfarm.proto.RoundMode;
import org.replayfarm.proto.SystemSgpr;
import org.replayfarm.proto.SystemSgprKind;
import org.replayfarm.proto.UserSgpr;
import org.replayfarm.proto.UserSgprRole;
import org.replayfarm.proto.WorkItemDimension;
import org.replayfarm.proto.WorkItemVgpr;

/**
 * Builds a device-addressed capture of a Vulkan compute shader the way RADV would launch it: the code
 * RADV's null navi21 device compiled (ACO or LLVM), descriptor sets laid out in RADV's 32-bit address
 * space ({@code 0xffff8000'xxxxxxxx}) holding V#, T# and S# words for every binding, push constants
 * inline in user SGPRs or behind their pointer, and every user SGPR where the driver's own user-data
 * locations put it; system SGPRs and work-item VGPRs as COMPUTE_PGM_RSRC2 enables them. The reference
 * run, the same SPIR-V on lavapipe with the same inputs, is recorded in the capture.
 *
 * <p>Mesa 22.3's descriptor layout (radv_descriptor_set.c), pinned by golden tests: bindings of a set in
 * binding order, each at its size's alignment: storage and uniform buffers and texel buffers 16 bytes
 * (a V#), samplers 16 (an S#), storage images 32 (a T#), sampled images 64 (T#, then FMASK), combined
 * image-samplers 96 (T#, FMASK, the S# at +80); an array's elements one such size apart from the
 * binding's aligned start; dynamic buffers take no room in the set: their V#s (an array's in element
 * order) follow the push constants (whose size is rounded up to 16) in the push-constant buffer.
 */
public final class VulkanBuild {
    /** RADV's 32-bit address space: the high half every descriptor-set and push-constant pointer gets. */
    public static final long ADDRESS_32_HIGH = 0xffff8000L;
    private static final long LOW32_FIRST = 0x0010_0000L;

    public enum Compiler { ACO, LLVM }

    /**
     * One binding as given: {@code SET.BINDING=KIND:VALUE}, or one element of a descriptor array:
     * {@code SET.BINDING[ELEMENT]=KIND:VALUE} ({@code element} -1 when no element is named).
     */
    public record BindingArg(int set, int binding, int element, String value) {
        private static final java.util.regex.Pattern FORM =
                java.util.regex.Pattern.compile("\\s*(\\d+)\\s*\\.\\s*(\\d+)\\s*(?:\\[\\s*(\\d+)\\s*\\])?\\s*");

        public BindingArg(int set, int binding, String value) {
            this(set, binding, -1, value);
        }

        public static BindingArg parse(String text) {
            int eq = text.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("--binding " + text + ": expected SET.BINDING=KIND:VALUE or "
                        + "SET.BINDING[ELEMENT]=KIND:VALUE");
            }
            java.util.regex.Matcher m = FORM.matcher(text.substring(0, eq));
            if (!m.matches()) {
                throw new IllegalArgumentException("--binding " + text + ": SET and BINDING must be numbers, and an array "
                        + "element is named as SET.BINDING[ELEMENT]");
            }
            try {
                return new BindingArg(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                        m.group(3) == null ? -1 : Integer.parseInt(m.group(3)), text.substring(eq + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--binding " + text + ": a number out of range");
            }
        }

        String where() {
            return set + "." + binding + (element < 0 ? "" : "[" + element + "]");
        }

        String bindingKey() {
            return set + "." + binding;
        }
    }

    /** What to build. {@code waveSize} 0: what RADV chooses. */
    public record Options(Compiler compiler, int waveSize, String entry, int groupsX, int groupsY, int groupsZ,
                          List<BindingArg> bindings, List<String> push, boolean reference) {
        public Options {
            bindings = List.copyOf(bindings);
            push = List.copyOf(push);
        }
    }

    /** The capture, the RADV executable it came from, and a note per binding for the user. */
    public record Result(CaptureBuilder.Built built, RadvBinary radv, SpirvModule module, List<String> notes,
                         Map<String, Integer> rangeOfBinding, Map<String, Integer> imageOfBinding) {
    }

    /** A resource bound to one binding. */
    private sealed interface Res {
    }

    private record BufferRes(String text, byte[] bytes, boolean uniform, boolean dynamic, long offset) implements Res {
    }

    private record TexelRes(String text, byte[] bytes, ImageFormat format) implements Res {
    }

    private record ImageRes(KernelArg.ImageArg image) implements Res {
    }

    private record SamplerRes(KernelArg.SamplerArg sampler) implements Res {
    }

    private record CombinedRes(KernelArg.ImageArg image, KernelArg.SamplerArg sampler) implements Res {
    }

    private final CaptureWriter writer = new CaptureWriter();
    private final GuestLayout layout = new GuestLayout();
    private long nextLow = LOW32_FIRST;
    private final List<MemoryRange> ranges = new ArrayList<>();
    private final List<org.replayfarm.proto.Image> images = new ArrayList<>();

    private VulkanBuild() {
    }

    /** Compiles the SPIR-V on RADV's null navi21 device and builds the capture (with lavapipe's run unless told not to). */
    public static Result build(byte[] spirv, Options options, Provenance provenance)
            throws VulkanException, CaptureFormatException, IOException {
        return new VulkanBuild().run(spirv, options, provenance);
    }

    private Result run(byte[] spirv, Options o, Provenance provenance)
            throws VulkanException, CaptureFormatException, IOException {
        SpirvModule module = SpirvModule.parse(spirv);
        SpirvModule.EntryPoint entry = module.computeEntry(o.entry());
        if (entry.localSize().length != 3) {
            throw new VulkanException("compute entry point " + entry.name() + " declares no LocalSize");
        }
        Map<String, Res> resources = resolve(module, o.bindings());
        byte[] push = pushConstants(o.push(), module.pushConstantBytes());

        Path work = Files.createTempDirectory("replay-vk");
        try {
            Path spv = work.resolve("shader.spv");
            Files.write(spv, spirv);
            // the spec both drivers get: the same layout and inputs
            List<String> spec = spec(module, resources, spv, entry.name(), o, push, work);
            Path specFile = work.resolve("spec");
            Files.write(specFile, spec);
            Map<String, String> env = new LinkedHashMap<>();
            env.put("RADV_FORCE_FAMILY", "navi21");
            if (o.compiler() == Compiler.LLVM) {
                env.put("RADV_DEBUG", "llvm");
            }
            if (o.waveSize() == 32) {
                env.put("RADV_PERFTEST", "cswave32");
            }
            if (o.waveSize() != 0) {
                // a required subgroup size: the one way to get wave32 for shaders that use subgroup operations
                env.put("REPLAY_VK_SUBGROUP_SIZE", Integer.toString(o.waveSize()));
            }
            VkTool.Output out = VkTool.run(VkTool.Driver.RADV, env, List.of("compile", specFile.toString()));
            if (out.exit() != 0) {
                throw new VulkanException("RADV could not compile the pipeline: " + (out.exit() > 128
                        ? "the driver crashed (signal " + (out.exit() - 128) + ")" : out.stderr().strip()));
            }
            RadvBinary radv = RadvBinary.parse(out.stdout());
            if (o.waveSize() != 0 && radv.waveSize() != o.waveSize()) {
                throw new VulkanException("asked for wave" + o.waveSize() + " but RADV compiled the pipeline for wave"
                        + radv.waveSize());
            }
            org.replayfarm.model.vulkan.RadvLaunch.check(radv, o.compiler() == Compiler.LLVM);
            List<String> notes = new ArrayList<>();
            List<org.replayfarm.model.vulkan.AssemblyCheck.Mismatch> mismatches =
                    org.replayfarm.model.vulkan.AssemblyCheck.compare(radv);
            if (mismatches.isEmpty()) {
                notes.add("decoder: all " + radv.assembly().size() + " instructions read as RADV prints them");
            } else {
                notes.add("decoder: " + mismatches.size() + " of " + radv.assembly().size()
                        + " instructions read differently from RADV's Assembly, first " + mismatches.get(0));
            }
            Capture.Builder capture = lay(module, entry, resources, push, radv, o, notes);
            capture.setProvenance(provenance.toBuilder()
                    .addArguments("driver=" + radv.driver() + " (" + radv.device() + ")")
                    .addArguments("compiler=" + o.compiler().name().toLowerCase(Locale.ROOT))
                    .addArguments("wave=" + radv.waveSize()));
            if (o.reference()) {
                capture.addRuns(lavapipe(specFile, work));
            }
            Capture built = capture.build();
            org.replayfarm.model.capture.CaptureValidator.validate(built, writer);
            return new Result(new CaptureBuilder.Built(built, writer), radv, module, notes, Map.copyOf(rangeOfBinding),
                    Map.copyOf(imageOfBinding));
        } finally {
            deleteTree(work);
        }
    }

    /** Lavapipe's outputs: bytes by "SET.BINDING", and the capture's range or image index of each binding. */
    public record Outputs(String label, Map<String, byte[]> bytes, Map<String, Integer> ranges, Map<String, Integer> images) {
    }

    /** Runs the shader on lavapipe alone, numbering outputs as a capture of it would number its ranges and images. */
    public static Outputs lavapipeOutputs(byte[] spirv, Options o) throws VulkanException, IOException {
        VulkanBuild b = new VulkanBuild();
        SpirvModule module = SpirvModule.parse(spirv);
        SpirvModule.EntryPoint entry = module.computeEntry(o.entry());
        Map<String, Res> resources = b.resolve(module, o.bindings());
        byte[] push = pushConstants(o.push(), module.pushConstantBytes());
        Path work = Files.createTempDirectory("replay-vk");
        try {
            Path spv = work.resolve("shader.spv");
            Files.write(spv, spirv);
            Path specFile = work.resolve("spec");
            Files.write(specFile, b.spec(module, resources, spv, entry.name(), o, push, work));
            Path outDir = Files.createDirectories(work.resolve("lavapipe"));
            String label = runLavapipe(specFile, outDir, "");
            Map<String, byte[]> bytes = new LinkedHashMap<>();
            Map<String, Integer> ranges = new LinkedHashMap<>();
            Map<String, Integer> images = new LinkedHashMap<>();
            for (Map.Entry<String, Res> e : resources.entrySet()) {
                Res r = e.getValue();
                if (r instanceof BufferRes || r instanceof TexelRes) {
                    ranges.put(e.getKey(), ranges.size());
                } else if (r instanceof ImageRes || r instanceof CombinedRes) {
                    images.put(e.getKey(), images.size());
                } else {
                    continue;
                }
                bytes.put(e.getKey(), Files.readAllBytes(outDir.resolve(outFile(e.getKey()))));
            }
            return new Outputs(label, bytes, ranges, images);
        } finally {
            deleteTree(work);
        }
    }

    /** The label of lavapipe's recorded run. */
    static String lavapipeLabel(String driverInfo) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Mesa (\\S+)").matcher(driverInfo);
        return "lavapipe (Mesa " + (m.find() ? m.group(1) : "?") + ")";
    }

    /** Runs the spec on lavapipe, its outputs into outDir; returns the run's label. */
    private static String runLavapipe(Path specFile, Path outDir, String hint) throws VulkanException {
        VkTool.Output out = VkTool.run(VkTool.Driver.LAVAPIPE, Map.of(), List.of("run", specFile.toString(), outDir.toString()));
        if (out.exit() != 0) {
            throw new VulkanException("lavapipe could not run the pipeline" + hint + ": " + out.stderr().strip());
        }
        return lavapipeLabel(out.stdout().lines().filter(l -> l.startsWith("@@driver-info ")).findFirst().orElse(""));
    }

    private RecordedRun lavapipe(Path specFile, Path work) throws VulkanException, IOException {
        Path outDir = Files.createDirectories(work.resolve("lavapipe"));
        RecordedRun.Builder run = RecordedRun.newBuilder()
                .setLabel(runLavapipe(specFile, outDir, " (use --no-reference to build without it)"));
        for (Map.Entry<String, Integer> e : rangeOfBinding.entrySet()) {
            byte[] data = Files.readAllBytes(outDir.resolve(outFile(e.getKey())));
            run.addRanges(RangeContents.newBuilder().setRangeIndex(e.getValue()).setData(writer.add(data)));
        }
        for (Map.Entry<String, Integer> e : imageOfBinding.entrySet()) {
            byte[] data = Files.readAllBytes(outDir.resolve(outFile(e.getKey())));
            run.addImages(ImageContents.newBuilder().setImageIndex(e.getValue()).setTexels(writer.add(data)));
        }
        return run.build();
    }

    private final Map<String, Integer> rangeOfBinding = new LinkedHashMap<>();
    /** The number of elements of each descriptor array, by "SET.BINDING" (a runtime-sized one: as many as given). */
    private final Map<String, Integer> arrayLength = new LinkedHashMap<>();
    private final Map<String, Integer> imageOfBinding = new LinkedHashMap<>();

    /** Matches the bindings given to the ones the shader declares; every mismatch is named. */
    private Map<String, Res> resolve(SpirvModule module, List<BindingArg> args) throws VulkanException {
        Map<String, List<BindingArg>> given = new LinkedHashMap<>();
        for (BindingArg a : args) {
            given.computeIfAbsent(a.bindingKey(), k -> new ArrayList<>()).add(a);
        }
        Map<String, Res> out = new LinkedHashMap<>();
        for (SpirvModule.Resource r : module.resources()) {
            String key = r.set() + "." + r.binding();
            if (r.kind() == DescriptorKind.ACCELERATION_STRUCTURE) {
                throw new VulkanException("the shader declares " + r.describe() + ": acceleration structures (ray "
                        + "queries) are not built into Vulkan captures yet (RADV compiles them; see docs/vulkan.md)");
            }
            List<BindingArg> g = given.remove(key);
            if (g == null) {
                throw new VulkanException("the shader declares " + r.describe() + " but no --binding " + key
                        + (isArray(r) ? "[0]" : "") + "=... gives it (" + hint(r.kind()) + ")");
            }
            if (!isArray(r)) {
                for (BindingArg a : g) {
                    if (a.element() > 0) {
                        throw new VulkanException("--binding " + a.where() + "=" + a.value() + ": " + r.describe()
                                + " is not an array of descriptors");
                    }
                }
                out.put(key, resource(r, g));
                continue;
            }
            java.util.TreeMap<Integer, List<BindingArg>> byElement = new java.util.TreeMap<>();
            for (BindingArg a : g) {
                if (a.element() < 0) {
                    throw new VulkanException("--binding " + a.where() + "=" + a.value() + ": " + r.describe()
                            + " is an array of descriptors: name each element as --binding " + key + "[I]=...");
                }
                if (r.count() > 0 && a.element() >= r.count()) {
                    throw new VulkanException("--binding " + a.where() + "=" + a.value() + ": " + r.describe()
                            + " has elements 0 to " + (r.count() - 1));
                }
                byElement.computeIfAbsent(a.element(), k -> new ArrayList<>()).add(a);
            }
            // a runtime-sized array gets as many elements as are given (its variable descriptor count), all of them
            int length = r.count() > 0 ? r.count() : byElement.lastKey() + 1;
            List<Integer> missing = new ArrayList<>();
            for (int e = 0; e < length; e++) {
                if (!byElement.containsKey(e)) {
                    missing.add(e);
                }
            }
            if (!missing.isEmpty()) {
                throw new VulkanException("the shader declares " + r.describe() + " but " + (missing.size() == 1
                        ? "element " + missing.get(0) + " is" : "elements " + missing.stream().map(String::valueOf)
                        .collect(java.util.stream.Collectors.joining(", ")) + " are") + " not given (--binding "
                        + key + "[" + missing.get(0) + "]=" + (r.kind() == DescriptorKind.COMBINED_IMAGE_SAMPLER
                        ? "image:... and sampler:..." : hint(r.kind()).split(" or |, ")[0]) + ")"
                        + (r.count() == 0 ? "; a runtime-sized array gets elements 0 to the highest one given" : ""));
            }
            arrayLength.put(key, length);
            for (Map.Entry<Integer, List<BindingArg>> e : byElement.entrySet()) {
                out.put(key + "[" + e.getKey() + "]", resource(r, e.getValue()));
            }
        }
        if (!given.isEmpty()) {
            throw new VulkanException("--binding " + String.join(", ", given.keySet()) + ": the shader declares no such "
                    + "binding (it declares " + (module.resources().isEmpty() ? "none" : String.join(", ",
                    module.resources().stream().map(SpirvModule.Resource::describe).toList())) + ")");
        }
        return out;
    }

    /** An array of descriptors (a runtime-sized one has count 0); an array of one is given as one binding. */
    private static boolean isArray(SpirvModule.Resource r) {
        return r.count() != 1;
    }

    /** The keys of a resource's descriptors: "SET.BINDING", or "SET.BINDING[I]" for each element of an array. */
    private List<String> keys(SpirvModule.Resource r) {
        String key = r.set() + "." + r.binding();
        if (!isArray(r)) {
            return List.of(key);
        }
        List<String> out = new ArrayList<>();
        for (int e = 0; e < arrayLength.get(key); e++) {
            out.add(key + "[" + e + "]");
        }
        return out;
    }

    /** The file the helper writes a descriptor's contents to after the dispatch (see vkcompute.c). */
    private static String outFile(String key) {
        return "out-" + key.replace('.', '-').replace('[', '-').replace("]", "") + ".bin";
    }

    private static String hint(DescriptorKind kind) {
        return switch (kind) {
            case STORAGE_BUFFER -> "buffer:PATH, zeros:BYTES or dynamic-buffer:PATH[,offset=N]";
            case UNIFORM_BUFFER -> "uniform:PATH or dynamic-uniform:PATH[,offset=N]";
            case STORAGE_IMAGE, SAMPLED_IMAGE -> "image:...";
            case SAMPLER -> "sampler:...";
            case COMBINED_IMAGE_SAMPLER -> "image:... and sampler:..., the binding given twice";
            case UNIFORM_TEXEL_BUFFER, STORAGE_TEXEL_BUFFER -> "texel-buffer:PATH,format=FMT";
            case ACCELERATION_STRUCTURE -> "not supported yet";
        };
    }

    private Res resource(SpirvModule.Resource r, List<BindingArg> given) throws VulkanException {
        String where = r.describe();
        List<KernelArg.ImageArg> imagesGiven = new ArrayList<>();
        List<KernelArg.SamplerArg> samplers = new ArrayList<>();
        Res single = null;
        for (BindingArg a : given) {
            String v = a.value();
            int colon = v.indexOf(':');
            String kind = colon < 0 ? v : v.substring(0, colon);
            String value = colon < 0 ? "" : v.substring(colon + 1);
            try {
                switch (kind) {
                    case "buffer", "zeros", "uniform", "dynamic-buffer", "dynamic-uniform" -> single = buffer(kind, value, v);
                    case "texel-buffer" -> single = texel(value, v);
                    case "image" -> imagesGiven.add((KernelArg.ImageArg) KernelArg.parse(v));
                    case "sampler" -> samplers.add((KernelArg.SamplerArg) KernelArg.parse(v));
                    default -> throw new VulkanException("--binding " + a.where() + "=" + v + ": unknown kind '" + kind
                            + "' (buffer, zeros, uniform, dynamic-buffer, dynamic-uniform, texel-buffer, image, sampler)");
                }
            } catch (IllegalArgumentException e) {
                throw new VulkanException("--binding " + a.where() + "=" + v + ": " + e.getMessage());
            }
        }
        int count = (single != null ? 1 : 0) + imagesGiven.size() + samplers.size();
        DescriptorKind k = r.kind();
        boolean ok = switch (k) {
            case STORAGE_BUFFER -> count == 1 && single instanceof BufferRes b && !b.uniform();
            case UNIFORM_BUFFER -> count == 1 && single instanceof BufferRes b && b.uniform();
            case UNIFORM_TEXEL_BUFFER, STORAGE_TEXEL_BUFFER -> count == 1 && single instanceof TexelRes;
            case STORAGE_IMAGE, SAMPLED_IMAGE -> count == 1 && imagesGiven.size() == 1;
            case SAMPLER -> count == 1 && samplers.size() == 1;
            case COMBINED_IMAGE_SAMPLER -> count == 2 && imagesGiven.size() == 1 && samplers.size() == 1;
            case ACCELERATION_STRUCTURE -> false;
        };
        if (!ok) {
            throw new VulkanException(where + " needs " + hint(k) + "; given: " + String.join(", ",
                    given.stream().map(BindingArg::value).toList()));
        }
        if (single instanceof BufferRes b && r.blockBytes() > b.bytes().length - b.offset()) {
            throw new VulkanException(where + ": the shader's block needs at least " + r.blockBytes() + " bytes, "
                    + b.text() + " gives " + (b.bytes().length - b.offset()));
        }
        if (k == DescriptorKind.STORAGE_IMAGE || k == DescriptorKind.SAMPLED_IMAGE) {
            checkImage(r, imagesGiven.get(0));
            return new ImageRes(imagesGiven.get(0));
        }
        if (k == DescriptorKind.SAMPLER) {
            return new SamplerRes(samplers.get(0));
        }
        if (k == DescriptorKind.COMBINED_IMAGE_SAMPLER) {
            checkImage(r, imagesGiven.get(0));
            return new CombinedRes(imagesGiven.get(0), samplers.get(0));
        }
        return single;
    }

    private static void checkImage(SpirvModule.Resource r, KernelArg.ImageArg image) throws VulkanException {
        SpirvModule.ImageShape s = r.image().orElseThrow();
        if (s.multisampled() != image.samples() > 1) {
            throw new VulkanException(r.describe() + (s.multisampled()
                    ? ": a multisampled image; give its samples as image:raw:PATH,WxH,samples=N (2, 4, 8 or 16), "
                    + "each texel's samples in order; " + image.path() + " is single-sampled"
                    : ": not a multisampled image, but " + image.path() + " is given samples=" + image.samples()));
        }
        if (s.multisampled() && s.dim() != 1) {
            throw new VulkanException(r.describe() + ": multisampled images are 2D or 2D arrays");
        }
        if (s.dim() == 3) {
            boolean faces = s.arrayed() ? image.layers() % 6 == 0 : image.layers() == 6;
            if (!faces || image.width() != image.height() || image.depth() != 1) {
                throw new VulkanException(r.describe() + (s.arrayed()
                        ? ": a cube array needs a square image of six layers a cube (faces +X, -X, +Y, -Y, +Z, -Z of "
                        + "cube 0, then of cube 1, ...): image:raw:PATH,NxN,layers=6N,...; "
                        : ": a cube needs a square image of six layers (faces +X, -X, +Y, -Y, +Z, -Z): "
                        + "image:raw:PATH,NxN,layers=6,...; ") + image.path() + " is " + image.width() + "x"
                        + image.height() + (image.depth() > 1 ? "x" + image.depth() : "") + " with " + image.layers()
                        + " layer(s)");
            }
            return;
        }
        if (s.dim() != 0 && s.dim() != 1 && s.dim() != 2) {
            throw new VulkanException(r.describe() + ": images of this dimensionality are not supported");
        }
        if (!s.arrayed() && image.layers() > 1) {
            throw new VulkanException(r.describe() + ": not an arrayed image, but " + image.path() + " is given "
                    + image.layers() + " layers (layers=N is for arrayed images)");
        }
        int dims = s.dim() + 1;
        int given = image.depth() > 1 ? 3 : image.height() > 1 ? 2 : 1;
        if (given > dims) {
            throw new VulkanException(r.describe() + ": a " + dims + "D image, but " + image.path() + " is "
                    + image.width() + "x" + image.height() + (image.depth() > 1 ? "x" + image.depth() : ""));
        }
    }

    private static BufferRes buffer(String kind, String value, String text) throws VulkanException {
        boolean uniform = kind.equals("uniform") || kind.equals("dynamic-uniform");
        boolean dynamic = kind.startsWith("dynamic");
        long offset = 0;
        String body = value;
        if (dynamic) {
            int comma = value.lastIndexOf(",offset=");
            if (comma >= 0) {
                offset = Long.parseLong(value.substring(comma + 8).trim());
                body = value.substring(0, comma);
            }
        }
        byte[] bytes;
        if (kind.equals("zeros")) {
            long n;
            try {
                n = Long.parseLong(value.trim());
            } catch (NumberFormatException e) {
                throw new VulkanException(text + ": BYTES must be a number");
            }
            if (n <= 0 || n > Integer.MAX_VALUE - 8) {
                throw new VulkanException(text + ": a buffer needs 1 byte to 2 GiB");
            }
            bytes = new byte[(int) n];
        } else {
            try {
                bytes = Files.readAllBytes(Path.of(body));
            } catch (IOException e) {
                throw new VulkanException(text + ": cannot read " + body + " (" + KernelArg.why(e) + ")");
            }
            if (bytes.length == 0) {
                throw new VulkanException(text + ": the file is empty; a buffer needs at least one byte");
            }
        }
        if (offset < 0 || offset % 16 != 0 || offset >= bytes.length) {
            throw new VulkanException(text + ": the dynamic offset must be a multiple of 16 inside the buffer");
        }
        return new BufferRes(text, bytes, uniform, dynamic, offset);
    }

    private static TexelRes texel(String value, String text) throws VulkanException {
        String[] parts = value.split(",");
        ImageFormat format = null;
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].startsWith("format=")) {
                format = ImageFormat.parse(parts[i].substring(7));
            } else {
                throw new VulkanException(text + ": unknown option '" + parts[i] + "' (format=FMT)");
            }
        }
        if (format == null) {
            throw new VulkanException(text + ": a texel buffer needs format=FMT");
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(Path.of(parts[0]));
        } catch (IOException e) {
            throw new VulkanException(text + ": cannot read " + parts[0] + " (" + KernelArg.why(e) + ")");
        }
        if (bytes.length == 0 || bytes.length % format.bytesPerTexel() != 0) {
            throw new VulkanException(text + ": " + bytes.length + " bytes is not a whole number of " + format.name()
                    + " texels (" + format.bytesPerTexel() + " bytes each)");
        }
        return new TexelRes(text, bytes, format);
    }

    /** Push constants in order, each at its natural alignment (std430: a 3- or 4-vector at 4 elements). */
    static byte[] pushConstants(List<String> push, long want) throws VulkanException {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        for (String p : push) {
            KernelArg a;
            try {
                a = KernelArg.parse(p);
            } catch (IllegalArgumentException e) {
                throw new VulkanException("--push " + p + ": " + e.getMessage());
            }
            byte[] bytes;
            int align;
            if (a instanceof KernelArg.Word w) {
                bytes = le(w.bits(), 4);
                align = 4;
            } else if (a instanceof KernelArg.DoubleWord d) {
                bytes = le(d.bits(), 8);
                align = 8;
            } else if (a instanceof KernelArg.Value v) {
                bytes = v.bytes();
                int element = KernelArg.elementBytes(v.elementKind());
                align = v.kind().equals("bytes") ? 4 : element * (v.count() == 1 ? 1 : v.count() == 2 ? 2 : 4);
                if (v.count() == 3) {
                    bytes = java.util.Arrays.copyOf(bytes, 3 * element); // std430: a vec3 is 3 elements, aligned as 4
                }
            } else {
                throw new VulkanException("--push " + p + ": push constants are values (u32:, i32:, f32:, u64:, f16:, "
                        + "KINDxN:..., bytes:HEX), not resources");
            }
            int at = (b.position() + align - 1) / align * align;
            if (at + bytes.length > b.capacity()) {
                throw new VulkanException("--push: more than " + b.capacity() + " bytes of push constants");
            }
            b.position(at);
            b.put(bytes);
        }
        int size = b.position();
        if (size != want && !(push.isEmpty() && want == 0)) {
            throw new VulkanException("--push gives " + size + " bytes of push constants, the shader's push-constant block is "
                    + want + " bytes");
        }
        return java.util.Arrays.copyOf(b.array(), size);
    }

    private static byte[] le(long v, int n) {
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
            out[i] = (byte) (v >>> (8 * i));
        }
        return out;
    }

    // ---- the helper's spec (both drivers) ----

    private List<String> spec(SpirvModule module, Map<String, Res> resources, Path spv, String entry, Options o,
                              byte[] push, Path work) throws IOException, VulkanException {
        List<String> lines = new ArrayList<>();
        lines.add("spirv " + spv);
        lines.add("entry " + entry);
        lines.add("groups " + o.groupsX() + " " + o.groupsY() + " " + o.groupsZ());
        if (push.length > 0) {
            Path p = work.resolve("push.bin");
            Files.write(p, push);
            lines.add("push " + push.length + " " + p);
        }
        if (resources.values().stream().anyMatch(r -> r instanceof ImageRes i && i.image().samples() > 1
                || r instanceof CombinedRes c && c.image().samples() > 1)) {
            lines.add("msaa " + msaaHelper("msaa-upload.comp", work) + " " + msaaHelper("msaa-download.comp", work));
        }
        for (SpirvModule.Resource r : module.resources()) {
            if (isArray(r)) {
                // a runtime-sized array the set's variable descriptor count, as a game would allocate it
                lines.add("array " + r.set() + " " + r.binding() + " " + keys(r).size() + " " + (r.count() == 0 ? 1 : 0));
            }
            for (String key : keys(r)) {
                Res res = resources.get(key);
                String element = key.substring(key.indexOf('.') + 1);
                Path data = work.resolve("in-" + r.set() + "-" + element.replace('[', '-').replace("]", "") + ".bin");
                String head = "binding " + r.set() + " " + element + " ";
                if (res instanceof BufferRes b) {
                    Files.write(data, b.bytes());
                    String kind = (b.uniform() ? "uniform-buffer" : "storage-buffer") + (b.dynamic() ? "-dynamic" : "");
                    lines.add(head + kind + " " + b.bytes().length + " " + data + (b.dynamic() ? " " + b.offset() : ""));
                } else if (res instanceof TexelRes t) {
                    Files.write(data, t.bytes());
                    lines.add(head + r.kind().spelling() + " " + vkFormat(t.format(), key) + " " + t.bytes().length + " " + data);
                } else if (res instanceof ImageRes i) {
                    Files.write(data, i.image().texels());
                    lines.add(head + r.kind().spelling() + " " + imageSpec(r, i.image(), key, data));
                    levels(lines, i.image());
                } else if (res instanceof SamplerRes s) {
                    lines.add(head + "sampler " + samplerSpec(s.sampler(), key));
                } else if (res instanceof CombinedRes c) {
                    Files.write(data, c.image().texels());
                    lines.add(head + "combined-image-sampler " + imageSpec(r, c.image(), key, data) + " "
                            + samplerSpec(c.sampler(), key));
                    levels(lines, c.image());
                }
            }
        }
        return lines;
    }

    /** One of the helper's shaders for multisampled images (a resource of model/vulkan), compiled into work. */
    private static Path msaaHelper(String name, Path work) throws IOException, VulkanException {
        Path src = work.resolve(name);
        try (var in = org.replayfarm.model.vulkan.VkTool.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new VulkanException("the Vulkan helper's " + name + " is missing from the classpath");
            }
            Files.write(src, in.readAllBytes());
        }
        Path spv = work.resolve(name + ".spv");
        Files.write(spv, org.replayfarm.model.vulkan.ShaderSource.compile(src, List.of(), List.of(), null, "vulkan1.1"));
        return spv;
    }

    private static String imageSpec(SpirvModule.Resource r, KernelArg.ImageArg i, String key, Path data) throws VulkanException {
        SpirvModule.ImageShape shape = r.image().orElseThrow();
        // VkImageViewType: 1D 0, 2D 1, 3D 2, cube 3 (SPIR-V's Dim numbers too), 1D array 4, 2D array 5, cube array 6
        int viewType = shape.arrayed() ? (shape.dim() == 3 ? 6 : shape.dim() + 4) : shape.dim();
        return vkFormat(i.format(), key) + " " + viewType + " " + i.width() + " " + i.height() + " " + i.depth() + " "
                + i.layers() + " " + i.samples() + " " + i.texels().length + " " + data;
    }

    /** A mipmapped image's level count, on the line after its binding's. */
    private static void levels(List<String> lines, KernelArg.ImageArg i) {
        if (i.mips() > 1) {
            lines.add("levels " + i.mips());
        }
    }

    private static String samplerSpec(KernelArg.SamplerArg s, String key) throws VulkanException {
        SamplerDescriptor d = s.sampler();
        int filter = d.magFilter() == SamplerDescriptor.Filter.BILINEAR ? 1 : 0;
        int min = d.minFilter() == SamplerDescriptor.Filter.BILINEAR ? 1 : 0;
        int[] modes = new int[3];
        SamplerDescriptor.AddressMode[] m = {d.clampX(), d.clampY(), d.clampZ()};
        for (int i = 0; i < 3; i++) {
            modes[i] = switch (m[i]) {
                case WRAP -> 0;
                case MIRROR -> 1;
                case CLAMP_LAST_TEXEL -> 2;
                case CLAMP_BORDER -> 3;
                case MIRROR_ONCE_LAST_TEXEL -> 4;
                default -> throw new VulkanException("binding " + key + ": " + s.text() + ": address mode " + m[i]
                        + " has no Vulkan equivalent for the reference run (use --no-reference)");
            };
        }
        int border = switch (d.borderColor()) {
            case TRANSPARENT_BLACK -> 0;
            case OPAQUE_BLACK -> 2;
            case OPAQUE_WHITE -> 4;
            case REGISTER -> throw new VulkanException("binding " + key + ": a border colour from a register has no "
                    + "Vulkan equivalent");
        };
        // VkSamplerMipmapMode nearest 0, linear 1; the helper's 2 is the S#'s MIP_FILTER none (level 0, maxLod 0.25)
        int mip = switch (d.mipFilter()) {
            case 1 -> 0;
            case 2 -> 1;
            default -> 2;
        };
        return filter + " " + min + " " + mip + " " + modes[0] + " " + modes[1] + " " + modes[2] + " "
                + (d.forceUnnormalized() ? 1 : 0) + " " + border;
    }

    /** The VkFormat of a farm image format (Vulkan specification, enum VkFormat). */
    static int vkFormat(ImageFormat f, String key) throws VulkanException {
        DataFormat d = f.data();
        NumericFormat n = f.numeric();
        int[] base = switch (d) {
            // UNORM, SNORM, USCALED, SSCALED, UINT, SINT, (FLOAT), SRGB: the VkFormat of each, -1 when none
            case FMT_8 -> new int[] {9, 10, 11, 12, 13, 14, -1, 15};
            case FMT_8_8 -> new int[] {16, 17, 18, 19, 20, 21, -1, 22};
            case FMT_8_8_8_8 -> new int[] {37, 38, 39, 40, 41, 42, -1, 43};
            case FMT_16 -> new int[] {70, 71, 72, 73, 74, 75, 76, -1};
            case FMT_16_16 -> new int[] {77, 78, 79, 80, 81, 82, 83, -1};
            case FMT_16_16_16_16 -> new int[] {91, 92, 93, 94, 95, 96, 97, -1};
            case FMT_32 -> new int[] {-1, -1, -1, -1, 98, 99, 100, -1};
            case FMT_32_32 -> new int[] {-1, -1, -1, -1, 101, 102, 103, -1};
            case FMT_32_32_32 -> new int[] {-1, -1, -1, -1, 104, 105, 106, -1};
            case FMT_32_32_32_32 -> new int[] {-1, -1, -1, -1, 107, 108, 109, -1};
            default -> new int[] {-1, -1, -1, -1, -1, -1, -1, -1};
        };
        int column = switch (n) {
            case NUM_UNORM -> 0;
            case NUM_SNORM -> 1;
            case NUM_USCALED -> 2;
            case NUM_SSCALED -> 3;
            case NUM_UINT -> 4;
            case NUM_SINT -> 5;
            case NUM_FLOAT -> 6;
            case NUM_SRGB -> 7;
            default -> -1;
        };
        int v = column < 0 ? -1 : base[column];
        if (v < 0) {
            throw new VulkanException("binding " + key + ": format " + f.name() + " has no Vulkan format the farm maps");
        }
        return v;
    }

    /** The farm format of a VkFormat (the inverse of {@link #vkFormat}). */
    public static ImageFormat formatOfVk(int vk) {
        for (String name : ImageFormat.names()) {
            ImageFormat f = ImageFormat.parse(name);
            try {
                if (vkFormat(f, "") == vk) {
                    return f;
                }
            } catch (VulkanException e) {
                // not this one
            }
        }
        throw new IllegalArgumentException("VkFormat " + vk + " has no farm format");
    }

    // ---- the capture ----

    private Capture.Builder lay(SpirvModule module, SpirvModule.EntryPoint entry, Map<String, Res> resources, byte[] push,
                                RadvBinary radv, Options o, List<String> notes) throws VulkanException {
        int[] size = entry.localSize();
        DispatchShape shape = new DispatchShape(o.groupsX(), o.groupsY(), o.groupsZ(), size[0], size[1], size[2], 3);
        // resources first: buffers and images in guest memory, in set and binding order
        Map<String, Long> bufferAddress = new LinkedHashMap<>();
        Map<String, int[]> descriptorWords = new LinkedHashMap<>();
        List<byte[]> dynamicDescriptors = new ArrayList<>();
        for (SpirvModule.Resource r : module.resources()) {
            for (String key : keys(r)) {
                Res res = resources.get(key);
                if (res instanceof BufferRes b) {
                    long address = addRange("binding " + key + " " + (b.uniform() ? "uniform" : "buffer") + " " + r.name(), b.bytes());
                    rangeOfBinding.put(key, ranges.size() - 1);
                    bufferAddress.put(key, address);
                    int[] v = rawBuffer(address + b.offset(), b.bytes().length - b.offset());
                    if (b.dynamic()) {
                        dynamicDescriptors.add(CaptureBuilder.words(v));
                    } else {
                        descriptorWords.put(key, v);
                    }
                } else if (res instanceof TexelRes t) {
                    long address = addRange("binding " + key + " texel buffer " + r.name(), t.bytes());
                    rangeOfBinding.put(key, ranges.size() - 1);
                    descriptorWords.put(key, texelBuffer(address, t));
                } else if (res instanceof ImageRes i) {
                    int[] tsharp = image(key, r, i.image());
                    descriptorWords.put(key, r.kind() == DescriptorKind.SAMPLED_IMAGE ? concat(tsharp, new int[8]) : tsharp);
                } else if (res instanceof SamplerRes s) {
                    descriptorWords.put(key, s.sampler().sampler().encode());
                } else if (res instanceof CombinedRes c) {
                    int[] tsharp = image(key, r, c.image());
                    int[] all = new int[24];
                    System.arraycopy(tsharp, 0, all, 0, 8);
                    System.arraycopy(c.sampler().sampler().encode(), 0, all, 20, 4);
                    descriptorWords.put(key, all);
                }
            }
        }
        // descriptor sets in RADV's 32-bit space
        Map<Integer, Long> setAddress = new LinkedHashMap<>();
        for (int set : module.resources().stream().map(SpirvModule.Resource::set).distinct().toList()) {
            ByteBuffer mem = ByteBuffer.allocate(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
            int at = 0;
            for (SpirvModule.Resource r : module.resources()) {
                if (r.set() != set) {
                    continue;
                }
                List<String> keys = keys(r);
                if (resources.get(keys.get(0)) instanceof BufferRes b && b.dynamic()) {
                    continue;
                }
                // an array's elements follow one another at the descriptor's size (RadvLayoutGoldenTest)
                int[] sizeAlign = descriptorSizeAlign(r.kind());
                at = (at + sizeAlign[1] - 1) / sizeAlign[1] * sizeAlign[1];
                for (String key : keys) {
                    int[] w = descriptorWords.get(key);
                    if (at + 4 * w.length > mem.capacity()) {
                        throw new VulkanException("descriptor set " + set + " needs more than " + mem.capacity() + " bytes");
                    }
                    for (int k = 0; k < w.length; k++) {
                        mem.putInt(at + 4 * k, w[k]);
                    }
                    at += sizeAlign[0];
                }
            }
            setAddress.put(set, addLowRange("descriptor set " + set, java.util.Arrays.copyOf(mem.array(), Math.max(at, 16))));
        }
        RegisterLayout.Builder registers = RegisterLayout.newBuilder();
        List<UserSgpr> users = new ArrayList<>();
        // the user-data locations RADV reported, each given what RADV would have written there
        for (int s = 0; s < 32; s++) {
            RadvBinary.Slot slot = radv.set(s);
            if (!slot.used()) {
                continue;
            }
            Long address = setAddress.get(s);
            if (address == null) {
                // a set the pipeline layout has but the shader declares nothing in: an empty set
                address = addLowRange("descriptor set " + s + " (empty)", new byte[16]);
                setAddress.put(s, address);
            }
            users.add(user(slot.sgpr(), (int) (long) address));
        }
        for (int d = 0; d < 18; d++) {
            RadvBinary.Slot slot = radv.shaderData(d);
            if (!slot.used()) {
                continue;
            }
            switch (d) {
                case RadvBinary.UD_RING_OFFSETS -> {
                    int perLane = radv.scratchBytesPerWave() / radv.waveSize();
                    byte[] ring = new byte[16 * 8];
                    int[] scratch = CaptureBuilder.scratchResource(perLane, radv.waveSize(), shape);
                    System.arraycopy(CaptureBuilder.words(scratch), 0, ring, 0, 16);
                    long address = addRange("ring offsets (scratch V#)", ring);
                    users.add(user(slot.sgpr(), (int) address));
                    users.add(user(slot.sgpr() + 1, (int) (address >>> 32)));
                }
                case RadvBinary.UD_PUSH_CONSTANTS -> {
                    int padded = (push.length + 15) / 16 * 16;
                    byte[] area = new byte[Math.max(16, padded + 16 * dynamicDescriptors.size())];
                    System.arraycopy(push, 0, area, 0, push.length);
                    for (int k = 0; k < dynamicDescriptors.size(); k++) {
                        System.arraycopy(dynamicDescriptors.get(k), 0, area, padded + 16 * k, 16);
                    }
                    users.add(user(slot.sgpr(), (int) addLowRange("push constants and dynamic descriptors", area)));
                }
                case RadvBinary.UD_INLINE_PUSH_CONSTANTS -> {
                    long mask = radv.inlinePushMask();
                    int sgpr = slot.sgpr();
                    ByteBuffer p = ByteBuffer.wrap(java.util.Arrays.copyOf(push, Math.max(push.length, 4 * 64)))
                            .order(ByteOrder.LITTLE_ENDIAN);
                    for (int dword = 0; dword < 64 && sgpr < slot.sgpr() + slot.count(); dword++) {
                        if ((mask >>> dword & 1) != 0) {
                            users.add(user(sgpr++, p.getInt(4 * dword)));
                        }
                    }
                    if (sgpr != slot.sgpr() + slot.count()) {
                        throw new VulkanException("RADV inlines " + slot.count() + " push-constant dwords but its mask 0x"
                                + Long.toHexString(mask) + " names " + Long.bitCount(mask));
                    }
                }
                case RadvBinary.UD_CS_GRID_SIZE -> {
                    if (slot.count() != 3) {
                        throw new VulkanException("RADV passes the grid size in " + slot.count()
                                + " SGPRs; the farm knows the 3-SGPR form of gfx10.3 only");
                    }
                    users.add(user(slot.sgpr(), o.groupsX()));
                    users.add(user(slot.sgpr() + 1, o.groupsY()));
                    users.add(user(slot.sgpr() + 2, o.groupsZ()));
                }
                default -> throw new VulkanException("RADV uses user-data slot " + d + " (" + slot.count() + " SGPRs at s"
                        + slot.sgpr() + ") that the farm does not know how to fill"
                        + (d == RadvBinary.UD_INDIRECT_DESCRIPTOR_SETS ? " (descriptor sets through one pointer: too many sets)" : ""));
            }
        }
        users.sort(java.util.Comparator.comparingInt(UserSgpr::getIndex));
        registers.addAllUserSgprs(users);
        int sys = radv.userSgprCount();
        SystemSgprKind[] ids = {SystemSgprKind.WORKGROUP_ID_X, SystemSgprKind.WORKGROUP_ID_Y, SystemSgprKind.WORKGROUP_ID_Z};
        for (int dim = 0; dim < 3; dim++) {
            if (radv.workgroupId(dim)) {
                registers.addSystemSgprs(SystemSgpr.newBuilder().setIndex(sys++).setKind(ids[dim]));
            }
        }
        if (radv.tgSize()) {
            registers.addSystemSgprs(SystemSgpr.newBuilder().setIndex(sys++).setKind(SystemSgprKind.WORKGROUP_INFO));
        }
        if (radv.scratchEnabled()) {
            registers.addSystemSgprs(SystemSgpr.newBuilder().setIndex(sys).setKind(SystemSgprKind.PRIVATE_SEGMENT_WAVE_OFFSET));
        }
        WorkItemDimension[] dims = {WorkItemDimension.WORK_ITEM_ID_X, WorkItemDimension.WORK_ITEM_ID_Y,
                WorkItemDimension.WORK_ITEM_ID_Z};
        for (int v = 0; v <= radv.workItemIdComponents() && v < 3; v++) {
            registers.addWorkItemVgprs(WorkItemVgpr.newBuilder().setIndex(v).setDimension(dims[v]));
        }
        int[] code = radv.code();
        byte[] codeBytes = CaptureBuilder.words(code);
        long codeAddress = addRange("code (" + radv.driver() + ")", codeBytes);
        int fm = radv.floatMode();
        FloatMode mode = FloatMode.newBuilder().setIeee(radv.ieeeMode()).setDx10Clamp(radv.dx10Clamp())
                .setRoundF32(RoundMode.forNumber((fm & 3) + 1)).setRoundF16F64(RoundMode.forNumber((fm >>> 2 & 3) + 1))
                .setDenormF32(DenormMode.forNumber((fm >>> 4 & 3) + 1))
                .setDenormF16F64(DenormMode.forNumber((fm >>> 6 & 3) + 1)).build();
        int lds = radv.ldsBytes();
        Program program = Program.newBuilder().setCode(writer.add(codeBytes)).setCodeAddress(codeAddress).setEntryOffset(0)
                .setWaveSize(radv.waveSize()).setVgprCount(Math.min(256, radv.vgprCount()))
                .setSgprCount(CaptureBuilder.GFX10_SGPRS).setLdsBytes(lds)
                .setScratchBytesPerLane(radv.scratchBytesPerWave() / radv.waveSize()).setFloatMode(mode)
                .setKernelName(entry.name()).setComputePgmRsrc1(radv.rsrc1()).setComputePgmRsrc2(radv.rsrc2())
                .setComputePgmRsrc3(radv.rsrc3()).build();
        Dispatch dispatch = Dispatch.newBuilder().setGroupCountX(o.groupsX()).setGroupCountY(o.groupsY())
                .setGroupCountZ(o.groupsZ()).setGroupSizeX(size[0]).setGroupSizeY(size[1]).setGroupSizeZ(size[2]).build();
        return Capture.newBuilder().setProgram(program).setRegisters(registers).setDispatch(dispatch)
                .addAllRanges(ranges).addAllImages(images);
    }

    /** Size and alignment in a RADV 22.3 descriptor set. */
    static int[] descriptorSizeAlign(DescriptorKind kind) {
        return switch (kind) {
            case STORAGE_BUFFER, UNIFORM_BUFFER, UNIFORM_TEXEL_BUFFER, STORAGE_TEXEL_BUFFER, SAMPLER,
                 ACCELERATION_STRUCTURE -> new int[] {16, 16};
            case STORAGE_IMAGE -> new int[] {32, 32};
            case SAMPLED_IMAGE -> new int[] {64, 32};
            case COMBINED_IMAGE_SAMPLER -> new int[] {96, 32};
        };
    }

    /**
     * A raw buffer's V# as RADV writes one on gfx10.3: base, stride 0, NUM_RECORDS the size in bytes,
     * DST_SEL XYZW, FORMAT 32_FLOAT, OOB_SELECT 3 (raw), RESOURCE_LEVEL 1.
     */
    static int[] rawBuffer(long address, long bytes) {
        int w3 = 4 | 5 << 3 | 6 << 6 | 7 << 9 | ImageFormat.parse("32_FLOAT").number() << 12 | 3 << 28 | 1 << 24;
        return new int[] {(int) address, (int) (address >>> 32) & 0xFFFF, (int) Math.min(bytes, 0xFFFF_FFFFL), w3};
    }

    /** A texel buffer's V#: STRIDE the texel size, NUM_RECORDS the texel count, the format's number, OOB_SELECT 1. */
    static int[] texelBuffer(long address, TexelRes t) {
        int stride = t.format().bytesPerTexel();
        int w3 = 4 | 5 << 3 | 6 << 6 | 7 << 9 | t.format().number() << 12 | 1 << 28 | 1 << 24;
        return new int[] {(int) address, (int) (address >>> 32) & 0xFFFF | stride << 16, t.bytes().length / stride, w3};
    }

    private int[] image(String key, SpirvModule.Resource r, KernelArg.ImageArg arg) throws VulkanException {
        SpirvModule.ImageShape shape = r.image().orElseThrow();
        int dim = shape.dim();
        ImageType type = dim == 3 ? ImageType.IMAGE_CUBE : dim == 2 ? ImageType.IMAGE_3D
                : shape.arrayed() ? (dim == 0 ? ImageType.IMAGE_1D_ARRAY : ImageType.IMAGE_2D_ARRAY)
                : dim == 0 ? ImageType.IMAGE_1D : ImageType.IMAGE_2D;
        org.replayfarm.proto.Image.Builder im = org.replayfarm.proto.Image.newBuilder().setIndex(images.size())
                .setGuestAddress(layout.allocate(arg.texels().length)).setType(type)
                .setDataFormat(arg.format().data()).setNumericFormat(arg.format().numeric()).setWidth(arg.width())
                .setHeight(arg.height()).setDepth(arg.depth()).setLayers(arg.layers()).setMipLevels(arg.mips())
                .setSamples(arg.samples() > 1 ? arg.samples() : 0)
                .addAllChannelOrder(java.util.Arrays.asList(arg.order()))
                .setName("binding " + key + " " + r.name());
        long want = org.replayfarm.model.capture.TexelLayout.totalBytes(im.build());
        if (want != arg.texels().length) {
            throw new VulkanException("binding " + key + ": " + arg.texels().length + " bytes of texels, the image needs " + want);
        }
        org.replayfarm.proto.Image image = im.setTexels(writer.add(arg.texels())).build();
        images.add(image);
        imageOfBinding.put(key, image.getIndex());
        return ImageDescriptor.of(image).encode();
    }

    private long addRange(String name, byte[] contents) {
        long address = layout.allocate(contents.length);
        addRangeAt(name, address, contents);
        return address;
    }

    /** A range in RADV's 32-bit space; returns its low 32 bits. */
    private long addLowRange(String name, byte[] contents) {
        long low = nextLow;
        nextLow = (low + contents.length + GuestLayout.GUARD_GAP + GuestLayout.RANGE_ALIGNMENT - 1)
                / GuestLayout.RANGE_ALIGNMENT * GuestLayout.RANGE_ALIGNMENT;
        addRangeAt(name, ADDRESS_32_HIGH << 32 | low, contents);
        return low;
    }

    private void addRangeAt(String name, long address, byte[] contents) {
        ranges.add(MemoryRange.newBuilder().setIndex(ranges.size()).setGuestAddress(address).setSize(contents.length)
                .setInitial(writer.add(contents)).setName(name).build());
    }

    private static UserSgpr user(int index, int value) {
        return UserSgpr.newBuilder().setIndex(index).setValue(value).setRole(UserSgprRole.USER_SGPR_ROLE_UNSPECIFIED).build();
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            });
        } catch (IOException e) {
            // nothing to clean
        }
    }
}
