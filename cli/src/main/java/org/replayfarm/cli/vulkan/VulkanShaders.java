package org.replayfarm.cli.vulkan;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.replayfarm.model.build.VulkanBuild;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.Sha256;
import org.replayfarm.model.vulkan.ShaderSource;
import org.replayfarm.model.vulkan.VulkanException;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.SourceFile;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.commands.CaptureBuildCommand;

/** {@code replay capture build --source SHADER}: a Vulkan compute shader through RADV into a device-addressed capture. */
public final class VulkanShaders {
    private VulkanShaders() {
    }

    public static int build(CommandSpec spec, CaptureBuildCommand c) throws Exception {
        Path source = c.input.source;
        if (c.dispatch.groups == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--groups=GX[,GY[,GZ]]'");
        }
        VulkanBuild.Options options = options(spec, c.compiler, c.wave32, c.wave64, c.entry, c.dispatch.groups,
                c.bindings, c.push, !c.noReference);
        if (c.dispatch.groupSize != null) {
            throw new ParameterException(spec.commandLine(), "--group-size: a Vulkan shader's local_size gives its group size");
        }
        if (!c.dispatch.args.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--arg: a Vulkan shader takes --binding and --push, not --arg");
        }
        byte[] sourceBytes = Files.isRegularFile(source) ? Files.readAllBytes(source) : new byte[0];
        try {
            byte[] spirv = ShaderSource.compile(source, c.sourceOptions.defines, c.sourceOptions.includeDirs, c.entry);
            Provenance.Builder p = Provenance.newBuilder().setTool("replay capture build");
            p.addSources(SourceFile.newBuilder().setName(source.getFileName().toString())
                    .setSha256Hex(Sha256.hex(Sha256.of(sourceBytes))));
            p.addArguments("--source").addArguments(source.getFileName().toString());
            c.sourceOptions.defines.forEach(d -> p.addArguments("-D" + d));
            p.addArguments("--groups").addArguments(c.dispatch.groups);
            for (String b : c.bindings) {
                p.addArguments("--binding").addArguments(withoutFolders(b, p));
            }
            for (String v : c.push) {
                p.addArguments("--push").addArguments(v);
            }
            VulkanBuild.Result result = VulkanBuild.build(spirv, options, p.build());
            result.built().write(c.out);
            CaptureFile written = CaptureFile.open(c.out);
            var out = spec.commandLine().getOut();
            out.printf("%s: %s, %s, wave%d, %d instructions; %s%n", source.getFileName(), result.radv().driver(),
                    options.compiler().name().toLowerCase(Locale.ROOT), result.radv().waveSize(),
                    result.radv().assembly().size(),
                    options.reference() ? "reference run: " + result.built().metadata().getRuns(0).getLabel() : "no reference run");
            result.notes().forEach(out::println);
            out.printf("wrote %s: %d bytes, sha256 %s%n", c.out, Files.size(c.out), written.identity());
            return Replay.EXIT_OK;
        } catch (VulkanException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /**
     * A binding as the provenance keeps it: the file's name without its folder (so the same inputs give the same
     * capture anywhere), and the file itself named among the sources with its SHA-256.
     */
    static String withoutFolders(String binding, Provenance.Builder p) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("(\\d+\\.\\d+(?:\\[\\d+\\])?=(?:buffer|uniform|dynamic-buffer|dynamic-uniform|texel-buffer|image:raw|image):)([^,]*)(.*)")
                .matcher(binding);
        if (!m.matches()) {
            return binding;
        }
        Path file = Path.of(m.group(2));
        try {
            if (Files.isRegularFile(file)) {
                p.addSources(SourceFile.newBuilder().setName(file.getFileName().toString())
                        .setSha256Hex(Sha256.hex(Sha256.of(Files.readAllBytes(file)))));
            }
        } catch (java.io.IOException e) {
            // the build reads it again and names the problem
        }
        return m.group(1) + file.getFileName() + m.group(3);
    }

    public static VulkanBuild.Options options(CommandSpec spec, String compiler, boolean wave32, boolean wave64, String entry,
                                       String groups, List<String> bindings, List<String> push, boolean reference) {
        VulkanBuild.Compiler comp = switch (compiler.toLowerCase(Locale.ROOT)) {
            case "aco" -> VulkanBuild.Compiler.ACO;
            case "llvm" -> VulkanBuild.Compiler.LLVM;
            default -> throw new ParameterException(spec.commandLine(), "--compiler " + compiler + ": aco or llvm");
        };
        if (wave32 && wave64) {
            throw new ParameterException(spec.commandLine(), "--wave32 and --wave64 exclude each other");
        }
        String[] g = groups.split(",", -1);
        int[] counts = {1, 1, 1};
        if (g.length > 3) {
            throw new ParameterException(spec.commandLine(), "--groups takes 1 to 3 comma-separated counts, got '" + groups + "'");
        }
        for (int i = 0; i < g.length; i++) {
            try {
                counts[i] = Integer.parseInt(g[i].trim());
            } catch (NumberFormatException e) {
                counts[i] = 0;
            }
            if (counts[i] < 1) {
                throw new ParameterException(spec.commandLine(), "--groups: '" + g[i] + "' is not a positive count");
            }
        }
        List<VulkanBuild.BindingArg> parsed = new ArrayList<>();
        for (String b : bindings) {
            try {
                parsed.add(VulkanBuild.BindingArg.parse(b));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        return new VulkanBuild.Options(comp, wave32 ? 32 : wave64 ? 64 : 0, entry, counts[0], counts[1], counts[2], parsed,
                push, reference);
    }
}
