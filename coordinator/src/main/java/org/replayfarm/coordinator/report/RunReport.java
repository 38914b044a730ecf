package org.replayfarm.coordinator.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.replayfarm.coordinator.report.DiffResult.ByteRun;
import org.replayfarm.coordinator.report.DiffResult.GroupTrace;
import org.replayfarm.coordinator.report.DiffResult.ImageDiff;
import org.replayfarm.coordinator.report.DiffResult.RangeDiff;
import org.replayfarm.coordinator.report.DiffResult.TexelRegion;
import org.replayfarm.coordinator.sampling.SamplingReport;
import org.replayfarm.coordinator.sampling.SamplingSnapshot;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.OutputFolder;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.device.ExecutionRecord;
import org.replayfarm.model.image.ImagePng;
import org.replayfarm.evalnode.eval.ReportJson;

/**
 * The outputs of a compared run in DIR (docs/report-schema.md): {@code report.json}
 * ({@value #SCHEMA}), {@code summary.txt} (what {@link #summary} prints), {@code host/} and
 * {@code device/} (guest-&lt;n&gt;.bin, image-&lt;k&gt;.raw and .png), {@code diff/image-&lt;k&gt;.png}
 * and {@code junit.xml}. The verdict gives the exit status: 0 equal, 1 different (or the host could
 * not finish), and says why.
 */
public final class RunReport {
    public static final String SCHEMA = "replay-farm/run-report/2";

    /** Who ran: the capture, the job and the group selection. */
    public record Identity(String captureSha256, String captureName, String jobId, String selection) {
    }

    /** The device side: what {@code --device} asked for, what was taken and why, and its run (null for none). */
    public record Device(String choice, String reason, DeviceRun run, double seconds) {
        public String kind() {
            return run == null ? "none" : run.kind();
        }

        public String label() {
            return run == null ? "" : run.label();
        }
    }

    /** The outcome in one word, the exit status, and the reasons (empty when equal). */
    public record Verdict(String status, int exitStatus, List<String> reasons) {
    }

    private RunReport() {
    }

    /** Decides the verdict: differences, device-only changes, host faults, store conflicts, nondeterminism. */
    public static Verdict verdict(Evaluation.Outcome o, DiffResult diff, long nondeterministic) {
        List<String> reasons = new ArrayList<>();
        if (diff != null) {
            for (ImageDiff d : diff.images()) {
                if (!d.equal()) {
                    reasons.add(String.format("image %d (%s): %d of %d compared texels differ, %d device-only", d.index(),
                            d.name(), d.differing(), d.compared(), d.deviceOnly()));
                }
            }
            for (RangeDiff d : diff.ranges()) {
                if (!d.equal() && d.view().typed()) {
                    reasons.add(String.format("range %d (%s): %d of %d compared %s elements differ, %d device-only", d.index(),
                            d.name(), d.differingElements(), d.comparedElements(), d.view().type().spelling(),
                            d.deviceOnlyElements()));
                } else if (!d.equal()) {
                    reasons.add(String.format("range %d (%s): %d of %d compared bytes differ, %d device-only", d.index(),
                            d.name(), d.differing(), d.compared(), d.deviceOnly()));
                }
                if (d.ordered().beyond() > 0) {
                    reasons.add(String.format("range %d (%s): %s", d.index(), d.name(), orderedText(d.ordered())));
                }
            }
            ToleranceSuggestion.of(diff).ifPresent(s -> reasons.add(s.text()));
        }
        if (!o.faults().isEmpty()) {
            reasons.add(o.faults().size() + " group(s) faulted on the host model, first: " + o.faults().get(0));
        }
        long conflicts = o.memory().conflictCount() + o.images().conflictCount();
        if (conflicts > 0) {
            reasons.add(conflicts + " store conflict(s): groups stored different values to one byte or texel");
        }
        if (nondeterministic > 0) {
            reasons.add(nondeterministic + " slice(s) evaluated twice hashed differently (nondeterminism)");
        }
        boolean differs = diff != null && !diff.equal();
        String status = differs ? "different" : !reasons.isEmpty() ? "host incomplete" : diff == null ? "host only" : "equal";
        return new Verdict(status, reasons.isEmpty() ? 0 : 1, List.copyOf(reasons));
    }

