package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import akka.http.javadsl.ServerBinding;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.coordinator.http.CoordinatorHttp;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.job.LocalJobService;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code replay jobs} and {@code replay cancel} against a coordinator's job API on loopback, and
 * {@code REPLAY_COORDINATOR} standing in for {@code --coordinator} in a real process whose environment
 * holds it (and the error naming both when neither is given).
 */
@Tag("cluster")
class JobsCancelCommandsTest {
    @TempDir
    Path dir;

    @Test
    void jobs_lists_newest_first_cancel_stops_a_running_job_and_replay_coordinator_is_the_default() throws Exception {
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "jobs-cancel-test");
        LocalJobService jobs = new LocalJobService(dir.resolve("coordinator"), 1);
        try {
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0,
                    new CaptureStore(dir.resolve("coordinator/captures")),
                    List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir.resolve("uploads"))))
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            String url = CoordinatorHttp.url(binding);
            Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
            CliRun first = CliRun.of("submit", saxpy.toString(), "--every-group", "--coordinator", url);
            assertEquals(0, first.exitCode(), first.err());
            String done = first.out().trim();
            assertEquals(0, CliRun.of("watch", done, "--coordinator", url).exitCode());

            // one wave looping until the instruction budget stops it; the job waits before it evaluates until the
            // test lets it go, so it is cancelled after 0 of its 2 groups however fast the machine
            Path s = dir.resolve("runaway.s");
            Files.writeString(s, "loop:\ns_branch loop\ns_endpgm\n");
            Path runaway = dir.resolve("runaway.capture");
            CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "2", "--group-size", "1",
                    "--arg", "zeros:64", "--workgroup-id-sgpr", "2", "-o", runaway.toString());
            assertEquals(0, built.exitCode(), built.err());
            AutoCloseable held = jobs.hold();
            CliRun submitted = CliRun.of("submit", runaway.toString(), "--every-group", "--coordinator", url);
            assertEquals(0, submitted.exitCode(), submitted.err());
            String running = submitted.out().trim();

            CliRun cancel = CliRun.of("cancel", running, "--coordinator", url);
            held.close(); // the cancelled job evaluates nothing
            assertEquals(0, cancel.exitCode(), cancel.out() + cancel.err());
            assertTrue(cancel.out().startsWith("job " + running + " cancelled after 0 of 2 groups"), cancel.out());
            CliRun again = CliRun.of("cancel", running, done, "no-such-job", "--coordinator", url);
            assertEquals(2, again.exitCode());
            assertTrue(again.err().contains("job " + running + " cannot be cancelled: it has been cancelled already"),
                    again.err());
            assertTrue(again.err().contains("job " + done + " cannot be cancelled: it has ended (finished)"), again.err());
            assertTrue(again.err().contains("answered 404 cancelling job no-such-job"), again.err());
            CliRun watch = CliRun.of("watch", running, "--coordinator", url);
            assertEquals(2, watch.exitCode(), "a cancelled job is not a success: " + watch.out());
            assertTrue(watch.out().contains("job " + running + " cancelled after 0 of 2 groups"), watch.out());

            CliRun list = CliRun.of("jobs", "--coordinator", url);
            assertEquals(0, list.exitCode(), list.err());
            String[] lines = list.out().split("\n");
            assertTrue(lines[0].startsWith("JOB "), list.out());
            assertTrue(lines[1].startsWith(running) && lines[1].contains("cancelled") && lines[1].contains("0/2")
                    && lines[1].endsWith("runaway.capture"), list.out());
            assertTrue(lines[2].startsWith(done) && lines[2].contains("finished") && lines[2].contains("16/16")
                    && lines[2].contains("every group") && lines[2].endsWith("saxpy.capture"), list.out());
            assertEquals("2 of 2 job(s)", lines[3]);
            CliRun paged = CliRun.of("jobs", "--limit", "1", "--coordinator", url);
            assertTrue(paged.out().contains("1 of 2 job(s); more with --offset 1"), paged.out());

            // REPLAY_COORDINATOR in a real process's environment; neither it nor --coordinator: exit 2
            Process withEnv = replay(url, "jobs");
            String out = new String(withEnv.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, withEnv.waitFor(), out + new String(withEnv.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            assertTrue(out.contains(running) && out.contains(done), out);
            Process without = replay(null, "watch", done);
            String err = new String(without.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(2, without.waitFor(), err);
            assertTrue(err.contains("no coordinator: give --coordinator URL or set REPLAY_COORDINATOR"), err);
        } finally {
            jobs.close();
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    /** {@code replay ARGS} in a JVM of its own, with REPLAY_COORDINATOR set to {@code coordinator} (or unset). */
    private Process replay(String coordinator, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), Replay.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("REPLAY_COORDINATOR");
        if (coordinator != null) {
            pb.environment().put("REPLAY_COORDINATOR", coordinator);
        }
        Process p = pb.start();
        p.getOutputStream().close();
        return p;
    }
}
