package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.fail;

import akka.cluster.MemberStatus;
import akka.cluster.typed.Cluster;
import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.model.testing.Await;

/**
 * Evaluator nodes as separate JVMs ({@code replay node --role eval}) for the multi-process tests: each
 * writes its stderr to {@code DIR/eval-<n>.err}; closing kills every one still running.
 */
final class NodeProcesses implements AutoCloseable {
    private final Path dir;
    private final List<Process> processes = new ArrayList<>();

    NodeProcesses(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts evaluator {@code n} joined to {@code seed} with the node configuration file {@code config},
     * environment {@code env} and {@code extra} arguments; returns its cluster address once it printed it.
     */
    String evaluator(String seed, Path config, int n, Map<String, String> env, String... extra) throws Exception {
        Process p = start(seed, config, n, env, extra);
        return awaitNodeLine(p, dir.resolve("eval-" + n + ".err"));
    }

    /**
     * Starts evaluators {@code ns} as {@link #evaluator} does, all at once (their JVMs start side by side), and
     * returns their cluster addresses, in that order, once each printed its own.
     */
    List<String> evaluators(String seed, Path config, Map<String, String> env, int[] ns, String... extra) throws Exception {
        List<Process> started = new ArrayList<>();
        for (int n : ns) {
            started.add(start(seed, config, n, env, extra));
        }
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < ns.length; i++) {
            addresses.add(awaitNodeLine(started.get(i), dir.resolve("eval-" + ns[i] + ".err")));
        }
        return addresses;
    }

    private Process start(String seed, Path config, int n, Map<String, String> env, String... extra) throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-cp", classpath, "org.replayfarm.cli.Replay",
                "node", "--role", "eval", "--host", "127.0.0.1", "--port", "0", "--seed", seed, "--threads", "1",
                "--config", config.toString(), "--work-dir", dir.resolve("eval-" + n).toString()));
        command.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.redirectError(dir.resolve("eval-" + n + ".err").toFile());
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    /**
     * Waits (up to 120 s) for a started {@code replay node}'s first stdout line, which names its cluster address
     * ({@code node akka://farm@HOST:PORT ...}), and returns that address; fails with the node's stderr ({@code err})
     * when the line does not come or is not that.
     */
    static String awaitNodeLine(Process p, Path err) throws Exception {
        String line;
        try {
            line = CompletableFuture.supplyAsync(() -> {
                try {
                    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
                } catch (Exception e) {
                    return null;
                }
            }).get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            line = "(no line within 120 s)";
        }
        if (line == null || !line.startsWith("node akka://farm@")) {
            fail("the node did not start: " + line + "\n" + Files.readString(err));
        }
        return line.split(" ")[1];
    }

    /** A coordinator in this JVM and evaluator processes joined to it, every member up. */
    record Farm(FarmNode coordinator, List<String> evaluators) implements AutoCloseable {
        @Override
        public void close() {
            coordinator.close();
        }
    }

    /**
     * A coordinator started here with the node configuration file {@code config}, and evaluators 1..{@code n}
     * (started at once, each with {@code env} and {@code extra}), joined to it and all up.
     */
    Farm farm(Path config, int n, Map<String, String> env, String... extra) throws Exception {
        FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR), dir.resolve("coordinator"))
                .withConfig(ConfigFactory.parseFile(config.toFile())));
        try {
            awaitUp(coordinator, 1);
            int[] ns = new int[n];
            for (int i = 0; i < n; i++) {
                ns[i] = i + 1;
            }
            List<String> evaluators = evaluators(coordinator.seed(), config, env, ns, extra);
            awaitUp(coordinator, n + 1);
            return new Farm(coordinator, evaluators);
        } catch (Exception | AssertionError e) {
            coordinator.close();
            throw e;
        }
    }

    /** The {@code i}-th process started (from 0). */
    Process process(int i) {
        return processes.get(i);
    }

    /** Waits until {@code node} sees {@code members} members up and none unreachable. */
    static void awaitUp(FarmNode node, int members) throws InterruptedException {
        Await.until("the cluster reaching " + members + " members up, none unreachable", () -> {
            var state = Cluster.get(node.system()).state();
            return StreamSupport.stream(state.getMembers().spliterator(), false)
                    .filter(m -> m.status() == MemberStatus.up()).count() == members && state.getUnreachable().isEmpty();
        });
    }

    /**
     * Waits until the {@code n}-th evaluator has stored the capture {@code sha} in its work directory, which it
     * does when its first slice of a job on that capture arrives, before evaluating it.
     */
    void awaitCaptureFetched(int n, String sha) throws Exception {
        Path work = dir.resolve("eval-" + n);
        // another process's files: there is no event to subscribe to
        Await.until("evaluator " + n + " receiving a slice (capture " + sha + " under " + work + ")", () -> {
            if (!Files.isDirectory(work)) {
                return false;
            }
            try (var files = Files.walk(work)) {
                return files.anyMatch(f -> f.getFileName().toString().equals(sha + ".capture"));
            }
        });
    }

    /**
     * Starts job {@code id} on every group of the stored capture {@code sha} with its outputs in {@code out};
     * the future completes with the job's last progress when it ends.
     */
    static CompletableFuture<JobProgress> startJob(FarmNode coordinator, String id, String sha, Path out) {
        CompletableFuture<JobProgress> end = new CompletableFuture<>();
        coordinator.jobs().start(id, sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, out);
        coordinator.jobs().subscribe(id, p -> {
            if (p.ended()) {
                end.complete(p);
            }
        });
        return end;
    }

    /** Waits until {@code node} no longer lists the member at {@code address} (it was downed and removed). */
    static void awaitGone(FarmNode node, String address) throws InterruptedException {
        Await.until("the cluster no longer listing " + address, () -> StreamSupport.stream(
                Cluster.get(node.system()).state().getMembers().spliterator(), false)
                .noneMatch(m -> m.address().toString().equals(address)));
    }

    @Override
    public void close() {
        processes.forEach(Process::destroyForcibly);
    }
}
