package org.replayfarm.coordinator.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.replayfarm.coordinator.job.JobProgress;

/**
 * {@link JobProgress} as the API's JSON (the body of {@code GET /jobs/<id>} and the data of each
 * {@code progress} server-sent event), and back: the same names as {@code report.json} uses.
 *
 * <pre>{"job": "...", "capture_sha256": "...", "state": "running|finished|failed", "groups_total": 16,
 *  "groups_done": 3, "groups_per_second": 812.5, "eta_seconds": 0.016, "faults": 0,
 *  "wave_instructions": 0, "lane_instructions": 0, "wave_instructions_per_second": 0.0,
 *  "lane_instructions_per_second": 0.0, "slices_in_flight": 2, "slices_resent": 0, "store_conflicts": 0,
 *  "nondeterministic_slices": 0, "texels_compared": 0, "texels_differing": 0, "bytes_compared": 0,
 *  "bytes_differing": 0, "sampling": {"mode": "none", "bursts": 0, "duty_achieved": 0.0, "pairs": 0,
 *  "executions": {"total": 0, "true": 0, "false": 0, "unknown": 0}}, "error": ""}</pre>
 *
 * A rate or ETA that is not known (or not finite) is written as -1. The figures are those of the job's
 * metrics ({@code replay_job_*} on {@code /metrics}), taken from the same {@link JobProgress}.
 */
public final class ProgressJson {
    /** Strict: a body with trailing garbage or a key given twice is refused, not half read. */
    public static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private ProgressJson() {
    }

    public static ObjectNode toJson(JobProgress p) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("job", p.jobId());
        n.put("capture_sha256", p.captureSha256());
        n.put("state", p.state());
        n.put("groups_total", p.groupsTotal());
        n.put("groups_done", p.groupsDone());
        n.put("groups_per_second", finite(p.groupsPerSecond()));
        n.put("eta_seconds", finite(p.etaSeconds()));
        n.put("faults", p.faults());
        n.put("wave_instructions", p.waveInstructions());
        JobProgress.Figures f = p.figures();
        n.put("lane_instructions", f.laneInstructions());
        n.put("wave_instructions_per_second", finite(f.waveInstructionsPerSecond()));
        n.put("lane_instructions_per_second", finite(f.laneInstructionsPerSecond()));
        n.put("slices_in_flight", f.slicesInFlight());
        n.put("slices_resent", f.slicesResent());
        n.put("store_conflicts", f.storeConflicts());
        n.put("nondeterministic_slices", f.nondeterministicSlices());
        n.put("texels_compared", f.texelsCompared());
        n.put("texels_differing", f.texelsDiffering());
        n.put("bytes_compared", f.bytesCompared());
        n.put("bytes_differing", f.bytesDiffering());
        n.put("elements_compared", f.elementsCompared());
        n.put("elements_differing", f.elementsDiffering());
        n.put("order_dependent", f.orderDependent());
        JobProgress.Sampling s = f.sampling();
        ObjectNode sampling = n.putObject("sampling");
        sampling.put("mode", s.mode());
        sampling.put("bursts", s.bursts());
        sampling.put("duty_achieved", s.duty());
        sampling.put("pairs", s.pairs());
        sampling.putObject("executions").put("total", s.executions()).put("true", s.serialized())
                .put("false", s.notSerialized()).put("unknown", s.unknown());
        n.put("error", p.error() == null ? "" : p.error());
        return n;
    }

    /** One line of JSON (no newline inside, as a server-sent event's data must be). */
    public static String write(JobProgress p) {
        try {
            return MAPPER.writeValueAsString(toJson(p));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads what {@link #write} wrote; a missing or mistyped field is an error naming it. */
    public static JobProgress read(String json) {
        JsonNode n;
        try {
            n = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("job progress is not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException("job progress is not a JSON object: " + json);
        }
        return new JobProgress(text(n, "job"), text(n, "capture_sha256"), text(n, "state"), integer(n, "groups_total"),
                integer(n, "groups_done"), number(n, "groups_per_second"), number(n, "eta_seconds"), integer(n, "faults"),
                integer(n, "wave_instructions"), text(n, "error"), new JobProgress.Figures(integer(n, "lane_instructions"),
                number(n, "wave_instructions_per_second"), number(n, "lane_instructions_per_second"),
                integer(n, "slices_in_flight"), integer(n, "slices_resent"), integer(n, "store_conflicts"),
                integer(n, "nondeterministic_slices"), integer(n, "texels_compared"), integer(n, "texels_differing"),
                integer(n, "bytes_compared"), integer(n, "bytes_differing"), sampling(field(n, "sampling")), 0,
                optional(n, "elements_compared"), optional(n, "elements_differing"), optional(n, "order_dependent")));
    }

    /** An integer field a coordinator of an earlier build does not send: 0 when absent, an error when mistyped. */
    private static long optional(JsonNode n, String name) {
        return n.has(name) ? integer(n, name) : 0;
    }

    private static JobProgress.Sampling sampling(JsonNode s) {
        if (!s.isObject()) {
            throw new IllegalArgumentException("job progress 'sampling' is not an object");
        }
        JsonNode e = field(s, "executions");
        return new JobProgress.Sampling(text(s, "mode"), integer(s, "bursts"), number(s, "duty_achieved"),
                integer(s, "pairs"), integer(e, "total"), integer(e, "true"), integer(e, "false"), integer(e, "unknown"));
    }

    private static double finite(double v) {
        return Double.isFinite(v) ? v : -1;
    }

    private static JsonNode field(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("job progress has no '" + name + "'");
        }
        return v;
    }

    private static String text(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isTextual()) {
            throw new IllegalArgumentException("job progress '" + name + "' is not a string");
        }
        return v.asText();
    }

    private static long integer(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isIntegralNumber()) {
            throw new IllegalArgumentException("job progress '" + name + "' is not an integer");
        }
        return v.asLong();
    }

    private static double number(JsonNode n, String name) {
        JsonNode v = field(n, name);
        if (!v.isNumber()) {
            throw new IllegalArgumentException("job progress '" + name + "' is not a number");
        }
        return v.asDouble();
    }

    /**
     * A JSON parse error in one line a user reads: Jackson's own message without its "[Source: REDACTED ...]"
     * parts, then where it stopped ("at line 10, column 33").
     */
    public static String parseError(JsonProcessingException e) {
        String m = String.valueOf(e.getOriginalMessage()).replaceAll("\\[Source: [^;\\]]*; ", "[")
                .replaceAll("\\s+", " ").trim();
        var at = e.getLocation();
        return at == null ? m : m + " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }
}
