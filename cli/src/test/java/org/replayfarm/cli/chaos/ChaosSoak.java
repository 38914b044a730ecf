package org.replayfarm.cli.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.replayfarm.cli.chaos.History.Event;
import org.replayfarm.cli.chaos.History.Kind;
import org.replayfarm.cli.chaos.NodeSet.Node;
import org.replayfarm.model.testing.Await;

/**
 * The soak: run inside a network namespace of its own ({@code unshare -n java ... ChaosSoak DIR CAPTURE OUTER
 * MINUTES NODES SEED DIGEST}), it starts a coordinator and NODES-1 evaluators, submits jobs on CAPTURE steadily
 * (one a second while fewer than three run) and, for MINUTES, applies faults drawn from the schedules at random
 * (SEED): an evaluator partitioned, the coordinator cut off, a one-way link, the cluster in halves (four nodes or
 * more), 20% loss with an evaluator SIGKILLed, a flapping link. Each fault holds 3 to 8 s, is healed, every node
 * that exited is started again (its supervisor's part), and the time from the heal to full progress again (every
 * node Up and reachable, every job that ran at the heal further on or ended) is measured. Then submitting stops,
 * every job is followed to its end, and the history is read: jobs submitted, accepted, finished with replay
 * eval's outputs (DIGEST), failed with a reason naming the fault, lost, doubled, and the worst recovery, printed
 * and written to {@code DIR/soak.txt}. Exit status 0 when the soak ran (whatever it counted), 1 otherwise.
 */
public final class ChaosSoak {
    private enum Fault { EVALUATOR_PARTITIONED, COORDINATOR_ISOLATED, ONE_WAY, HALVES, LOSS_AND_KILL, FLAPPING }

    private final NodeSet nodes;
    private final FaultNet net;
    private final History history;
    private final FarmClient client;
    private final Random random;
    private final List<JobWatcher> watchers = new CopyOnWriteArrayList<>();
    private final Map<Fault, Integer> applied = new TreeMap<>();
    private volatile boolean submitting = true;
    private long worstRecovery;
    private Fault worstFault;

