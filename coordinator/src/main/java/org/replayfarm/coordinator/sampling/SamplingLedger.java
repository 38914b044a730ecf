package org.replayfarm.coordinator.sampling;

import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.replayfarm.proto.GpuExecution;
import org.replayfarm.proto.GpuExecutionReport;
import org.replayfarm.proto.GpuPcSampleBatch;
import org.replayfarm.proto.GpuSamplingWindowV1;
import org.replayfarm.proto.PcSample;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the coordinator heard from GPU nodes about sampling, as it arrived: the {@link WindowStore},
 * each node incarnation's executions with its latest horizon and status, and the PC samples of each burst.
 * {@link #snapshot()} gives an immutable copy for execution views and the report. The store actor owns it.
 */
public final class SamplingLedger {
    private static final Logger LOG = LoggerFactory.getLogger(SamplingLedger.class);

    private final WindowStore windows = new WindowStore();
    private final Map<WindowStore.NodeKey, Node> nodes = new LinkedHashMap<>();
    private long duplicateBatches;
    private long duplicateExecutions;

    private static final class Node {
        GpuExecutionReport latest;             // status and horizon: the report with the latest as_of
        final Map<Long, GpuExecution> executions = new LinkedHashMap<>(); // by correlation id: a repeated report counts once
        final Map<Long, List<PcSample>> samples = new TreeMap<>();
    }

    /** One record from a GPU node. */
    public void accept(Message m) {
        if (m instanceof GpuSamplingWindowV1 w) {
            windows.offer(w);
        } else if (m instanceof GpuExecutionReport r) {
            report(r);
        } else if (m instanceof GpuPcSampleBatch b) {
            Node n = node(b.getNode(), b.getIncarnation());
            if (n.samples.putIfAbsent(b.getSequence(), b.getSamplesList()) != null) {
                duplicateBatches++;
            }
        } else {
            LOG.error("the sampling store got a record it does not know: {}", m.getClass().getName());
        }
    }

    private void report(GpuExecutionReport r) {
        Node n = node(r.getNode(), r.getIncarnation());
        for (GpuExecution e : r.getExecutionsList()) {
            if (n.executions.putIfAbsent(e.getCorrelationId() & 0xffffffffL, e) != null) {
                duplicateExecutions++;
            }
        }
        if (n.latest == null || r.getAsOfNs() >= n.latest.getAsOfNs()) {
            n.latest = r.toBuilder().clearExecutions().build();
        }
    }

    private Node node(String node, long incarnation) {
        return nodes.computeIfAbsent(new WindowStore.NodeKey(node, incarnation), k -> new Node());
    }

    public WindowStore windows() {
        return windows;
    }

    public SamplingSnapshot snapshot() {
        List<SamplingSnapshot.NodeSampling> out = new ArrayList<>();
        Map<WindowStore.NodeKey, List<WindowStore.Window>> histories = windows.histories();
        for (Map.Entry<WindowStore.NodeKey, Node> e : nodes.entrySet()) {
            Node n = e.getValue();
            List<PcSample> samples = new ArrayList<>();
            n.samples.values().forEach(samples::addAll);
            out.add(new SamplingSnapshot.NodeSampling(e.getKey(), n.latest, histories.getOrDefault(e.getKey(), List.of()),
                    List.copyOf(n.executions.values()), List.copyOf(samples)));
        }
        for (Map.Entry<WindowStore.NodeKey, List<WindowStore.Window>> e : histories.entrySet()) {
            if (!nodes.containsKey(e.getKey())) { // windows without any report: no executions to disclose yet
                out.add(new SamplingSnapshot.NodeSampling(e.getKey(), null, e.getValue(), List.of(), List.of()));
            }
        }
        return new SamplingSnapshot(out, windows.count(WindowStore.Outcome.CONFLICT), duplicateBatches + duplicateExecutions);
    }
}
