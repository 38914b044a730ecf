package org.replayfarm.cli.commands;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The dispatch and its kernel arguments, as {@code replay capture build} and {@code native-run} take them. */
public final class DispatchOptions {
    @Option(names = "--groups", paramLabel = "GX[,GY[,GZ]]", description = "Workgroup counts (required, except with --amber: "
            + "the RUN gives them).")
    public String groups;

    @Option(names = "--group-size", paramLabel = "BX[,BY[,BZ]]",
            description = "Work-items per group (required, except for Vulkan shaders: their local_size gives it).")
    public String groupSize;

    @Option(names = "--arg", paramLabel = "KIND:VALUE",
            description = {"Kernel argument, in order: buffer:PATH, zeros:BYTES, u32:N, i32:N, f32:X, u64:N,",
                    "local:BYTES (a __local pointer: BYTES of LDS per group after the kernel's static LDS),",
                    "by value: i8:N u8:N i16:N u16:N f16:X i64:N f64:X, vectors KINDxN:V1,..,VN (N 2, 3, 4, 8, 16; e.g. "
                            + "f32x4:1,2,3,4), bytes:HEX[,type=C-TYPE] (a struct, its bytes in memory order; native-run needs type=),",
                    "image:PNG[,format=FMT][,order=XYZW][,mips=N], image:raw:PATH,WxH[xD],format=FMT[,order=..][,mips=N] (WxHxD: 3D),",
                    "sampler:FILTER,ADDRESS_MODE[,unnormalized][,border=transparent_black|opaque_black|opaque_white]",
                    "bvh:PATH[,return=ij|id] (BVH nodes, root at offset 0; passes its 128-bit descriptor's address),",
                    "(FILTER point|bilinear; ADDRESS_MODE wrap|mirror|clamp|mirror_once|clamp_half_border|"
                            + "mirror_once_half_border|border|mirror_once_border)."})
    public List<String> args = new ArrayList<>();

    /** The parsed dispatch and arguments. */
    public record Parsed(DispatchShape shape, List<KernelArg> args) {
    }

    /** Parses them; a bad value is a usage error naming it. */
    public Parsed parse(CommandSpec spec) {
        if (groups == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--groups=GX[,GY[,GZ]]'");
        }
        if (groupSize == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--group-size=BX[,BY[,BZ]]'");
        }
        try {
            List<KernelArg> kernelArgs = new ArrayList<>();
            for (String a : args) {
                kernelArgs.add(KernelArg.parse(a));
            }
            return new Parsed(DispatchShape.parse(groups, groupSize), List.copyOf(kernelArgs));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
