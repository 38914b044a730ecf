package org.replayfarm.evalnode.eval;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one mapping of report.json's records to JSON, for every writer of a report ({@code replay eval}'s
 * {@link EvalReport}, and the run's sections beside it): a record is one object, its components the object's
 * fields in the order written, named in snake case ({@code exitStatus} is {@code exit_status}).
 */
public final class ReportJson {
    /** The mapper. */
    public static final ObjectMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();

    private ReportJson() {
    }

    /** A record as a tree, to set into report.json. */
    public static ObjectNode tree(Record section) {
        return JSON.valueToTree(section);
    }

    /** A report's bytes as written to report.json: indented, no newline at the end. */
    public static byte[] bytes(ObjectNode report) throws com.fasterxml.jackson.core.JsonProcessingException {
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(report);
    }
}
