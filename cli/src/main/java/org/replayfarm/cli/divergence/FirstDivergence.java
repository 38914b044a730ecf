package org.replayfarm.cli.divergence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.coordinator.report.ReportSections;
import org.replayfarm.coordinator.report.StoreTrace;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.trace.DeviceTrace;
import org.replayfarm.evalnode.trace.Lockstep;
import org.replayfarm.gpunode.device.CudaCpuBackend;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.gpunode.device.DeviceException;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.evalnode.eval.ReportJson;

/**
 * {@code replay explain OUT --first-divergence}: the first instruction whose result differs between the host model and
 * a translation (cuda-cpu, cuda-cpu:DIR), found by lockstep traces of one group ({@link Lockstep}); printed, and
 * written into OUT/report.json ({@code first_divergence}) and OUT/summary.txt.
 */
public final class FirstDivergence {
    private static final Pattern GROUP = Pattern.compile("\\((\\d+), (\\d+), (\\d+)\\)");

    private FirstDivergence() {
    }

    /** The group to trace: the first that stored a differing element or texel the report lists, else (0, 0, 0). */
    public static int[] firstDifferingGroup(JsonNode report) {
        for (String kind : List.of("ranges", "images")) {
            for (JsonNode r : report.path("comparison").path(kind)) {
                for (JsonNode region : r.path("regions")) {
                    for (JsonNode g : region.path("groups")) {
                        Matcher m = GROUP.matcher(g.path("group").asText());
                        if (m.matches()) {
                            return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                                    Integer.parseInt(m.group(3))};
                        }
                    }
                }
            }
        }
        return null;
    }

    /** What the search printed and wrote, for tests and the planted-bug benchmark. */
    public record Outcome(Lockstep.Result result, int[] group, String device, double tracedSeconds, double hostSeconds) {
    }

    /**
     * Traces {@code group} on {@code device} and searches it; with {@code group} null, every group of the dispatch in
     * order (each from the initial memory, at most {@code maxSteps} instructions in all) until one diverges (the stored
     * bytes are then not compared: the device's memory holds every group's).
     */
    public static Outcome search(CaptureFile file, int[] group, String device, long maxSteps, int ulp) throws DeviceException {
        DeviceChoice choice = DeviceChoice.parse(device);
        if (choice.kind() != DeviceChoice.Kind.CUDA_CPU) {
            throw new IllegalArgumentException(cannotTrace(choice));
        }
        CudaCpuBackend backend = choice.folderTranslation() ? CudaCpuBackend.ofFolder(Path.of(choice.label()))
                : new CudaCpuBackend();
        CudaCpuBackend.Traced traced = backend.trace(file, group, maxSteps);
        List<DeviceTrace> traces = DeviceTrace.readAll(traced.trace());
        if (traces.isEmpty()) {
            throw new IllegalArgumentException("the traced run recorded no group");
        }
        long start = System.nanoTime();
        HostModel model = new HostModel(new Kernel(file), HostModel.DEFAULT_BUDGET);
        Outcome last = null;
        long steps = 0;
        int tolerated = 0;
        for (DeviceTrace trace : traces) {
            Lockstep.Result r = Lockstep.search(model, trace, group == null ? java.util.Map.of() : traced.ranges(), ulp);
            steps += r.steps();
            tolerated += r.tolerated();
            List<String> notes = new java.util.ArrayList<>(r.notes());
            if (group == null) {
                notes.add(0, "traced " + traces.size() + " group(s) in order, each alone from the initial memory; "
                        + "stored bytes not compared in this scan");
            }
            last = new Outcome(new Lockstep.Result(r.divergence(), steps, tolerated, notes), trace.group(),
                    choice.spelling(), traced.nanos() / 1e9, (System.nanoTime() - start) / 1e9);
            if (r.divergence().isPresent()) {
                break;
            }
        }
        return last;
    }

    /**
     * For a device that cannot be traced: the stores the report lists for its first differing values (the storing
     * instructions, candidates for the first wrong one); how many it printed.
     */
    public static int printCandidates(PrintWriter w, JsonNode report) {
        java.util.Set<String> seen = new java.util.LinkedHashSet<>();
        for (String kind : List.of("ranges", "images")) {
            for (JsonNode r : report.path("comparison").path(kind)) {
                for (JsonNode v : r.path("values")) {
                    for (JsonNode st : v.path("stores")) {
                        seen.add(String.format("%s %s wave %d: %s%s", st.path("pc").asText(), st.path("group").asText(),
                                st.path("wave").asInt(), st.path("instruction").asText(),
                                st.path("source").asText().isEmpty() ? "" : "  (" + st.path("source").asText() + ")"));
                    }
                }
            }
        }
        if (seen.isEmpty()) {
            w.println("no candidates: the report lists no store of a differing value");
            return 0;
        }
        w.println("candidates: the instructions that stored the first differing values (the first wrong instruction is "
                + "one of these or earlier):");
        seen.stream().limit(16).forEach(c -> w.println("  " + c));
        return seen.size();
    }

    /** Why a device's run cannot be traced, and what would localise the difference. */
    public static String cannotTrace(DeviceChoice choice) {
        String what = switch (choice.kind()) {
            case RECORDED -> "a recorded run cannot run code again";
            case DIR -> "a folder of outputs (dir:) cannot run code";
            case CUDA -> "the GPU build does not trace (lockstep traces are recorded by the CPU runner); --method "
                    + "probes runs probe captures on it";
            case EXEC -> "an exec: program runs captures, not translations: it cannot trace; --method probes (its "
                    + "default) localises by probe bisection";
            case CUDA_CPU -> "a translation folder holds the original program's code and cannot run probe captures; "
                    + "--method trace traces it";
            case NONE, AUTO -> "no device was compared";
            default -> "it cannot be traced";
        };
        return "--device " + choice.spelling() + ": " + what + "; an exec: device (a program that runs captures: "
                + "probe bisection) or a translation (--device cuda-cpu or cuda-cpu:DIR: lockstep traces) would "
                + "localise the first wrong instruction";
    }

    /**
     * The head of a found divergence, as both methods (lockstep traces, probe bisection) print it: where, the
     * instruction, its source line when known, why and of what kind.
     */
    static void printFound(PrintWriter w, StoreTrace.SourceLines lines, String group, int wave, long pc,
                           String instruction, String why, String kind) {
        w.printf("first divergence: group %s wave %d pc 0x%x: %s%n", group, wave, pc, instruction);
        String line = lines.at(pc);
        if (!line.isEmpty()) {
            w.printf("  source: %s%n", line);
        }
        w.printf("  %s (%s)%n", why, kind);
    }

    public static void print(PrintWriter w, Outcome o, StoreTrace.SourceLines lines) {
        Lockstep.Result r = o.result();
        String g = "(" + o.group()[0] + ", " + o.group()[1] + ", " + o.group()[2] + ")";
        if (r.divergence().isEmpty()) {
            w.printf("no divergence: the %d instructions of group %s agree on every register and path with the "
                    + "host model%s%n", r.steps(), o.group() == null ? "" : g, r.tolerated() > 0 ? " (" + r.tolerated()
                    + " approximate results within the tolerance)" : "");
        } else {
            Lockstep.Divergence d = r.divergence().get();
            printFound(w, lines, g, d.wave(), d.pc(), d.instruction(), d.why(), d.kind());
            if (!d.differs().isEmpty()) {
                w.println("  differs (host | device):");
                for (Lockstep.Value v : d.differs()) {
                    w.printf("    %-18s %s | %s%n", name(v), value(v.host()), value(v.device()));
                }
            }
            if (!d.operands().isEmpty()) {
                w.println("  operands before it (host | device):");
                for (Lockstep.Value v : d.operands()) {
                    w.printf("    %-18s %s | %s%s%n", name(v), value(v.host()), value(v.device()),
                            v.host() != v.device() ? "   <- differs" : "");
                }
            }
            if (!d.recent().isEmpty()) {
                w.printf("  the last %d instructions of wave %d before it (registers each side changed):%n",
                        d.recent().size(), d.wave());
                for (Lockstep.Recent p : d.recent()) {
                    w.printf("    0x%x: %s%n", p.pc(), p.instruction());
                    if (p.host().equals(p.device())) {
                        w.printf("        both   %s%n", p.host());
                    } else {
                        w.printf("        host   %s%n        device %s%n", p.host(), p.device());
                    }
                }
            }
        }
        for (String n : r.notes()) {
            w.printf("  note: %s%n", n);
        }
        w.printf(Locale.ROOT, "searched: lockstep traces of group %s on %s: %d instructions compared, %d approximate "
                        + "result(s) within the tolerance; traced run %.2f s, host model %.2f s%n", g, o.device(),
                r.steps(), r.tolerated(), o.tracedSeconds(), o.hostSeconds());
        w.flush();
    }

    private static String name(Lockstep.Value v) {
        return v.lane() >= 0 ? v.register() + " lane " + v.lane() : v.register();
    }

    /** A register's value: its bits, and as a float and an integer. */
    static String value(int bits) {
        float f = Float.intBitsToFloat(bits);
        return String.format(Locale.ROOT, "0x%08x (%s, %d)", bits, Float.isNaN(f) ? "NaN" : Float.toString(f), bits);
    }

    /** Writes the outcome into OUT/report.json ({@code first_divergence}) and appends it to OUT/summary.txt. */
    public static void record(Path out, Outcome o, StoreTrace.SourceLines lines) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Path file = out.resolve("report.json");
        ObjectNode report = (ObjectNode) json.readTree(file.toFile());
        Lockstep.Result r = o.result();
        Lockstep.Divergence found = r.divergence().orElse(null);
        boolean is = found != null;
        List<ReportSections.Recent> recent = !is ? null : found.recent().stream().map(p -> new ReportSections.Recent(
                String.format("0x%x", p.pc()), p.instruction(), p.host(), p.device())).toList();
        ObjectNode f = ReportJson.tree(new ReportSections.FirstDivergence("lockstep traces", o.device(),
                java.util.Arrays.stream(o.group()).boxed().toList(), r.steps(), (long) r.tolerated(), o.tracedSeconds(),
                null, null, null, null, null, null, is, is ? found.wave() : null,
                is ? String.format("0x%x", found.pc()) : null, is ? found.instruction() : null, is ? found.kind() : null,
                is ? found.why() : null, is ? lines.at(found.pc()) : null, is ? registers(found.differs()) : null,
                is ? registers(found.operands()) : null, recent, null, r.notes()));
        report.set("first_divergence", f);
        json.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), report);
        Path summary = out.resolve("summary.txt");
        if (Files.isRegularFile(summary)) {
            StringBuilder s = new StringBuilder(Files.readString(summary));
            String mark = "first divergence";
            int at = s.indexOf("\n" + mark);
            if (at >= 0) {
                s.setLength(at + 1); // a later search replaces the earlier one's line
            }
            s.append(o.result().divergence().map(d -> String.format("%s    group (%d, %d, %d) wave %d pc 0x%x: %s%n",
                    mark, o.group()[0], o.group()[1], o.group()[2], d.wave(), d.pc(), d.instruction()))
                    .orElse(mark + "    none in group (" + o.group()[0] + ", " + o.group()[1] + ", " + o.group()[2]
                            + "): every register agreed\n"));
            Files.writeString(summary, s);
        }
    }

    private static List<ReportSections.Register> registers(List<Lockstep.Value> values) {
        return values.stream().map(v -> new ReportSections.Register(v.register(), v.lane() >= 0 ? v.lane() : null,
                String.format("0x%08x", v.host()), String.format("0x%08x", v.device()))).toList();
    }
}
