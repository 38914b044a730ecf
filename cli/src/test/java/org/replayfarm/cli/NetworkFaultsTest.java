package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.cli.chaos.ChaosDriver;
import org.replayfarm.cli.chaos.History;
import org.replayfarm.cli.chaos.History.Event;
import org.replayfarm.cli.chaos.History.Kind;
import org.replayfarm.cli.chaos.HistoryChecker;
import org.replayfarm.cli.chaos.Outputs;
import org.replayfarm.model.testing.Toolchain;

/**
 * Network faults between real node processes, each on its own loopback address inside a network namespace this
 * test makes ({@code unshare -n}): the {@link ChaosDriver} runs there, makes the schedule's fault with nftables,
 * heals it, and writes a history that {@link HistoryChecker} reads against replay eval's outputs. The machine's
 * own network is never touched. The first schedule runs with the cluster tests; the others with
 * {@code -Dreplay.chaos=all}.
 */
@Tag("cluster")
class NetworkFaultsTest {
    private static final int GROUPS = 24;

    @TempDir
    Path dir;

    @BeforeEach
    void needsANamespaceAndNft() throws Exception {
        Process p = new ProcessBuilder("unshare", "-n", "true").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        Assumptions.assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
                "cannot make a network namespace here (unshare -n: " + out.strip() + "): the network-fault schedules "
                        + "need the privilege to (./run-tests has it on CI)");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/nft")) || Files.isExecutable(Path.of("/usr/bin/nft")),
                "nft (nftables) is not installed: ./run-tests installs it");
    }

    @Test
    void an_evaluator_partitioned_mid_job_is_downed_its_slices_go_elsewhere_and_the_job_finishes_whole() throws Exception {
        Run run = run(ChaosDriver.Schedule.EVALUATOR_PARTITIONED);
        assertEquals(List.of("eval-2"), run.exited(), "the split-brain resolver keeps the majority, downs the one cut off");
        assertTrue(run.progressedDuringFault(), "the job went on with the majority during the partition: " + run.events);
        run.assertFinishedWhole();
        if (PROMETHEUS) {
            // Debian's prometheus scraped the nodes through the partition: the KEDA scaler's query saw the held
            // slices, the shipped ReplayNodeDown alert named the downed evaluator, the query came back to 0
            List<String> seen = run.events.stream().filter(e -> e.kind() == Kind.NOTE && e.detail().startsWith("prometheus: "))
                    .map(Event::detail).toList();
            assertEquals(3, seen.size(), "prometheus' three observations: " + seen);
            double before = Double.parseDouble(seen.get(0).substring(seen.get(0).lastIndexOf(' ') + 1));
            assertTrue(before > 0, seen.get(0));
            assertTrue(seen.get(1).startsWith("prometheus: alert ReplayNodeDown ") && seen.get(1).contains("instance=127.0.0.4:9095"),
                    seen.get(1));
            assertEquals("prometheus: the KEDA query after the job = 0.0", seen.get(2));
        }
    }

    /** Whether Debian's prometheus is here to watch the first schedule ({@code ./run-tests} installs it). */
    private static final boolean PROMETHEUS = Files.isExecutable(Path.of("/usr/bin/prometheus"));

    @Test
    @EnabledIfSystemProperty(named = "replay.chaos", matches = "all")
    void a_coordinator_cut_off_from_every_evaluator_refuses_jobs_with_503_is_downed_and_restarted_finishes_the_job()
            throws Exception {
        Run run = run(ChaosDriver.Schedule.COORDINATOR_ISOLATED);
        assertEquals(List.of("coordinator"), run.exited(), "the evaluators are the majority: the coordinator is downed");
        Event refused = run.events.stream().filter(e -> e.kind() == Kind.REFUSED).findFirst()
                .orElseThrow(() -> new AssertionError("the cut-off coordinator accepted a job: " + run.events));
        assertEquals(503, refused.status(), refused.toString());
        assertTrue(refused.detail().contains("majority"), refused.detail());
        run.assertFinishedWhole();
    }

    @Test
    @EnabledIfSystemProperty(named = "replay.chaos", matches = "all")
    void a_one_way_link_between_an_evaluator_and_the_coordinator_downs_both_ends_and_the_restarted_coordinator_finishes_the_job()
            throws Exception {
        Run run = run(ChaosDriver.Schedule.ONE_WAY);
        // over TCP a one-way drop breaks the link both ways; the coordinator and eval-2 each see the other
        // unreachable while eval-1 sees both: both are indirectly connected, and the resolver downs both
        assertEquals(List.of("coordinator", "eval-2"), run.exited().stream().sorted().toList(),
                "the resolver downs both ends of a one-way link (DownIndirectlyConnected)");
        run.assertFinishedWhole();
    }

    @Test
    @EnabledIfSystemProperty(named = "replay.chaos", matches = "all")
    void a_cluster_split_in_halves_keeps_the_coordinators_half_and_the_job_finishes_whole() throws Exception {
        Run run = run(ChaosDriver.Schedule.HALVES);
        assertEquals(List.of("eval-2", "eval-3"), run.exited().stream().sorted().toList(),
                "two against two: the split-brain resolver keeps the half with the lowest address, the coordinator's");
        assertTrue(run.progressedDuringFault(), "the job went on in the coordinator's half: " + run.events);
        run.assertFinishedWhole();
    }

    @Test
    @EnabledIfSystemProperty(named = "replay.chaos", matches = "all")
    void twenty_percent_loss_for_the_whole_job_with_an_evaluator_killed_still_finishes_the_job_whole() throws Exception {
        Run run = run(ChaosDriver.Schedule.LOSS_AND_KILL);
        assertTrue(run.events.stream().anyMatch(e -> e.kind() == Kind.NOTE && e.detail().startsWith("killed eval-1")),
                "eval-1 was killed mid-job: " + run.events);
        run.assertFinishedWhole();
    }

    @Test
    @EnabledIfSystemProperty(named = "replay.chaos", matches = "all")
    void delay_of_200_ms_with_100_ms_jitter_and_twenty_percent_loss_for_the_whole_job_with_an_evaluator_killed_finishes_whole()
            throws Exception {
        Run run = run(ChaosDriver.Schedule.DELAY_LOSS_AND_KILL);
        assertTrue(run.events.stream().anyMatch(e -> e.kind() == Kind.NOTE && e.detail().startsWith("killed eval-1")),
                "eval-1 was killed mid-job: " + run.events);
        List<Event> proxies = run.events.stream().filter(e -> e.kind() == Kind.NOTE && e.detail().startsWith("proxy ")).toList();
        assertEquals(3, proxies.size(), "a proxy before each node: " + run.events);
        for (Event p : proxies) {
            // "proxy NAME: C connections, N chunks, D delayed, longest M ms"
            String[] w = p.detail().split("[ ,]+");
            long delayedChunks = Long.parseLong(w[6]);
            long longest = Long.parseLong(w[9]);
            assertTrue(delayedChunks > 0 && longest >= 100 && longest <= 300, "the proxy held chunks 100 to 300 ms: " + p);
        }
        run.assertFinishedWhole();
    }

    @Test
    @EnabledIfSystemProperty(named = "replay.chaos", matches = "all")
    void a_link_flapping_every_two_seconds_leaves_the_job_finished_whole() throws Exception {
        Run run = run(ChaosDriver.Schedule.FLAPPING);
        assertTrue(run.events.stream().filter(e -> e.kind() == Kind.FAULT).count() >= 2, "the link flapped: " + run.events);
        run.exited(); // whatever the resolver downed exited 2 (down-all-when-unstable may down every node)
        run.assertFinishedWhole();
    }

    /** A schedule's history, read back, with what replay eval gives for the capture. */
    private record Run(List<Event> events, String sha, String expected, Path dir) {
        List<String> exited() {
            List<String> out = new ArrayList<>();
            for (Event e : events) {
                if (e.kind() == Kind.NOTE && e.detail().startsWith("exited ")) {
                    String[] words = e.detail().split(" ");
                    assertEquals("2", words[2], "a downed node exits 2: " + e.detail());
                    out.add(words[1]);
                }
            }
            return out;
        }

        boolean progressedDuringFault() {
            long atFault = -1;
            for (Event e : events) {
                if (e.kind() == Kind.FAULT) {
                    atFault = lastDone(e);
                } else if (e.kind() == Kind.HEAL) {
                    return false;
                } else if (atFault >= 0 && e.groupsDone() != null && e.groupsDone() > atFault) {
                    return true;
                }
            }
            return false;
        }

        private long lastDone(Event upTo) {
            long done = 0;
            for (Event e : events) {
                if (e == upTo) {
                    break;
                }
                if (e.groupsDone() != null) {
                    done = e.groupsDone();
                }
            }
            return done;
        }

        void assertFinishedWhole() {
            List<String> violations = new HistoryChecker(Map.of(sha, expected)).violations(events);
            assertEquals(List.of(), violations, "the history (" + dir.resolve("history.jsonl") + ") breaks a promise");
            Event fault = events.stream().filter(e -> e.kind() == Kind.FAULT).findFirst().orElseThrow();
            assertTrue(lastDone(fault) < GROUPS, "the fault came mid-job");
            assertTrue(events.stream().anyMatch(e -> e.kind() == Kind.FINISHED), "the job finished: " + events);
        }
    }

    /** The history and the logs of the schedule's run, kept under cli/target/network-faults/SCHEDULE to read after. */
    private static void keep(Path work, String schedule) throws java.io.IOException {
        Path kept = Path.of(System.getProperty("replayfarm.root", "."), "cli", "target", "network-faults", schedule);
        Files.createDirectories(kept);
        try (var files = Files.list(work)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".err") || f.toString().endsWith(".jsonl")).toList()) {
                Files.copy(f, kept.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private Run run(ChaosDriver.Schedule schedule) throws Exception {
        Path object = Toolchain.compileOpenCl(dir, "spinc", CoordinatorKillTest.SPIN_COUNT, "-O2");
        Path capture = dir.resolve("spinc.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "spinc", "--groups",
                String.valueOf(GROUPS), "--group-size", "64", "--arg", "zeros:" + GROUPS * 64 * 4, "--arg", "zeros:4",
                "--arg", "u32:60000", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("ref").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        String expected = Outputs.digest(dir.resolve("ref"));

        Path work = Files.createDirectories(dir.resolve(schedule.id()));
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path err = work.resolve("driver.err");
        long t0 = System.nanoTime();
        Process driver = new ProcessBuilder("unshare", "-n", java, "-Xmx256m", "-cp", classpath,
                ChaosDriver.class.getName(), schedule.id(), work.toString(), capture.toString(),
                org.replayfarm.cli.chaos.FaultNet.namespace(),
                PROMETHEUS && schedule == ChaosDriver.Schedule.EVALUATOR_PARTITIONED
                        ? Path.of(System.getProperty("replayfarm.root", "..")).toAbsolutePath().toString() : "")
                .redirectErrorStream(true).redirectOutput(err.toFile()).start();
        boolean ended = driver.waitFor(540, TimeUnit.SECONDS);
        if (!ended) {
            // its node processes first: they would outlive it in the namespace
            driver.descendants().forEach(ProcessHandle::destroyForcibly);
            driver.destroyForcibly();
        }
        List<Event> events = Files.exists(work.resolve("history.jsonl")) ? History.read(work.resolve("history.jsonl")) : List.of();
        keep(work, schedule.id());
        System.out.printf("%s: the driver ran %.1f s, %d events%n", schedule.id(), (System.nanoTime() - t0) / 1e9, events.size());
        assertTrue(ended && driver.exitValue() == 0, "the driver did not run the schedule to the job's end:\n"
                + Files.readString(err) + "\nhistory:\n" + String.join("\n", events.stream().map(Object::toString).toList()));
        String sha = events.stream().filter(e -> e.kind() == Kind.ACCEPTED).findFirst().orElseThrow().capture();
        return new Run(events, sha, expected, work);
    }
}
