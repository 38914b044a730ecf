package org.replayfarm.cli.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.replayfarm.cli.chaos.History.Kind;
import org.replayfarm.cli.chaos.NodeSet.Node;
import org.replayfarm.coordinator.node.EvalGate;
import org.replayfarm.model.testing.Await;

/**
 * The fault driver: run inside a network namespace of its own ({@code unshare -n java ... ChaosDriver SCHEDULE DIR
 * CAPTURE OUTER}, OUTER the namespace it must not run in: its starter's, {@link FaultNet#namespace()}), it brings loopback up, starts a coordinator and evaluators as {@link NodeSet} says, submits a job on
 * every group of CAPTURE over the HTTP API, and once the job is under way (every evaluator holding a slice, their
 * groups held at a gate so that the job cannot end first) applies the SCHEDULE's fault with {@link FaultNet}, lets
 * the split-brain resolver decide, heals, starts again every node that exited (as a supervisor would), and follows
 * the job to its end. Everything it asked and saw goes to {@code DIR/history.jsonl}; each node's log to
 * {@code DIR/NAME.err}. Exit status 0 when the schedule ran to the job's end, 1 with the reason on stderr
 * otherwise (the history says what happened up to there).
 */
public final class ChaosDriver {
    /** Quick to notice a partition and to decide, as the other multi-process tests are. */
    static final String CONFIG = """
            akka.cluster.split-brain-resolver.stable-after = 2s
            akka.cluster.failure-detector.acceptable-heartbeat-pause = 2s
            replay.coordinator.slice-target = 300ms
            """;

    /** The fault schedules, each named as the test that runs it. */
    public enum Schedule {
        /** one evaluator cut off from every other node, both ways */
        EVALUATOR_PARTITIONED("evaluator-partitioned", 2),
        /** the coordinator cut off from every evaluator, both ways */
        COORDINATOR_ISOLATED("coordinator-isolated", 2),
        /** one evaluator's packets to the coordinator dropped; the coordinator's to it still delivered */
        ONE_WAY("one-way", 2),
        /** the coordinator and one evaluator | the two other evaluators */
        HALVES("halves", 3),
        /** 20% of the packets between every two nodes lost, both ways, for the rest of the job; one evaluator SIGKILLed */
        LOSS_AND_KILL("loss-and-kill", 2),
        /** the link between the coordinator and one evaluator cut and healed every 2 s, five times */
        FLAPPING("flapping", 2),
        /**
         * every node behind a {@link DelayProxy}: 200 ms ± 100 ms on every chunk between two nodes and 20% of the
         * packets lost, both ways, for the rest of the job; one evaluator SIGKILLed
         */
        DELAY_LOSS_AND_KILL("delay-loss-and-kill", 2);

        final String id;
        final int evaluators;

        Schedule(String id, int evaluators) {
            this.id = id;
            this.evaluators = evaluators;
        }

        public String id() {
            return id;
        }

        static Schedule of(String id) {
            return Stream.of(values()).filter(s -> s.id.equals(id)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no schedule '" + id + "'"));
        }
    }

    private final Schedule schedule;
    private final Path dir;
    private final History history;
    private final NodeSet nodes;
    private final FaultNet net;
    private final Path gate;
    private final FarmClient client;
    static final int METRICS = 9095;
    private PrometheusServer prometheus;
    private String kedaQuery;
    private Path rules;

    private ChaosDriver(Schedule schedule, Path dir, History history, NodeSet nodes, FaultNet net, Path gate) {
        this.schedule = schedule;
        this.dir = dir;
        this.history = history;
        this.nodes = nodes;
        this.net = net;
        this.gate = gate;
        this.client = new FarmClient(history);
    }