    /** Writes every output into {@code dir} and returns the verdict. */
    public static Verdict write(Path dir, Evaluation.Outcome o, Kernel kernel, Identity id, Device device, DiffResult diff,
                                DiffOptions options, long nondeterministic, double diffSeconds) throws IOException {
        return write(dir, o, kernel, id, device, diff, options, nondeterministic, diffSeconds, SamplingSnapshot.EMPTY);
    }

    /** As above, with the sampling section from what GPU nodes reported ({@link SamplingReport}). */
    public static Verdict write(Path dir, Evaluation.Outcome o, Kernel kernel, Identity id, Device device, DiffResult diff,
                                DiffOptions options, long nondeterministic, double diffSeconds, SamplingSnapshot sampling)
            throws IOException {
        return write(dir, o, kernel, id, device, diff, options, nondeterministic, diffSeconds, sampling, null, null);
    }

    /**
     * As above; {@code capturePath} (null: unknown) is where the capture lies, for {@code replay explain}, and
     * {@code farm} is report.json's "farm" section (a farm job's slices and nodes; null: none).
     */
    public static Verdict write(Path dir, Evaluation.Outcome o, Kernel kernel, Identity id, Device device, DiffResult diff,
                                DiffOptions options, long nondeterministic, double diffSeconds, SamplingSnapshot sampling,
                                Path capturePath, ReportSections.Farm farm) throws IOException {
        Verdict verdict = verdict(o, diff, nondeterministic);
        // the device's and the diff's pictures are encoded beside the host's (which Evaluation.write encodes on
        // threads of its own), and written after them
        try (org.replayfarm.evalnode.eval.Encoder encoder = new org.replayfarm.evalnode.eval.Encoder(2)) {
            Pictures pictures = Pictures.start(encoder, o, device.run(), diff);
            write(dir, o, kernel, id, device, diff, options, nondeterministic, diffSeconds, sampling, capturePath, farm,
                    verdict, pictures);
        }
        return verdict;
    }

    private static void write(Path dir, Evaluation.Outcome o, Kernel kernel, Identity id, Device device, DiffResult diff,
                              DiffOptions options, long nondeterministic, double diffSeconds, SamplingSnapshot sampling,
                              Path capturePath, ReportSections.Farm farm, Verdict verdict,
                              Pictures pictures) throws IOException {
        Evaluation.write(o, kernel, id.captureSha256(), dir, report -> {
            report.put("schema", SCHEMA);
            report.setAll(ReportJson.tree(new ReportSections.Run(id.captureName(), capturePath == null ? ""
                    : capturePath.toAbsolutePath().toString(), id.jobId(), id.selection(), nondeterministic)));
            report.set("device", ReportJson.tree(device(device)));
            comparison(report, diff, options);
            report.set("result", ReportJson.tree(new ReportSections.Result(verdict.status(), verdict.exitStatus(),
                    verdict.reasons())));
            report.set("timings", ReportJson.tree(new ReportSections.Timings(o.wallTime().toNanos() / 1e9,
                    device.seconds(), diffSeconds)));
            SamplingReport.toJson(report, sampling);
            if (farm != null) {
                report.set("farm", ReportJson.tree(farm));
            }
        }, () -> { // every file through OutputFolder (temporary name, then renamed), report.json after them
            pictures.write(dir, device.run(), diff);
            DiffPictures.write(dir, o, diff);
            OutputFolder.write(dir.resolve("junit.xml"), JunitXml.of(kernel, o, id, device, diff).getBytes(StandardCharsets.UTF_8));
            OutputFolder.write(dir.resolve("summary.txt"), summary(o, id, device, diff, options, verdict)
                    .getBytes(StandardCharsets.UTF_8));
        });
    }

