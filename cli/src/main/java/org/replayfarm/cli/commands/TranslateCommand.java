package org.replayfarm.cli.commands;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.replayfarm.gpunode.translate.CpuBuild;
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

@Command(name = "translate", mixinStandardHelpOptions = true,
        description = {"Translate a capture's program to CUDA C.",
                "Writes DIR/kernel.cu, the runtime headers beside it, DIR/guest.s (the listing its #line directives "
                        + "name, llvm-objdump syntax), DIR/rt_cpu_main.cpp and DIR/BUILD (the exact nvcc and g++ "
                        + "commands; `nvcc -arch=sm_90 --fmad=false -c kernel.cu` in DIR compiles it as it is). "
                        + "`replay run CAPTURE --device cuda-cpu:DIR` (or cuda:DIR on a GPU) builds and runs the folder as it "
                        + "lies, edits included. Prints the coverage per unit; exits 2 naming PC, mnemonic and reason of every instruction "
                        + "when the translation is refused (nothing is written then)."})
public final class TranslateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "CAPTURE")
    Path capture;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "Where to write the translation.")
    Path out;

    @Override
    public Integer call() throws Exception {
        Replay.checkOutDir(spec, out);
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        CaptureFile file = CaptureFile.open(capture);
        ProgramInfo program = ProgramInfo.of(file);
        Translation t = new Translator().translate(program);
        o.printf("%s: %s, wave%d, %d instructions%n", capture.getFileName(),
                program.name().isEmpty() ? "entry" : program.name(), program.waveSize(),
                program.program().instructions().size());
        o.print(t.coverageReport());
        o.flush();
        if (!t.ok()) {
            err.println("replay: error: the translation of " + capture + " is refused: " + t.refusals().size()
                    + " instructions cannot be translated (listed above)");
            err.flush();
            return Replay.EXIT_ERROR;
        }
        CpuBuild.writeSources(t, out);
        // the translation's own headers and the CPU runner's system header, every one the directory now holds
        java.util.List<String> headers = new java.util.ArrayList<>(t.headers().keySet());
        headers.add(org.replayfarm.gpunode.translate.CpuBuild.SYSTEM_HEADER);
        o.printf("wrote %s: kernel.cu, guest.s, BUILD, rt_cpu_main.cpp and %d headers (%s)%n", out, headers.size(),
                String.join(", ", headers));
        o.flush();
        return Replay.EXIT_OK;
    }
}
