package org.replayfarm.coordinator.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.gpunode.device.ExecAllowList;

/**
 * The body of {@code POST /jobs}: {@code {"capture": "<sha256>", "groups": "every"}} or
 * {@code {"capture": "<sha256>", "groups": [[x, y, z], [x, y], [x], ...]}} (y and z default to 0, as on
 * the command line), and optionally what the host results are compared with, as {@code replay run}
 * spells it: {@code "device": "auto" | "recorded" | "recorded:LABEL" | "cuda-cpu" | "none"} (default auto;
 * {@code "exec:COMMAND"} only on a coordinator that allows its program, {@link ExecAllowList}), {@code
 * "device_timeout_seconds": N} (how long an exec: device may run, default 600), {@code "ulp": N} (default 0),
 * {@code "abs": X} and {@code "rel": X} (replay run's {@code --abs} and {@code --rel}: finite numbers 0 or more,
 * default 0), {@code "approximate": true|false} (default false),
 * {@code "views": ["RANGE=TYPE[ROWSxCOLS][,abs=X,rel=X,ulp=N]", "image:K=abs=X", ...]} (replay run's {@code --view},
 * its spelling checked here, its ranges and images against the capture when the job starts), {@code "values": N} (differing values listed per range and image, default 10), and
 * {@code "capture_name"}: the capture's file name for the report (default {@code <sha256>.capture}).
 * {@link #parse} says what is wrong, naming the field, for anything else.
 */
