package org.replayfarm.coordinator.sampling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * The one invariant check every sampling scenario runs (seed 000's assertConformanceInvariants):
 * serialized + not serialized + unknown == executions, exactly, in the views and in report.json, where
 * every execution carries "serialized"; with the default configuration no execution reads true or
 * unknown; and, against the device's ground truth, no execution that ran serialized reads false and none
 * that did not reads true.
 */
final class SamplingConformance {
    private SamplingConformance() {
    }

    /**
     * @param defaultConfig the GPU nodes ran with the default configuration (sampling off)
     * @param ranSerialized correlation ids the (single) simulated device ran serialized; empty when none
     */
    static ExecutionViews assertInvariants(SamplingSnapshot snapshot, boolean defaultConfig, Set<Integer> ranSerialized) {
        ExecutionViews views = ExecutionViews.of(snapshot);
        long executions = snapshot.nodes().stream().mapToLong(n -> n.executions().size()).sum();
        assertEquals(executions, views.views().size(), "one view per execution");
        assertEquals(executions, views.serialized() + views.notSerialized() + views.unknown(), "the sum identity");
        assertEquals(views.serialized(), views.views().stream().filter(v -> v.serialized() == Serialized.TRUE).count());
        assertEquals(views.unknown(), views.views().stream().filter(v -> v.serialized() == Serialized.UNKNOWN).count());
        if (defaultConfig) {
            assertEquals(0, views.serialized(), "default configuration: nothing reads serialized=true");
            assertEquals(0, views.unknown(), "default configuration: nothing reads serialized=unknown");
        }
        for (ExecutionViews.ExecutionView v : views.views()) {
            if (ranSerialized.contains(v.execution().getCorrelationId())) {
                assertNotEquals(Serialized.FALSE, v.serialized(),
                        "ran serialized, must never read false: " + v.execution().getCorrelationId());
            } else {
                assertNotEquals(Serialized.TRUE, v.serialized(),
                        "did not run serialized, must never read true: " + v.execution().getCorrelationId());
            }
        }
        ObjectNode report = new ObjectMapper().createObjectNode();
        SamplingReport.toJson(report, snapshot);
        JsonNode by = report.get("sampling").get("executions");
        assertEquals(executions, by.get("total").asLong());
        assertEquals(executions, by.get("true").asLong() + by.get("false").asLong() + by.get("unknown").asLong());
        JsonNode list = report.get("sampling").get("execution_list");
        assertEquals(executions, list.size());
        for (JsonNode e : list) {
            assertTrue(Set.of("true", "false", "unknown").contains(e.path("serialized").asText()),
                    "every execution carries serialized: " + e);
        }
        return views;
    }
}
