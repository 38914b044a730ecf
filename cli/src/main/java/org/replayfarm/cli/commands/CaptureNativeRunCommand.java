package org.replayfarm.cli.commands;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.harness.NativeHarness;
import org.replayfarm.cli.harness.NativeImages;

@Command(name = "native-run", mixinStandardHelpOptions = true,
        description = {"Run an OpenCL C or HIP kernel natively: clang-19 builds it for x86-64 with the native harness "
                + "(-O2 -ffp-contract=off as the device build, no fast math, every half operation rounded to half; the "
                + "OpenCL C built-ins and HIP's math over glibc's libm; -D, -I, -include as given, includes also found "
                + "in the source's own folder; -O and --cflag concern the device build only and are accepted so one "
                + "command line serves both; one thread per work-item, a "
                + "group's work-items together so barriers and cross-lane builtins work, groups one after another) and "
                + "runs it on the inputs replay capture build takes. A local: argument is a buffer the group's "
                + "work-items share; a by-value argument is passed with its exact bytes as its OpenCL C type (bytes: needs "
                + ",type=C-TYPE). An image: or sampler: argument goes to the harness's own OpenCL image implementation "
                + "(written from the OpenCL C specification: level 0, linear weights in float, see docs/captures.md).",
                "Writes DIR/guest-<n>.bin for each buffer:/zeros: argument n (the capture's range n) and DIR/image-<k>.raw "
                        + "for image k (its final texels; an image with mips=N is not written): the outputs "
                        + "replay capture add-run attaches as a recorded run."})