    /** The device section, as {@link ReportSections.Device} defines it. */
    static ReportSections.Device device(Device device) {
        DeviceRun run = device.run();
        List<ReportSections.Execution> executions = new ArrayList<>();
        ReportSections.Exec exec = null;
        ReportSections.Fidelity fidelity = null;
        ReportSections.PcSamples samples = null;
        List<ReportSections.HotInstruction> hot = new ArrayList<>();
        if (run != null) {
            for (ExecutionRecord e : run.executions()) {
                executions.add(new ReportSections.Execution(e.id(), e.durationNanos(),
                        e.serialized().name().toLowerCase(java.util.Locale.ROOT)));
            }
            DeviceRun.Exec x = run.exec();
            if (x != null) {
                exec = new ReportSections.Exec(x.command(), x.exitStatus(), x.stderrTail(), x.seconds());
            }
            DeviceRun.Fidelity f = run.fidelity();
            if (f != null) {
                fidelity = new ReportSections.Fidelity(f.translatedExact(), f.translatedApproximate(), f.refused(),
                        f.unreached(), f.waveInstructions(), f.laneInstructions(), f.faultedGroups());
            }
            // PC samples of a GPU run traced to guest instructions (issue 14), hottest first
            if (run.samplesAttributed() > 0 || run.samplesUnattributed() > 0) {
                samples = new ReportSections.PcSamples(run.samplesAttributed(), run.samplesUnattributed());
            }
            for (org.replayfarm.proto.GuestHotspot h : run.hotspots()) {
                hot.add(new ReportSections.HotInstruction(String.format("0x%x", h.getGuestPc()), h.getLine(), h.getText(),
                        h.getSamples(), h.getStallsList().stream()
                        .map(st -> new ReportSections.Stall(st.getReason(), st.getSamples())).toList()));
            }
        }
        return new ReportSections.Device(device.choice(), device.kind(), device.label(), device.reason(), executions,
                exec, fidelity, hot, samples);
    }

    private static void comparison(ObjectNode report, DiffResult diff, DiffOptions options) {
        report.set("comparison", comparison(diff, options).tree());
    }

    /** The comparison section, as {@link ComparisonReport} defines it. */
    static ComparisonReport comparison(DiffResult diff, DiffOptions options) {
        Scope scope = Scope.of(diff, options);
        List<ComparisonReport.ByView> byView = new ArrayList<>();
        for (Scope.Own o : scope.own) {
            byView.add(new ComparisonReport.ByView(o.what(), o.tolerance().ulp(), o.tolerance().abs(), o.tolerance().rel(),
                    o.tolerance().describe()));
        }
        ComparisonReport.Tolerances tolerances = new ComparisonReport.Tolerances(options.ulp(), options.abs(),
                options.rel(), options.approximate(), options.describe(), List.copyOf(scope.applied),
                List.copyOf(scope.exact), byView, scope.statement(options));
        ComparisonReport.Suggestion suggestion = ToleranceSuggestion.of(diff).map(s -> new ComparisonReport.Suggestion(
                s.text(), s.count(), s.ulps(), s.abs(), s.rel(), s.flags())).orElse(null);
        List<ComparisonReport.Image> images = new ArrayList<>();
        List<ComparisonReport.Range> ranges = new ArrayList<>();
        if (diff != null) {
            for (ImageDiff d : diff.images()) {
                List<ComparisonReport.ImageRegion> regions = new ArrayList<>();
                int k = 0;
                for (TexelRegion r : d.regions()) {
                    String crop = d.recorded() && k < DiffPictures.CROPS && r.mip() == 0 ? DiffPictures.cropName(d.index(), k)
                            : null;
                    k++;
                    regions.add(new ComparisonReport.ImageRegion(crop, r.mip(), r.layer(), r.z(), r.x0(), r.y0(), r.x1(),
                            r.y1(), r.texels(), r.differing(), r.deviceOnly(), groups(r.groups())));
                }
                DiffResult.Tolerated t = d.tolerated();
                images.add(new ComparisonReport.Image(d.index(), d.name(), d.recorded(), d.texels(), d.compared(),
                        d.differing(), d.deviceOnly(), t.ulp(), t.abs(), t.rel(), t.approximate(), t.reassociated(),
                        t.floatMode(), applied(d.tolerance(), !d.floating() ? "none (compared exactly)"
                                : d.viewTolerance() ? "--view" : "command"), largest(d.spread(), d.differing()),
                        d.footprint(), d.regionCount(), d.recorded() ? "diff/image-" + d.index() + ".png" : null,
                        values(d.values()), regions));
            }
            for (RangeDiff d : diff.ranges()) {
                RangeView v = d.view();
                DiffResult.Ordered o = d.ordered();
                ComparisonReport.OrderDependent ordered = !o.any() ? null : new ComparisonReport.OrderDependent(
                        o.locations(), o.equal(), o.withinBound(), o.exchanged(), o.beyond(), o.largestBound(),
                        o.largestDifference(), o.op(), o.groups(), o.terms(), "group order", orderedText(o));
                List<ComparisonReport.ByteRegion> regions = new ArrayList<>();
                for (ByteRun r : d.regions()) {
                    regions.add(new ComparisonReport.ByteRegion(r.offset(), r.length(), r.differing(), r.deviceOnly(),
                            r.firstElement(), r.lastElement(), groups(r.groups())));
                }
                DiffResult.Tolerated t = d.tolerated();
                ranges.add(new ComparisonReport.Range(d.index(), d.name(), v.rangeName(), v.parameter(), v.argument(),
                        v.typeName(), d.recorded(), d.bytes(), d.compared(), d.differing(), d.deviceOnly(), t.ulp(),
                        t.abs(), t.rel(), t.approximate(), t.reassociated(), t.floatMode(),
                        applied(d.tolerance(), !d.floating() ? "none (compared exactly)"
                                : v.tolerance().none() ? "command" : "--view"),
                        largest(d.spread(), d.differingElements()), d.footprint(), d.regionCount(), ordered,
                        new ComparisonReport.View(v.typed(), v.typed() ? v.type().spelling() : "u8", v.elementBytes(),
                                v.rows(), v.cols(), v.source(), v.typed() ? "element" : "byte"),
                        d.elements(), d.comparedElements(), d.differingElements(), d.deviceOnlyElements(),
                        d.recorded() && v.shaped() ? DiffPictures.heatMapName(d.index()) : null, regions,
                        values(d.values())));
            }
        }
        return new ComparisonReport(diff != null, tolerances, suggestion, options.everyGroup(), images, ranges);
    }

