package org.replayfarm.coordinator.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;
import org.replayfarm.coordinator.diff.CompareWith;
import org.replayfarm.evalnode.eval.GroupSelection;

/**
 * The body of {@code POST /jobs}: {@code {"capture": "<sha256>", "groups": "every"}} or
 * {@code {"capture": "<sha256>", "groups": [[x, y, z], [x, y], [x], ...]}} (y and z default to 0, as on
 * the command line), and optionally what the host results are compared with, as {@code replay run}
 * spells it: {@code "device": "auto" | "recorded" | "recorded:LABEL" | "cuda-cpu" | "none"} (default auto),
 * {@code "ulp": N} (default 0), {@code "approximate": true|false} (default false), and
 * {@code "capture_name"}: the capture's file name for the report (default {@code <sha256>.capture}).
 * {@link #parse} says what is wrong, naming the field, for anything else.
 */
public record JobRequest(String captureSha256, GroupSelection groups, CompareWith compare, String captureName) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final java.util.Set<String> FIELDS = java.util.Set.of("capture", "groups", "device", "ulp", "approximate",
            "capture_name");

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

    public static JobRequest parse(byte[] body) throws Invalid {
        JsonNode root;
        try {
            root = ProgressJson.MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            throw new Invalid("the body is not JSON: " + e.getOriginalMessage());
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
                        + "\"ulp\", \"approximate\" and \"capture_name\")");
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
        CompareWith compare = compare(root);
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
            return new JobRequest(sha, GroupSelection.everyGroup(), compare, name);
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
        return new JobRequest(sha, new GroupSelection(false, List.copyOf(ids)), compare, name);
    }

    private static CompareWith compare(JsonNode root) throws Invalid {
        JsonNode device = root.get("device");
        if (device != null && !device.isTextual()) {
            throw new Invalid("'device' must be a string: auto, recorded, recorded:LABEL, cuda-cpu or none, not " + device);
        }
        JsonNode ulp = root.get("ulp");
        if (ulp != null && (!ulp.isIntegralNumber() || !ulp.canConvertToInt() || ulp.asInt() < 0)) {
            throw new Invalid("'ulp' must be a non-negative 32-bit integer, not " + ulp);
        }
        JsonNode approximate = root.get("approximate");
        if (approximate != null && !approximate.isBoolean()) {
            throw new Invalid("'approximate' must be true or false, not " + approximate);
        }
        try {
            return CompareWith.parse(device == null ? "auto" : device.asText(), ulp == null ? 0 : ulp.asInt(),
                    approximate != null && approximate.asBoolean());
        } catch (IllegalArgumentException e) {
            throw new Invalid("'device': " + e.getMessage());
        }
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
        n.put("ulp", compare.ulp());
        n.put("approximate", compare.approximate());
        if (!captureName.isEmpty()) {
            n.put("capture_name", captureName);
        }
        return n;
    }
}
