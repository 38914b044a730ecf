package org.replayfarm.cli.batch;

import org.replayfarm.coordinator.report.JunitXml;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.report.Comparison;
import org.replayfarm.coordinator.report.ReportSections;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.capture.CaptureFile;

/**
 * {@code replay run} over many captures in one process and one embedded cluster (deqp-runner's model): the
 * captures run in parallel as jobs of the one coordinator, each into {@code OUT/<name>/} (replay run's layout);
 * then {@code OUT/junit.xml} (one test case per capture), {@code OUT/summary.txt} and {@code OUT/batch.json}.
 * Each capture ends as {@code pass}, {@code fail}, {@code crash} (the job failed, the capture or device could not
 * be read, or the host model faulted), {@code timeout}, {@code expected-fail} (every difference is in the
 * baseline) or {@code flake} (it differed, and its re-run did not differ the same way). A capture that differs
 * is re-run once to tell a flake from a failure; a known difference no longer seen becomes a note.
 */
public final class BatchRun {
    /** One capture of the batch: where it is, the name its outputs and test case get, and its own options. */
    public record Item(Path capture, String name, Own own) {
        public Item(Path capture, String name) {
            this(capture, name, Own.NONE);
        }
    }

    /**
     * What a manifest line gives its capture after the path: {@code --ulp N}, {@code --abs X}, {@code --rel X}
     * (each replacing the command's for this capture; null: not given) and {@code --view SPEC} (repeatable, after
     * the command's views: a range's type, shape and tolerances name this capture's ranges).
     */
    public record Own(Integer ulp, Double abs, Double rel, List<String> views) {
        public static final Own NONE = new Own(null, null, null, List.of());

        public Own {
            views = List.copyOf(views);
        }

        /** {@code c} with this capture's options over it. */
        public CompareWith over(CompareWith c) {
            List<String> all = new ArrayList<>(c.views());
            all.addAll(views);
            return new CompareWith(c.device(), ulp == null ? c.ulp() : ulp, abs == null ? c.abs() : abs,
                    rel == null ? c.rel() : rel, c.approximate(), all, c.values(), c.origin());
        }
    }

    /** A capture named on the command line or in a manifest, with the manifest line's options. */
    public record Listed(Path capture, Own own) {
        public static Listed of(Path capture) {
            return new Listed(capture, Own.NONE);
        }
    }

    /** How one capture ended. */
    public record Result(Item item, String status, String reason, List<String> notes, double seconds, String sha) {
    }

    /** What one run of a capture gave: its verdict (null when it did not finish) and its differences. */
    public record Observed(String state, String reason, Baseline.Differences differences) {
        public boolean different() {
            return state.equals("different");
        }
    }

    private final FarmNode node;
    private final GroupSelection selection;
    private final long budget;
    private final CompareWith compare;
    private final Baseline baseline;
    private final long timeoutSeconds;
    private final Path out;
    private final Map<Path, String> stored = new LinkedHashMap<>();

    /**
     * What one capture is compared with: {@code --device dir:PATH} means PATH/NAME for a capture named NAME when
     * that folder exists (a batch's device outputs side by side), else PATH itself.
     */
    private CompareWith compareFor(Item item) {
        CompareWith c = item.own().over(compare).withOrigin(item.capture());
        if (c.device().kind() == org.replayfarm.gpunode.device.DeviceChoice.Kind.DIR) {
            Path mine = Path.of(c.device().label()).resolve(item.name());
            if (Files.isDirectory(mine)) {
                return c.withDevice(org.replayfarm.gpunode.device.DeviceChoice.parse("dir:" + mine));
            }
        }
        return c;
    }

    public BatchRun(FarmNode node, GroupSelection selection, long budget, CompareWith compare, Baseline baseline,
             long timeoutSeconds, Path out) {
        this.node = node;
        this.selection = selection;
        this.budget = budget;
        this.compare = compare;
        this.baseline = baseline;
        this.timeoutSeconds = timeoutSeconds;
        this.out = out;
    }