    /** The tolerance applied to a range or image, and where it came from. */
    private static ComparisonReport.Applied applied(Tolerance tolerance, String from) {
        return new ComparisonReport.Applied(tolerance.ulp(), tolerance.abs(), tolerance.rel(), from);
    }

    /**
     * The largest distances of the float values beyond the tolerance: null when none differ or not every
     * difference is a float value a tolerance could accept.
     */
    private static ComparisonReport.Largest largest(DiffResult.Spread spread, long differing) {
        return differing > 0 && spread.count() > 0 && spread.floats()
                ? new ComparisonReport.Largest(spread.ulps(), spread.abs(), spread.rel(), spread.approximate()) : null;
    }

    private static List<ComparisonReport.Value> values(List<DiffResult.ElementValue> values) {
        List<ComparisonReport.Value> out = new ArrayList<>();
        for (DiffResult.ElementValue v : values) {
            List<ComparisonReport.Store> stores = new ArrayList<>();
            for (StoreTrace.Store st : v.stores()) {
                stores.add(new ComparisonReport.Store(st.group(), st.wave(), st.lane(), String.format("0x%x", st.pc()),
                        st.instruction(), st.kind(), st.value(), st.source()));
            }
            // an infinity or NaN against another value is no number of ulps: -1
            List<Long> ulps = v.ulps().stream().map(u -> u == Long.MAX_VALUE ? -1L : u).toList();
            out.add(new ComparisonReport.Value(v.index(), v.row(), v.col(), v.where(), v.kind(), v.host(), v.device(),
                    v.hostBits(), v.deviceBits(), ulps, v.unit(), v.groups(), stores));
        }
        return out;
    }

    private static List<ComparisonReport.Group> groups(List<GroupTrace> groups) {
        return groups.stream().map(g -> new ComparisonReport.Group(g.group(), g.units(), g.approximateInstructions()))
                .toList();
    }

    /**
     * What the tolerances were applied to, what was compared exactly whatever they said, and the ranges and images
     * a view gave tolerances of their own ({@code own}).
     */
    record Scope(List<String> applied, List<String> exact, List<Own> own) {
        /** A range or image with its view's tolerance. */
        record Own(String what, Tolerance tolerance) {
        }

