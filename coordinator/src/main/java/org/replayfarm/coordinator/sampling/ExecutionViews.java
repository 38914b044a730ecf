package org.replayfarm.coordinator.sampling;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.proto.GpuExecution;

/**
 * Every device execution with its {@link Serialized} disclosure, and the counts by value. The counts are
 * taken where each view is built, in {@link #add}, the only way a view enters the list, so
 * serialized + notSerialized + unknown == views().size() holds on every path.
 */
public final class ExecutionViews {
    /** One execution as users see it. */
    public record ExecutionView(String node, long incarnation, GpuExecution execution, Serialized serialized) {
    }

    private final List<ExecutionView> views = new ArrayList<>();
    private long serialized;
    private long notSerialized;
    private long unknown;

    private ExecutionViews() {
    }

    public static ExecutionViews of(SamplingSnapshot snapshot) {
        ExecutionViews v = new ExecutionViews();
        for (SamplingSnapshot.NodeSampling n : snapshot.nodes()) {
            Disclosure d = n.disclosure();
            for (GpuExecution e : n.executions()) {
                v.add(new ExecutionView(n.key().node(), n.key().incarnation(), e, d.of(e)));
            }
        }
        return v;
    }

    private void add(ExecutionView view) {
        switch (view.serialized()) {
            case TRUE -> serialized++;
            case FALSE -> notSerialized++;
            case UNKNOWN -> unknown++;
        }
        views.add(view);
    }

    public List<ExecutionView> views() {
        return List.copyOf(views);
    }

    public long serialized() {
        return serialized;
    }

    public long notSerialized() {
        return notSerialized;
    }

    public long unknown() {
        return unknown;
    }
}