    public static void main(String[] args) {
        int status = 0;
        try {
            run(Schedule.of(args[0]), Path.of(args[1]), Path.of(args[2]), args[3],
                    args.length > 4 && !args[4].isEmpty() ? Path.of(args[4]) : null);
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    /**
     * {@code root}: the repository, when Prometheus is to watch the run ({@link PrometheusServer}: the KEDA query
     * and the shipped alert rules on real scrapes); null for none.
     */
    static void run(Schedule schedule, Path dir, Path capture, String outerNamespace, Path root) throws Exception {
        FaultNet net = FaultNet.insideOwnNamespace(outerNamespace);
        Path gate = dir.resolve("gate");
        try (History history = History.create(dir.resolve("history.jsonl"), System::nanoTime);
             NodeSet nodes = new NodeSet(dir, schedule.evaluators, CONFIG + EvalGate.processConfig(gate))) {
            if (schedule == Schedule.DELAY_LOSS_AND_KILL) {
                nodes.proxied();
            }
            ChaosDriver driver = new ChaosDriver(schedule, dir, history, nodes, net, gate);
            if (root != null) {
                nodes.metrics(METRICS);
                driver.kedaQuery = PrometheusServer.kedaQuery(root);
                driver.rules = root.resolve("deploy/prometheus");
            }
            try {
                driver.run(capture);
            } finally {
                if (driver.prometheus != null) {
                    driver.prometheus.close();
                }
            }
        }
    }

    private void run(Path capture) throws Exception {
        Node coordinator = nodes.coordinator();
        nodes.start(coordinator, List.of());
        List<Node> evaluators = nodes.all().subList(1, nodes.all().size());
        nodes.startAll(evaluators, List.of(coordinator));
        awaitWhole(coordinator);
        if (rules != null) {
            prometheus = PrometheusServer.start(dir, nodes.all(), METRICS, rules);
        }
        String url = nodes.apiUrl();
        String sha = client.upload(url, capture);
        String job = client.submit(url, sha).orElseThrow(() -> new IllegalStateException("the job was refused before any fault"));
        List<JobWatcher> others = new ArrayList<>();
        try (JobWatcher watcher = JobWatcher.start(client, history, () -> url, job)) {
            for (Node e : evaluators) {
                awaitCaptureFetched(e, sha); // each evaluator holds a slice of the job
            }
            Await.until("job " + job + " with 2 groups done", () -> watcher.groupsDone() >= 2);
            for (Node e : evaluators) {
                EvalGate.holdProcess(gate, nodes.process(e).pid()); // the job cannot end before the fault
            }
            if (schedule == Schedule.LOSS_AND_KILL || schedule == Schedule.FLAPPING
                    || schedule == Schedule.DELAY_LOSS_AND_KILL) {
                supervisedFaults(watcher, evaluators);
                client.observe(url, job).ifPresent(history::record);
                return;
            }
            if (prometheus != null) {
                // the evaluators hold their slices: the scaler's query must see them
                Await.until("prometheus scraping the job's slices (the KEDA query above 0)",
                        () -> prometheus.value(kedaQuery).filter(v -> v > 0).isPresent());
                history.record(history.now(Kind.NOTE).detail("prometheus: the KEDA query before the fault = "
                        + prometheus.value(kedaQuery).orElseThrow()));
            }
            List<Node> released = fault();
            for (Node e : released) {
                EvalGate.releaseProcess(gate, nodes.process(e).pid());
            }
            if (schedule == Schedule.COORDINATOR_ISOLATED) {
                // the coordinator sees every evaluator unreachable: a client's submission must be refused, saying why
                Await.until("the coordinator seeing every evaluator unreachable",
                        () -> nodes.unreachable(coordinator).size() == evaluators.size());
                history.record(history.now(Kind.CUT_OFF).node(url));
                // a job it accepted now must not be lost: it is followed as the first one is
                client.submit(url, sha).ifPresent(j -> others.add(JobWatcher.start(client, history, () -> url, j)));
            }
            awaitDecided();
            if (prometheus != null) {
                // the downed node's target is down: the shipped alert must be pending (for: 1m) or firing
                List<String> downed = nodes.all().stream().filter(n -> !nodes.alive(n)).map(n -> n.host() + ":" + METRICS).toList();
                java.util.concurrent.atomic.AtomicReference<String> alert = new java.util.concurrent.atomic.AtomicReference<>();
                Await.until("prometheus raising ReplayNodeDown for " + downed, () -> {
                    for (String a : prometheus.alerts()) {
                        if (a.startsWith("ReplayNodeDown ") && downed.stream().anyMatch(d -> a.contains("instance=" + d))) {
                            alert.set(a);
                            return true;
                        }
                    }
                    return false;
                });
                history.record(history.now(Kind.NOTE).detail("prometheus: alert " + alert.get()));
            }
            net.heal();
            history.record(history.now(Kind.HEAL));
            restartExited();
            for (Node e : evaluators) {
                EvalGate.releaseProcess(gate, nodes.process(e).pid());
            }
            awaitWhole(coordinator);
            Await.until("job " + job + " ending", Duration.ofSeconds(300), () -> watcher.end().isPresent());
            for (JobWatcher w : others) {
                Await.until("job " + w.job() + " ending", Duration.ofSeconds(300), () -> w.end().isPresent());
            }
        } finally {
            for (JobWatcher w : others) {
                w.close();
            }
        }
        // one last look, after the watcher: the end it saw must still be the end
        client.observe(url, job).ifPresent(history::record);
        if (prometheus != null) {
            Await.until("prometheus scraping an empty queue (the KEDA query at 0) once the jobs ended",
                    () -> prometheus.value(kedaQuery).filter(v -> v == 0).isPresent());
            history.record(history.now(Kind.NOTE).detail("prometheus: the KEDA query after the job = 0.0"));
        }
    }

    /**
     * The faults that need no decision to wait for: applied while the job runs, with every node that exits started
     * again as its supervisor would; then healed, and the job followed to its end.
     */
    private void supervisedFaults(JobWatcher watcher, List<Node> evaluators) throws Exception {
        Node c = nodes.coordinator();
        List<Node> noted = new ArrayList<>();
        if (schedule == Schedule.LOSS_AND_KILL || schedule == Schedule.DELAY_LOSS_AND_KILL) {
            List<Node> all = nodes.all();
            String delayed = "";
            if (schedule == Schedule.DELAY_LOSS_AND_KILL) {
                long seed = 36;
                for (DelayProxy p : nodes.proxies().values()) {
                    p.delay(DelayProxy.Delay.jitter(200, 100, seed++));
                }
                delayed = "every chunk between two nodes delayed 200 ms ± 100 ms (DelayProxy); ";
            }
            for (Node a : all) {
                for (Node b : all) {
                    if (a != b) {
                        net.loss(a.host(), b.host(), 20);
                    }
                }
            }
            history.record(history.now(Kind.FAULT).detail(schedule.id + ": " + delayed + String.join("; ", net.rules()))
                    .nodes(all.stream().map(Node::address).toList()));
            for (Node e : evaluators) {
                EvalGate.releaseProcess(gate, nodes.process(e).pid());
            }
            Node killed = nodes.evaluator(1);
            long before = watcher.groupsDone();
            Await.until("the job going on under loss", Duration.ofSeconds(120),
                    () -> watcher.groupsDone() > before || watcher.end().isPresent());
            nodes.process(killed).destroyForcibly();
            nodes.process(killed).waitFor();
            noted.add(killed);
            history.record(history.now(Kind.NOTE).node(killed.address()).detail("killed " + killed.name() + " (SIGKILL)"));
            // the loss stays for the rest of the job; the killed evaluator is started again, as its supervisor would
            Await.until("job " + watcher.job() + " ending under 20% loss", Duration.ofSeconds(300), () -> {
                supervise(noted);
                return watcher.end().isPresent();
            });
            for (DelayProxy p : nodes.proxies().values()) {
                history.record(history.now(Kind.NOTE).detail("proxy " + p.summary()));
                p.delay(DelayProxy.Delay.NONE);
            }
        } else {
            // only the evaluator behind the flapping link evaluates while it flaps: the job cannot end before
            Node e2 = nodes.evaluator(2);
            EvalGate.releaseProcess(gate, nodes.process(e2).pid());
            for (int i = 0; i < 5; i++) {
                net.partition(c.host(), e2.host());
                history.record(history.now(Kind.FAULT).detail(schedule.id + " " + (i + 1) + "/5: "
                        + String.join("; ", net.rules())).nodes(List.of(e2.address())));
                Thread.sleep(2000); // the schedule's own clock: the link is down 2 s, then up 2 s
                net.heal();
                history.record(history.now(Kind.HEAL));
                Thread.sleep(2000);
                supervise(noted);
            }
            for (Node e : evaluators) {
                if (nodes.alive(e)) {
                    EvalGate.releaseProcess(gate, nodes.process(e).pid());
                }
            }
        }
        net.heal();
        history.record(history.now(Kind.HEAL));
        Await.until("job " + watcher.job() + " ending", Duration.ofSeconds(300), () -> {
            supervise(noted);
            return watcher.end().isPresent();
        });
        awaitWholeSupervised(c, noted);
    }

    /** Every node that exited since last looked at is recorded and started again (its supervisor's part). */
    private void supervise(List<Node> noted) throws IOException, InterruptedException {
        noteExits(noted);
        if (nodes.all().stream().anyMatch(n -> !nodes.alive(n))) {
            restartExited();
            noted.clear(); // every node runs again: a later exit is a new one
        }
    }

    /** As {@link #awaitWhole}, starting again any node that exits meanwhile. */
    private void awaitWholeSupervised(Node observer, List<Node> noted) throws InterruptedException {
        Await.until("every node up as " + observer.name() + " sees it", Duration.ofSeconds(180), () -> {
            supervise(noted);
            return nodes.alive(observer) && nodes.upMembers(observer).size() == nodes.all().size()
                    && nodes.unreachable(observer).isEmpty();
        });
    }

    /** Applies the schedule's fault and records it; the evaluators on the side expected to go on. */
    private List<Node> fault() throws IOException, InterruptedException {
        Node c = nodes.coordinator();
        List<Node> evaluators = nodes.all().subList(1, nodes.all().size());
        List<Node> cutOff;
        List<Node> goOn;
        switch (schedule) {
            case EVALUATOR_PARTITIONED -> {
                Node e = nodes.evaluator(2);
                cutOff = List.of(e);
                goOn = List.of(nodes.evaluator(1));
                net.split(hosts(cutOff), hosts(List.of(c, nodes.evaluator(1))));
            }
            case COORDINATOR_ISOLATED -> {
                cutOff = List.of(c);
                goOn = evaluators;
                net.split(hosts(cutOff), hosts(evaluators));
            }
            case ONE_WAY -> {
                cutOff = List.of(nodes.evaluator(2));
                goOn = List.of(); // the job waits for the resolver's decision: it must survive it, whichever it is
                net.dropOneWay(nodes.evaluator(2).host(), c.host());
            }
            case HALVES -> {
                cutOff = List.of(nodes.evaluator(2), nodes.evaluator(3));
                goOn = List.of(nodes.evaluator(1));
                net.split(hosts(List.of(c, nodes.evaluator(1))), hosts(cutOff));
            }
            default -> throw new IllegalStateException(schedule.name());
        }
        history.record(history.now(Kind.FAULT).detail(schedule.id + ": " + String.join("; ", net.rules()))
                .nodes(cutOff.stream().map(Node::address).toList()));
        return goOn;
    }

    /**
     * Waits until the split-brain resolver has decided: some node exited (downed), and every node still running
     * sees no member unreachable and only running nodes up. Records each exit.
     */
    private void awaitDecided() throws InterruptedException {
        List<Node> noted = new ArrayList<>();
        Await.until("the split-brain resolver deciding (a side downed, the other whole)", Duration.ofSeconds(180), () -> {
            noteExits(noted);
            if (noted.isEmpty()) {
                return false;
            }
            // each running node sees exactly the running nodes, every one Up and reachable: a node the resolver
            // downed but whose process is still shutting down is still running, and not seen Up by the others
            java.util.Set<String> running = new java.util.TreeSet<>();
            nodes.all().stream().filter(nodes::alive).forEach(n -> running.add(n.address()));
            for (Node n : nodes.all()) {
                if (nodes.alive(n) && (!nodes.unreachable(n).isEmpty()
                        || !new java.util.TreeSet<>(nodes.upMembers(n)).equals(running)
                        || nodes.members(n).path("members").size() != running.size())) {
                    return false;
                }
            }
            return true;
        });
        noteExits(noted); // a node that exited while the others were looked at
    }

    /** Records each node that exited since {@code noted} was last brought up to date, with its exit status. */
    private void noteExits(List<Node> noted) {
        for (Node n : nodes.all()) {
            if (!nodes.alive(n) && !noted.contains(n)) {
                noted.add(n);
                history.record(history.now(Kind.NOTE).node(n.address())
                        .detail("exited " + n.name() + " " + nodes.process(n).exitValue()));
            }
        }
    }

    /**
     * Starts again every node that exited, as its supervisor would: a coordinator first, naming itself and the
     * nodes still running as seeds (operations.md), then evaluators joining the running nodes.
     */
    private void restartExited() throws IOException, InterruptedException {
        restartExited(nodes, history);
    }

    /** {@link #restartExited()} for any driver of {@code nodes} (the soak's too). */
    static void restartExited(NodeSet nodes, History history) throws IOException, InterruptedException {
        List<Node> live = nodes.all().stream().filter(nodes::alive).toList();
        Node c = nodes.coordinator();
        if (!nodes.alive(c)) {
            List<Node> seeds = new ArrayList<>();
            if (!live.isEmpty()) {
                seeds.add(c);
                seeds.addAll(live);
            }
            nodes.start(c, seeds);
            history.record(history.now(Kind.NOTE).node(c.address()).detail("restarted " + c.name()));
        }
        List<Node> exited = nodes.all().stream().filter(n -> !nodes.alive(n)).toList();
        nodes.startAll(exited, List.of(c));
        for (Node n : exited) {
            history.record(history.now(Kind.NOTE).node(n.address()).detail("restarted " + n.name()));
        }
    }

    /** Waits until {@code observer} sees every node up and none unreachable. */
    private void awaitWhole(Node observer) throws InterruptedException {
        Await.until("every node up as " + observer.name() + " sees it", Duration.ofSeconds(180),
                () -> nodes.upMembers(observer).size() == nodes.all().size() && nodes.unreachable(observer).isEmpty());
    }

    /** Waits until evaluator {@code e} has stored capture {@code sha}, which it does for its first slice. */
    private void awaitCaptureFetched(Node e, String sha) throws InterruptedException {
        Path work = dir.resolve(e.name());
        Await.until(e.name() + " receiving a slice of the job", () -> {
            try (Stream<Path> files = Files.walk(work)) {
                return files.anyMatch(f -> f.getFileName().toString().equals(sha + ".capture"));
            }
        });
    }

    private static List<String> hosts(List<Node> ns) {
        return ns.stream().map(Node::host).toList();
    }
}