        static Scope of(DiffResult diff, DiffOptions options) {
            List<String> applied = new ArrayList<>();
            List<String> exact = new ArrayList<>();
            List<Own> own = new ArrayList<>();
            if (diff == null) {
                return new Scope(applied, exact, own);
            }
            for (ImageDiff d : diff.images()) {
                if (d.recorded()) {
                    String what = "image " + d.index() + " (" + d.name() + ")";
                    applied.add(what);
                    if (d.viewTolerance()) {
                        own.add(new Own(what, d.tolerance()));
                    }
                }
            }
            for (RangeDiff d : diff.ranges()) {
                if (!d.recorded()) {
                    continue;
                }
                String what = "range " + d.index() + " (" + d.name() + ", " + (d.view().typed() ? d.view().type().spelling()
                        : "bytes") + ")";
                (d.floating() ? applied : exact).add(what);
                if (d.floating() && !d.view().tolerance().none()) {
                    own.add(new Own(what, d.tolerance()));
                }
            }
            return new Scope(applied, exact, own);
        }

        String statement(DiffOptions options) {
            boolean exactly = options.tolerance().exact() && !options.approximate();
            if (exactly && own.isEmpty()) {
                return "exact: every bit compared";
            }
            String views = own.stream().map(o -> o.what() + " " + o.tolerance().describe())
                    .collect(java.util.stream.Collectors.joining(", "));
            StringBuilder b = new StringBuilder();
            if (exactly) {
                b.append("exact but for the float values of ").append(views).append(" (--view)");
            } else {
                b.append(options.describe());
                b.append(applied.isEmpty() ? "; applied to nothing (no image and no float range was compared)"
                        : "; applied to the float values of " + String.join(", ", applied)
                                + (applied.stream().anyMatch(a -> a.startsWith("image")) ? " (an image's integer and "
                                + "normalised channels: exact, or one step under --approximate)" : ""));
                if (!own.isEmpty()) {
                    b.append("; by --view: ").append(views);
                }
            }
            if (!exact.isEmpty()) {
                b.append("; compared exactly (integers or untyped bytes): ").append(String.join(", ", exact));
            }
            return b.toString();
        }
    }

    /**
     * device/ (guest-<n>.bin, image-<k>.raw and .png) and diff/image-<k>.png, the pictures started on an
     * {@link org.replayfarm.evalnode.eval.Encoder} ({@link #start}) and written by {@link #write}; host/ (guest-<n>.bin,
     * image-<k>.raw and .png) is Evaluation.write's.
     */
    private record Pictures(java.util.Map<Integer, java.util.concurrent.CompletableFuture<byte[]>> device,
                            java.util.Map<Integer, java.util.concurrent.CompletableFuture<byte[]>> diff) {
        static Pictures start(org.replayfarm.evalnode.eval.Encoder encoder, Evaluation.Outcome o, DeviceRun run,
                              DiffResult diff) {
            java.util.Map<Integer, java.util.concurrent.CompletableFuture<byte[]>> device = new java.util.LinkedHashMap<>();
            java.util.Map<Integer, java.util.concurrent.CompletableFuture<byte[]>> drawn = new java.util.LinkedHashMap<>();
            if (run != null) {
                for (var k : run.images().keySet()) {
                    device.put(k, encoder.start(() -> ImagePng.encode(o.images().initial().get(k).image(), run.imageTexels(k))));
                }
                if (diff != null) {
                    for (ImageDiff d : diff.images()) {
                        if (d.recorded()) {
                            drawn.put(d.index(), encoder.start(() -> DiffPicture.png(o.images().initial().get(d.index()).image(),
                                    o.images().texels(d.index()), d.differingTexels(), d.deviceOnlyTexels())));
                        }
                    }
                }
            }
            return new Pictures(device, drawn);
        }

        void write(Path dir, DeviceRun run, DiffResult diff) throws IOException {
            if (run == null) {
                return;
            }
            Path d = Files.createDirectories(dir.resolve("device"));
            for (var r : run.ranges().keySet()) {
                OutputFolder.write(d.resolve("guest-" + r + ".bin"), run.rangeBytes(r));
            }
            for (var k : run.images().keySet()) {
                OutputFolder.write(d.resolve("image-" + k + ".raw"), run.imageTexels(k));
                OutputFolder.write(d.resolve("image-" + k + ".png"), org.replayfarm.evalnode.eval.Encoder.get(device.get(k)));
            }
            if (diff == null) {
                return;
            }
            Path pictures = Files.createDirectories(dir.resolve("diff"));
            for (var e : this.diff.entrySet()) {
                OutputFolder.write(pictures.resolve("image-" + e.getKey() + ".png"),
                        org.replayfarm.evalnode.eval.Encoder.get(e.getValue()));
            }
        }
    }

