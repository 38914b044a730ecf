package org.replayfarm.cli.commands;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.build.SourceBuild;
import org.replayfarm.model.elf.OffloadBundle;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.Sha256;
import org.replayfarm.model.elf.ElfFile;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.SourceFile;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.harness.NativeHarness;
import org.replayfarm.cli.vulkan.VulkanShaders;

@Command(name = "build", mixinStandardHelpOptions = true,
        description = {"Build a capture from a kernel source (OpenCL C or HIP, compiled with the project's flow), an HSA "
                + "code object (clang-19, gfx1030; a clang offload bundle or HIP fat binary gives its gfx1030 code object) "
                + "or gfx1030 assembly.",
                "Each buffer:/zeros: argument becomes a memory range (0, 1, 2... in order) and passes its "
                        + "guest address; image:/sampler: arguments add a descriptor range each (T#, S#) after them, "
                        + "images numbered 0, 1, 2... in order; the kernarg segment, dispatch packet and loaded "
                        + "code object follow."})
public final class CaptureBuildCommand implements Callable<Integer> {
    @Spec
    public CommandSpec spec;

    public static final class Input {
        @Option(names = "--elf", paramLabel = "K.o", description = "HSA code object (relocatable or linked).")
        public Path elf;
        @Option(names = "--asm", paramLabel = "FILE.s", description = "gfx1030 assembly, assembled with llvm-mc-19.")
        public Path asm;
        @Option(names = "--source", paramLabel = "FILE", description = {"A kernel source, compiled with the "
                + "project's flow: FILE.cl or FILE.hip with clang-19 for gfx1030 with -ffp-contract=off, ROCm's device "
                + "libraries (the OpenCL C built-ins, ocml math) and, for HIP, the replay-hip.h prelude; the flags go into "
                + "the provenance.",
                "Or a Vulkan compute shader: FILE.comp|.glsl|.hlsl (glslang), FILE.spvasm (spirv-as) or FILE.spv, compiled "
                        + "by RADV's null navi21 device (Mesa's ACO, or LLVM with --compiler llvm) and launched as RADV "
                        + "lays it out: descriptor sets from --binding, push constants from --push; lavapipe's run of the "
                        + "same SPIR-V is recorded as the reference."})
        public Path source;
        @Option(names = "--amber", paramLabel = "FILE.amber", description = "An Amber script: the capture of one of its "
                + "compute RUNs (--run N), built as replay amber builds it, lavapipe's run recorded as its reference.")
        public Path amber;
    }

    @Option(names = "--run", paramLabel = "N", defaultValue = "0",
            description = "--amber: which compute RUN of the script, from 1 (default: the only one).")
    public int run;

    @ArgGroup(exclusive = true, multiplicity = "1")
    public Input input;

    @Option(names = "--kernel", paramLabel = "NAME", description = "Kernel to launch (its descriptor NAME.kd).")
    public String kernel;

    @picocli.CommandLine.Mixin
    public DispatchOptions dispatch = new DispatchOptions();

    @Option(names = {"-o", "--out"}, required = true, paramLabel = "OUT.capture", description = "Capture to write.")
    public Path out;

    @picocli.CommandLine.Mixin
    public SourceOptions sourceOptions = new SourceOptions();

    @Option(names = "--wave64", description = "--source and --asm: compile or assemble for wave64 (an --elf object's descriptor says its own).")
    public boolean wave64;

    @Option(names = "--wave-size", paramLabel = "32|64", description = "The same as --wave32 / --wave64 (capture native-run's spelling).")
    public void waveSize(int n) {
        Replay.checkWaveSize(spec, n);
        wave64 |= n == 64;
        wave32 |= n == 32;
    }

    @Option(names = "--wave32", description = "Vulkan shaders: compile for wave32 (RADV's default for compute is wave64).")
    public boolean wave32;

    @Option(names = "--native-run", description = "OpenCL C and HIP sources: also run the kernel natively on this "
            + "machine (replay capture native-run with the same source, kernel, dispatch, arguments and flags) and "
            + "attach its outputs to the capture as the recorded run '" + CaptureBuildCommand.NATIVE_LABEL
            + "' (capture add-run), so the argument list is typed once.")
    public boolean nativeRun;

