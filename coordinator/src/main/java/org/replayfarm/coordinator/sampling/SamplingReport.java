package org.replayfarm.coordinator.sampling;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.PcSample;

/**
 * The "sampling" section of report.json: per GPU node incarnation its configured mode, bursts, duty
 * achieved, pairs and refusals; executions by {@code serialized} (each execution with the field, always);
 * and the hottest code locations by stall reason (function and PC offset; guest instructions once the
 * translator's line table exists).
 */
public final class SamplingReport {
    /** Locations listed per stall reason. */
    public static final int HOTTEST = 5;

    private SamplingReport() {
    }

    /** Adds {@code "sampling": {...}} to {@code report}. */
    public static ObjectNode toJson(ObjectNode report, SamplingSnapshot snapshot) {
        ExecutionViews views = ExecutionViews.of(snapshot);
        ObjectNode s = report.putObject("sampling");
        TreeSet<String> modes = new TreeSet<>();
        long bursts = 0;
        long pairs = 0;
        long busy = 0;
        long span = 0;
        ArrayNode nodes = s.putArray("nodes");
        for (SamplingSnapshot.NodeSampling n : snapshot.nodes()) {
            String mode = modeName(n.configuredMode());
            modes.add(mode);
            long nodeBusy = 0;
            long nodePairs = 0;
            long open = 0;
            for (WindowStore.Window w : n.windows()) {
                if (w.open()) {
                    open++;
                } else {
                    nodeBusy += w.endNs() - w.startNs();
                    nodePairs += w.pairs();
                }
            }
            long nodeSpan = n.status() == null ? 0 : Math.max(0, n.status().getAsOfNs() - n.status().getSamplingStartedNs());
            ObjectNode j = nodes.addObject();
            j.put("node", n.key().node());
            j.put("incarnation", n.key().incarnation());
            j.put("mode", mode);
            if (n.status() != null && !n.status().getConfigRefused().isEmpty()) {
                j.put("config_refused", n.status().getConfigRefused());
            }
            j.put("bursts_started", n.status() == null ? 0 : n.status().getBurstsStarted());
            j.put("bursts_received", n.windows().size());
            j.put("bursts_open", open);
            j.put("duty_achieved", nodeSpan == 0 ? 0.0 : (double) nodeBusy / nodeSpan);
            j.put("pairs", nodePairs);
            j.put("graph_refusals", n.status() == null ? 0 : n.status().getGraphRefusals());
            if (n.status() != null && n.status().getGraphRefusalNs() != 0) {
                j.put("graph_refusal_delay_ns", n.status().getGraphRefusalNs() - n.status().getFirstGraphLaunchNs());
            }
            bursts += n.windows().size();
            pairs += nodePairs;
            busy += nodeBusy;
            span += nodeSpan;
        }
        s.put("mode", modes.size() == 1 ? modes.first() : modes.isEmpty() ? "none" : String.join("+", modes));
        s.put("bursts", bursts);
        s.put("duty_achieved", span == 0 ? 0.0 : (double) busy / span);
        s.put("pairs", pairs);
        ObjectNode by = s.putObject("executions");
        by.put("total", views.views().size());
        by.put(Serialized.TRUE.json(), views.serialized());
        by.put(Serialized.FALSE.json(), views.notSerialized());
        by.put(Serialized.UNKNOWN.json(), views.unknown());
        ArrayNode list = s.putArray("execution_list");
        for (ExecutionViews.ExecutionView v : views.views()) {
            execution(list.addObject(), v);
        }
        hottest(s.putArray("hottest"), snapshot);
        return s;
    }

    /** One execution's JSON; {@code serialized} is always present. */
    public static ObjectNode execution(ObjectNode j, ExecutionViews.ExecutionView v) {
        GpuExecution e = v.execution();
        j.put("node", v.node());
        j.put("kernel", e.getKernel());
        j.put("correlation_id", e.getCorrelationId());
        j.put("start_ns", e.getStartNs());
        j.put("end_ns", e.getEndNs());
        if (e.getGraphId() != 0) {
            j.put("graph_id", e.getGraphId());
        }
        j.put("serialized", v.serialized().json());
        return j;
    }

    private static void hottest(ArrayNode out, SamplingSnapshot snapshot) {
        record Location(String function, long pcOffset) {
        }
        Map<String, Map<Location, Long>> byReason = new HashMap<>();
        for (SamplingSnapshot.NodeSampling n : snapshot.nodes()) {
            for (PcSample p : n.samples()) {
                byReason.computeIfAbsent(p.getStallReason(), r -> new LinkedHashMap<>())
                        .merge(new Location(p.getFunction(), p.getPcOffset()), (long) p.getSamples(), Long::sum);
            }
        }
        Comparator<Map.Entry<Location, Long>> hot = Map.Entry.<Location, Long>comparingByValue().reversed()
                .thenComparing(e -> e.getKey().function()).thenComparing(e -> e.getKey().pcOffset());
        List<Map.Entry<String, Map<Location, Long>>> reasons = byReason.entrySet().stream()
                .sorted(Comparator.<Map.Entry<String, Map<Location, Long>>>comparingLong(
                        e -> -e.getValue().values().stream().mapToLong(Long::longValue).sum())
                        .thenComparing(Map.Entry::getKey))
                .toList();
        for (Map.Entry<String, Map<Location, Long>> r : reasons) {
            ObjectNode j = out.addObject();
            j.put("stall_reason", r.getKey());
            j.put("samples", r.getValue().values().stream().mapToLong(Long::longValue).sum());
            ArrayNode locations = j.putArray("locations");
            r.getValue().entrySet().stream().sorted(hot).limit(HOTTEST).forEach(e -> locations.addObject()
                    .put("function", e.getKey().function())
                    .put("pc_offset", e.getKey().pcOffset())
                    .put("samples", e.getValue()));
        }
    }

    static String modeName(org.replayfarm.proto.SamplingMode m) {
        return switch (m) {
            case SAMPLING_MODE_OFF -> "off";
            case SAMPLING_MODE_CONTINUOUS -> "continuous";
            case SAMPLING_MODE_KERNEL_SERIALIZED -> "serialized";
            default -> "unspecified";
        };
    }
}