    /** The one-screen text summary: the host's totals, the device, every image and range, the verdict and why. */
    public static String summary(Evaluation.Outcome o, Identity id, Device device, DiffResult diff, DiffOptions options,
                                 Verdict verdict) {
        StringWriter s = new StringWriter();
        PrintWriter w = new PrintWriter(s);
        w.printf("capture         %s (sha256 %s)%n", id.captureName(), id.captureSha256().substring(0, Math.min(12, id.captureSha256().length())));
        w.printf("selection       %s%n", id.selection());
        Evaluation.summarize(o, w);
        w.printf("device          %s%n", device.reason());
        if (device.run() != null && device.run().fidelity() != null) {
            DeviceRun.Fidelity f = device.run().fidelity();
            w.printf("device ran      %s: %d wave, %d lane instructions, %d group(s) faulted%n", device.label(),
                    f.waveInstructions(), f.laneInstructions(), f.faultedGroups());
            w.printf("device fidelity translated %d exact, %d approximate, %d refused, %d unreachable (not translated)%n",
                    f.translatedExact(), f.translatedApproximate(), f.refused(), f.unreached());
        }
        if (device.run() != null && device.run().exec() != null) {
            DeviceRun.Exec x = device.run().exec();
            String[] err = x.stderrTail().split("\n");
            w.printf("device ran      %s: exit status %d in %.2f s%s%n", x.command(), x.exitStatus(), x.seconds(),
                    x.stderrTail().isEmpty() ? "" : "; its stderr ended: " + err[err.length - 1]);
        }
        if (device.run() != null && !device.run().hotspots().isEmpty()) {
            w.printf("hottest guest   %s%n", device.run().hotspots().stream().limit(3).map(h -> String.format("0x%x %s (%d)",
                    h.getGuestPc(), h.getText(), h.getSamples())).collect(java.util.stream.Collectors.joining("; ")));
        }
        if (device.run() != null && (device.run().samplesAttributed() > 0 || device.run().samplesUnattributed() > 0)) {
            w.printf("pc samples      %d traced to a guest instruction, %d not%n", device.run().samplesAttributed(),
                    device.run().samplesUnattributed());
        }
        if (diff != null) {
            w.printf("comparison      %s%n", Scope.of(diff, options).statement(options));
            for (ImageDiff d : diff.images()) {
                if (!d.recorded()) {
                    w.printf("  image %d %-10s not recorded by the device run%n", d.index(), d.name());
                    continue;
                }
                w.printf("  image %d %-10s %d compared, %d differing, %d device-only%s, %d region(s)%n", d.index(), d.name(),
                        d.compared(), d.differing(), d.deviceOnly(), tolerated(d.tolerated().total()),
                        d.regionCount());
                d.regions().stream().limit(3).forEach(r -> w.printf("      mip %d layer %d: x %d..%d, y %d..%d, %d texel(s)%s%n",
                        r.mip(), r.layer(), r.x0(), r.x1(), r.y0(), r.y1(), r.texels(), groupsText(r.groups(), true)));
                valuesText(w, d.values());
            }
            for (RangeDiff d : diff.ranges()) {
                if (!d.recorded()) {
                    w.printf("  range %d %-10s not recorded by the device run%n", d.index(), d.name());
                    continue;
                }
                if (d.view().typed()) {
                    w.printf("  range %d %-10s %s: %d element(s) compared, %d differing, %d device-only%s, %d run(s)%n",
                            d.index(), d.name(), d.view().describe(), d.comparedElements(), d.differingElements(),
                            d.deviceOnlyElements(), toleratedRange(d), d.regionCount());
                } else {
                    w.printf("  range %d %-10s bytes: %d compared, %d differing, %d device-only%s, %d run(s)%n", d.index(),
                            d.name(), d.compared(), d.differing(), d.deviceOnly(), d.tolerated().floatMode() == 0 ? ""
                                    : ", " + d.tolerated().floatMode() + " differing only by the float mode (the "
                                    + "program's value with denormals kept)", d.regionCount());
                }
                if (d.ordered().any()) {
                    w.printf("      %s%n", orderedText(d.ordered()));
                }
                d.regions().stream().limit(3).forEach(r -> w.printf("      bytes %d..%d (%d)%s%s%n", r.offset(),
                        r.offset() + r.length() - 1, r.length(), r.firstElement() < 0 ? ""
                                : ", element(s) " + r.firstElement() + ".." + r.lastElement(),
                        groupsText(r.groups(), d.view().typed() && d.view().type().floating())));
                valuesText(w, d.values());
            }
        }
        long floatMode = diff == null ? 0 : diff.ranges().stream().mapToLong(d -> d.tolerated().floatMode()).sum();
        long orderedWithin = diff == null ? 0 : diff.ranges().stream().mapToLong(d -> d.ordered().withinBound()).sum();
        long orderedLocations = diff == null ? 0 : diff.ranges().stream().mapToLong(d -> d.ordered().locations()).sum();
        w.printf("result          %s (exit status %d)%s%s%n", verdict.status(), verdict.exitStatus(), orderedLocations == 0
                ? "" : "; " + orderedLocations + " order-dependent location(s) compared against the host's group order"
                + (orderedWithin == 0 ? "" : ", " + orderedWithin + " of them as another order of a float sum"),
                floatMode == 0 ? "" : "; " + floatMode + " element(s) differ only by the float mode (denormals kept)");
        if (floatMode > 0) {
            w.printf("  %d element(s) (bytes where untyped) differ only by the float mode: the capture's MODE flushes "
                    + "denormals, the device (another implementation, free to keep them) kept them, and the host model "
                    + "with denormals kept gives the device's value%n", floatMode);
        }
        verdict.reasons().stream().limit(8).forEach(r -> w.println("  " + r));
        // the suggestion is the last of the comparison's reasons: shown even past the first 8
        ToleranceSuggestion.of(diff).map(ToleranceSuggestion::text)
                .filter(t -> verdict.reasons().indexOf(t) >= 8).ifPresent(t -> w.println("  " + t));
        w.flush();
        return s.toString();
    }

