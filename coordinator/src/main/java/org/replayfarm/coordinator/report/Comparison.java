package org.replayfarm.coordinator.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.replayfarm.coordinator.job.JobProgress;
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
                    diff.comparedBytes(), diff.differingBytes() + diff.deviceOnlyBytes(), diff.comparedElements(),
                    diff.differingElements(), diff.orderDependentLocations());
        }
    }

    /** Differing elements (and texels) per range (and image) whose writers are re-run with store tracing. */
    public static final int TRACED_VALUES = 3;
    /** Groups re-run with store tracing at most, over the whole comparison. */
    public static final int TRACED_GROUPS = 64;

    private Comparison() {
    }

    /**
     * The capture's source lines, when line info for its code is at hand ({@link DwarfLines#forCapture}), looked
     * for beside the path the capture was given by, else beside the stored copy.
     */
    private static StoreTrace.SourceLines lines(CaptureFile capture, DiffOptions options) {
        Path where = options.origin().isEmpty() ? capture.path() : Path.of(options.origin());
        return DwarfLines.forCapture(capture, where);
    }

    /**
     * The diff with the first {@link #TRACED_VALUES} values of each range and image traced to the stores that
     * wrote them (at most {@link #TRACED_GROUPS} groups re-run in all).
     */
    static DiffResult traced(DiffResult diff, Kernel kernel, StoreTrace.SourceLines lines) {
        return traced(diff, kernel, lines, List.of());
    }

    /** As above; groups of the merge's in-order pass ({@code inOrder}, in its order) are traced as they ran there. */
    static DiffResult traced(DiffResult diff, Kernel kernel, StoreTrace.SourceLines lines, List<String> inOrder) {
        Map<StoreTrace.Target, List<String>> targets = new LinkedHashMap<>();
        Set<String> groups = new LinkedHashSet<>();
        for (DiffResult.RangeDiff r : diff.ranges()) {
            int eb = r.view().elementBytes();
            for (DiffResult.ElementValue v : r.values().subList(0, Math.min(TRACED_VALUES, r.values().size()))) {
                if (!v.groups().isEmpty() && fits(groups, v.groups())) {
                    targets.put(StoreTrace.Target.bytes(r.index(), v.index() * eb, eb, r.view().type()), v.groups());
                }
            }
        }
        for (DiffResult.ImageDiff d : diff.images()) {
            for (DiffResult.ElementValue v : d.values().subList(0, Math.min(TRACED_VALUES, d.values().size()))) {
                if (!v.groups().isEmpty() && fits(groups, v.groups())) {
                    targets.put(StoreTrace.Target.texel(d.index(), v.index(), format(kernel, d.index())), v.groups());
                }
            }
        }
        if (targets.isEmpty()) {
            return diff;
        }
        Map<StoreTrace.Target, List<StoreTrace.Store>> stores = StoreTrace.trace(kernel,
                org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET, targets, lines, inOrder);
        List<DiffResult.RangeDiff> ranges = new ArrayList<>();
        for (DiffResult.RangeDiff r : diff.ranges()) {
            int eb = r.view().elementBytes();
            ranges.add(r.withValues(r.values().stream().map(v -> {
                List<StoreTrace.Store> s = stores.get(StoreTrace.Target.bytes(r.index(), v.index() * eb, eb, r.view().type()));
                return s == null ? v : v.withStores(s);
            }).toList()));
        }
        List<DiffResult.ImageDiff> images = new ArrayList<>();
        for (DiffResult.ImageDiff d : diff.images()) {
            images.add(d.withValues(d.values().stream().map(v -> {
                List<StoreTrace.Store> s = stores.get(StoreTrace.Target.texel(d.index(), v.index(), format(kernel, d.index())));
                return s == null ? v : v.withStores(s);
            }).toList()));
        }
        return new DiffResult(images, ranges);
    }

    private static org.replayfarm.model.image.ImageFormat format(Kernel kernel, int image) {
        var i = kernel.capture().getImages(image);
        return new org.replayfarm.model.image.ImageFormat(i.getDataFormat(), i.getNumericFormat());
    }

    private static boolean fits(Set<String> groups, List<String> more) {
        Set<String> union = new LinkedHashSet<>(groups);
        union.addAll(more);
        if (union.size() > TRACED_GROUPS) {
            return false;
        }
        groups.addAll(more);
        return true;
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
        return finish(dir, o, kernel, capture, id, choice, options, nondeterministic, events, sampling, null);
    }

    /** As above; {@code farm} is the coordinator's figures (slices, re-sends, nodes out of rotation; null none) for report.json. */
    public static Result finish(Path dir, Evaluation.Outcome o, Kernel kernel, CaptureFile capture,
                                RunReport.Identity id, DeviceChoice choice, DiffOptions options, long nondeterministic,
                                DeviceEvents events, SamplingSnapshot sampling,
                                ReportSections.Farm farm)
            throws IOException, DeviceException {
        DeviceChoice.Resolved resolved = choice.resolve(capture);
        DeviceRun run = null;
        long start = System.nanoTime();
        if (resolved.backend().isPresent()) {
            run = resolved.backend().get().run(new DeviceRequest(capture, id.captureSha256(), id.jobId()), events);
        }
        double deviceSeconds = (System.nanoTime() - start) / 1e9;
        long diffStart = System.nanoTime();
        DiffResult diff = null;
        if (run != null) {
            List<RangeView> views = RangeViews.of(o.memory().initial(), kernel.capture().getProgram().getKernelName(),
                    options.views());
            diff = Diff.compare(o.memory(), o.images(), run, options, views);
            if (!diff.equal() && FloatModeCheck.asks(run.kind(), kernel)) {
                // another implementation's run may keep denormals the capture's mode flushes: asked, and said
                FloatModeCheck.Alternate alt = FloatModeCheck.of(diff, o.memory(), kernel,
                        org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET);
                if (!alt.isEmpty()) {
                    diff = Diff.compare(o.memory(), o.images(), run, options, views, alt);
                }
            }
            diff = traced(diff, kernel, lines(capture, options), o.inOrder().groups());
        }
        double diffSeconds = (System.nanoTime() - diffStart) / 1e9;
        RunReport.Device device = new RunReport.Device(choice.spelling(), resolved.reason(), run, deviceSeconds);
        RunReport.Verdict verdict = RunReport.write(dir, o, kernel, id, device, diff, options, nondeterministic, diffSeconds,
                sampling, options.origin().isEmpty() ? capture.path() : Path.of(options.origin()), farm);
        return new Result(verdict, RunReport.summary(o, id, device, diff, options, verdict), diff);
    }
}
