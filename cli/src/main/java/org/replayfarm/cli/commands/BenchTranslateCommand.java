package org.replayfarm.cli.commands;

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
import org.replayfarm.gpunode.device.CudaCpuBackend;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.LaunchBundle;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import org.replayfarm.cli.Replay;

@Command(name = "bench-translate", mixinStandardHelpOptions = true,
        description = {"Measure the translator on captures (default: both examples): translation time, g++ and nvcc "
                + "(sm_90) compile time from a cold cache, and the cuda-cpu run of the whole dispatch against the host "
                + "model's evaluation of it (one thread). Prints figures; asserts nothing. A refused translation "
                + "prints its refusals and only the translation time."})
public final class BenchTranslateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE", arity = "0..*")
    List<Path> captures = new ArrayList<>();

    @Option(names = "--rounds", defaultValue = "3", description = "Timed repetitions of translation and runs (default ${DEFAULT-VALUE}).")
    int rounds;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (captures.isEmpty()) {
            Path root = Path.of("examples");
            captures = List.of(root.resolve("shadow-pass/shadow.capture"), root.resolve("saxpy/saxpy.capture"));
        }
        out.println("figures are wall-clock on this machine (noisy when it is shared); ratios compare runs of the same round");
        for (Path c : captures) {
            bench(c, out);
        }
        out.flush();
        return Replay.EXIT_OK;
    }

    private void bench(Path file, PrintWriter out) throws Exception {
        CaptureFile capture = CaptureFile.open(file);
        ProgramInfo p = ProgramInfo.of(capture);
        new Translator().translate(p); // warm-up
        long best = Long.MAX_VALUE;
        Translation t = null;
        for (int i = 0; i < rounds; i++) {
            long s = System.nanoTime();
            t = new Translator().translate(ProgramInfo.of(capture));
            best = Math.min(best, System.nanoTime() - s);
        }
        int translated = t.coverage().values().stream().mapToInt(Translation.Count::translated).sum();
        out.printf(Locale.ROOT, "%s: %d instructions, %d translated, %d unreachable; translation %.1f ms (best of %d), "
                + "kernel.cu %d lines%n", file.getFileName(), p.program().instructions().size(), translated,
                t.unreached(), best / 1e6, rounds, t.source().split("\n").length);
        if (!t.ok()) {
            out.print(t.coverageReport());
            return;
        }
        Path cache = Files.createTempDirectory("replay-bench-translate");
        CpuBuild build = new CpuBuild("g++", cache);
        CpuBuild.Built built = build.build(t);
        out.printf(Locale.ROOT, "  g++ %s (cold): %.2f s%n", String.join(" ", CpuBuild.gxxFlags(t)), built.compileNanos() / 1e9);
        Path nvcc = Path.of("/usr/local/cuda/bin/nvcc");
        if (Files.isExecutable(nvcc)) {
            Path d = Files.createTempDirectory(cache, "nvcc");
            CpuBuild.writeSources(t, d);
            List<String> cmd = new ArrayList<>(List.of(nvcc.toString()));
            cmd.addAll(CpuBuild.NVCC_FLAGS);
            cmd.addAll(List.of("-c", "kernel.cu", "-o", "kernel.o"));
            long s = System.nanoTime();
            CpuBuild.run(cmd, d, 900);
            out.printf(Locale.ROOT, "  nvcc sm_90 (with PTX): %.2f s%n", (System.nanoTime() - s) / 1e9);
        }
        Kernel kernel = new Kernel(capture);
        List<int[]> all = GroupSelection.everyGroup().resolve(kernel.dispatch());
        CudaCpuBackend backend = new CudaCpuBackend(build, 900, LaunchBundle.DEFAULT_BUDGET);
        for (int i = 0; i < rounds; i++) {
            long s = System.nanoTime();
            Evaluation.Outcome o = Evaluation.run(kernel, all, 1, HostModel.DEFAULT_BUDGET, done -> { });
            long host = System.nanoTime() - s;
            s = System.nanoTime();
            DeviceRun run = backend.run(new DeviceRequest(capture, capture.identity()), e -> { });
            long device = System.nanoTime() - s;
            long runner = backend.lastOutcome().runNanos();
            out.printf(Locale.ROOT, "  round %d: host model %.3f s (1 thread, %d wave instr); cuda-cpu %.3f s "
                    + "(runner process %.3f s, %d wave instr); host/runner %.1fx%n", i + 1, host / 1e9,
                    o.waveInstructions(), device / 1e9, runner / 1e9, run.fidelity().waveInstructions(),
                    (double) host / runner);
        }
    }
}
