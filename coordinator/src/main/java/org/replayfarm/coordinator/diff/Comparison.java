package org.replayfarm.coordinator.diff;

import java.io.IOException;
import java.nio.file.Path;
import org.replayfarm.coordinator.jobs.JobProgress;
import org.replayfarm.coordinator.sampling.SamplingSnapshot;
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
    /**
     * The verdict, the one-screen summary that was written to summary.txt, and the diff (null when there
     * was no device).
     */
    public record Result(RunReport.Verdict verdict, String summary, DiffResult diff) {
        /**
         * {@code figures} with the diff's counts, as report.json's comparison has them: texels and guest
         * bytes compared (a host store wrote them), and differing, device-only changes included (each is a
         * difference). All 0 when nothing was compared.
         */
        public JobProgress.Figures withComparison(JobProgress.Figures figures) {
            if (diff == null) {
                return figures.withComparison(0, 0, 0, 0);
            }
            return figures.withComparison(diff.comparedTexels(), diff.differingTexels() + diff.deviceOnlyTexels(),
                    diff.comparedBytes(), diff.differingBytes() + diff.deviceOnlyBytes());
        }
    }

    private Comparison() {
    }

    public static Result finish(Path dir, Evaluation.Outcome o, Kernel kernel, CaptureFile capture,
                                RunReport.Identity id, DeviceChoice choice, DiffOptions options, long nondeterministic,
                                DeviceEvents events) throws IOException, DeviceException {
        return finish(dir, o, kernel, capture, id, choice, options, nondeterministic, events, SamplingSnapshot.EMPTY);
    }

    /** As above; {@code sampling} (what GPU nodes reported) becomes report.json's sampling section. */
    public static Result finish(Path dir, Evaluation.Outcome o, Kernel kernel, CaptureFile capture,
                                RunReport.Identity id, DeviceChoice choice, DiffOptions options, long nondeterministic,
                                DeviceEvents events, SamplingSnapshot sampling) throws IOException, DeviceException {
        return finish(dir, o, kernel, capture, id, choice, options, nondeterministic, events, sampling, farm -> { });
    }

    /** As above; {@code farm} adds the coordinator's figures (slices, re-sends, nodes out of rotation) to report.json. */
    public static Result finish(Path dir, Evaluation.Outcome o, Kernel kernel, CaptureFile capture,
                                RunReport.Identity id, DeviceChoice choice, DiffOptions options, long nondeterministic,
                                DeviceEvents events, SamplingSnapshot sampling,
                                java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode> farm)
            throws IOException, DeviceException {
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
        RunReport.Verdict verdict = RunReport.write(dir, o, kernel, id, device, diff, options, nondeterministic, diffSeconds,
                sampling, farm);
        return new Result(verdict, RunReport.summary(o, id, device, diff, options, verdict), diff);
    }
}
