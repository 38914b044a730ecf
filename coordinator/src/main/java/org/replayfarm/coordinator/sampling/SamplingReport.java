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

    /**
     * One GPU node incarnation's figures: its configured mode, bursts started (its own count), received and
     * still open here, time inside closed windows over the time it has sampled, (PC, stall) pairs of closed
     * windows, Tier A's graph refusals, and its executions by {@code serialized}.
     */
    public record NodeFigures(String node, long incarnation, String mode, String configRefused, long burstsStarted,
                              long burstsReceived, long burstsOpen, long busyNs, long spanNs, long pairs,
                              long graphRefusals, long graphRefusalDelayNs, long serialized, long notSerialized,
                              long unknown) {
        public long burstsClosed() {
            return burstsReceived - burstsOpen;
        }

        public double duty() {
            return spanNs == 0 ? 0.0 : (double) busyNs / spanNs;
        }
    }

    /**
     * The figures of a snapshot, node by node and over all: {@code mode} is the one mode, {@code a+b} when
     * nodes differ, {@code none} when no GPU node reported. The report's section, the GPU metrics and
     * the progress events all take them from here.
     */
    public record Summary(List<NodeFigures> nodes, String mode, long bursts, long burstsOpen, double duty, long pairs,
                          ExecutionViews views) {
        public static Summary of(SamplingSnapshot snapshot) {
            ExecutionViews views = ExecutionViews.of(snapshot);
            Map<WindowStore.NodeKey, long[]> byNode = new HashMap<>();
            for (ExecutionViews.ExecutionView v : views.views()) {
                long[] c = byNode.computeIfAbsent(new WindowStore.NodeKey(v.node(), v.incarnation()), k -> new long[3]);
                c[v.serialized().ordinal()]++;
            }
            TreeSet<String> modes = new TreeSet<>();
            List<NodeFigures> nodes = new java.util.ArrayList<>();
            long bursts = 0;
            long open = 0;
            long pairs = 0;
            long busy = 0;
            long span = 0;
            for (SamplingSnapshot.NodeSampling n : snapshot.nodes()) {
                String mode = modeName(n.configuredMode());
                modes.add(mode);
                long nodeBusy = 0;
                long nodePairs = 0;
                long nodeOpen = 0;
                for (WindowStore.Window w : n.windows()) {
                    if (w.open()) {
                        nodeOpen++;
                    } else {
                        nodeBusy += w.endNs() - w.startNs();
                        nodePairs += w.pairs();
                    }
                }
                var st = n.status();
                long nodeSpan = st == null ? 0 : Math.max(0, st.getAsOfNs() - st.getSamplingStartedNs());
                long[] c = byNode.getOrDefault(n.key(), new long[3]);
                nodes.add(new NodeFigures(n.key().node(), n.key().incarnation(), mode,
                        st == null ? "" : st.getConfigRefused(), st == null ? 0 : st.getBurstsStarted(),
                        n.windows().size(), nodeOpen, nodeBusy, nodeSpan, nodePairs, st == null ? 0 : st.getGraphRefusals(),
                        st == null || st.getGraphRefusalNs() == 0 ? -1 : st.getGraphRefusalNs() - st.getFirstGraphLaunchNs(),
                        c[Serialized.TRUE.ordinal()], c[Serialized.FALSE.ordinal()], c[Serialized.UNKNOWN.ordinal()]));
                bursts += n.windows().size();
                open += nodeOpen;
                pairs += nodePairs;
                busy += nodeBusy;
                span += nodeSpan;
            }
            String mode = modes.size() == 1 ? modes.first() : modes.isEmpty() ? "none" : String.join("+", modes);
            return new Summary(List.copyOf(nodes), mode, bursts, open, span == 0 ? 0.0 : (double) busy / span, pairs, views);
        }
    }

    /** Adds {@code "sampling": {...}} to {@code report}. */
    public static ObjectNode toJson(ObjectNode report, SamplingSnapshot snapshot) {
        Summary sum = Summary.of(snapshot);
        ExecutionViews views = sum.views();
        ObjectNode s = report.putObject("sampling");
        ArrayNode nodes = s.putArray("nodes");
        for (NodeFigures n : sum.nodes()) {
            ObjectNode j = nodes.addObject();
            j.put("node", n.node());
            j.put("incarnation", n.incarnation());
            j.put("mode", n.mode());
            if (!n.configRefused().isEmpty()) {
                j.put("config_refused", n.configRefused());
            }
            j.put("bursts_started", n.burstsStarted());
            j.put("bursts_received", n.burstsReceived());
            j.put("bursts_open", n.burstsOpen());
            j.put("duty_achieved", n.duty());
            j.put("pairs", n.pairs());
            j.put("graph_refusals", n.graphRefusals());
            if (n.graphRefusalDelayNs() >= 0) {
                j.put("graph_refusal_delay_ns", n.graphRefusalDelayNs());
            }
        }
        s.put("mode", sum.mode());
        s.put("bursts", sum.bursts());
        s.put("duty_achieved", sum.duty());
        s.put("pairs", sum.pairs());
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