    /**
     * Reads a manifest: one capture per line, relative to the manifest's folder; {@code #} starts a comment. After
     * the path (at the first {@code " --"}), a line may give its capture comparison options of its own, words
     * separated by spaces: {@code --ulp N}, {@code --abs X}, {@code --rel X}, {@code --view SPEC} (repeatable), e.g.
     * {@code expk.capture --abs 1e-6 --view C=f32,rel=1e-5}; anything else is an {@link IllegalArgumentException}
     * naming the file, the line and the word.
     */
    public static List<Listed> manifest(Path file) throws IOException {
        List<Listed> out = new ArrayList<>();
        Path base = file.toAbsolutePath().getParent();
        int number = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            number++;
            String l = line.replaceAll("#.*", "").trim();
            if (l.isEmpty()) {
                continue;
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s--").matcher(l);
            if (!m.find()) {
                out.add(Listed.of(base.resolve(l)));
                continue;
            }
            String where = file + " line " + number;
            String path = l.substring(0, m.start()).trim();
            String[] words = l.substring(m.start()).trim().split("\\s+");
            Integer ulp = null;
            Double abs = null;
            Double rel = null;
            List<String> views = new ArrayList<>();
            for (int i = 0; i < words.length; i++) {
                String w = words[i];
                if (!List.of("--ulp", "--abs", "--rel", "--view").contains(w)) {
                    throw new IllegalArgumentException(where + ": '" + w + "' is not an option a capture's line takes "
                            + "(--ulp N, --abs X, --rel X, --view SPEC)");
                }
                if (i + 1 >= words.length) {
                    throw new IllegalArgumentException(where + ": " + w + " needs a value");
                }
                String v = words[++i];
                try {
                    switch (w) {
                        case "--ulp" -> ulp = org.replayfarm.coordinator.report.Tolerance.parseUlp("--ulp", v);
                        case "--abs" -> abs = org.replayfarm.coordinator.report.Tolerance.parseAmount("--abs", v);
                        case "--rel" -> rel = org.replayfarm.coordinator.report.Tolerance.parseAmount("--rel", v);
                        default -> {
                            org.replayfarm.coordinator.report.RangeViews.parse(v);
                            views.add(v);
                        }
                    }
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(where + ": " + e.getMessage());
                }
            }
            out.add(new Listed(base.resolve(path), new Own(ulp, abs, rel, views)));
        }
        return out;
    }

    /** Names each capture by its file name without {@code .capture}, made unique with {@code -2}, {@code -3}, ... */
    public static List<Item> items(List<Listed> captures) {
        List<Item> items = new ArrayList<>();
        Set<String> taken = new HashSet<>();
        for (Listed l : captures) {
            Path p = l.capture();
            String base = p.getFileName().toString().replaceFirst("\\.capture$", "");
            String name = base;
            for (int n = 2; !taken.add(name); n++) {
                name = base + "-" + n;
            }
            items.add(new Item(p, name, l.own()));
        }
        return items;
    }

