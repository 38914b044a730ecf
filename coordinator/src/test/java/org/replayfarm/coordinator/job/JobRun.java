package org.replayfarm.coordinator.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the job actor does with its {@link JobState}, for the state's tests: holds the current state, applies
 * events to it, and collects what each event released for merging and the attempts it stopped (the actor
 * merges and stops them as they come; a test takes them when it checks).
 */
final class JobRun {
    JobState state;
    private final List<JobState.Ready> ready = new ArrayList<>();
    private final List<JobState.LiveAttempt> stopped = new ArrayList<>();

    JobRun(JobState state) {
        this.state = state;
    }

    JobRun updated(JobState.Event e) {
        state = state.updated(e);
        ready.addAll(state.released());
        stopped.addAll(state.stopped());
        return this;
    }

    List<JobState.Ready> takeMergeable() {
        List<JobState.Ready> out = List.copyOf(ready);
        ready.clear();
        return out;
    }

    List<JobState.LiveAttempt> takeStopped() {
        List<JobState.LiveAttempt> out = List.copyOf(stopped);
        stopped.clear();
        return out;
    }

    List<JobState.SliceSent> dispatch(long now) {
        return state.dispatch(now);
    }

    List<JobState.AttemptExpired> expire(long now) {
        return state.expire(now);
    }

    JobState.Verdict result(long sliceId, int attempt, String node, byte[] hash, int groups, long evalNanos,
                            String error, byte[] payload) {
        return state.result(sliceId, attempt, node, hash, groups, evalNanos, error, payload);
    }

    int buffered() {
        return state.buffered();
    }

    boolean cancelled() {
        return state.cancelled();
    }

    boolean done() {
        return state.done();
    }

    long duplicates() {
        return state.duplicates();
    }

    String failure() {
        return state.failure();
    }

    long groupsFinished() {
        return state.groupsFinished();
    }

    long groupsMerged() {
        return state.groupsMerged();
    }

    int inFlight() {
        return state.inFlight();
    }

    int inFlight(String node) {
        return state.inFlight(node);
    }

    int nodes() {
        return state.nodes();
    }

    long nondeterministic() {
        return state.nondeterministic();
    }

    long resent() {
        return state.resent();
    }

    Map<String, String> retired() {
        return state.retired();
    }

    long slicesPlanned() {
        return state.slicesPlanned();
    }

    long slicesQueued() {
        return state.slicesQueued();
    }

    List<JobState.LiveAttempt> liveAttempts() {
        return state.liveAttempts();
    }
}
