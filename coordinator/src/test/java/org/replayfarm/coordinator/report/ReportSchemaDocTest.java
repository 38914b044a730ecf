package org.replayfarm.coordinator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.replayfarm.coordinator.report.SyntheticCapture.f32;
import static org.replayfarm.coordinator.report.SyntheticCapture.group;
import static org.replayfarm.coordinator.report.SyntheticCapture.rgba;
import static org.replayfarm.coordinator.report.SyntheticCapture.texel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.EvalReport;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.ReportJson;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.gpunode.device.ExecutionRecord;

/**
 * docs/report-schema.md against what the report's writers write: a report with images, an untyped and a typed
 * and shaped range, a view's own tolerance, differences a tolerance could accept, an integer difference, a
 * suggestion, a store conflict in memory and in an image, a fault, an exec: device run's fidelity, PC samples
 * and hot instructions, and the farm section; every field it holds must be named in the document, and every field
 * the document's schema table names must be one the report or the records hold.
 * The sections' definitions ({@link EvalReport}, {@link ComparisonReport}, {@link ReportSections}, the sampling
 * section's) are checked whole, as the mapper names them: fields this report leaves out (an order-dependent range's
 * or texel's, the in-order pass's) included.
 */
@Tag("unit")
class ReportSchemaDocTest {
    @TempDir
    Path dir;

    @Test
    void every_field_a_run_report_holds_is_documented_and_every_documented_field_is_written() throws Exception {
        JsonNode report = report();
        String doc = Files.readString(docs().resolve("report-schema.md"));
        Set<String> documented = documentedNames(doc);
        Map<String, String> written = new java.util.TreeMap<>();
        walk(report, "", written);
        // every field the sections' definitions hold, those this report leaves out included
        definition(EvalReport.class, "", written);
        definition(ComparisonReport.class, "comparison", written);
        definition(ReportSections.Device.class, "device", written);
        definition(ReportSections.Result.class, "result", written);
        definition(ReportSections.Timings.class, "timings", written);
        definition(ReportSections.Farm.class, "farm", written);
        definition(ReportSections.Run.class, "", written);
        definition(org.replayfarm.coordinator.sampling.SamplingReport.Section.class, "sampling", written);
        definition(ReportSections.Batch.class, "batch.json:", written);
        definition(ReportSections.FirstDivergence.class, "first_divergence", written);
        List<String> undocumented = new ArrayList<>();
        written.forEach((path, name) -> {
            if (!documented.contains(name)) {
                undocumented.add(path);
            }
        });
        assertEquals(List.of(), undocumented, "report.json fields docs/report-schema.md does not name");

        Set<String> names = new TreeSet<>(written.values());
        List<String> unwritten = new ArrayList<>();
        for (String row : tableFields(doc)) {
            String leaf = row.replaceAll("\\[]", "").replaceAll(".*\\.", "");
            if (!names.contains(leaf)) {
                unwritten.add(row);
            }
        }
        assertEquals(List.of(), unwritten, "fields docs/report-schema.md's schema table names that report.json lacks");
    }