    /** The label of the native run --native-run attaches (the one the examples' BUILD files give add-run). */
    public static final String NATIVE_LABEL = "native x86-64 (clang-19)";

    /** The options of a --source build that capture native-run takes as they were given (the rest are the device's). */
    private static final java.util.Set<String> NATIVE_OPTIONS = java.util.Set.of("-O", "-D", "-I", "-include", "--cflag",
            "--groups", "--group-size", "--arg", "--kernel", "--wave64", "--wave-size");

    @Option(names = "--compiler", paramLabel = "aco|llvm", defaultValue = "aco",
            description = "Vulkan shaders: RADV's compiler, ACO (default) or LLVM (RADV_DEBUG=llvm).")
    public String compiler;

    @Option(names = "--entry", paramLabel = "NAME", description = "Vulkan shaders: the compute entry point (default: the only one).")
    public String entry;

    @Option(names = "--binding", paramLabel = "SET.BINDING=KIND:VALUE",
            description = {"Vulkan shaders: the resource of a descriptor binding (repeatable): buffer:PATH, zeros:BYTES, "
                    + "uniform:PATH (a uniform buffer), dynamic-buffer:PATH[,offset=N], dynamic-uniform:PATH[,offset=N], "
                    + "texel-buffer:PATH,format=FMT, image:... and sampler:... as --arg takes them; a combined "
                    + "image-sampler is given twice, once image:..., once sampler:...."})
    public List<String> bindings = new java.util.ArrayList<>();

    @Option(names = "--push", paramLabel = "KIND:VALUE",
            description = "Vulkan shaders: push constants in order, each at its std430 alignment (the --arg value kinds: "
                    + "u32:, i32:, f32:, u64:, f16:, f64:, KINDxN:..., bytes:HEX).")
    public List<String> push = new java.util.ArrayList<>();

    @Option(names = "--no-reference", description = "Vulkan shaders: do not run the shader on lavapipe for the reference run.")
    public boolean noReference;

    @Option(names = "--user-sgpr", paramLabel = "N=VALUE",
            description = "Assembly without a kernel descriptor: the value sN starts with (repeatable).")
    public Map<Integer, String> userSgprs = new LinkedHashMap<>();

    @Option(names = "--kernarg-sgpr", paramLabel = "N",
            description = "Assembly without a kernel descriptor: s[N:N+1] gets the kernarg address (default 0 when --arg is given).")
    public Integer kernargSgpr;

    @Option(names = "--workgroup-id-sgpr", paramLabel = "N",
            description = "Assembly without a kernel descriptor: workgroup ids x, y, z in sN..sN+2 (default: after the user SGPRs).")
    public Integer workgroupIdSgpr;

    @Option(names = "--vgprs", defaultValue = "256", description = "Assembly without a kernel descriptor: VGPRs per lane (default ${DEFAULT-VALUE}).")
    public int vgprs;

    @Option(names = "--sgprs", defaultValue = "106", description = "Assembly without a kernel descriptor: SGPRs (default ${DEFAULT-VALUE}).")
    public int sgprs;

    @Option(names = "--lds", defaultValue = "0", paramLabel = "BYTES", description = "Assembly without a kernel descriptor: LDS bytes per group.")
    public int lds;

    @Option(names = "--scratch", defaultValue = "0", paramLabel = "BYTES", description = "Assembly without a kernel descriptor: scratch bytes per lane.")
    public int scratch;

