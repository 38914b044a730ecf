package org.replayfarm.coordinator.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Pattern;
import org.replayfarm.evalnode.eval.GroupSelection;

/**
 * The body of {@code POST /jobs}: {@code {"capture": "<sha256>", "groups": "every"}} or
 * {@code {"capture": "<sha256>", "groups": [[x, y, z], [x, y], [x], ...]}} (y and z default to 0, as on
 * the command line). {@link #parse} says what is wrong, naming the field, for anything else.
 */
public record JobRequest(String captureSha256, GroupSelection groups) {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

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
            if (!name.equals("capture") && !name.equals("groups")) {
                throw new Invalid("unknown field '" + name + "' (a job takes \"capture\" and \"groups\")");
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
        JsonNode groups = root.get("groups");
        if (groups == null) {
            throw new Invalid("'groups' is missing: \"every\" or a list of [x, y, z] group ids");
        }
        if (groups.isTextual()) {
            if (!groups.asText().equals("every")) {
                throw new Invalid("'groups': the only word allowed is \"every\", not \"" + groups.asText() + "\"");
            }
            return new JobRequest(sha, GroupSelection.everyGroup());
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
        return new JobRequest(sha, new GroupSelection(false, List.copyOf(ids)));
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
        return n;
    }
}