    /** docs/, from the module's directory or the repository root. */
    private static Path docs() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/report-schema.md"))) {
                return p.resolve("docs");
            }
        }
        throw new IllegalStateException("no docs/report-schema.md above " + here);
    }

    /** Every lower-case identifier inside inline code: the document's field names, wherever it names them. */
    static Set<String> documentedNames(String doc) {
        Set<String> names = new TreeSet<>();
        // fenced blocks first: their triple backticks would pair the inline spans after them wrongly
        Matcher code = Pattern.compile("`([^`\n]+)`").matcher(doc.replaceAll("(?s)```.*?```", ""));
        while (code.find()) {
            Matcher id = Pattern.compile("[a-z][a-z0-9_]*").matcher(code.group(1));
            while (id.find()) {
                names.add(id.group());
            }
        }
        return names;
    }

    /** The first column of the schema table: {@code | `comparison.images[]` | ...}. */
    static List<String> tableFields(String doc) {
        String schema = doc.substring(doc.indexOf("## Schema"), doc.indexOf("## Comparison rules"));
        List<String> rows = new ArrayList<>();
        Matcher row = Pattern.compile("(?m)^\\| `([a-z_.\\[\\]]+)` \\|").matcher(schema);
        while (row.find()) {
            rows.add(row.group(1));
        }
        return rows;
    }

    /** Each field's path ({@code comparison.images[].regions[].x0}) and its name. */
    private static void walk(JsonNode n, String path, Map<String, String> out) {
        if (n.isArray()) {
            n.forEach(e -> walk(e, path + "[]", out));
        } else if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                String p = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
                out.put(p, f.getKey());
                walk(f.getValue(), p, out);
            }
        }
    }

    /**
     * Each property of a report record as {@link ReportJson} writes it, and those of its records (a sealed
     * interface's: those of every record that implements it).
     */
    private static void definition(Class<?> type, String path, Map<String, String> out) {
        if (path.matches("[a-z_]+")) {
            out.put(path, path); // the section's own field
        }
        definition(ReportJson.JSON.constructType(type), path, out);
    }

    private static void definition(com.fasterxml.jackson.databind.JavaType type, String path, Map<String, String> out) {
        if (type.getRawClass().isSealed()) {
            for (Class<?> each : type.getRawClass().getPermittedSubclasses()) {
                definition(ReportJson.JSON.constructType(each), path, out);
            }
            return;
        }
        var config = ReportJson.JSON.getSerializationConfig();
        for (var property : config.introspect(type).findProperties()) {
            String name = property.getName();
            String p = path.isEmpty() ? name : path + "." + name;
            out.put(p, name);
            com.fasterxml.jackson.databind.JavaType t = property.getPrimaryType();
            if (record(t)) {
                definition(t, p, out);
            } else if (t.isCollectionLikeType() && record(t.getContentType())) {
                definition(t.getContentType(), p + "[]", out);
            }
        }
    }

    /** A record, or a sealed interface of records: an object the walk goes into. */
    private static boolean record(com.fasterxml.jackson.databind.JavaType t) {
        return t.getRawClass().isRecord() || t.getRawClass().isSealed();
    }

    private JsonNode report() throws Exception {
        SyntheticCapture c = new SyntheticCapture(dir.resolve("capture"));
        ByteBuffer first = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putFloat(1.0f).putFloat(0.5f)
                .putFloat(0.0f).putFloat(3.0f);
        ByteBuffer second = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putFloat(0.025f).putFloat(1000f)
                .putFloat(2f).putFloat(4f);
        byte[] seven = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(7).array();
        c.totals.add(group(0, 0, List.of(new StoreRun(0, 0, first.array()), new StoreRun(1, 0, seven)),
                List.of(texel(0, 0, 0, rgba(200, 100, 50, 255)), texel(1, 0, 0, f32(1.0f))), List.of(), 0, null));
        c.totals.add(group(1, 0, List.of(new StoreRun(0, 16, second.array())),
                List.of(texel(1, 1, 0, f32(2.0f))), List.of(), 3, null));
        // a store conflict in memory and in an image, and a fault
        c.totals.add(group(2, 0, List.of(new StoreRun(1, 0, new byte[] {9})), List.of(texel(0, 0, 0, rgba(1, 2, 3, 4))),
                List.of(), 0, new FaultRecord(2, 0, 0, 0, 3, 0x2000_0010L, "global_load_b32 v0, v[0:1], off",
                        "address 0x0 lies outside every range")));
        Evaluation.Outcome o = c.totals.outcome(Duration.ofMillis(2), 1);
        byte[] range0 = o.memory().range(0).clone();
        byte[] range1 = o.memory().range(1).clone();
        byte[] image0 = o.images().texels(0).clone();
        byte[] image1 = o.images().texels(1).clone();
        ByteBuffer.wrap(range0).order(ByteOrder.LITTLE_ENDIAN).putFloat(4 * 4, Float.intBitsToFloat(
                Float.floatToRawIntBits(0.025f) + 128)); // a float difference a tolerance could accept
        ByteBuffer.wrap(range1).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 8); // an integer one
        ByteBuffer.wrap(image1).order(ByteOrder.LITTLE_ENDIAN).putFloat(4, 2.5f); // a texel one
        image0[0] = 1;
        var plain = SyntheticCapture.device(range0, range1, image0, image1);
        var hot = org.replayfarm.proto.GuestHotspot.newBuilder().setGuestPc(0x1c).setLine(8).setText("v_mul_f32 v1, v1, v2")
                .setSamples(40).addStalls(org.replayfarm.proto.GuestStall.newBuilder().setReason("stall").setSamples(3))
                .build();
        var device = new DeviceRun("exec", "./run", plain.ranges(), plain.images(),
                List.of(new ExecutionRecord("1", 1000, ExecutionRecord.Serialized.TRUE)),
                new DeviceRun.Fidelity(10, 2, 0, 1, 40, 1280, 0), List.of(hot), 40, 7,
                new DeviceRun.Exec("./run {capture} {out}", 0, "", 0.5));
        DiffOptions options = new DiffOptions(true, 1, 0, 0, false, List.of("out=f32[8x8],rel=1e-9", "bins=i32"), 10, "");
        DiffResult diff = Diff.compare(o.memory(), o.images(), device, options);
        Path out = dir.resolve("out");
        RunReport.write(out, o, c.kernel, new RunReport.Identity("ab".repeat(32), "synthetic.capture", "job-1",
                        "every group"), new RunReport.Device("auto", "recorded run 'synthetic device'", device, 0.001),
                diff, options, 0, 0.002, org.replayfarm.coordinator.sampling.SamplingSnapshot.EMPTY,
                dir.resolve("capture"), ReportSections.Farm.of(2, 0, 0, Map.of("n1", "failed")));
        return new ObjectMapper().readTree(out.resolve("report.json").toFile());
    }
}
