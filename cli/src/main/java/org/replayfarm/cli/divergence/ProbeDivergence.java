package org.replayfarm.cli.divergence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.coordinator.report.ReportSections;
import org.replayfarm.coordinator.report.StoreTrace;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.probe.CrossGroup;
import org.replayfarm.evalnode.probe.Execution;
import org.replayfarm.evalnode.probe.ProbeSearch;
import org.replayfarm.evalnode.probe.Slice;
import org.replayfarm.gpunode.device.DeviceBackend;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.gpunode.device.DeviceEvents;
import org.replayfarm.gpunode.device.DeviceRequest;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.evalnode.eval.ReportJson;
import org.replayfarm.cli.Replay;

/**
 * {@code replay explain OUT --first-divergence --method probes}: the first wrong instruction by probe bisection
 * ({@link ProbeSearch}) on a device that runs captures ({@code exec:}, {@code cuda-cpu}); printed like the lockstep
 * search's answer, with the probes run and their verdicts instead of the last instructions, and written into
 * report.json ({@code first_divergence}, method {@code probe bisection}) and summary.txt. For a device that cannot run
 * code, {@link #printSlice} lists the slice as candidates.
 */
public final class ProbeDivergence {
    private static final Pattern GROUP = Pattern.compile("\\((\\d+), (\\d+), (\\d+)\\)");

    private ProbeDivergence() {
    }

    /** The differing element to start from: its target in the host's stores, and the group that wrote it. */
    record Start(Execution.Target target, int[] group, String what, List<int[]> inOrder) {
    }

    /** The groups report.json says the in-order pass ran, in that order. */
    static List<int[]> inOrder(JsonNode report) {
        List<String> names = new ArrayList<>();
        report.path("order_dependent_in_order").path("groups").forEach(n -> names.add(n.asText()));
        return CrossGroup.parse(names);
    }

    /**
     * The first differing element or texel the report lists that {@code group} wrote (any group when null), or null
     * when it lists none (every differing value device-only: no host store to start from).
     */
    static Start start(JsonNode report, int[] group) {
        for (JsonNode r : report.path("comparison").path("ranges")) {
            int eb = Math.max(1, r.path("view").path("element_bytes").asInt(1));
            for (JsonNode v : r.path("values")) {
                int[] g = groupOf(v, group);
                if (g != null && !v.path("kind").asText().equals("device-only")) {
                    long element = v.path("index").asLong();
                    return new Start(Execution.Target.range(r.path("index").asInt(), element * eb, eb), g,
                            "range " + r.path("index").asInt() + " (" + r.path("name").asText() + ") element "
                                    + element, inOrder(report));
                }
            }
        }
        for (JsonNode i : report.path("comparison").path("images")) {
            for (JsonNode v : i.path("values")) {
                int[] g = groupOf(v, group);
                if (g != null && !v.path("kind").asText().equals("device-only")) {
                    return new Start(Execution.Target.texel(i.path("index").asInt(), v.path("index").asLong()), g,
                            "image " + i.path("index").asInt() + " texel " + v.path("index").asLong(),
                            inOrder(report));
                }
            }
        }
        return null;
    }