final class CaptureNativeRunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "KERNEL.cl|KERNEL.hip")
    Path source;

    @picocli.CommandLine.Mixin
    SourceOptions sourceOptions = new SourceOptions();

    @Option(names = "--wave64", description = "The same as --wave-size 64 (capture build --source's spelling).")
    boolean wave64;

    @Option(names = "--kernel", required = true, paramLabel = "NAME", description = "Kernel function to run.")
    String kernel;

    @picocli.CommandLine.Mixin
    DispatchOptions dispatch = new DispatchOptions();

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where guest-<n>.bin go.")
    Path out;

    @Option(names = "--wave-size", paramLabel = "32|64", defaultValue = "32",
            description = "The wave size of the device build (clang's -mwavefrontsize64 makes 64): cross-lane "
                    + "builtins (readlane, ballot, DPP...) act on waves of this many consecutive work-items. "
                    + "Default: ${DEFAULT-VALUE}.")
    int waveSize;

    @Override
    public Integer call() throws Exception {
        Replay.checkOutDir(spec, out);
        if (wave64) {
            waveSize = 64;
        }
        if (waveSize != 32 && waveSize != 64) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--wave-size is 32 or 64 (RDNA 2 runs waves of 32 or 64 lanes), not " + waveSize);
        }
        DispatchOptions.Parsed parsed = dispatch.parse(spec);
        DispatchShape shape = parsed.shape();
        List<KernelArg> kernelArgs = parsed.args();
        if (!Files.isRegularFile(source)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "no such file: " + source);
        }
        String problem = NativeHarness.unsupported(source, kernel);
        if (problem != null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), problem);
        }
        // the same -D, -I (and the source's own folder) and -include as the device build
        org.replayfarm.model.build.SourceBuild build = sourceOptions.build(spec, source, waveSize == 64);
        boolean hip = build.language() == org.replayfarm.model.build.SourceBuild.Language.HIP;
        Path work = Files.createTempDirectory("replay-native");
        try {
            NativeHarness.writeNativeKernel(work, source);
            Files.createDirectories(out);
            List<String> call = new ArrayList<>();
            List<String> run = new ArrayList<>(List.of(work.resolve("native").toString()));
            int n = 0;
            List<Integer> locals = new ArrayList<>();
            // images follow the buffers in the harness's file list: guest-<n> stays the capture's range n
            int files = (int) kernelArgs.stream().filter(a -> a instanceof KernelArg.Buffer || a instanceof KernelArg.Zeros).count();
            List<String> imageFiles = new ArrayList<>();
            int imageCount = 0;
            for (KernelArg a : kernelArgs) {
                if (a instanceof KernelArg.ImageArg || a instanceof KernelArg.SamplerArg) {
                    if (hip) {
                        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "argument '" + a.describe()
                                + "': native-run implements OpenCL C's images and samplers; a HIP kernel takes none");
                    }
                    try {
                        if (a instanceof KernelArg.ImageArg im) {
                            Path in = work.resolve("image-" + files + ".bin");
                            Files.write(in, NativeImages.levelZero(im));
                            call.add(NativeImages.image(im, files));
                            imageFiles.add(in.toString());
                            // image k's final texels as add-run takes them (level 0: an image with mips is not written back)
                            imageFiles.add((im.mips() == 1 ? out.resolve("image-" + imageCount + ".raw").toAbsolutePath()
                                    : work.resolve("image-out-" + files + ".bin")).toString());
                            files++;
                            imageCount++;
                        } else {
                            call.add(NativeImages.sampler((KernelArg.SamplerArg) a));
                        }
                    } catch (IllegalArgumentException e) {
                        throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
                    }
                    continue;
                }
                if (a instanceof KernelArg.Buffer || a instanceof KernelArg.Zeros) {
                    Path in = work.resolve("in-" + n + ".bin");
                    Files.write(in, a instanceof KernelArg.Buffer b ? b.contents() : new byte[Math.toIntExact(((KernelArg.Zeros) a).bytes())]);
                    call.add("(void *) __replay_buf[" + n + "]");
                    run.add(in.toString());
                    run.add(out.resolve("guest-" + n + ".bin").toAbsolutePath().toString());
                    n++;
                } else if (a instanceof KernelArg.Local l) {
                    call.add("(void *) __replay_local" + locals.size());
                    locals.add(l.bytes());
                } else if (a instanceof KernelArg.Value v) {
                    try {
                        call.add(NativeHarness.byValue(v));
                    } catch (IllegalArgumentException e) {
                        throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
                    }
                } else if (a instanceof KernelArg.Word w) {
                    call.add(switch (w.kind()) {
                        case "f32" -> String.format(Locale.ROOT, "__replay_f32(0x%08xu)", w.bits());
                        case "i32" -> "(int) " + w.bits();
                        default -> "(uint) " + Integer.toUnsignedString(w.bits()) + "u";
                    });
                } else if (a instanceof KernelArg.DoubleWord d) {
                    call.add("(ulong) " + Long.toUnsignedString(d.bits()) + "ul");
                } else {
                    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "argument '" + a.describe()
                            + "': native-run supports buffer:, zeros:, local:, image:, sampler: and by-value arguments");
                }
            }
            run.addAll(imageFiles);
            Files.writeString(work.resolve("prelude.h"), hip ? NativeHarness.hipPrelude() : NativeHarness.prelude());
            if (hip) {
                NativeHarness.writeHipHeaders(work); // the harness's folder is on -I: #include <hip/hip_runtime.h>
            }
            Files.writeString(work.resolve("harness.c"), NativeHarness.source(kernel,
                    new int[] {shape.groupsX(), shape.groupsY(), shape.groupsZ()},
                    new int[] {shape.sizeX(), shape.sizeY(), shape.sizeZ()}, files,
                    locals.stream().mapToInt(Integer::intValue).toArray(), String.join(", ", call), true));
            try {
                Llvm.run(NativeHarness.compileCommand(work, waveSize, shape.dimensions(), hip, build.commonFlags(source)));
            } catch (java.io.IOException e) {
                // clang's errors name the harness's generated files: the user's source by its name, the rest not at all
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "the native build of " + source
                        + " failed: " + NativeHarness.firstError(e.getMessage(), work, source));
            }
            Llvm.run(run);
            spec.commandLine().getOut().printf("ran %s natively (x86-64, clang-19): %d buffer(s)%s in %s%n", kernel, n,
                    imageCount > 0 ? ", " + imageCount + " image(s)" : "", out);
            if (kernelArgs.stream().anyMatch(NativeImages::filtersLinearly)) {
                spec.commandLine().getOut().println(NativeImages.LINEAR_HINT);
            }
        } finally {
            RunCommand.deleteTree(work);
        }
        return Replay.EXIT_OK;
    }
}