    @Override
    public Integer call() throws Exception {
        if (wave32 && wave64) {
            throw new ParameterException(spec.commandLine(), "--wave32 and --wave64 (or --wave-size) exclude each other");
        }
        // the register file and memory sizes of a raw layout: a negative one read back as 4294967295 in the error
        int[] sizes = {vgprs, sgprs, lds, scratch};
        String[] names = {"--vgprs", "--sgprs", "--lds", "--scratch"};
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 0) {
                throw new ParameterException(spec.commandLine(), names[i] + " " + sizes[i] + ": must not be negative");
            }
        }
        if (nativeRun && (input.source == null || org.replayfarm.model.vulkan.ShaderSource.isShader(input.source))) {
            throw new ParameterException(spec.commandLine(), "--native-run runs an OpenCL C or HIP --source natively; "
                    + (input.source != null || input.amber != null ? "a Vulkan shader's reference is its lavapipe run, "
                    + "recorded unless --no-reference" : "an object or assembly has no source to build for this machine"));
        }
        if (input.amber != null) {
            return AmberCommand.buildCapture(spec, input.amber, run, compiler, wave32, wave64, !noReference, out);
        }
        if (input.source != null && org.replayfarm.model.vulkan.ShaderSource.isShader(input.source)) {
            return VulkanShaders.build(spec, this);
        }
        DispatchOptions.Parsed parsed = dispatch.parse(spec);
        DispatchShape shape = parsed.shape();
        List<KernelArg> kernelArgs = parsed.args();
        Path source = input.elf != null ? input.elf : input.asm != null ? input.asm : input.source;
        if (!Files.isRegularFile(source)) {
            throw new ParameterException(spec.commandLine(), "no such file: " + source);
        }
        byte[] sourceBytes = Files.readAllBytes(source);
        SourceBuild build = null;
        byte[] object;
        if (input.source != null) {
            String printf = printfLines(input.source);
            if (!printf.isEmpty()) {
                // clang-19 lowers printf to hostcalls through a buffer a replay does not have: it built, then faulted
                throw new ParameterException(spec.commandLine(), input.source.getFileName() + " calls printf, which a "
                        + "replay cannot run (the kernel writes its output through a printf or hostcall buffer the "
                        + "dispatch does not have, a null pointer); remove the call" + printf);
            }
            build = sourceOptions.build(spec, input.source, wave64);
            object = compile(build, input.source);
        } else {
            object = input.elf != null ? sourceBytes : Llvm.assemble(input.asm, wave64);
        }
        // a clang offload bundle or a HIP fat binary: the gfx1030 code object inside it
        java.util.Optional<OffloadBundle.Picked> picked = OffloadBundle.unpack(object);
        if (picked.isPresent()) {
            object = picked.get().codeObject();
            if (input.source == null) {
                spec.commandLine().getOut().println(source + ": " + picked.get().describe());
            }
        }
        Provenance provenance = provenance(source, sourceBytes, kernelArgs, build);
        Path debugObject = null;
        if (input.source != null && ElfFile.parse(object).section(".debug_line").isPresent()) {
            // a -g build: its line table is kept beside the capture and named in the provenance, where explain (and
            // explain --first-divergence) find it, so a difference is shown with its source line by default
            String stem = out.getFileName().toString().replaceFirst("\\.capture$", "");
            debugObject = out.toAbsolutePath().resolveSibling(stem + ".debug.o");
            provenance = provenance.toBuilder().addSources(SourceFile.newBuilder()
                    .setName(debugObject.getFileName().toString()).setSha256Hex(Sha256.hex(Sha256.of(object)))).build();
        }

        List<String> kernels = CaptureBuilder.kernelNames(ElfFile.parse(object));
        String name = kernel;
        if (name != null && !kernels.contains(name)) {
            // a C++ (HIP) kernel's symbol is mangled: --kernel NAME takes its plain name when one kernel has it
            String plain = name;
            List<String> matching = kernels.stream().filter(k -> baseName(k).equals(plain)).toList();
            if (matching.size() == 1) {
                name = matching.get(0);
            } else if (matching.size() > 1) {
                throw new ParameterException(spec.commandLine(), "several kernels are named " + plain + " ("
                        + String.join(", ", matching) + "); give --kernel the mangled name of one");
            }
        }
        if (name == null && kernels.size() == 1) {
            name = kernels.get(0);
        }
        if (name == null && !kernels.isEmpty()) {
            throw new ParameterException(spec.commandLine(), source + " defines several kernels ("
                    + String.join(", ", kernels) + "); choose one with --kernel");
        }
        CaptureBuilder.Built built;
        if (name != null) {
            try {
                built = CaptureBuilder.fromCodeObject(object, name, shape, kernelArgs, provenance);
            } catch (org.replayfarm.model.elf.CodeObjectException e) {
                if (input.source != null && e.getMessage().contains("calls printf")) {
                    throw new ParameterException(spec.commandLine(), e.getMessage() + printfLines(input.source));
                }
                throw e;
            }
        } else {
            if (input.elf != null) {
                throw new ParameterException(spec.commandLine(), source + " defines no kernel descriptor (*.kd)");
            }
            Map<Integer, Integer> values = new LinkedHashMap<>();
            for (var e : userSgprs.entrySet()) {
                long v;
                try {
                    v = Long.decode(e.getValue());
                } catch (NumberFormatException bad) {
                    v = -1;
                }
                if (v < Integer.MIN_VALUE || v > 0xFFFF_FFFFL || !e.getValue().matches("-?(0[xX][0-9a-fA-F]+|\\d+)")) {
                    throw new ParameterException(spec.commandLine(), "--user-sgpr " + e.getKey() + "=" + e.getValue()
                            + ": the value must be a 32-bit number (decimal or 0x hex)");
                }
                values.put(e.getKey(), (int) v);
            }
            RawLayout raw = new RawLayout(wave64 ? 64 : 32, vgprs, sgprs, lds, scratch, values,
                    kernargSgpr == null ? OptionalInt.empty() : OptionalInt.of(kernargSgpr),
                    workgroupIdSgpr == null ? OptionalInt.empty() : OptionalInt.of(workgroupIdSgpr));
            built = CaptureBuilder.fromRawCode(object, raw, shape, kernelArgs, provenance);
        }
        built.write(out);
        CaptureFile written = CaptureFile.open(out);
        spec.commandLine().getOut().printf("wrote %s: %d bytes, sha256 %s%n", out, Files.size(out), written.identity());
        if (debugObject != null) {
            Files.write(debugObject, object);
            spec.commandLine().getOut().printf("wrote %s: the code object with its line table (replay explain shows "
                    + "source lines from it)%n", debugObject);
        }
        if (nativeRun) {
            return runNatively(name);
        }
        return Replay.EXIT_OK;
    }

    /** The lines of a kernel source that call printf, as {@code : FILE:LINE: text; ...}, or "" when none is found. */
    public static String printfLines(Path source) {
        List<String> found = new java.util.ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(source);
            for (int i = 0; i < lines.size() && found.size() < 8; i++) {
                String code = lines.get(i).replaceAll("//.*", "").replaceAll("/\\*.*?\\*/", "");
                if (code.matches(".*\\bprintf\\s*\\(.*")) {
                    found.add(source.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return "";
        }
        return found.isEmpty() ? "" : " (" + String.join("; ", found) + ")";
    }

    /** The function name of a kernel symbol: {@code scale} for {@code _Z5scalePfjf}, the symbol itself when not mangled. */
    public static String baseName(String symbol) {
        String spelled = org.replayfarm.model.elf.OpenClNames.demangle(symbol);
        int paren = spelled.indexOf('(');
        return paren < 0 ? spelled : spelled.substring(0, paren);
    }

    /** Compiles a kernel source with the project's flow ({@link SourceBuild}) and returns the object's bytes. */
    public static byte[] compile(SourceBuild build, Path source) throws java.io.IOException {
        Path work = Files.createTempDirectory("replay-source");
        try {
            Path prelude = work.resolve("replay-hip.h");
            Files.writeString(prelude, NativeHarness.resource("replay-hip.h"));
            NativeHarness.writeHipHeaders(work); // #include <hip/hip_runtime.h>: -I beside the prelude
            Path out = work.resolve("kernel.o");
            List<String> cmd;
            try {
                cmd = build.deviceCommand(source, out, prelude);
            } catch (IllegalStateException e) {
                throw new java.io.IOException(e.getMessage());
            }
            Llvm.run(cmd);
            return Files.readAllBytes(out);
        } finally {
            RunCommand.deleteTree(work);
        }
    }

    /** What built the capture, with file names only, so the same inputs give the same bytes anywhere. */
    private Provenance provenance(Path source, byte[] sourceBytes, List<KernelArg> kernelArgs, SourceBuild build) {
        Provenance.Builder p = Provenance.newBuilder().setTool("replay capture build");
        p.addSources(SourceFile.newBuilder().setName(source.getFileName().toString())
                .setSha256Hex(Sha256.hex(Sha256.of(sourceBytes))));
        for (KernelArg a : kernelArgs) {
            if (a instanceof KernelArg.Buffer b) {
                p.addSources(SourceFile.newBuilder().setName(b.path().getFileName().toString())
                        .setSha256Hex(Sha256.hex(Sha256.of(b.contents()))));
            } else if (a instanceof KernelArg.Bvh v) {
                p.addSources(SourceFile.newBuilder().setName(v.path().getFileName().toString())
                        .setSha256Hex(Sha256.hex(Sha256.of(v.nodes()))));
            } else if (a instanceof KernelArg.ImageArg i) {
                p.addSources(SourceFile.newBuilder().setName(i.path().getFileName().toString())
                        .setSha256Hex(Sha256.hex(Sha256.of(i.texels()))));
            }
        }
        p.addArguments(input.elf != null ? "--elf" : input.asm != null ? "--asm" : "--source")
                .addArguments(source.getFileName().toString());
        if (build != null) {
            // the compile options, and what they mean: the device libraries and the contraction setting
            build.describe().forEach(p::addArguments);
        }
        if (kernel != null) {
            p.addArguments("--kernel").addArguments(kernel);
        }
        p.addArguments("--groups").addArguments(dispatch.groups).addArguments("--group-size").addArguments(dispatch.groupSize);
        for (KernelArg a : kernelArgs) {
            p.addArguments("--arg").addArguments(a.describe());
        }
        if (wave64 && build == null) {
            p.addArguments("--wave64");
        }
        userSgprs.forEach((k, v) -> p.addArguments("--user-sgpr").addArguments(k + "=" + v));
        if (kernargSgpr != null) {
            p.addArguments("--kernarg-sgpr").addArguments(kernargSgpr.toString());
        }
        if (workgroupIdSgpr != null) {
            p.addArguments("--workgroup-id-sgpr").addArguments(workgroupIdSgpr.toString());
        }
        return p.build();
    }

    /**
     * --native-run: capture native-run with the options of this command line that it takes, as they were given, into
     * a temporary folder, then capture add-run attaching its outputs to the capture just written. The capture stays
     * written when the native run fails; the error says so.
     */
    private int runNatively(String kernelName) throws java.io.IOException {
        Path folder = Files.createTempDirectory("replay-native-run");
        try {
            List<String> args = new java.util.ArrayList<>(List.of("capture", "native-run", input.source.toString()));
            boolean kernelGiven = false;
            // an option given N times is matched N times, each with all its values: once each
            for (picocli.CommandLine.Model.OptionSpec o : new java.util.LinkedHashSet<>(
                    spec.commandLine().getParseResult().matchedOptions())) {
                String option = o.longestName();
                if (!NATIVE_OPTIONS.contains(option)) {
                    continue;
                }
                kernelGiven |= option.equals("--kernel");
                if (o.arity().max() == 0) {
                    args.add(option); // a flag (--wave64)
                    continue;
                }
                for (String value : o.originalStringValues()) {
                    args.add(option);
                    args.add(value);
                }
            }
            if (!kernelGiven) {
                args.add("--kernel");
                args.add(baseName(kernelName)); // the one kernel the source defines
            }
            args.add("--out");
            args.add(folder.resolve("out").toString());
            picocli.CommandLine line = Replay.commandLine("capture");
            line.setOut(spec.commandLine().getOut());
            line.setErr(spec.commandLine().getErr());
            int ran = line.execute(args.toArray(String[]::new));
            if (ran != Replay.EXIT_OK) {
                spec.commandLine().getErr().printf("replay capture build: %s is written; its native run failed (above), "
                        + "so no run is attached%n", out);
                return ran;
            }
            picocli.CommandLine attach = Replay.commandLine("capture");
            attach.setOut(spec.commandLine().getOut());
            attach.setErr(spec.commandLine().getErr());
            return attach.execute("capture", "add-run", out.toString(), "--label", NATIVE_LABEL, "--from",
                    folder.resolve("out").toString(), "--replace");
        } finally {
            RunCommand.deleteTree(folder);
        }
    }
}
