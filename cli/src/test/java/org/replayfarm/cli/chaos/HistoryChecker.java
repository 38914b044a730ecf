package org.replayfarm.cli.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.replayfarm.cli.chaos.History.Event;
import org.replayfarm.cli.chaos.History.Kind;

/**
 * Reads a {@link History} against what the farm promises under faults, as a model checker reads a database's
 * history after partitions: the answer is every violation found, each naming the rule and the job or node, so
 * that a failing schedule says what broke, not only that something did.
 * <ul>
 * <li>{@code lost}: an accepted job never seen to end.</li>
 * <li>{@code two ends}: a job seen to end two different ways (finished and failed, or two different outputs).</li>
 * <li>{@code hole}: a finished job whose outputs are not {@code replay eval}'s for its capture (a group missing or
 *     counted twice), or that says fewer groups done than it has.</li>
 * <li>{@code unexplained failure}: a failed job whose reason names no fault.</li>
 * <li>{@code unasked cancel}: a job cancelled that no client asked to cancel.</li>
 * <li>{@code progress backwards}: a job's groups done seen lower than before.</li>
 * <li>{@code ran after its end}: a job seen running after it was seen to end.</li>
 * <li>{@code cut off but accepting}: a node that showed it is cut off from the majority answered a submission with
 *     anything but 503 and a reason, before the faults were healed.</li>
 * </ul>
 */
public final class HistoryChecker {
    /** Words one of which a failed job's reason must hold: what a network fault is called in the farm's messages. */
    static final List<String> FAULT_WORDS = List.of("unreachable", "down", "left", "partition", "cut off", "lost",
            "majority", "no evaluator", "not reachable");

    private final Map<String, String> expectedOutputs;

    /** {@code expectedOutputs}: each capture's sha256 to the {@link Outputs#digest} of replay eval's outputs. */
    public HistoryChecker(Map<String, String> expectedOutputs) {
        this.expectedOutputs = Map.copyOf(expectedOutputs);
    }

    /** Every violation of {@code history}, in the order of the rules above; empty when it holds. */
    public List<String> violations(List<Event> history) {
        List<String> found = new ArrayList<>();
        Map<String, String> captureOf = new LinkedHashMap<>();
        Map<String, Event> firstEnd = new HashMap<>();
        Map<String, Long> lastDone = new HashMap<>();
        Set<String> cancelAsked = new HashSet<>();
        Set<String> cutOff = new HashSet<>();
        for (Event e : history) {
            switch (e.kind()) {
                case ACCEPTED -> captureOf.putIfAbsent(e.job(), e.capture());
                case CANCEL -> cancelAsked.add(e.job());
                case CUT_OFF -> cutOff.add(e.node());
                case HEAL -> cutOff.clear();
                case SUBMIT, NOTE, FAULT -> {
                }
                case REFUSED -> {
                    if (cutOff.contains(e.node()) && (e.status() == null || e.status() != 503
                            || e.detail() == null || e.detail().isBlank())) {
                        found.add("cut off but accepting: " + e.node() + " answered a submission " + e.status()
                                + " '" + e.detail() + "' at " + millis(e) + " while cut off from the majority");
                    }
                }
                case PROGRESS, FINISHED, FAILED, CANCELLED -> {
                    String job = e.job();
                    if (e.groupsDone() != null) {
                        Long before = lastDone.get(job);
                        if (before != null && e.groupsDone() < before) {
                            found.add("progress backwards: job " + job + " had " + before + " groups done, then "
                                    + e.groupsDone() + " at " + millis(e) + " (" + e.node() + ")");
                        }
                        lastDone.merge(job, e.groupsDone(), Math::max);
                    }
                    Event end = firstEnd.get(job);
                    if (e.kind() == Kind.PROGRESS) {
                        if (end != null && "running".equals(e.state())) {
                            found.add("ran after its end: job " + job + " " + end.kind().name().toLowerCase(Locale.ROOT)
                                    + " at " + millis(end) + " but " + e.node() + " said running at " + millis(e));
                        }
                        continue;
                    }
                    if (end == null) {
                        firstEnd.put(job, e);
                        endRules(e, captureOf.get(job), cancelAsked.contains(job), found);
                    } else if (end.kind() != e.kind() || !java.util.Objects.equals(end.detail(), e.detail())) {
                        found.add("two ends: job " + job + " " + describe(end) + ", then " + describe(e));
                    }
                }
                default -> throw new IllegalStateException("unknown event kind " + e.kind());
            }
            if (e.kind() == Kind.ACCEPTED && cutOff.contains(e.node())) {
                found.add("cut off but accepting: " + e.node() + " accepted job " + e.job() + " at " + millis(e)
                        + " while cut off from the majority");
            }
        }
        for (Map.Entry<String, String> job : captureOf.entrySet()) {
            if (!firstEnd.containsKey(job.getKey())) {
                found.add("lost: job " + job.getKey() + " was accepted and never seen to end (last groups done: "
                        + lastDone.get(job.getKey()) + ")");
            }
        }
        return found;
    }

    private void endRules(Event end, String capture, boolean cancelAsked, List<String> found) {
        String job = end.job();
        switch (end.kind()) {
            case FINISHED -> {
                String want = capture == null ? null : expectedOutputs.get(capture);
                if (want == null) {
                    found.add("hole: job " + job + " finished on capture " + capture + ", whose replay eval outputs "
                            + "the checker was not given");
                } else if (!want.equals(end.detail())) {
                    found.add("hole: job " + job + " finished with outputs " + end.detail() + ", not replay eval's "
                            + want + " (a group missing or counted twice)");
                }
                if (end.groupsDone() != null && end.groupsTotal() != null && end.groupsDone() < end.groupsTotal()) {
                    found.add("hole: job " + job + " finished with " + end.groupsDone() + " of " + end.groupsTotal()
                            + " groups done");
                }
            }
            case FAILED -> {
                String reason = end.detail() == null ? "" : end.detail().toLowerCase(Locale.ROOT);
                if (FAULT_WORDS.stream().noneMatch(reason::contains)) {
                    found.add("unexplained failure: job " + job + " failed saying '" + end.detail()
                            + "', which names no fault (" + String.join(", ", FAULT_WORDS) + ")");
                }
            }
            case CANCELLED -> {
                if (!cancelAsked) {
                    found.add("unasked cancel: job " + job + " was cancelled, and no client asked");
                }
            }
            default -> throw new IllegalStateException(end.kind() + " is not an end");
        }
    }

    private static String describe(Event e) {
        return e.kind().name().toLowerCase(Locale.ROOT) + (e.detail() == null ? "" : " (" + e.detail() + ")")
                + " per " + e.node() + " at " + millis(e);
    }

    private static String millis(Event e) {
        return e.nanos() / 1_000_000 + " ms";
    }
}
