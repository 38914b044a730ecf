package org.replayfarm.coordinator.sampling;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.PcSample;
import org.replayfarm.evalnode.eval.ReportJson;

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
        ObjectNode s = ReportJson.tree(section(snapshot));
        report.set("sampling", s);
        return s;
    }

    /** report.json's {@code sampling} section (docs/report-schema.md), defined once by these records. */
    public record Section(List<Node> nodes, String mode, long bursts, double dutyAchieved, long pairs,
                          Executions executions, List<Execution> executionList, List<Hottest> hottest) {
    }

    /** One GPU node incarnation's figures; {@code configRefused} and {@code graphRefusalDelayNs} only when known. */
    public record Node(String node, long incarnation, String mode,
                       @JsonInclude(JsonInclude.Include.NON_NULL) String configRefused, long burstsStarted,
                       long burstsReceived, long burstsOpen, double dutyAchieved, long pairs, long graphRefusals,
                       @JsonInclude(JsonInclude.Include.NON_NULL) Long graphRefusalDelayNs) {
    }

    /** The executions by {@code serialized}: they add up to {@code total}. */
    public record Executions(long total, @JsonProperty("true") long serialized,
                             @JsonProperty("false") long notSerialized, @JsonProperty("unknown") long unknown) {
    }

    /** One execution; {@code serialized} is always present, {@code graphId} only for a graph's launch. */
    public record Execution(String node, String kernel, long correlationId, long startNs, long endNs,
                            @JsonInclude(JsonInclude.Include.NON_NULL) Long graphId, String serialized) {
    }

    /** A stall reason's samples and its hottest locations. */
    public record Hottest(String stallReason, long samples, List<Location> locations) {
    }

    /** A location's samples under one stall reason. */
    public record Location(String function, long pcOffset, long samples) {
    }

    /** The section for a snapshot. */
    public static Section section(SamplingSnapshot snapshot) {
        Summary sum = Summary.of(snapshot);
        ExecutionViews views = sum.views();
        List<Node> nodes = new java.util.ArrayList<>();
        for (NodeFigures n : sum.nodes()) {
            nodes.add(new Node(n.node(), n.incarnation(), n.mode(), n.configRefused().isEmpty() ? null : n.configRefused(),
                    n.burstsStarted(), n.burstsReceived(), n.burstsOpen(), n.duty(), n.pairs(), n.graphRefusals(),
                    n.graphRefusalDelayNs() >= 0 ? n.graphRefusalDelayNs() : null));
        }
        return new Section(nodes, sum.mode(), sum.bursts(), sum.duty(), sum.pairs(), new Executions(views.views().size(),
                views.serialized(), views.notSerialized(), views.unknown()),
                views.views().stream().map(SamplingReport::execution).toList(), hottest(snapshot));
    }

    /** One execution's entry. */
    public static Execution execution(ExecutionViews.ExecutionView v) {
        GpuExecution e = v.execution();
        return new Execution(v.node(), e.getKernel(), e.getCorrelationId(), e.getStartNs(), e.getEndNs(),
                e.getGraphId() != 0 ? Long.valueOf(e.getGraphId()) : null, v.serialized().json());
    }

    private static List<Hottest> hottest(SamplingSnapshot snapshot) {
        record At(String function, long pcOffset) {
        }
        Map<String, Map<At, Long>> byReason = new HashMap<>();
        for (SamplingSnapshot.NodeSampling n : snapshot.nodes()) {
            for (PcSample p : n.samples()) {
                byReason.computeIfAbsent(p.getStallReason(), r -> new LinkedHashMap<>())
                        .merge(new At(p.getFunction(), p.getPcOffset()), (long) p.getSamples(), Long::sum);
            }
        }
        Comparator<Map.Entry<At, Long>> hot = Map.Entry.<At, Long>comparingByValue().reversed()
                .thenComparing(e -> e.getKey().function()).thenComparing(e -> e.getKey().pcOffset());
        List<Map.Entry<String, Map<At, Long>>> reasons = byReason.entrySet().stream()
                .sorted(Comparator.<Map.Entry<String, Map<At, Long>>>comparingLong(
                        e -> -e.getValue().values().stream().mapToLong(Long::longValue).sum())
                        .thenComparing(Map.Entry::getKey))
                .toList();
        List<Hottest> out = new java.util.ArrayList<>();
        for (Map.Entry<String, Map<At, Long>> r : reasons) {
            out.add(new Hottest(r.getKey(), r.getValue().values().stream().mapToLong(Long::longValue).sum(),
                    r.getValue().entrySet().stream().sorted(hot).limit(HOTTEST)
                            .map(e -> new Location(e.getKey().function(), e.getKey().pcOffset(), e.getValue())).toList()));
        }
        return out;
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
