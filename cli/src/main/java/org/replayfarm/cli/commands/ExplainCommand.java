package org.replayfarm.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.replayfarm.coordinator.report.DwarfLines;
import org.replayfarm.coordinator.report.ElementType;
import org.replayfarm.coordinator.report.StoreTrace;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.proto.Image;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import org.replayfarm.cli.Replay;
import org.replayfarm.cli.divergence.FirstDivergence;
import org.replayfarm.cli.divergence.ProbeDivergence;

@Command(name = "explain", mixinStandardHelpOptions = true,
        description = {"Name the instruction that stored an element of a compared run: re-runs the groups that wrote it "
                + "on the host model with store tracing and prints every store or atomic to its bytes (group, wave, lane, "
                + "PC, the instruction, the value written, and the source line when the code object beside the capture "
                + "has -g line info), with the host's and the device's values from OUT_DIR.",
                "The groups come from OUT_DIR/report.json (the element's listed value or the region holding it), or "
                        + "--group; the capture from the report's capture_path, or --capture.",
                "Exit status 0, 2 on error."})
public final class ExplainCommand implements Callable<Integer> {
    /** With no group named, a dispatch of at most this many groups is re-run whole. */
    static final int EVERY_GROUP_UP_TO = 256;
    /** The groups re-run are named up to this many; the line says how many more. */
    static final int GROUPS_NAMED = 16;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "OUT_DIR", description = "The output directory of replay run (or replay results).")
    Path out;

    static final class Target {
        @Option(names = "--range", paramLabel = "NAME", required = true,
                description = "The range: its kernel parameter, index or name.")
        String range;

        @Option(names = "--element", paramLabel = "I", required = true,
                description = "The element index (a byte offset in an untyped range).")
        long element;
    }

    static final class TexelTarget {
        @Option(names = "--image", paramLabel = "K", required = true, description = "The image index.")
        int image;

        @Option(names = "--texel", paramLabel = "X,Y", required = true, description = "The texel of level 0, layer 0.")
        String texel;
    }

    static final class Which {
        @ArgGroup(exclusive = false)
        Target range;

        @ArgGroup(exclusive = false)
        TexelTarget image;
    }

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Which which;

    @Option(names = "--first-divergence",
            description = "Find the first instruction whose result differs (instead of the one that stored an element): "
                    + "the translation (cuda-cpu, or cuda-cpu:DIR) built with tracing runs one group (the first the report "
                    + "lists as differing, or --group) in lockstep with the host model; the first instruction whose "
                    + "registers, path or stored bytes differ while its inputs agree is printed with both sides' values, "
                    + "its operands and the 8 instructions before it, and written into OUT_DIR/report.json "
                    + "(first_divergence) and summary.txt.")
    boolean firstDivergence;

    @Option(names = "--device", paramLabel = "SPEC",
            description = "With --first-divergence: the device to trace (default: the report's, device.choice).")
    String device;

    @Option(names = "--method", paramLabel = "trace|probes",
            description = "With --first-divergence: lockstep traces (a translation: cuda-cpu, cuda-cpu:DIR) or probe "
                    + "bisection (patched captures run on the device: exec:, cuda-cpu); default: trace where the device "
                    + "can trace, else probes. A device that cannot run code (dir:, recorded) lists the slice as "
                    + "candidates.")
    String method;

    @Option(names = "--max-steps", paramLabel = "N", defaultValue = "1000000",
            description = "With --first-divergence: trace at most N instructions of the group (default ${DEFAULT-VALUE}).")
    long maxSteps;

    @Option(names = "--ulp", paramLabel = "N", defaultValue = "-1",
            description = "With --first-divergence: how far (units in the last place) an approximate instruction's float "
                    + "result may differ before it counts (default: the report's tolerance, at least 1).")
    int ulp;

    @Option(names = "--capture", paramLabel = "CAPTURE", description = "The capture (default: the report's capture_path).")
    Path capture;

    @Option(names = "--group", paramLabel = "X,Y,Z", description = "Re-run this group (repeatable) instead of those the report names.")
    List<String> groups = new ArrayList<>();

    @Option(names = "--debug-object", paramLabel = "ELF",
            description = "The code object compiled with -g to take line info from (default: the capture's --elf beside it).")
    Path debugObject;

    @Override
    public Integer call() throws Exception {
        Path reportFile = out.resolve("report.json");
        if (!Files.isRegularFile(reportFile)) {
            throw new NoSuchFileException(reportFile.toString());
        }
        JsonNode report;
        try {
            report = new ObjectMapper().readTree(reportFile.toFile());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new ParameterException(spec.commandLine(), reportFile + " is not a run report (not valid JSON: "
                    + org.replayfarm.coordinator.http.ProgressJson.parseError(e) + ")");
        }
        if (report == null || !report.isObject() || !report.path("schema").asText().startsWith("replay-farm/run-report/")) {
            throw new ParameterException(spec.commandLine(), reportFile + " is not a run report (no \"schema\": "
                    + "\"replay-farm/run-report/...\")");
        }
        Path capturePath = capture != null ? capture : Path.of(report.path("capture_path").asText(""));
        if (capture == null && report.path("capture_path").asText("").isEmpty()) {
            throw new ParameterException(spec.commandLine(), reportFile + " names no capture_path: give --capture");
        }
        CaptureFile file = CaptureFile.open(capturePath);
        if (!file.identity().equals(report.path("capture_sha256").asText(file.identity()))) {
            throw new ParameterException(spec.commandLine(), capturePath + " has sha256 " + file.identity() + ", but "
                    + reportFile + " is of " + report.path("capture_sha256").asText());
        }
        Kernel kernel = new Kernel(file);
        StoreTrace.SourceLines lines = debugObject != null ? DwarfLines.of(debugObject, file)
                : DwarfLines.forCapture(file, capturePath);
        // the groups given are checked before anything is printed: the form, and that the dispatch has them
        List<String> given = new ArrayList<>();
        var shape = kernel.dispatch();
        for (String g : groups) {
            String[] p = g.split(",");
            int[] id = new int[3];
            try {
                if (p.length > 3) {
                    throw new NumberFormatException();
                }
                for (int i = 0; i < p.length; i++) {
                    id[i] = Integer.parseInt(p[i].trim());
                }
            } catch (NumberFormatException ex) {
                throw new ParameterException(spec.commandLine(), "--group '" + g + "': expected X[,Y[,Z]]");
            }
            try {
                new GroupSelection(false, List.of(id)).resolve(shape); // the dispatch's bounds, as eval and run check them
            } catch (IllegalArgumentException outside) {
                throw new ParameterException(spec.commandLine(), "--group " + g + ": " + outside.getMessage());
            }
            given.add("(" + id[0] + ", " + id[1] + ", " + id[2] + ")");
        }
        PrintWriter w = spec.commandLine().getOut();
        if (firstDivergence) {
            int[] group = groups.isEmpty() ? FirstDivergence.firstDifferingGroup(report) : parseGroup(groups.get(0));
            String dev = device != null ? device : report.path("device").path("choice").asText("");
            if (dev.isEmpty() || dev.equals("auto")) {
                dev = report.path("device").path("kind").asText("none");
            }
            int tolerance = ulp >= 0 ? ulp : report.path("comparison").path("tolerances").path("ulp").asInt(0);
            if (group == null) {
                w.println("the report names no group that stored a differing element: tracing every group in order "
                        + "until one diverges");
            }
            org.replayfarm.gpunode.device.DeviceChoice choice;
            try {
                choice = org.replayfarm.gpunode.device.DeviceChoice.parse(dev);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            boolean traces = choice.kind() == org.replayfarm.gpunode.device.DeviceChoice.Kind.CUDA_CPU;
            String how = method != null ? method : traces ? "trace" : "probes";
            if (!how.equals("trace") && !how.equals("probes")) {
                throw new ParameterException(spec.commandLine(), "--method " + method + ": expected trace or probes");
            }
            if (how.equals("trace") && !traces) {
                if (method != null && ProbeDivergence.runsCaptures(choice)) {
                    throw new ParameterException(spec.commandLine(), FirstDivergence.cannotTrace(choice));
                }
                int listed = FirstDivergence.printCandidates(w, report);
                w.println(FirstDivergence.cannotTrace(choice));
                w.flush();
                return listed > 0 ? 0 : Replay.EXIT_ERROR;
            }
            if (how.equals("probes")) {
                try {
                    return ProbeDivergence.explain(w, out, file, report, groups.isEmpty() ? null : group, choice,
                            Math.max(1, tolerance), lines);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
            }
            FirstDivergence.Outcome o;
            try {
                o = FirstDivergence.search(file, group, dev, maxSteps, tolerance);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            FirstDivergence.print(w, o, lines);
            FirstDivergence.record(out, o, lines);
            return 0;
        }
        if (which == null) {
            throw new ParameterException(spec.commandLine(), "give --range NAME --element I, --image K --texel X,Y, or "
                    + "--first-divergence");
        }
        StoreTrace.Target target;
        Set<String> who = new LinkedHashSet<>();
        if (which.range != null) {
            JsonNode range = findRange(report, which.range.range);
            JsonNode view = range.path("view");
            boolean typed = view.path("typed").asBoolean(false);
            ElementType type = typed ? ElementType.parseView(view.path("type").asText()) : null;
            int eb = typed ? type.bytes() : 1;
            long e = which.range.element;
            long offset = e * eb;
            int n = range.path("index").asInt();
            if (e < 0 || offset + eb > range.path("bytes").asLong()) {
                throw new ParameterException(spec.commandLine(), "--element " + e + ": range " + n + " ("
                        + range.path("name").asText() + ") has " + range.path("bytes").asLong() / eb + " element(s)");
            }
            target = StoreTrace.Target.bytes(n, offset, eb, type);
            int rows = view.path("rows").asInt(0);
            int cols = view.path("cols").asInt(0);
            w.printf("range %d %s (%s), element %d%s, bytes %d..%d%n", n, range.path("name").asText(),
                    typed ? type.spelling() + (rows > 0 ? "[" + rows + "x" + cols + "]" : "") : "bytes", e,
                    rows > 0 ? " [" + e / cols + "][" + e % cols + "]" : "", offset, offset + eb - 1);
            printValues(w, type, eb, offset, out.resolve("host/guest-" + n + ".bin"), out.resolve("device/guest-" + n + ".bin"));
            for (JsonNode v : range.path("values")) {
                if (v.path("index").asLong() == e) {
                    v.path("groups").forEach(g -> who.add(g.asText()));
                }
            }
            if (who.isEmpty()) {
                for (JsonNode r : range.path("regions")) {
                    long o = r.path("offset").asLong();
                    if (offset < o + r.path("length").asLong() && offset + eb > o) {
                        r.path("groups").forEach(g -> who.add(g.path("group").asText()));
                    }
                }
            }
        } else {
            int k = which.image.image;
            List<Image> images = file.metadata().getImagesList();
            if (k < 0 || k >= images.size()) {
                throw new ParameterException(spec.commandLine(), "--image " + k + ": the capture has " + images.size()
                        + " image(s)");
            }
            String[] xy = which.image.texel.split(",");
            int x;
            int y;
            try {
                x = Integer.parseInt(xy[0].trim());
                y = Integer.parseInt(xy[1].trim());
            } catch (RuntimeException ex) {
                throw new ParameterException(spec.commandLine(), "--texel '" + which.image.texel + "': expected X,Y");
            }
            Image image = images.get(k);
            if (xy.length != 2 || x < 0 || y < 0 || x >= image.getWidth() || y >= Math.max(1, image.getHeight())) {
                throw new ParameterException(spec.commandLine(), "--texel " + which.image.texel + ": image " + k + " is "
                        + image.getWidth() + "x" + image.getHeight());
            }
            long t = TexelLayout.texelIndex(image, new TexelLayout.Texel(0, 0, x, y, 0));
            target = StoreTrace.Target.texel(k, t, new org.replayfarm.model.image.ImageFormat(image.getDataFormat(),
                    image.getNumericFormat()));
            w.printf("image %d %s, texel (%d, %d)%n", k, image.getName(), x, y);
            // every texel's values, from the images the run wrote (the report lists only the first --values N)
            org.replayfarm.model.image.ImageFormat format = new org.replayfarm.model.image.ImageFormat(
                    image.getDataFormat(), image.getNumericFormat());
            printTexel(w, format, t, out.resolve("host/image-" + k + ".raw"), out.resolve("device/image-" + k + ".raw"));
            JsonNode img = report.path("comparison").path("images").path(k);
            for (JsonNode v : img.path("values")) {
                if (v.path("index").asLong() == t) {
                    v.path("groups").forEach(g -> who.add(g.asText()));
                }
            }
            if (who.isEmpty()) {
                for (JsonNode r : img.path("regions")) {
                    if (r.path("mip").asInt() == 0 && r.path("layer").asInt() == 0 && x >= r.path("x0").asInt()
                            && x <= r.path("x1").asInt() && y >= r.path("y0").asInt() && y <= r.path("y1").asInt()) {
                        r.path("groups").forEach(g -> who.add(g.path("group").asText()));
                    }
                }
            }
        }
        if (!given.isEmpty()) {
            who.clear();
            who.addAll(given);
        }
        var d = kernel.dispatch();
        long all = (long) d.getGroupCountX() * d.getGroupCountY() * d.getGroupCountZ();
        if (who.isEmpty() && all <= EVERY_GROUP_UP_TO) {
            w.printf("the report names no group that stored it: re-running all %d group(s)%n", all);
            for (int z = 0; z < d.getGroupCountZ(); z++) {
                for (int y = 0; y < d.getGroupCountY(); y++) {
                    for (int x = 0; x < d.getGroupCountX(); x++) {
                        who.add("(" + x + ", " + y + ", " + z + ")");
                    }
                }
            }
        }
        if (who.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "the report names no group that stored this element (it is not "
                    + "among the listed differences, or no group stored it) and the dispatch has " + all + " groups; give "
                    + "--group X,Y,Z");
        }
        List<String> named = List.copyOf(who);
        w.printf("re-running %d group(s) with store tracing: %s%n", who.size(), named.size() <= GROUPS_NAMED
                ? String.join(" ", named)
                : String.join(" ", named.subList(0, GROUPS_NAMED)) + " and " + (named.size() - GROUPS_NAMED) + " more");
        // the groups the merge ran again in order (order-dependent atomics) are traced as they ran there
        List<String> inOrder = new java.util.ArrayList<>();
        report.path("order_dependent_in_order").path("groups").forEach(n -> inOrder.add(n.asText()));
        Map<StoreTrace.Target, List<StoreTrace.Store>> stores = StoreTrace.trace(kernel, HostModel.DEFAULT_BUDGET,
                Map.of(target, List.copyOf(who)), lines, inOrder);
        List<StoreTrace.Store> found = stores.get(target);
        if (found.isEmpty()) {
            w.println("  no store or atomic of these groups wrote it");
        }
        for (StoreTrace.Store s : found) {
            w.println("  " + s.describe());
        }
        w.printf("%d write(s) listed (at most %d per group)%n", found.size(), StoreTrace.STORES_KEPT);
        w.flush();
        return 0;
    }

    private static int[] parseGroup(String g) {
        String[] p = g.split(",");
        int[] id = new int[3];
        for (int i = 0; i < p.length; i++) {
            id[i] = Integer.parseInt(p[i].trim());
        }
        return id;
    }

    private JsonNode findRange(JsonNode report, String key) {
        List<String> names = new ArrayList<>();
        for (JsonNode r : report.path("comparison").path("ranges")) {
            if (r.path("parameter").asText().equals(key) || r.path("name").asText().equals(key)
                    || r.path("range_name").asText().equals(key) || String.valueOf(r.path("index").asInt()).equals(key)) {
                return r;
            }
            names.add(r.path("index").asInt() + " (" + r.path("name").asText() + ")");
        }
        throw new ParameterException(spec.commandLine(), "--range '" + key + "': no such range in the report; ranges: " + names
                + (names.isEmpty() ? " (the run compared nothing: was there a device?)" : ""));
    }

    /** The texel's channels on each side (value and bits), or that a side's image was not written. */
    private static void printTexel(PrintWriter w, org.replayfarm.model.image.ImageFormat format, long t, Path host,
                                   Path device) throws java.io.IOException {
        int bpt = format.bytesPerTexel();
        for (Path p : new Path[] {host, device}) {
            String side = p == host ? "host  " : "device";
            long at = t * bpt;
            if (!Files.isRegularFile(p) || Files.size(p) < at + bpt) {
                w.printf("  %s (not recorded)%n", side);
                continue;
            }
            byte[] texel;
            try (java.io.InputStream in = Files.newInputStream(p)) {
                in.skipNBytes(at);
                texel = in.readNBytes(bpt);
            }
            w.printf("  %s %s%n", side, org.replayfarm.coordinator.report.Diff.texelText(format, texel, 0));
        }
    }

    private static void printValues(PrintWriter w, ElementType type, int eb, long offset, Path host, Path device)
            throws java.io.IOException {
        for (Path p : new Path[] {host, device}) {
            String side = p == host ? "host  " : "device";
            if (!Files.isRegularFile(p)) {
                w.printf("  %s (not recorded)%n", side);
                continue;
            }
            byte[] all = Files.readAllBytes(p);
            byte[] bytes = java.util.Arrays.copyOfRange(all, (int) offset, (int) offset + eb);
            List<String> parts = new ArrayList<>();
            if (type == null) {
                parts.add(String.format("0x%02x", bytes[0] & 0xFF));
            } else {
                for (int c = 0; c < type.components(); c++) {
                    long bits = type.bits(bytes, 0, c);
                    parts.add(type.value(bits) + " (" + type.hex(bits) + ")");
                }
            }
            w.printf("  %s %s%n", side, String.join(", ", parts));
        }
    }
}