public record JobRequest(String captureSha256, GroupSelection groups, CompareWith compare, String captureName,
                         org.replayfarm.coordinator.job.JobService.Limits limits) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final java.util.Set<String> FIELDS = java.util.Set.of("capture", "groups", "device", "ulp", "abs", "rel",
            "approximate", "capture_name", "budget", "slice_deadline_seconds", "views", "values", "device_timeout_seconds");

    /** With the default budget and slice deadline. */
    public JobRequest(String captureSha256, GroupSelection groups, CompareWith compare, String captureName) {
        this(captureSha256, groups, compare, captureName, org.replayfarm.coordinator.job.JobService.Limits.DEFAULT);
    }

    /** Compared with {@code --device auto}, exactly; the capture named by its hash. */
    public JobRequest(String captureSha256, GroupSelection groups) {
        this(captureSha256, groups, CompareWith.auto(), "");
    }

    /** The capture's name in the report: the one given, else its hash. */
    public String reportName() {
        return captureName.isEmpty() ? captureSha256 + ".capture" : captureName;
    }

    /** Why a request body is refused (the message names the field). */
    public static final class Invalid extends Exception {
        public Invalid(String message) {
            super(message);
        }
    }

    /** As {@link #parse(byte[], ExecAllowList)} on a coordinator that allows no {@code exec:} device. */
    public static JobRequest parse(byte[] body) throws Invalid {
        return parse(body, ExecAllowList.NONE);
    }

    /** Parses a request body; an {@code exec:} device must run a program of {@code allowed}. */
    public static JobRequest parse(byte[] body, ExecAllowList allowed) throws Invalid {
        JsonNode root;
        try {
            root = ProgressJson.MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw new Invalid("the body is not JSON: " + ProgressJson.parseError(e));
        } catch (java.io.IOException e) {
            throw new Invalid("the body cannot be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new Invalid("the body must be a JSON object {\"capture\": SHA256, \"groups\": \"every\" | [[x,y,z],...]}");
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new Invalid("unknown field '" + name + "' (a job takes \"capture\", \"groups\", \"device\", "
                        + "\"device_timeout_seconds\", \"ulp\", \"abs\", \"rel\", \"approximate\", \"views\", \"values\", \"capture_name\", \"budget\" and "
                        + "\"slice_deadline_seconds\")");
            }
        }
        JsonNode capture = root.get("capture");
        if (capture == null || !capture.isTextual()) {
            throw new Invalid("'capture' must be the SHA-256 of an uploaded capture, as a string");
        }
        String sha = capture.asText();
        if (!SHA256.matcher(sha).matches()) {
            throw new Invalid("'capture': '" + sha + "' is not a SHA-256 in lowercase hex");
        }
        CompareWith compare = compare(root, allowed);
        String name = "";
        JsonNode n = root.get("capture_name");
        if (n != null) {
            if (!n.isTextual() || n.asText().isEmpty() || n.asText().length() > 255 || n.asText().contains("/")
                    || n.asText().chars().anyMatch(Character::isISOControl)) {
                throw new Invalid("'capture_name' must be a file name (1 to 255 characters, no '/'), not " + n);
            }
            name = n.asText();
        }
        JsonNode groups = root.get("groups");
        if (groups == null) {
            throw new Invalid("'groups' is missing: \"every\" or a list of [x, y, z] group ids");
        }
        if (groups.isTextual()) {
            if (!groups.asText().equals("every")) {
                throw new Invalid("'groups': the only word allowed is \"every\", not \"" + groups.asText() + "\"");
            }
            return new JobRequest(sha, GroupSelection.everyGroup(), compare, name, limits(root));
        }
        if (!groups.isArray()) {
            throw new Invalid("'groups' must be \"every\" or a list of [x, y, z] group ids");
        }
        if (groups.isEmpty()) {
            throw new Invalid("'groups' is an empty list: name at least one group, or \"every\"");
        }
        List<int[]> ids = new ArrayList<>(groups.size());
        for (int i = 0; i < groups.size(); i++) {
            JsonNode g = groups.get(i);
            String field = "groups[" + i + "]";
            if (!g.isArray() || g.isEmpty() || g.size() > 3) {
                throw new Invalid("'" + field + "' must be [x], [x, y] or [x, y, z], not " + g);
            }
            int[] id = new int[3];
            for (int k = 0; k < g.size(); k++) {
                JsonNode c = g.get(k);
                if (!c.isIntegralNumber() || !c.canConvertToInt() || c.asInt() < 0) {
                    throw new Invalid("'" + field + "[" + k + "]' must be a group id (a non-negative 32-bit integer), not " + c);
                }
                id[k] = c.asInt();
            }
            ids.add(id);
        }
        GroupSelection selection;
        try {
            selection = new GroupSelection(false, ids);
        } catch (IllegalArgumentException e) {
            throw new Invalid("'groups': " + e.getMessage());
        }
        return new JobRequest(sha, selection, compare, name, limits(root));
    }

    /** {@code "budget"}: instructions per wave; {@code "slice_deadline_seconds"}: the deadline of one slice. */
    private static org.replayfarm.coordinator.job.JobService.Limits limits(JsonNode root) throws Invalid {
        JsonNode budget = root.get("budget");
        if (budget != null && (!budget.isIntegralNumber() || !budget.canConvertToLong() || budget.asLong() <= 0)) {
            throw new Invalid("'budget' must be a positive integer (instructions one wave may execute), not " + budget);
        }
        JsonNode deadline = root.get("slice_deadline_seconds");
        if (deadline != null && (!deadline.isNumber() || !(deadline.asDouble() > 0) || deadline.asDouble() > 86_400 * 30)) {
            throw new Invalid("'slice_deadline_seconds' must be a number of seconds above 0 (at most 30 days), not "
                    + deadline);
        }
        return new org.replayfarm.coordinator.job.JobService.Limits(
                budget == null ? org.replayfarm.evalnode.hostmodel.HostModel.DEFAULT_BUDGET : budget.asLong(),
                deadline == null ? 0 : (long) (deadline.asDouble() * 1e9));
    }

    private static CompareWith compare(JsonNode root, ExecAllowList allowed) throws Invalid {
        JsonNode device = root.get("device");
        if (device != null && !device.isTextual()) {
            throw new Invalid("'device' must be a string: auto, recorded, recorded:LABEL, cuda, cuda-cpu or none, not " + device);
        }
        JsonNode timeout = root.get("device_timeout_seconds");
        if (timeout != null && (!timeout.isIntegralNumber() || !timeout.canConvertToLong() || timeout.asLong() <= 0)) {
            throw new Invalid("'device_timeout_seconds' must be a positive integer (seconds an exec: device may run), not "
                    + timeout);
        }
        JsonNode ulp = root.get("ulp");
        if (ulp != null && (!ulp.isIntegralNumber() || !ulp.canConvertToInt() || ulp.asInt() < 0)) {
            throw new Invalid("'ulp' must be a non-negative 32-bit integer, not " + ulp);
        }
        double[] amounts = new double[2];
        String[] names = {"abs", "rel"};
        for (int k = 0; k < 2; k++) {
            JsonNode a = root.get(names[k]);
            if (a != null && (!a.isNumber() || !(a.asDouble() >= 0) || Double.isInfinite(a.asDouble()))) {
                throw new Invalid("'" + names[k] + "' must be a finite number 0 or more (" + (k == 0
                        ? "the largest |host - device| accepted" : "the largest |host - device| / max(|host|, |device|) "
                        + "accepted") + " for float values), not " + a);
            }
            amounts[k] = a == null ? 0 : a.asDouble();
        }
        JsonNode approximate = root.get("approximate");
        if (approximate != null && !approximate.isBoolean()) {
            throw new Invalid("'approximate' must be true or false, not " + approximate);
        }
        CompareWith parsed;
        try {
            parsed = CompareWith.parse(device == null ? "auto" : device.asText(), ulp == null ? 0 : ulp.asInt(),
                    approximate != null && approximate.asBoolean());
        } catch (IllegalArgumentException e) {
            throw new Invalid("'device': " + e.getMessage());
        }
        if (timeout != null) {
            parsed = parsed.withDevice(parsed.device().withTimeoutSeconds(timeout.asLong()));
        }
        parsed = parsed.withTolerances(amounts[0], amounts[1]);
        if (parsed.device().kind() == org.replayfarm.gpunode.device.DeviceChoice.Kind.EXEC) {
            try {
                allowed.check(parsed.device().label()); // it would run any command on the coordinator's machine
            } catch (IllegalArgumentException e) {
                throw new Invalid("'device': " + e.getMessage());
            }
        }
        if (parsed.device().kind() == org.replayfarm.gpunode.device.DeviceChoice.Kind.DIR) {
            // a folder of the coordinator's machine: a client may not have the coordinator read (or probe) its files
            throw new Invalid("'device': dir:PATH names a folder on the coordinator's machine, which a job sent over "
                    + "the API may not read; add the device's outputs to the capture (replay capture add-run --from DIR) "
                    + "or compare locally with replay run --device dir:PATH");
        }
        if (parsed.device().folderTranslation()) {
            throw new Invalid("'device': " + parsed.device().spelling() + " names a translation folder on the "
                    + "coordinator's machine, which a job sent over the API may not build or run; run it locally with "
                    + "replay run --device " + parsed.device().spelling());
        }
        List<String> views = new ArrayList<>();
        JsonNode v = root.get("views");
        if (v != null) {
            if (!v.isArray() || v.size() > 256) {
                throw new Invalid("'views' must be a list of at most 256 strings RANGE=TYPE[ROWSxCOLS], not " + v);
            }
            for (int i = 0; i < v.size(); i++) {
                JsonNode e = v.get(i);
                if (!e.isTextual() || e.asText().isBlank() || e.asText().length() > 512 || !e.asText().contains("=")) {
                    throw new Invalid("'views[" + i + "]' must be a string RANGE=TYPE[ROWSxCOLS][,abs=X,rel=X,ulp=N] "
                            + "(as --view), not " + e);
                }
                try {
                    org.replayfarm.coordinator.report.RangeViews.parse(e.asText());
                } catch (IllegalArgumentException x) {
                    throw new Invalid("'views[" + i + "]': " + x.getMessage());
                }
                views.add(e.asText());
            }
        }
        JsonNode values = root.get("values");
        if (values != null && (!values.isIntegralNumber() || !values.canConvertToInt() || values.asInt() < 0
                || values.asInt() > 100_000)) {
            throw new Invalid("'values' must be an integer from 0 to 100000 (differing values listed per range), not "
                    + values);
        }
        return parsed.withViews(views, values == null ? parsed.values() : values.asInt());
    }

    /** The JSON body for this request (what {@code replay submit} sends). */
    public ObjectNode toJson() {
        ObjectNode n = ProgressJson.MAPPER.createObjectNode();
        n.put("capture", captureSha256);
        if (groups.every()) {
            n.put("groups", "every");
        } else {
            ArrayNode list = n.putArray("groups");
            for (int[] g : groups.groups()) {
                list.addArray().add(g[0]).add(g[1]).add(g[2]);
            }
        }
        n.put("device", compare.device().spelling());
        if (compare.device().kind() == org.replayfarm.gpunode.device.DeviceChoice.Kind.EXEC) {
            n.put("device_timeout_seconds", compare.device().timeoutSeconds());
        }
        n.put("ulp", compare.ulp());
        // only when asked for: a coordinator from before these fields refuses them, and 0 is their default
        if (compare.abs() > 0) {
            n.put("abs", compare.abs());
        }
        if (compare.rel() > 0) {
            n.put("rel", compare.rel());
        }
        n.put("approximate", compare.approximate());
        if (!compare.views().isEmpty()) {
            ArrayNode views = n.putArray("views");
            compare.views().forEach(views::add);
        }
        n.put("values", compare.values());
        if (!captureName.isEmpty()) {
            n.put("capture_name", captureName);
        }
        n.put("budget", limits.budget());
        if (limits.sliceDeadlineNanos() > 0) {
            n.put("slice_deadline_seconds", limits.sliceDeadlineNanos() / 1e9);
        }
        return n;
    }
}
