package org.replayfarm.cli.commands;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.divergence.ExecMutant;
import org.replayfarm.cli.divergence.Mutants;

/**
 * {@code replay mutant-run CAPTURE OUT --op OP --pc PC --word W} (hidden: the planted-bug benchmark's {@code exec:}
 * device): runs every group of CAPTURE on the host model with one planted bug ({@link ExecMutant}) and writes OUT in
 * the {@code dir:} layout ({@code guest-<n>.bin}, {@code image-<k>.raw}).
 */
@Command(name = "mutant-run", hidden = true, description = "Run a capture on the host model with a planted "
        + "single-instruction bug and write its outputs as dir: reads them (the exec: half of bench-first-divergence).")
public final class MutantRunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "CAPTURE")
    Path capture;

    @Parameters(index = "1", paramLabel = "OUT")
    Path out;

    @Option(names = "--op", required = true, description = "The operator (Mutants.Operator).")
    Mutants.Operator op;

    @Option(names = "--pc", required = true, description = "The mutated instruction's PC in the original capture (hex).")
    String pc;

    @Option(names = "--word", required = true, description = "Its first word (hex), to find it where a probe moved it.")
    String word;

    @Option(names = "--budget", defaultValue = "10000000", description = "Instructions per wave at most.")
    long budget;

    @Override
    public Integer call() throws Exception {
        CaptureFile file = CaptureFile.open(capture);
        Kernel kernel = new Kernel(file);
        long site = ExecMutant.site(file, Long.parseUnsignedLong(pc.replaceFirst("^0x", ""), 16),
                (int) Long.parseLong(word.replaceFirst("^0x", ""), 16));
        HostModel model = new HostModel(kernel, budget);
        ExecMutant mutant = new ExecMutant(op, site, kernel.waveSize());
        Evaluation.Totals totals = new Evaluation.Totals(kernel, budget, HostModel.Tier.byDefault()).steppedWith(mutant);
        for (int[] g : new GroupSelection(true, List.of()).resolve(kernel.dispatch())) {
            totals.add(model.runStepped(g[0], g[1], g[2], mutant, null).result());
        }
        Evaluation.Outcome o = totals.outcome(Duration.ZERO, 1);
        Files.createDirectories(out);
        for (int n = 0; n < file.metadata().getRangesCount(); n++) {
            Files.write(out.resolve("guest-" + n + ".bin"), o.memory().range(n));
        }
        for (int k = 0; k < o.images().imageCount(); k++) {
            Files.write(out.resolve("image-" + k + ".raw"), o.images().texels(k));
        }
        return Replay.EXIT_OK;
    }
}
