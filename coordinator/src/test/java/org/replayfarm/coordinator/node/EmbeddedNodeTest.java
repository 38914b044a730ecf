package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.proto.GuestHotspot;
import org.replayfarm.coordinator.job.ClusterJobService;

/**
 * replay run's embedded node (coordinator and eval roles, one member): its job says every group is evaluated and
 * merged (a running progress with all groups done) before the comparison and the report begin, so a watcher such
 * as {@code replay run --timings} tells the phases apart; and what the node starts its close stops: the
 * coordinator's hot-guest series reaper (a thread waiting for the next series to expire) is gone once
 * {@link FarmNode#close()} returns, with the series it kept.
 */
@Tag("cluster")
class EmbeddedNodeTest {
    @TempDir
    Path dir;

    private static Set<Thread> reapers() {
        Set<Thread> found = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("hot-guest-metrics-reaper") && t.isAlive()) {
                found.add(t);
            }
        }
        return found;
    }

    @Test
    void all_groups_done_comes_before_the_report_and_close_stops_the_hot_guest_reaper() throws Exception {
        Set<Thread> before = reapers();
        Set<Thread> started;
        Path out = dir.resolve("out");
        FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("work"))
                .withEvalThreads(2).withConfig(ConfigFactory.parseString(FarmNode.EMBEDDED_KEY + " = on\n"
                        + "replay.metrics.enabled = on\nreplay.metrics.job-retention = 1h")));
        try {
            ClusterJobService jobs = node.jobs();
            String sha = jobs.storeCapture(TestCaptures.saxpy());
            AtomicReference<String> allDone = new AtomicReference<>();
            CompletableFuture<JobProgress> end = new CompletableFuture<>();
            // subscribed before the job starts: every progress it reports comes here, on the job's thread
            try (AutoCloseable sub = jobs.subscribe("phases", p -> {
                if (!p.ended() && p.groupsDone() == p.groupsTotal() && p.groupsTotal() > 0 && allDone.get() == null) {
                    allDone.set(p.state() + (Files.exists(out.resolve("report.json")) ? " after the report" : " before the report"));
                }
                if (p.ended()) {
                    end.complete(p);
                }
            })) {
                jobs.start("phases", sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, out, CompareWith.auto(),
                        "saxpy.capture", r -> { });
                JobProgress p = end.get(120, TimeUnit.SECONDS);
                assertEquals("finished", p.state(), p.error());
            }
            assertNotNull(allDone.get(), "no progress said every group was done before the job ended");
            assertEquals("running before the report", allDone.get());
            assertTrue(Files.isRegularFile(out.resolve("report.json")));

            // a device run's hottest instructions: a series that expires in an hour, so the reaper waits for it
            node.hotGuestMetrics().record("job-close", List.of(GuestHotspot.newBuilder().setGuestPc(0x100)
                    .setText("s_endpgm").setSamples(7).build()));
            assertEquals(1, node.hotGuestMetrics().series("job-close"));
            started = reapers();
            started.removeAll(before);
            assertEquals(1, started.size(), "recording a series starts the node's reaper thread");
        } finally {
            node.close();
        }
        for (Thread t : started) {
            t.join(10_000);
            assertFalse(t.isAlive(), "the reaper thread outlives the node it belonged to");
        }
        assertEquals(0, node.hotGuestMetrics().series("job-close"), "the node's series went with it");
    }

    /**
     * replay run hands the capture it opened and decoded to its own node: the job launch takes it (the stored
     * copy is not opened again) and the node's evaluators take the kernel (no fetch from its own coordinator).
     * Shown by breaking the stored copy after it was stored: the held job still runs and compares equal with the
     * capture's recorded run; the next job, with nothing held, opens the stored copy and is refused.
     */
    @Test
    void a_held_capture_is_neither_opened_again_nor_fetched() throws Exception {
        FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("work"))
                .withEvalThreads(2).withConfig(ConfigFactory.parseString(FarmNode.EMBEDDED_KEY + " = on\n")));
        try {
            ClusterJobService jobs = node.jobs();
            var file = org.replayfarm.model.capture.CaptureFile.open(TestCaptures.saxpy());
            var kernel = new org.replayfarm.evalnode.hostmodel.Kernel(file);
            String sha = jobs.storeCapture(file);
            jobs.holdOpened(sha, file, kernel);
            node.evaluator().cache().hold(sha, kernel);
            Path stored;
            try (var files = Files.walk(dir.resolve("work"))) {
                stored = files.filter(f -> f.getFileName().toString().equals(sha + ".capture")).findFirst().orElseThrow();
            }
            byte[] bytes = Files.readAllBytes(stored);
            bytes[bytes.length / 2] ^= 0x5A; // the stored copy no longer hashes to what its metadata says
            Files.write(stored, bytes);

            AtomicReference<org.replayfarm.coordinator.report.Comparison.Result> result = new AtomicReference<>();
            CompletableFuture<JobProgress> end = new CompletableFuture<>();
            try (AutoCloseable sub = jobs.subscribe("held", p -> {
                if (p.ended()) {
                    end.complete(p);
                }
            })) {
                jobs.start("held", sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET, dir.resolve("out"),
                        CompareWith.auto(), "saxpy.capture", result::set);
                JobProgress p = end.get(120, TimeUnit.SECONDS);
                assertEquals("finished", p.state(), p.error());
            }
            assertEquals(0, result.get().verdict().exitStatus(), result.get().summary());
            assertEquals(0, node.evaluator().cache().fetches(), "the evaluators fetched the capture");
            // nothing held any more: the job launch opens the (broken) stored copy and says so
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> jobs.start("again", sha, GroupSelection.everyGroup(), HostModel.DEFAULT_BUDGET,
                            dir.resolve("again"), CompareWith.auto(), "saxpy.capture", r -> { }));
            assertTrue(e.getMessage().contains("stored capture " + sha + " no longer opens"), e.getMessage());
        } finally {
            node.close();
        }
    }
}