    /** Values shown per range or image in the summary (report.json has them all). */
    static final int SUMMARY_VALUES = 3;

    private static void valuesText(PrintWriter w, List<DiffResult.ElementValue> values) {
        for (DiffResult.ElementValue v : values.subList(0, Math.min(SUMMARY_VALUES, values.size()))) {
            w.printf("      %s: %s%n", v.where(), valueText(v));
            for (StoreTrace.Store st : v.stores().subList(0, Math.min(4, v.stores().size()))) {
                w.printf("        %s%n", st.describe());
            }
            if (v.stores().size() > 4) {
                w.printf("        and %d more store(s) (report.json)%n", v.stores().size() - 4);
            }
        }
    }

    /** {@code host 1.5 (0x3fc00000), device 1.5000001 (0x3fc00001), 1 ulp; stored by (1, 0, 0)}. */
    public static String valueText(DiffResult.ElementValue v) {
        StringBuilder b = new StringBuilder(v.kind().equals("device-only") ? "device-only, " : "");
        b.append("host ").append(components(v.host(), v.hostBits())).append(", device ")
                .append(components(v.device(), v.deviceBits()));
        long worst = v.ulps().stream().mapToLong(Long::longValue).max().orElse(0);
        b.append(worst == Long.MAX_VALUE ? ", NaN or infinity against another value"
                : ", " + worst + " " + v.unit() + (worst == 1 ? "" : "s") + " apart");
        b.append(v.groups().isEmpty() ? "; stored by no group" : "; stored by " + String.join(", ",
                v.groups().subList(0, Math.min(8, v.groups().size()))) + (v.groups().size() > 8 ? " and "
                + (v.groups().size() - 8) + " more" : ""));
        return b.toString();
    }

