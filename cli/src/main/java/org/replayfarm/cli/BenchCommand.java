package org.replayfarm.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Provenance;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure the host model on one core: wave- and lane-instructions per second on an ALU-heavy "
                + "and a memory-heavy kernel, and the ratio of its time to the same kernel compiled natively "
                + "(clang-19, x86-64) and run in one thread. Prints figures; asserts nothing."})
final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--groups", defaultValue = "8", description = "Groups of 64 work-items per kernel (default ${DEFAULT-VALUE}).")
    int groups;

    @Option(names = "--rounds", defaultValue = "2000", description = "Loop trips per work-item (default ${DEFAULT-VALUE}).")
    int rounds;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path dir = Files.createTempDirectory("replay-bench");
        out.printf(Locale.ROOT, "%-8s %12s %14s %16s %10s %10s %8s%n", "kernel", "wave instr", "wave instr/s",
                "lane instr/s", "host s", "native s", "ratio");
        bench("alu", dir, out, List.of("zeros:" + groups * 64 * 4, "u32:" + rounds), "(void *) __replay_buf[0], "
                + rounds + "u");
        byte[] table = new byte[4096 * 4];
        for (int i = 0; i < 4096; i++) {
            int v = (int) (i * 2654435761L >>> 7); // a scrambled permutation-like walk over the table
            table[4 * i] = (byte) v;
            table[4 * i + 1] = (byte) (v >>> 8);
        }
        Files.write(dir.resolve("table.bin"), table);
        bench("memory", dir, out, List.of("buffer:" + dir.resolve("table.bin"), "zeros:" + 16384 * 4, "u32:" + rounds),
                "(void *) __replay_buf[0], (void *) __replay_buf[1], " + rounds + "u");
        out.flush();
        return Replay.EXIT_OK;
    }

    private void bench(String name, Path root, PrintWriter out, List<String> args, String callArgs) throws Exception {
        Path dir = Files.createDirectories(root.resolve(name));
        try (InputStream in = BenchCommand.class.getResourceAsStream("bench/" + name + ".cl")) {
            Files.write(dir.resolve("kernel.cl"), in.readAllBytes());
        }
        Llvm.run(List.of("clang-19", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-nogpulib",
                "-O2", "-ffp-contract=off", "-c", dir.resolve("kernel.cl").toString(), "-o", dir.resolve("kernel.o").toString()));
        List<KernelArg> kernelArgs = new ArrayList<>();
        for (String a : args) {
            kernelArgs.add(KernelArg.parse(a));
        }
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(dir.resolve("kernel.o")), name,
                new DispatchShape(groups, 1, 1, 64, 1, 1, 1), kernelArgs, Provenance.newBuilder().setTool("replay bench").build());
        Path capture = dir.resolve("k.capture");
        built.write(capture);
        Kernel kernel = new Kernel(CaptureFile.open(capture));
        List<int[]> all = GroupSelection.everyGroup().resolve(kernel.dispatch());
        Evaluation.run(kernel, all.subList(0, 1), 1, HostModel.DEFAULT_BUDGET, done -> { }); // warm-up
        Evaluation.Outcome o = Evaluation.run(kernel, all, 1, HostModel.DEFAULT_BUDGET, done -> { });
        if (!o.faults().isEmpty()) {
            throw new IllegalStateException(name + ": the host model faulted: " + o.faults().get(0));
        }
        double hostSeconds = o.wallTime().toNanos() / 1e9;
        // the same source natively, one thread, work-items one after another
        Files.writeString(dir.resolve("prelude.h"), NativeHarness.prelude());
        int buffers = (int) args.stream().filter(a -> a.startsWith("buffer:") || a.startsWith("zeros:")).count();
        Files.writeString(dir.resolve("harness.c"), NativeHarness.source(name, new int[] {groups, 1, 1},
                new int[] {64, 1, 1}, buffers, callArgs, false));
        Llvm.run(NativeHarness.compileCommand(dir, 32, 1)); // a 1-D dispatch of wave32 groups
        List<String> run = new ArrayList<>(List.of(dir.resolve("native").toString()));
        for (int i = 0; i < buffers; i++) {
            Path in = dir.resolve("in" + i + ".bin");
            String a = args.get(i);
            Files.write(in, a.startsWith("buffer:") ? Files.readAllBytes(Path.of(a.substring(7)))
                    : new byte[Integer.parseInt(a.substring(6))]);
            run.add(in.toString());
            run.add(dir.resolve("out" + i + ".bin").toString());
        }
        double nativeSeconds = Long.parseLong(Llvm.run(run).trim()) / 1e9;
        out.printf(Locale.ROOT, "%-8s %12d %14.0f %16.0f %10.3f %10.4f %8.0f%n", name, o.waveInstructions(),
                o.waveInstructions() / hostSeconds, o.laneInstructions() / hostSeconds, hostSeconds, nativeSeconds,
                hostSeconds / nativeSeconds);
    }
}
