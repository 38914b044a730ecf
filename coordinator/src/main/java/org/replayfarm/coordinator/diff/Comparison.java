package org.replayfarm.coordinator.diff;

import java.io.IOException;
import java.nio.file.Path;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The end of a job: take the device the choice resolves to, run it, diff its outputs against the host's
 * merge and write the run report. One path for {@code replay run} and the coordinator's jobs.
 */
public final class Comparison {
    /** The verdict and the one-screen summary that was written to summary.txt. */
    public record Result(RunReport.Verdict verdict, String summary) {
    }

    private Comparison() {
    }

    public static Result finish(Path dir, Evaluation.Outcome o, Kernel kernel, CaptureFile capture,
                                RunReport.Identity id, DeviceChoice choice, DiffOptions options, long nondeterministic,
                                DeviceEvents events) throws IOException, DeviceException {
        DeviceChoice.Resolved resolved = choice.resolve(capture);
        DeviceRun run = null;
        long start = System.nanoTime();
        if (resolved.backend().isPresent()) {
            run = resolved.backend().get().run(new DeviceRequest(capture, id.captureSha256()), events);
        }
        double deviceSeconds = (System.nanoTime() - start) / 1e9;
        long diffStart = System.nanoTime();
        DiffResult diff = run == null ? null : Diff.compare(o.memory(), o.images(), run, options);
        double diffSeconds = (System.nanoTime() - diffStart) / 1e9;
        RunReport.Device device = new RunReport.Device(choice.spelling(), resolved.reason(), run, deviceSeconds);
        RunReport.Verdict verdict = RunReport.write(dir, o, kernel, id, device, diff, options, nondeterministic, diffSeconds);
        return new Result(verdict, RunReport.summary(o, id, device, diff, options, verdict));
    }
}