    private static String components(List<String> values, List<String> bits) {
        List<String> parts = new ArrayList<>();
        for (int c = 0; c < values.size(); c++) {
            parts.add(values.get(c) + " (" + bits.get(c) + ")");
        }
        return parts.size() == 1 ? parts.get(0) : "[" + String.join(", ", parts) + "]";
    }

    /**
     * {@code , 3 within tolerance (1 by --ulp, 2 by --abs, 0 by --approximate)}: --ulp and --approximate always,
     * --abs and --rel when in force for the range or when they accepted any.
     */
    private static String toleratedRange(RangeDiff d) {
        DiffResult.Tolerated t = d.tolerated();
        if (t.total() == 0) {
            return "";
        }
        List<String> by = new ArrayList<>();
        by.add(t.ulp() + " by --ulp");
        if (t.abs() > 0 || d.tolerance().abs() > 0) {
            by.add(t.abs() + " by --abs");
        }
        if (t.rel() > 0 || d.tolerance().rel() > 0) {
            by.add(t.rel() + " by --rel");
        }
        by.add(t.approximate() + " by --approximate");
        if (t.floatMode() > 0) {
            by.add(t.floatMode() + " by the float mode: the program's value with denormals kept");
        }
        if (t.reassociated() > 0) {
            by.add(t.reassociated() + " as another order of the groups");
        }
        return ", " + t.total() + " within tolerance (" + String.join(", ", by) + ")";
    }

    /**
     * {@code order-dependent: 1 location (cmpswap by 16 groups, host in group order): 1 within the reassociation
     * bound 3.1e-05 (apart by 1.2e-05)}: what a range's order-dependent locations compared as.
     */
    static String orderedText(DiffResult.Ordered o) {
        List<String> parts = new ArrayList<>();
        if (o.equal() > 0) {
            parts.add(o.equal() + " bit-equal");
        }
        if (o.withinBound() > 0) {
            parts.add(String.format(java.util.Locale.ROOT, "%d within the reassociation bound %.3g of its %d float "
                    + "terms (apart by %.3g: another order of the same sum)", o.withinBound(), o.largestBound(), o.terms(),
                    o.largestDifference()));
        }
        if (o.exchanged() > 0) {
            parts.add(o.exchanged() + " holding another group's exchanged value (the last exchange in another order)");
        }
        if (o.beyond() > 0) {
            parts.add(o.beyond() + (Double.isNaN(o.largestBound()) || o.largestBound() == 0 && o.withinBound() == 0
                    && o.largestDifference() == 0 ? " different (not a float sum: compared exactly)"
                    : String.format(java.util.Locale.ROOT, " beyond the reassociation bound (apart by %.3g, bound %.3g): "
                    + "no order of the groups gives it", o.largestDifference(), o.largestBound())));
        }
        return String.format("order-dependent: %d location(s) (%s by %d groups; the host ran them one after another in "
                + "group order): %s", o.locations(), o.op(), o.groups(), String.join(", ", parts));
    }

    private static String tolerated(long n) {
        return n == 0 ? "" : ", " + n + " within tolerance";
    }

    /** The groups that stored a region; with {@code floats}, how many approximate instructions each executed. */
    private static String groupsText(List<GroupTrace> groups, boolean floats) {
        if (groups.isEmpty()) {
            return ", stored by no group";
        }
        StringBuilder b = new StringBuilder(", stored by ");
        for (int i = 0; i < Math.min(3, groups.size()); i++) {
            GroupTrace g = groups.get(i);
            b.append(i > 0 ? ", " : "").append(g.group());
            if (floats) {
                // an integer or a byte is compared exactly: approximate instructions cannot excuse it
                b.append(" [").append(g.approximateInstructions()).append(" approx]");
            }
        }
        return b.append(groups.size() > 3 ? " and " + (groups.size() - 3) + " more" : "").toString();
    }
}