    /** Runs every item, {@code parallel} at a time, and writes the batch's outputs; returns the results in order. */
    public List<Result> run(List<Item> items, int parallel, PrintWriter progress) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, parallel));
        List<Future<Result>> futures = new ArrayList<>();
        try {
            for (Item item : items) {
                futures.add(pool.submit(() -> {
                    Result r = one(item);
                    synchronized (progress) {
                        progress.printf("%-13s %s%s%n", r.status(), r.item().name(), r.reason().isEmpty() ? "" : ": " + r.reason());
                        progress.flush();
                    }
                    return r;
                }));
            }
            List<Result> results = new ArrayList<>();
            for (Future<Result> f : futures) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private Result one(Item item) {
        long start = System.nanoTime();
        String sha = "";
        try {
            sha = store(item.capture());
            CaptureFile file = CaptureFile.open(item.capture());
            compareFor(item).device().resolve(file);
            Observed first = observe(item, sha, out.resolve(item.name()), "b-" + item.name());
            List<Baseline.Entry> known = baseline.of(sha, item.capture().getFileName().toString());
            String id = sha;
            return classify(item, sha, first, known, () -> observe(item, id, out.resolve(item.name()).resolve("rerun"),
                    "b-" + item.name() + "-rerun"), seconds(start));
        } catch (Exception e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            return new Result(item, "crash", why, List.of(), seconds(start), sha);
        }
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private synchronized String store(Path capture) throws Exception {
        String sha = stored.get(capture.toAbsolutePath());
        if (sha == null) {
            sha = node.jobs().storeCapture(capture);
            stored.put(capture.toAbsolutePath(), sha);
        }
        return sha;
    }

    /** Runs one job to its end (or the timeout) and reads its report. */
    public Observed observe(Item item, String sha, Path dir, String id) throws Exception {
        AtomicReference<Comparison.Result> result = new AtomicReference<>();
        CompletableFuture<JobProgress> ended = new CompletableFuture<>();
        node.jobs().start(id, sha, selection, budget, dir.toAbsolutePath(), compareFor(item),
                item.capture().getFileName().toString(), result::set);
        JobProgress end;
        try (AutoCloseable sub = node.jobs().subscribe(id, p -> {
            if (p.ended()) {
                ended.complete(p);
            }
        })) {
            end = timeoutSeconds > 0 ? ended.get(timeoutSeconds, TimeUnit.SECONDS) : ended.get();
        } catch (TimeoutException e) {
            try {
                node.jobs().cancel(id); // the batch goes on without it: nothing more of it is evaluated
            } catch (RuntimeException notAnswered) {
                // the job keeps its evaluators busy until it ends; the batch still reports it a timeout
            }
            return new Observed("timeout", "no result after " + timeoutSeconds + " s (cancelled)", null);
        }
        if (!end.state().equals("finished") || result.get() == null) {
            return new Observed("crash", "the job " + end.state() + ": " + end.error(), null);
        }
        JsonNode report = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        String status = result.get().verdict().status();
        String reason = String.join("; ", result.get().verdict().reasons());
        Baseline.Differences d = Baseline.Differences.of(report);
        return switch (status) {
            case "equal" -> new Observed("equal", "", d);
            case "host only" -> new Observed("equal", "host only: no device, nothing compared", d);
            case "different" -> new Observed(report.path("faults").size() > 0 ? "crash" : "different", reason, d);
            default -> new Observed("crash", status + ": " + reason, d);
        };
    }

    /** A re-run of the same capture, when its first run differed. */
    @FunctionalInterface
    public interface Rerun {
        public Observed run() throws Exception;
    }

    /**
     * The status of a capture from its first run, its baseline entries and (if it differed beyond them) a re-run:
     * crash and timeout as observed; equal is pass; every region known is expected-fail; otherwise the re-run
     * decides: the same differences again is fail, anything else (equal, other regions, a crash) is flake. Known
     * differences not seen are notes.
     */
    public static Result classify(Item item, String sha, Observed first, List<Baseline.Entry> known, Rerun rerun, double seconds)
            throws Exception {
        List<String> notes = new ArrayList<>();
        if (first.state().equals("crash") || first.state().equals("timeout")) {
            return new Result(item, first.state(), first.reason(), notes, seconds, sha);
        }
        List<Baseline.Region> regions = first.differences() == null ? List.of() : first.differences().regions();
        for (Baseline.Entry e : known) {
            if (regions.stream().noneMatch(e::holds)) {
                notes.add("known difference not seen: " + e.format() + (e.line().isEmpty() ? "" : " (" + e.line() + ")"));
            }
        }
        if (first.state().equals("equal")) {
            return new Result(item, "pass", first.reason(), notes, seconds, sha);
        }
        List<String> unknown = new ArrayList<>();
        for (Baseline.Region r : regions) {
            if (known.stream().noneMatch(e -> e.holds(r))) {
                unknown.add(r.describe());
            }
        }
        for (String u : first.differences().unlisted()) {
            String[] p = u.split(" ", 2);
            if (known.stream().noneMatch(e -> e.whole() && e.kind().equals(p[0]) && e.name().equals(p[1]))) {
                unknown.add(u + " (regions beyond those listed)");
            }
        }
        if (unknown.isEmpty()) {
            return new Result(item, "expected-fail", "every difference is in the baseline (" + regions.size() + " region(s))",
                    notes, seconds, sha);
        }
        Observed again = rerun.run();
        String why = first.reason() + "; not in the baseline: " + String.join(", ", unknown.subList(0, Math.min(5,
                unknown.size()))) + (unknown.size() > 5 ? " and " + (unknown.size() - 5) + " more" : "");
        if (again.different() && again.differences().regions().equals(regions)) {
            return new Result(item, "fail", why, notes, seconds, sha);
        }
        String then = again.state().equals("equal") ? "equal on its re-run" : again.different()
                ? "different again on its re-run, in other places" : again.state() + " on its re-run: " + again.reason();
        return new Result(item, "flake", "differed (" + first.reason() + "), then " + then, notes, seconds, sha);
    }

    /** Writes OUT/junit.xml, OUT/summary.txt and OUT/batch.json; returns the summary. */
    public static String write(Path out, List<Result> results, double seconds) throws IOException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String s : List.of("pass", "fail", "crash", "timeout", "expected-fail", "flake")) {
            counts.put(s, 0);
        }
        results.forEach(r -> counts.merge(r.status(), 1, Integer::sum));
        StringWriter sw = new StringWriter();
        PrintWriter w = new PrintWriter(sw);
        w.printf("batch           %d capture(s) in %.1f s%n", results.size(), seconds);
        StringBuilder line = new StringBuilder();
        counts.forEach((k, v) -> line.append(line.length() == 0 ? "" : ", ").append(v).append(' ').append(k));
        w.printf("statuses        %s%n", line);
        for (Result r : results) {
            w.printf("  %-13s %-24s %6.1f s  %s%n", r.status(), r.item().name(), r.seconds(), r.reason());
            r.notes().forEach(n -> w.printf("                note: %s%n", n));
        }
        w.printf("result          %s (exit status %d)%n", exitStatus(results) == 0 ? "passed" : "failed", exitStatus(results));
        w.flush();
        String summary = sw.toString();
        Files.writeString(out.resolve("summary.txt"), summary, StandardCharsets.UTF_8);
        Files.writeString(out.resolve("junit.xml"), junit(results, seconds, counts), StandardCharsets.UTF_8);
        List<ReportSections.BatchCapture> captures = new ArrayList<>();
        for (Result r : results) {
            captures.add(new ReportSections.BatchCapture(r.item().name(), r.item().capture().toString(), r.sha(),
                    r.status(), r.reason(), r.seconds(), r.item().name() + "/report.json", List.copyOf(r.notes())));
        }
        Files.writeString(out.resolve("batch.json"), new ReportSections.Batch(ReportSections.Batch.SCHEMA, seconds,
                exitStatus(results), counts, captures).text(), StandardCharsets.UTF_8);
        return summary;
    }

    /** 1 when a capture failed, crashed or timed out; else 0 (expected failures and flakes pass). */
    public static int exitStatus(List<Result> results) {
        return results.stream().anyMatch(r -> Set.of("fail", "crash", "timeout").contains(r.status())) ? 1 : 0;
    }

    private static String junit(List<Result> results, double seconds, Map<String, Integer> counts) {
        StringBuilder x = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.append(String.format(java.util.Locale.ROOT, "<testsuites tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">%n", results.size(),
                counts.get("fail"), counts.get("crash") + counts.get("timeout"), seconds));
        x.append(String.format(java.util.Locale.ROOT, "  <testsuite name=\"replay batch\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" "
                + "time=\"%.3f\">%n", results.size(), counts.get("fail"), counts.get("crash") + counts.get("timeout"), seconds));
        for (Result r : results) {
            x.append(String.format(java.util.Locale.ROOT, "    <testcase classname=\"replay\" name=\"%s\" time=\"%.3f\">%n", JunitXml.escape(r.item().name()),
                    r.seconds()));
            x.append(String.format("      <properties><property name=\"status\" value=\"%s\"/><property name=\"sha256\" "
                    + "value=\"%s\"/></properties>%n", r.status(), JunitXml.escape(r.sha())));
            switch (r.status()) {
                case "fail" -> x.append(String.format("      <failure message=\"%s\" type=\"fail\"/>%n", JunitXml.escape(r.reason())));
                case "crash", "timeout" -> x.append(String.format("      <error message=\"%s\" type=\"%s\"/>%n",
                        JunitXml.escape(r.reason()), r.status()));
                default -> {
                    if (!r.reason().isEmpty() || !r.notes().isEmpty()) {
                        x.append("      <system-out>").append(JunitXml.escape(r.status() + ": " + r.reason()
                                + (r.notes().isEmpty() ? "" : "; " + String.join("; ", r.notes())))).append("</system-out>\n");
                    }
                }
            }
            x.append("    </testcase>\n");
        }
        x.append("  </testsuite>\n</testsuites>\n");
        return x.toString();
    }

}