    private static int[] groupOf(JsonNode value, int[] wanted) {
        for (JsonNode g : value.path("groups")) {
            Matcher m = GROUP.matcher(g.asText());
            if (m.matches()) {
                int[] id = {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
                if (wanted == null || java.util.Arrays.equals(id, wanted)) {
                    return id;
                }
            }
        }
        return null;
    }

    /** What the search printed and wrote. */
    record Outcome(ProbeSearch.Result result, int[] group, String device, String start, String store,
                   double hostSeconds) {
    }

    /** The host's side: the group's run, the store of the differing element, and its slice. */
    record HostSide(HostModel model, Execution execution, Slice slice, Execution.Store store) {
    }

    static HostSide hostSide(CaptureFile file, Start start) {
        HostModel model = new HostModel(new Kernel(file), HostModel.DEFAULT_BUDGET);
        Execution e = CrossGroup.record(model, start.inOrder(), start.group(), start.target());
        Execution.Store s = e.store();
        if (s == null) {
            throw new IllegalArgumentException("group " + text(start.group()) + " stores nothing to " + start.what()
                    + " on the host model: no store to start the slice from");
        }
        return new HostSide(model, e, Slice.of(e, s.wave(), s.step()), s);
    }

    /** Runs the probe search on {@code device} (exec: or cuda-cpu). */
    static Outcome search(CaptureFile file, Start start, DeviceChoice device, int ulp) throws Exception {
        DeviceBackend backend = backend(file, device);
        long t0 = System.nanoTime();
        HostSide h = hostSide(file, start);
        double host = (System.nanoTime() - t0) / 1e9;
        Path work = Files.createTempDirectory("replay-probes");
        try {
            ProbeSearch.Device onDevice = (probe, range) -> {
                DeviceRun run = backend.run(new DeviceRequest(probe, probe.identity()), DeviceEvents.ignore());
                ByteBuffer b = run.ranges().get(range);
                if (b == null) {
                    throw new IllegalStateException("the device did not return the probe range (range " + range + ")");
                }
                return b;
            };
            ProbeSearch.Result r = ProbeSearch.search(file, h.model(), h.execution(), h.slice(), onDevice, ulp, work);
            Execution.Step st = h.execution().steps(h.store().wave()).get(h.store().step());
            String store = String.format("0x%x: %s", st.pc(), st.text());
            // an atomic whose returned bytes differ while its inputs agree read what another group wrote: go there
            if (r.answer().isPresent()) {
                ProbeSearch.Answer a = r.answer().get();
                for (CrossGroup.Link link : CrossGroup.follow(h.model(), start.inOrder(), h.execution(), h.slice(), 8)) {
                    if (link.atomic().pc() != a.pc() || link.atomic().wave() != a.wave()) {
                        continue;
                    }
                    ProbeSearch.Result there = ProbeSearch.search(file, h.model(), link.execution(), link.slice(),
                            onDevice, ulp, work);
                    Execution.Step ws = link.slice().entries().get(link.slice().entries().size() - 1).step();
                    String note = String.format("followed across groups: group %s's %s at 0x%x read range %d bytes "
                            + "%d..%d, which group %s wrote last before it in the in-order pass (wave %d 0x%x: %s); "
                            + "searched there", text(start.group()), a.instruction(), a.pc(), link.bytes().range(),
                            link.bytes().offset(), link.bytes().offset() + link.bytes().length() - 1,
                            text(link.group()), ws.wave(), ws.pc(), ws.text());
                    return new Outcome(join(r, there, note), link.group(), device.spelling(), start.what(), store,
                            host);
                }
            }
            return new Outcome(r, start.group(), device.spelling(), start.what(), store, host);
        } finally {
            CpuBuild.deleteTree(work);
        }
    }

    /** The search in the group first searched, then the one it led to: that one's answer, every run renumbered. */
    private static ProbeSearch.Result join(ProbeSearch.Result first, ProbeSearch.Result then, String note) {
        int n = first.runs().size();
        List<ProbeSearch.Run> runs = new ArrayList<>(first.runs());
        then.runs().forEach(x -> runs.add(new ProbeSearch.Run(x.number() + n, x.pcs(), x.seconds())));
        List<ProbeSearch.Probe> probes = new ArrayList<>(first.probes());
        then.probes().forEach(x -> probes.add(new ProbeSearch.Probe(x.run() + n, x.wave(), x.pc(), x.hit(),
                x.instruction(), x.verdict())));
        List<String> notes = new ArrayList<>(first.notes());
        notes.add(note);
        notes.addAll(then.notes());
        return new ProbeSearch.Result(then.answer(), probes, runs, then.sliceSize(), then.probeable(), notes);
    }

    /** Whether the device can run a probe capture (exec:, cuda-cpu translated afresh, cuda). */
    public static boolean runsCaptures(DeviceChoice d) {
        return d.kind() == DeviceChoice.Kind.EXEC || d.kind() == DeviceChoice.Kind.CUDA
                || (d.kind() == DeviceChoice.Kind.CUDA_CPU && !d.folderTranslation());
    }

    /**
     * {@code explain --first-divergence} by probes: the search on a device that runs captures, printed and recorded;
     * for one that cannot run code, the slice as candidates and what would localise it. The exit status.
     */
    public static int explain(PrintWriter w, Path out, CaptureFile file, JsonNode report, int[] group, DeviceChoice device,
                       int ulp, StoreTrace.SourceLines lines) throws Exception {
        Start start = start(report, group);
        if (!runsCaptures(device)) {
            if (start == null) {
                int listed = FirstDivergence.printCandidates(w, report);
                w.println(FirstDivergence.cannotTrace(device));
                w.flush();
                return listed > 0 ? 0 : Replay.EXIT_ERROR;
            }
            int listed = printSlice(w, file, start);
            w.println(FirstDivergence.cannotTrace(device));
            w.flush();
            return listed > 0 ? 0 : Replay.EXIT_ERROR;
        }
        if (start == null) {
            throw new IllegalArgumentException("the report lists no differing value that " + (group == null
                    ? "a group" : "group " + text(group)) + " stored on the host model: probes start from one");
        }
        Outcome o = search(file, start, device, ulp);
        print(w, o, lines);
        record(out, o, lines);
        return 0;
    }

    private static DeviceBackend backend(CaptureFile file, DeviceChoice device) {
        if (device.kind() == DeviceChoice.Kind.CUDA_CPU && device.folderTranslation()) {
            throw new IllegalArgumentException("--device " + device.spelling() + " --method probes: a translation folder "
                    + "holds the original program's code, not a probe capture's; use --method trace, or --device "
                    + "cuda-cpu (translated from each probe capture)");
        }
        if (!runsCaptures(device)) {
            throw new IllegalArgumentException("--device " + device.spelling() + " cannot run a probe capture");
        }
        return device.resolve(file).backend().orElseThrow();
    }

    /** For a device that cannot run code: the slice of the first differing value, as candidates; how many. */
    static int printSlice(PrintWriter w, CaptureFile file, Start start) {
        HostSide h = hostSide(file, start);
        List<Slice.Entry> entries = h.slice().entries();
        w.printf("candidates: the backward slice of %s (group %s wave %d): the %d instruction(s) whose results "
                + "reached the stored value or its address, the store last:%n", start.what(), text(start.group()),
                h.slice().wave(), entries.size());
        java.util.LinkedHashMap<Long, String> byPc = new java.util.LinkedHashMap<>();
        java.util.Map<Long, Integer> times = new java.util.HashMap<>();
        for (Slice.Entry e : entries) {
            byPc.remove(e.step().pc());
            byPc.put(e.step().pc(), e.step().text());
            times.merge(e.step().pc(), 1, Integer::sum);
        }
        List<Long> pcs = new ArrayList<>(byPc.keySet());
        int from = Math.max(0, pcs.size() - 24);
        if (from > 0) {
            w.printf("  ... %d earlier instruction(s)%n", from);
        }
        for (long pc : pcs.subList(from, pcs.size())) {
            w.printf("  0x%x: %s%s%n", pc, byPc.get(pc), times.get(pc) > 1 ? "  (" + times.get(pc) + " times)" : "");
        }
        int listed = entries.size();
        for (CrossGroup.Link link : CrossGroup.follow(h.model(), start.inOrder(), h.execution(), h.slice(), 8)) {
            List<Slice.Entry> there = link.slice().entries();
            Execution.Step ws = there.get(there.size() - 1).step();
            w.printf("  across groups: 0x%x %s read range %d bytes %d..%d, written last before it in the in-order pass "
                    + "by group %s wave %d at 0x%x: %s; that write's slice there (%d instruction(s)):%n",
                    link.atomic().pc(), link.atomic().text(), link.bytes().range(), link.bytes().offset(),
                    link.bytes().offset() + link.bytes().length() - 1, text(link.group()), ws.wave(), ws.pc(),
                    ws.text(), there.size());
            java.util.LinkedHashMap<Long, String> inThere = new java.util.LinkedHashMap<>();
            for (Slice.Entry e : there) {
                inThere.remove(e.step().pc());
                inThere.put(e.step().pc(), e.step().text());
            }
            List<Long> tpcs = new ArrayList<>(inThere.keySet());
            for (long pc : tpcs.subList(Math.max(0, tpcs.size() - 12), tpcs.size())) {
                w.printf("    0x%x: %s%n", pc, inThere.get(pc));
            }
            listed += there.size();
        }
        return listed;
    }

    static void print(PrintWriter w, Outcome o, StoreTrace.SourceLines lines) {
        ProbeSearch.Result r = o.result();
        String g = text(o.group());
        if (r.answer().isEmpty()) {
            w.printf("no divergence found: every probe along the slice of %s agrees with the host model%n", o.start());
        } else {
            ProbeSearch.Answer a = r.answer().get();
            FirstDivergence.printFound(w, lines, g, a.wave(), a.pc(), a.instruction(), a.why(), a.kind());
            if (!a.differs().isEmpty()) {
                w.println("  differs (host | device):");
                for (ProbeSearch.Value v : a.differs()) {
                    w.printf("    %-18s %s | %s%n", name(v), FirstDivergence.value(v.host()), device(v));
                }
            }
            if (!a.operands().isEmpty()) {
                w.println("  operands before it (host | device, from the probes of the instructions that wrote them):");
                for (ProbeSearch.Value v : a.operands()) {
                    w.printf("    %-18s %s | %s%s%n", name(v), FirstDivergence.value(v.host()), device(v),
                            v.device() != null && v.device() != v.host() ? "   <- differs" : "");
                }
            }
        }
        w.printf("  the slice: %d instruction(s) from %s, stored by %s; %d can be probed%n", r.sliceSize(), o.start(),
                o.store(), r.probeable());
        w.printf("  probes (%d run(s) of the device):%n", r.runs().size());
        for (ProbeSearch.Run run : r.runs()) {
            w.printf(Locale.ROOT, "    run %d (%.2f s): %s%n", run.number(), run.seconds(), run.pcs().stream()
                    .map(pc -> String.format("0x%x", pc)).reduce((x, y) -> x + ", " + y).orElse(""));
            // every execution that does not agree, and the first few that do (report.json has them all)
            int agreeing = 0;
            int shown = 0;
            for (ProbeSearch.Probe p : r.probes()) {
                if (p.run() != run.number()) {
                    continue;
                }
                boolean agrees = p.verdict().startsWith("agrees");
                if (agrees && shown >= 4) {
                    agreeing++;
                    continue;
                }
                shown += agrees ? 1 : 0;
                w.printf("      wave %d 0x%x #%d %-40s %s%n", p.wave(), p.pc(), p.hit(), trim(p.instruction()),
                        p.verdict());
            }
            if (agreeing > 0) {
                w.printf("      (%d more execution(s) agree)%n", agreeing);
            }
        }
        for (String n : r.notes()) {
            w.printf("  note: %s%n", n);
        }
        w.printf(Locale.ROOT, "searched: probe bisection of group %s on %s: %d probe run(s), %.2f s on the device, "
                + "host model %.2f s%n", g, shortened(o.device()), r.runs().size(), r.deviceSeconds(), o.hostSeconds());
        w.flush();
    }

    /** A device's spelling for one line: a long exec: command's middle left out. */
    static String shortened(String device) {
        return device.length() <= 120 ? device : device.substring(0, 60) + " ... " + device.substring(device.length() - 55);
    }

    private static String trim(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }

    private static String name(ProbeSearch.Value v) {
        return v.lane() >= 0 ? v.register() + " lane " + v.lane() : v.register();
    }

    private static String device(ProbeSearch.Value v) {
        return v.device() == null ? "(not probed)" : FirstDivergence.value(v.device());
    }

    static String text(int[] g) {
        return "(" + g[0] + ", " + g[1] + ", " + g[2] + ")";
    }

    /** Writes the outcome into OUT/report.json ({@code first_divergence}) and OUT/summary.txt. */
    static void record(Path out, Outcome o, StoreTrace.SourceLines lines) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Path file = out.resolve("report.json");
        ObjectNode report = (ObjectNode) json.readTree(file.toFile());
        ProbeSearch.Result r = o.result();
        ProbeSearch.Answer found = r.answer().orElse(null);
        boolean is = found != null;
        List<ReportSections.Probe> probes = r.probes().stream().map(p -> new ReportSections.Probe(p.run(), p.wave(),
                String.format("0x%x", p.pc()), p.hit(), p.instruction(), p.verdict())).toList();
        ObjectNode f = ReportJson.tree(new ReportSections.FirstDivergence("probe bisection", o.device(),
                java.util.Arrays.stream(o.group()).boxed().toList(), null, null, null, o.start(), o.store(),
                (long) r.sliceSize(), (long) r.probeable(), (long) r.runs().size(), r.deviceSeconds(), is,
                is ? found.wave() : null, is ? String.format("0x%x", found.pc()) : null, is ? found.instruction() : null,
                is ? found.kind() : null, is ? found.why() : null, is ? lines.at(found.pc()) : null,
                is ? registers(found.differs()) : null, is ? registers(found.operands()) : null, null, probes,
                r.notes()));
        report.set("first_divergence", f);
        json.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), report);
        Path summary = out.resolve("summary.txt");
        if (Files.isRegularFile(summary)) {
            StringBuilder s = new StringBuilder(Files.readString(summary));
            String mark = "first divergence";
            int at = s.indexOf("\n" + mark);
            if (at >= 0) {
                s.setLength(at + 1);
            }
            s.append(r.answer().map(a -> String.format("%s    group %s wave %d pc 0x%x: %s (probe bisection, %d run(s))%n",
                    mark, text(o.group()), a.wave(), a.pc(), a.instruction(), r.runs().size()))
                    .orElse(mark + "    none found by probe bisection in group " + text(o.group()) + "\n"));
            Files.writeString(summary, s);
        }
    }

    private static List<ReportSections.Register> registers(List<ProbeSearch.Value> values) {
        return values.stream().map(v -> new ReportSections.Register(v.register(), v.lane() >= 0 ? v.lane() : null,
                String.format("0x%08x", v.host()), v.device() == null ? null : String.format("0x%08x", v.device())))
                .toList();
    }
}