    private ChaosSoak(NodeSet nodes, FaultNet net, History history, long seed) {
        this.nodes = nodes;
        this.net = net;
        this.history = history;
        this.client = new FarmClient(history);
        this.random = new Random(seed);
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            Path dir = Path.of(args[0]);
            FaultNet net = FaultNet.insideOwnNamespace(args[2]);
            int evaluators = Integer.parseInt(args[4]) - 1;
            if (evaluators < 2) {
                throw new IllegalArgumentException("--nodes " + args[4] + ": the soak needs a coordinator and two evaluators at least");
            }
            try (History history = History.create(dir.resolve("history.jsonl"), System::nanoTime);
                 NodeSet nodes = new NodeSet(dir, evaluators, ChaosDriver.CONFIG)) {
                String report = new ChaosSoak(nodes, net, history, Long.parseLong(args[5]))
                        .run(Path.of(args[1]), Duration.ofMinutes(Long.parseLong(args[3])), args[6]);
                System.out.print(report);
                Files.writeString(dir.resolve("soak.txt"), report);
            }
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    private String run(Path capture, Duration length, String digest) throws Exception {
        Node c = nodes.coordinator();
        nodes.start(c, List.of());
        List<Node> evaluators = nodes.all().subList(1, nodes.all().size());
        nodes.startAll(evaluators, List.of(c));
        awaitWhole();
        String url = nodes.apiUrl();
        String sha = client.upload(url, capture);
        Thread submitter = new Thread(() -> submit(url, sha), "soak-submit");
        submitter.setDaemon(true);
        submitter.start();
        long end = System.nanoTime() + length.toNanos();
        while (System.nanoTime() < end) {
            Fault f = pick();
            applied.merge(f, 1, Integer::sum);
            Map<String, Long> doneAtFault = progress();
            apply(f);
            Thread.sleep(3000 + random.nextInt(5000)); // the schedule's own clock: how long the fault holds
            net.heal();
            long healed = System.nanoTime();
            history.record(history.now(Kind.HEAL));
            recover(doneAtFault);
            long took = System.nanoTime() - healed;
            if (took > worstRecovery) {
                worstRecovery = took;
                worstFault = f;
            }
            history.record(history.now(Kind.NOTE).detail("recovered from " + f + " in " + took / 1_000_000 + " ms"));
            Thread.sleep(1000 + random.nextInt(3000)); // quiet between faults
        }
        submitting = false;
        submitter.join(60_000);
        awaitWhole();
        for (JobWatcher w : watchers) {
            Await.until("job " + w.job() + " ending after the soak", Duration.ofSeconds(600), () -> {
                restartExited();
                return w.end().isPresent();
            });
        }
        for (JobWatcher w : watchers) {
            w.close();
            client.observe(url, w.job()).ifPresent(history::record);
        }
        return report(History.read(historyPath()), sha, digest, length);
    }

    private Path historyPath() {
        return nodes.log(nodes.coordinator(), 1).getParent().resolve("history.jsonl");
    }

    private Fault pick() {
        List<Fault> choices = new ArrayList<>(List.of(Fault.values()));
        if (nodes.all().size() < 4) {
            choices.remove(Fault.HALVES);
        }
        return choices.get(random.nextInt(choices.size()));
    }

    /** One job a second while fewer than three run, until the soak ends. */
    private void submit(String url, String sha) {
        try {
            while (submitting) {
                if (watchers.stream().filter(w -> w.end().isEmpty()).count() < 3) {
                    client.submit(url, sha).ifPresent(job -> watchers.add(JobWatcher.start(client, history, () -> url, job)));
                }
                Thread.sleep(1000); // the soak's pace of submissions
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Map<String, Long> progress() {
        Map<String, Long> out = new HashMap<>();
        for (JobWatcher w : watchers) {
            if (w.end().isEmpty()) {
                out.put(w.job(), w.groupsDone());
            }
        }
        return out;
    }

    private void apply(Fault f) throws Exception {
        Node c = nodes.coordinator();
        List<Node> evaluators = nodes.all().subList(1, nodes.all().size());
        Node e = evaluators.get(random.nextInt(evaluators.size()));
        List<Node> cut;
        switch (f) {
            case EVALUATOR_PARTITIONED -> {
                cut = List.of(e);
                net.split(hosts(cut), hosts(nodes.all().stream().filter(n -> n != e).toList()));
            }
            case COORDINATOR_ISOLATED -> {
                cut = List.of(c);
                net.split(hosts(cut), hosts(evaluators));
            }
            case ONE_WAY -> {
                cut = List.of(e);
                net.dropOneWay(e.host(), c.host());
            }
            case HALVES -> {
                int half = nodes.all().size() / 2;
                cut = nodes.all().subList(half, nodes.all().size());
                net.split(hosts(nodes.all().subList(0, half)), hosts(cut));
            }
            case LOSS_AND_KILL -> {
                cut = List.of(e);
                for (Node a : nodes.all()) {
                    for (Node b : nodes.all()) {
                        if (a != b) {
                            net.loss(a.host(), b.host(), 20);
                        }
                    }
                }
                if (nodes.alive(e)) {
                    nodes.process(e).destroyForcibly();
                    nodes.process(e).waitFor();
                    history.record(history.now(Kind.NOTE).node(e.address()).detail("killed " + e.name() + " (SIGKILL)"));
                }
            }
            case FLAPPING -> {
                cut = List.of(e);
                for (int i = 0; i < 2; i++) {
                    net.partition(c.host(), e.host());
                    history.record(history.now(Kind.FAULT).detail("soak " + f + " " + (i + 1) + ": " + String.join("; ", net.rules()))
                            .nodes(List.of(e.address())));
                    Thread.sleep(2000); // the link is down 2 s, then up 2 s
                    net.heal();
                    Thread.sleep(2000);
                }
                net.partition(c.host(), e.host());
            }
            default -> throw new IllegalStateException(f.name());
        }
        history.record(history.now(Kind.FAULT).detail("soak " + f + ": " + String.join("; ", net.rules()))
                .nodes(cut.stream().map(Node::address).toList()));
    }

    /** After a heal: every exited node started again, every node Up, every job running at the fault further on or ended. */
    private void recover(Map<String, Long> doneAtFault) throws InterruptedException {
        Await.until("the cluster whole and every job moving again after a heal", Duration.ofSeconds(300), () -> {
            restartExited();
            if (!whole()) {
                return false;
            }
            for (JobWatcher w : watchers) {
                Long before = doneAtFault.get(w.job());
                if (before != null && w.end().isEmpty() && w.groupsDone() <= before) {
                    return false;
                }
            }
            return true;
        });
    }

    private void restartExited() throws IOException, InterruptedException {
        for (Node n : nodes.all()) {
            if (!nodes.alive(n) && nodes.process(n) != null) {
                history.record(history.now(Kind.NOTE).node(n.address())
                        .detail("exited " + n.name() + " " + nodes.process(n).exitValue()));
            }
        }
        if (nodes.all().stream().anyMatch(n -> !nodes.alive(n))) {
            ChaosDriver.restartExited(nodes, history);
        }
    }

    private boolean whole() throws IOException, InterruptedException {
        Node c = nodes.coordinator();
        return nodes.alive(c) && nodes.upMembers(c).size() == nodes.all().size() && nodes.unreachable(c).isEmpty();
    }

    private void awaitWhole() throws InterruptedException {
        Await.until("every node up as the coordinator sees it", Duration.ofSeconds(300), () -> {
            restartExited();
            return whole();
        });
    }

    /** The figures the soak reports, read from its history alone. */
    String report(List<Event> events, String sha, String digest, Duration length) {
        long submitted = events.stream().filter(e -> e.kind() == Kind.SUBMIT).count();
        long accepted = events.stream().filter(e -> e.kind() == Kind.ACCEPTED).count();
        Map<String, Long> refused = new TreeMap<>();
        events.stream().filter(e -> e.kind() == Kind.REFUSED).forEach(e -> refused.merge(
                e.status() + " " + (e.detail() == null ? "" : e.detail().replaceAll("\\(.*", "").strip()), 1L, Long::sum));
        Map<String, Event> firstEnd = new HashMap<>();
        for (Event e : events) {
            if (e.kind() == Kind.FINISHED || e.kind() == Kind.FAILED || e.kind() == Kind.CANCELLED) {
                firstEnd.putIfAbsent(e.job(), e);
            }
        }
        long equal = firstEnd.values().stream().filter(e -> e.kind() == Kind.FINISHED && digest.equals(e.detail())).count();
        Map<String, Long> failed = new TreeMap<>();
        firstEnd.values().stream().filter(e -> e.kind() == Kind.FAILED).forEach(e -> failed.merge(e.detail(), 1L, Long::sum));
        List<String> violations = new HistoryChecker(Map.of(sha, digest)).violations(events);
        long lost = violations.stream().filter(v -> v.startsWith("lost:")).count();
        long doubled = violations.stream().filter(v -> v.startsWith("two ends:") || v.startsWith("hole:")).count();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "soak: %d min, %d nodes, faults %s%n", length.toMinutes(), nodes.all().size(), applied));
        out.append(String.format(Locale.ROOT, "jobs submitted %d, accepted %d, refused %d %s%n", submitted, accepted,
                refused.values().stream().mapToLong(Long::longValue).sum(), refused));
        out.append(String.format(Locale.ROOT, "finished equal to replay eval %d, failed with reason %d %s, lost %d, doubled %d%n",
                equal, failed.values().stream().mapToLong(Long::longValue).sum(), failed, lost, doubled));
        out.append(String.format(Locale.ROOT, "worst time from a fault's end to full progress again: %.1f s (%s)%n",
                worstRecovery / 1e9, worstFault));
        out.append("checker: ").append(violations.isEmpty() ? "no violation" : String.join("\n  ", violations)).append('\n');
        return out.toString();
    }

    private static List<String> hosts(List<Node> ns) {
        return ns.stream().map(Node::host).toList();
    }
}
