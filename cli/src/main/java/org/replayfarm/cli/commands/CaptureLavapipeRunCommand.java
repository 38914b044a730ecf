package org.replayfarm.cli.commands;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.replayfarm.model.build.VulkanBuild;
import org.replayfarm.model.vulkan.ShaderSource;
import org.replayfarm.model.vulkan.VulkanException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.vulkan.VulkanShaders;

@Command(name = "lavapipe-run", mixinStandardHelpOptions = true,
        description = {"Run a Vulkan compute shader on lavapipe (Mesa's CPU Vulkan driver) with the inputs replay capture "
                + "build --source takes: the reference alone, computed by a compiler and machine model independent of "
                + "RADV, ACO and the host model.",
                "Writes DIR/guest-<n>.bin for each buffer binding (the capture's range n: buffers and texel buffers in "
                        + "set and binding order) and DIR/image-<m>.raw for each image binding (image m, in the same order)."})
final class CaptureLavapipeRunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "SHADER", description = "FILE.comp|.glsl|.hlsl|.spvasm|.spv")
    Path source;

    @picocli.CommandLine.Mixin
    SourceOptions sourceOptions = new SourceOptions();

    @Option(names = "--groups", required = true, paramLabel = "GX[,GY[,GZ]]", description = "Workgroup counts.")
    String groups;

    @Option(names = "--entry", paramLabel = "NAME", description = "The compute entry point (default: the only one).")
    String entry;

    @Option(names = "--binding", paramLabel = "SET.BINDING=KIND:VALUE", description = "As capture build takes it (repeatable).")
    List<String> bindings = new ArrayList<>();

    @Option(names = "--push", paramLabel = "KIND:VALUE", description = "As capture build takes it (repeatable, in order).")
    List<String> push = new ArrayList<>();

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where guest-<n>.bin and image-<m>.raw go (what capture add-run attaches).")
    Path out;

    @Override
    public Integer call() throws Exception {
        Replay.checkOutDir(spec, out);
        if (!ShaderSource.isShader(source)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), source
                    + ": not a Vulkan shader (.comp, .glsl, .hlsl, .spvasm, .spv); OpenCL C and HIP run with capture native-run");
        }
        VulkanBuild.Options options = VulkanShaders.options(spec, "aco", false, false, entry, groups, bindings, push, true);
        try {
            byte[] spirv = ShaderSource.compile(source, sourceOptions.defines, sourceOptions.includeDirs, entry);
            VulkanBuild.Outputs outputs = VulkanBuild.lavapipeOutputs(spirv, options);
            Files.createDirectories(out);
            for (Map.Entry<String, Integer> e : outputs.ranges().entrySet()) {
                Path f = out.resolve("guest-" + e.getValue() + ".bin");
                Files.write(f, outputs.bytes().get(e.getKey()));
                spec.commandLine().getOut().printf("binding %s -> %s%n", e.getKey(), f);
            }
            for (Map.Entry<String, Integer> e : outputs.images().entrySet()) {
                Path f = out.resolve("image-" + e.getValue() + ".raw");
                Files.write(f, outputs.bytes().get(e.getKey()));
                spec.commandLine().getOut().printf("binding %s -> %s%n", e.getKey(), f);
            }
            spec.commandLine().getOut().printf("ran on %s%n", outputs.label());
            return Replay.EXIT_OK;
        } catch (VulkanException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
