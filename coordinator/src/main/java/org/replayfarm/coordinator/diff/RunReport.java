package org.replayfarm.coordinator.diff;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.replayfarm.coordinator.diff.DiffResult.ByteRun;
import org.replayfarm.coordinator.diff.DiffResult.GroupTrace;
import org.replayfarm.coordinator.diff.DiffResult.ImageDiff;
import org.replayfarm.coordinator.diff.DiffResult.RangeDiff;
import org.replayfarm.coordinator.diff.DiffResult.TexelRegion;
import org.replayfarm.coordinator.sampling.SamplingReport;
import org.replayfarm.coordinator.sampling.SamplingSnapshot;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.device.ExecutionRecord;
import org.replayfarm.model.image.ImagePng;

/**
 * The outputs of a compared run in DIR (docs/report-schema.md): {@code report.json}
 * ({@value #SCHEMA}), {@code summary.txt} (what {@link #summary} prints), {@code host/} and
 * {@code device/} (guest-&lt;n&gt;.bin, image-&lt;k&gt;.raw and .png), {@code diff/image-&lt;k&gt;.png}
 * and {@code junit.xml}. The verdict gives the exit status: 0 equal, 1 different (or the host could
 * not finish), and says why.
 */
public final class RunReport {
    public static final String SCHEMA = "replay-farm/run-report/1";

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
                if (!d.equal()) {
                    reasons.add(String.format("range %d (%s): %d of %d compared bytes differ, %d device-only", d.index(),
                            d.name(), d.differing(), d.compared(), d.deviceOnly()));
                }
            }
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
        Verdict verdict = verdict(o, diff, nondeterministic);
        Evaluation.write(o, kernel, id.captureSha256(), dir, report -> {
            report.put("schema", SCHEMA);
            report.put("capture_file", id.captureName());
            report.put("job", id.jobId());
            report.put("selection", id.selection());
            report.put("nondeterministic_slices", nondeterministic);
            device(report.putObject("device"), device);
            comparison(report.putObject("comparison"), diff, options);
            ObjectNode result = report.putObject("result");
            result.put("status", verdict.status()).put("exit_status", verdict.exitStatus());
            verdict.reasons().forEach(result.putArray("reasons")::add);
            report.putObject("timings").put("host_seconds", o.wallTime().toNanos() / 1e9)
                    .put("device_seconds", device.seconds()).put("diff_seconds", diffSeconds);
            SamplingReport.toJson(report, sampling);
        });
        pictures(dir, o, device.run(), diff);
        Files.writeString(dir.resolve("junit.xml"), JunitXml.of(kernel, o, id, device, diff), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("summary.txt"), summary(o, id, device, diff, options, verdict), StandardCharsets.UTF_8);
        return verdict;
    }

    private static void device(ObjectNode n, Device device) {
        n.put("choice", device.choice()).put("kind", device.kind()).put("label", device.label())
                .put("reason", device.reason());
        ArrayNode executions = n.putArray("executions");
        if (device.run() != null) {
            for (ExecutionRecord e : device.run().executions()) {
                executions.addObject().put("id", e.id()).put("duration_ns", e.durationNanos())
                        .put("serialized", e.serialized().name().toLowerCase(java.util.Locale.ROOT));
            }
            DeviceRun.Fidelity f = device.run().fidelity();
            if (f != null) {
                n.putObject("fidelity").put("translated_exact", f.translatedExact())
                        .put("translated_approximate", f.translatedApproximate()).put("refused", f.refused())
                        .put("unreached", f.unreached()).put("wave_instructions", f.waveInstructions())
                        .put("lane_instructions", f.laneInstructions()).put("faulted_groups", f.faultedGroups());
            }
        }
    }

    private static void comparison(ObjectNode n, DiffResult diff, DiffOptions options) {
        n.put("performed", diff != null);
        n.putObject("tolerances").put("ulp", options.ulp()).put("approximate", options.approximate())
                .put("description", options.describe());
        n.put("every_group", options.everyGroup());
        ArrayNode images = n.putArray("images");
        ArrayNode ranges = n.putArray("ranges");
        if (diff == null) {
            return;
        }
        for (ImageDiff d : diff.images()) {
            ObjectNode i = images.addObject().put("index", d.index()).put("name", d.name()).put("recorded", d.recorded())
                    .put("texels", d.texels()).put("compared", d.compared()).put("differing", d.differing())
                    .put("device_only", d.deviceOnly()).put("tolerated_ulp", d.toleratedUlp())
                    .put("tolerated_approximate", d.toleratedApproximate()).put("footprint", d.footprint())
                    .put("regions_total", d.regionCount());
            if (d.recorded()) {
                i.put("diff_png", "diff/image-" + d.index() + ".png");
            }
            ArrayNode regions = i.putArray("regions");
            for (TexelRegion r : d.regions()) {
                ObjectNode rn = regions.addObject().put("mip", r.mip()).put("layer", r.layer()).put("z", r.z())
                        .put("x0", r.x0()).put("y0", r.y0()).put("x1", r.x1()).put("y1", r.y1()).put("texels", r.texels())
                        .put("differing", r.differing()).put("device_only", r.deviceOnly());
                groups(rn, r.groups());
            }
        }
        for (RangeDiff d : diff.ranges()) {
            ObjectNode i = ranges.addObject().put("index", d.index()).put("name", d.name()).put("recorded", d.recorded())
                    .put("bytes", d.bytes()).put("compared", d.compared()).put("differing", d.differing())
                    .put("device_only", d.deviceOnly()).put("tolerated_approximate", d.toleratedApproximate())
                    .put("footprint", d.footprint()).put("regions_total", d.regionCount());
            ArrayNode regions = i.putArray("regions");
            for (ByteRun r : d.regions()) {
                ObjectNode rn = regions.addObject().put("offset", r.offset()).put("length", r.length())
                        .put("differing", r.differing()).put("device_only", r.deviceOnly());
                groups(rn, r.groups());
            }
        }
    }

    private static void groups(ObjectNode n, List<GroupTrace> groups) {
        ArrayNode a = n.putArray("groups");
        for (GroupTrace g : groups) {
            a.addObject().put("group", g.group()).put("stored", g.units())
                    .put("approximate_instructions", g.approximateInstructions());
        }
    }

    private static void pictures(Path dir, Evaluation.Outcome o, DeviceRun run, DiffResult diff) throws IOException {
        // host/ (guest-<n>.bin, image-<k>.raw and .png) is Evaluation.write's
        if (run == null) {
            return;
        }
        Path device = Files.createDirectories(dir.resolve("device"));
        for (var r : run.ranges().keySet()) {
            Files.write(device.resolve("guest-" + r + ".bin"), run.rangeBytes(r));
        }
        for (var k : run.images().keySet()) {
            byte[] texels = run.imageTexels(k);
            Files.write(device.resolve("image-" + k + ".raw"), texels);
            Files.write(device.resolve("image-" + k + ".png"), ImagePng.encode(o.images().initial().get(k).image(), texels));
        }
        if (diff == null) {
            return;
        }
        Path pictures = Files.createDirectories(dir.resolve("diff"));
        for (ImageDiff d : diff.images()) {
            if (d.recorded()) {
                Files.write(pictures.resolve("image-" + d.index() + ".png"), DiffPicture.png(
                        o.images().initial().get(d.index()).image(), o.images().texels(d.index()),
                        d.differingTexels(), d.deviceOnlyTexels()));
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
        if (diff != null) {
            w.printf("comparison      %s%n", options.describe());
            for (ImageDiff d : diff.images()) {
                if (!d.recorded()) {
                    w.printf("  image %d %-10s not recorded by the device run%n", d.index(), d.name());
                    continue;
                }
                w.printf("  image %d %-10s %d compared, %d differing, %d device-only%s, %d region(s)%n", d.index(), d.name(),
                        d.compared(), d.differing(), d.deviceOnly(), tolerated(d.toleratedUlp() + d.toleratedApproximate()),
                        d.regionCount());
                d.regions().stream().limit(3).forEach(r -> w.printf("      mip %d layer %d: x %d..%d, y %d..%d, %d texel(s)%s%n",
                        r.mip(), r.layer(), r.x0(), r.x1(), r.y0(), r.y1(), r.texels(), groupsText(r.groups())));
            }
            for (RangeDiff d : diff.ranges()) {
                if (!d.recorded()) {
                    w.printf("  range %d %-10s not recorded by the device run%n", d.index(), d.name());
                    continue;
                }
                w.printf("  range %d %-10s %d compared, %d differing, %d device-only%s, %d run(s)%n", d.index(), d.name(),
                        d.compared(), d.differing(), d.deviceOnly(), tolerated(d.toleratedApproximate()), d.regionCount());
                d.regions().stream().limit(3).forEach(r -> w.printf("      bytes %d..%d (%d)%s%n", r.offset(),
                        r.offset() + r.length() - 1, r.length(), groupsText(r.groups())));
            }
        }
        w.printf("result          %s (exit status %d)%n", verdict.status(), verdict.exitStatus());
        verdict.reasons().stream().limit(8).forEach(r -> w.println("  " + r));
        w.flush();
        return s.toString();
    }

    private static String tolerated(long n) {
        return n == 0 ? "" : ", " + n + " within tolerance";
    }

    private static String groupsText(List<GroupTrace> groups) {
        if (groups.isEmpty()) {
            return ", stored by no group";
        }
        StringBuilder b = new StringBuilder(", stored by ");
        for (int i = 0; i < Math.min(3, groups.size()); i++) {
            GroupTrace g = groups.get(i);
            b.append(i > 0 ? ", " : "").append(g.group()).append(" [").append(g.approximateInstructions()).append(" approx]");
        }
        return b.append(groups.size() > 3 ? " and " + (groups.size() - 3) + " more" : "").toString();
    }
}
