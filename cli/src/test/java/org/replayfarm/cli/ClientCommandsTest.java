package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import akka.http.javadsl.ServerBinding;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.coordinator.http.CoordinatorHttp;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.job.LocalJobService;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code replay submit}, {@code watch} and {@code results} end to end against a coordinator's job API
 * served in this process (akka-http on loopback, a {@link LocalJobService} behind it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("cluster")
class ClientCommandsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    ActorSystem<Void> system;
    LocalJobService jobs;
    String url;
    final Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");

    @BeforeAll
    void start() throws Exception {
        system = ActorSystem.create(Behaviors.empty(), "client-test");
        jobs = new LocalJobService(dir.resolve("coordinator"), 2);
        ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, new CaptureStore(dir.resolve("coordinator/captures")),
                List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir.resolve("uploads"))))
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        url = CoordinatorHttp.url(binding);
    }

    @AfterAll
    void stop() throws Exception {
        jobs.close();
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private Path capture(String name, String asm, String groups) throws Exception {
        return capture(name, asm, groups, 64);
    }

    private Path capture(String name, String asm, String groups, int bytes) throws Exception {
        Path s = dir.resolve(name + ".s");
        Files.writeString(s, asm);
        Path out = dir.resolve(name + ".capture");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", groups, "--group-size", "1",
                "--arg", "zeros:" + bytes, "--workgroup-id-sgpr", "2", "-o", out.toString());
        assertEquals(0, built.exitCode(), built.err());
        return out;
    }

    private String submit(String... args) {
        String[] all = Stream.concat(Stream.of("submit"), Stream.concat(Arrays.stream(args), Stream.of("--coordinator", url)))
                .toArray(String[]::new);
        CliRun run = CliRun.of(all);
        assertEquals(0, run.exitCode(), run.out() + run.err());
        String job = run.out().trim();
        assertTrue(job.matches("[A-Za-z0-9._-]+"), "submit prints the job id alone: " + run.out());
        return job;
    }

    /** The files of an output directory, by relative path. */
    private static List<String> files(Path root) throws Exception {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).sorted().collect(Collectors.toList());
        }
    }

    /**
     * {@code replay results}' outputs hold {@code replay eval}'s byte for byte, but report.json, which
     * equals eval's in eval-report/1's fields but for the wall time; and the run report's own files.
     */
    private static void assertSameOutputs(Path eval, Path results) throws Exception {
        assertTrue(files(results).containsAll(files(eval)), files(results) + " holds " + files(eval));
        assertTrue(files(results).containsAll(List.of("summary.txt", "junit.xml")), files(results).toString());
        for (String f : files(eval)) {
            byte[] want = Files.readAllBytes(eval.resolve(f));
            byte[] got = Files.readAllBytes(results.resolve(f));
            if (f.equals("report.json")) {
                ObjectNode w = (ObjectNode) JSON.readTree(want);
                ObjectNode g = (ObjectNode) JSON.readTree(got);
                assertEquals("replay-farm/run-report/2", g.get("schema").asText());
                for (ObjectNode n : List.of(w, g)) {
                    n.remove(List.of("wall_time_seconds", "schema", "capture_file", "capture_path", "job", "selection",
                            "nondeterministic_slices", "device", "comparison", "result", "timings", "sampling", "farm"));
                }
                assertEquals(w, g);
            } else {
                assertArrayEquals(want, got, f);
            }
        }
    }

    @Test
    void submit_watch_and_results_give_what_replay_eval_gives() throws Exception {
        CliRun first = CliRun.of("submit", saxpy.toString(), "--every-group", "--coordinator", url + "/");
        assertEquals(0, first.exitCode(), first.err());
        String job = first.out().trim();
        // two groups far apart: against the native run, the bytes between them that only the device wrote
        // would be device-only differences inside the footprint; host only here
        String second = submit(saxpy.toString(), "--group", "0", "--group", "15,0,0", "--device", "none");
        assertTrue(first.err().contains("uploading " + saxpy) || first.err().contains("is already on"), first.err());
        assertTrue(!job.equals(second));

        CliRun watch = CliRun.of("watch", job, "--coordinator", url);
        assertEquals(0, watch.exitCode(), watch.out() + watch.err());
        assertTrue(watch.out().startsWith("job " + job + " finished: 16 groups, 0 faults, "), watch.out());
        assertTrue(watch.err().contains("16/16 groups"), "the progress bar shows groups done: " + watch.err());
        assertTrue(watch.err().contains("groups/s"), "and the rate: " + watch.err());
        // standard error is no terminal here: plain lines, no \r redraws, each with more groups done than the last
        assertFalse(watch.err().contains("\r"), watch.err());
        long previous = -1;
        for (String line : watch.err().split("\n")) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^job \\S+ (running|finished): (\\d+)/16 groups").matcher(line);
            assertTrue(m.find(), "a plain progress line: " + line);
            long done = Long.parseLong(m.group(2));
            assertTrue(done > previous, "a line only when the groups done changed: " + watch.err());
            previous = done;
        }

        Path results = dir.resolve("saxpy-results");
        CliRun fetched = CliRun.of("results", job, "--coordinator", url, "--out", results.toString());
        assertEquals(0, fetched.exitCode(), fetched.out() + fetched.err());
        assertTrue(fetched.out().contains("result          equal (exit status 0)"), fetched.out());
        assertTrue(fetched.out().contains("device          recorded run 'native x86-64 (clang-19)'"), fetched.out());
        // replay run's layout: a run compared with a device has diff/, here empty (nothing differed to draw)
        assertTrue(Files.isDirectory(results.resolve("diff")), "diff/ made");
        try (var drawn = Files.list(results.resolve("diff"))) {
            assertEquals(0, drawn.count());
        }
        CliRun eval = CliRun.of("eval", saxpy.toString(), "--every-group", "--threads", "2", "--out", dir.resolve("saxpy-eval").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        assertSameOutputs(dir.resolve("saxpy-eval"), results);

        assertEquals(0, CliRun.of("watch", second, "--coordinator", url).exitCode());
        Path two = dir.resolve("saxpy-two");
        assertEquals(0, CliRun.of("results", second, "--coordinator", url, "--out", two.toString()).exitCode());
        CliRun evalTwo = CliRun.of("eval", saxpy.toString(), "--group", "0", "--group", "15,0,0", "--threads", "2", "--out",
                dir.resolve("saxpy-eval-two").toString());
        assertEquals(0, evalTwo.exitCode(), evalTwo.err());
        assertSameOutputs(dir.resolve("saxpy-eval-two"), two);
        CliRun again = CliRun.of("submit", saxpy.toString(), "--every-group", "--coordinator", url);
        assertTrue(again.err().contains("is already on " + url), "an uploaded capture is not sent twice: " + again.err());
    }

    @Test
    void a_faulted_group_makes_watch_and_results_exit_1_with_eval_s_outputs() throws Exception {
        Path capture = capture("faulty", EvalCommandTest.STORE_ID, "4");
        String job = submit(capture.toString(), "--every-group");
        CliRun watch = CliRun.of("watch", job, "--coordinator", url);
        assertEquals(1, watch.exitCode(), watch.out() + watch.err());
        assertTrue(watch.out().contains("finished: 4 groups, 1 fault, "), watch.out());
        Path results = dir.resolve("faulty-results");
        CliRun fetched = CliRun.of("results", job, "--coordinator", url, "--out", results.toString());
        assertEquals(1, fetched.exitCode(), fetched.out() + fetched.err());
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--threads", "2", "--out", dir.resolve("faulty-eval").toString());
        assertEquals(1, eval.exitCode());
        assertSameOutputs(dir.resolve("faulty-eval"), results);
        JsonNode report = JSON.readTree(results.resolve("report.json").toFile());
        assertEquals(2, report.get("faults").get(0).get("group").get(0).asInt());
    }

    @Test
    void a_capture_larger_than_akka_http_s_default_entity_limit_uploads() throws Exception {
        Path big = capture("big", EvalCommandTest.STORE_ID.replace("s_cmp_eq_u32 s2, 2", "s_cmp_eq_u32 s2, 99"), "4", 9 << 20);
        assertTrue(Files.size(big) > 9 << 20, "over akka-http's default max-content-length of 8 MiB");
        CliRun submitted = CliRun.of("submit", big.toString(), "--every-group", "--coordinator", url);
        assertEquals(0, submitted.exitCode(), submitted.err());
        assertTrue(submitted.err().contains("uploading " + big), submitted.err());
        String job = submitted.out().trim();
        assertEquals(0, CliRun.of("watch", job, "--coordinator", url).exitCode());
        Path results = dir.resolve("big-results");
        assertEquals(0, CliRun.of("results", job, "--coordinator", url, "--out", results.toString()).exitCode());
        CliRun eval = CliRun.of("eval", big.toString(), "--every-group", "--threads", "2", "--out", dir.resolve("big-eval").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        assertSameOutputs(dir.resolve("big-eval"), results);
    }

    @Test
    void results_of_a_running_job_are_refused_until_it_finishes() throws Exception {
        // One wave looping until the default instruction budget (200 M) stops it; the job waits before it
        // evaluates until the test lets it go, so it is running when its results are asked for
        Path capture = capture("runaway", "loop:\ns_branch loop\ns_endpgm\n", "2");
        String job;
        try (AutoCloseable held = jobs.hold()) {
            job = submit(capture.toString(), "--group", "1");
            CliRun early = CliRun.of("results", job, "--coordinator", url, "--out", dir.resolve("runaway").toString());
            assertEquals(2, early.exitCode(), early.out() + early.err());
            assertTrue(early.err().contains("answered 404") && early.err().contains("has no results: it is running"),
                    early.err());
        }
        CliRun watch = CliRun.of("watch", job, "--coordinator", url);
        assertEquals(1, watch.exitCode(), watch.out() + watch.err());
        assertTrue(watch.out().contains("finished: 1 group, 1 fault, "), watch.out());
        CliRun late = CliRun.of("results", job, "--coordinator", url, "--out", dir.resolve("runaway").toString());
        assertEquals(1, late.exitCode(), late.out() + late.err());
        assertTrue(Files.exists(dir.resolve("runaway/host/guest-0.bin")));
    }

    @Test
    void client_errors_are_one_clear_line_and_exit_2() throws Exception {
        byte[] whole = Files.readAllBytes(saxpy);
        Path truncated = dir.resolve("truncated.capture");
        Files.write(truncated, Arrays.copyOf(whole, whole.length - 100));
        CliRun bad = CliRun.of("submit", truncated.toString(), "--every-group", "--coordinator", url);
        assertEquals(2, bad.exitCode());
        // the last blob is the recorded native run's y (range 1): the validator names that field
        assertTrue(bad.err().contains("answered 400 uploading " + truncated + ": the capture is refused: runs[0].ranges[1].data: "),
                bad.err());
        assertTrue(bad.err().contains("runs past the end of the file"), bad.err());

        CliRun outside = CliRun.of("submit", saxpy.toString(), "--group", "16", "--coordinator", url);
        assertEquals(2, outside.exitCode());
        assertTrue(outside.err().contains("group (16, 0, 0) is outside the dispatch of 16 x 1 x 1 groups"), outside.err());

        CliRun unknown = CliRun.of("watch", "no-such-job", "--coordinator", url);
        assertEquals(2, unknown.exitCode());
        assertTrue(unknown.err().contains("answered 404 watching job no-such-job: no job 'no-such-job' is known here"),
                unknown.err());
        assertEquals(2, CliRun.of("results", "no-such-job", "--coordinator", url, "--out", dir.resolve("x").toString()).exitCode());

        CliRun badId = CliRun.of("watch", "../etc", "--coordinator", url);
        assertEquals(2, badId.exitCode());
        assertTrue(badId.err().contains("'../etc' is not a job id"), badId.err());

        CliRun badUrl = CliRun.of("watch", "x", "--coordinator", "coordinator:8080");
        assertEquals(2, badUrl.exitCode());
        assertTrue(badUrl.err().contains("is not an http:// or https:// URL"), badUrl.err());

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        CliRun down = CliRun.of("submit", saxpy.toString(), "--every-group", "--coordinator", "http://127.0.0.1:" + closed);
        assertEquals(2, down.exitCode());
        assertTrue(down.err().contains("cannot reach the coordinator at http://127.0.0.1:" + closed), down.err());

        CliRun noFile = CliRun.of("submit", dir.resolve("missing.capture").toString(), "--every-group", "--coordinator", url);
        assertEquals(2, noFile.exitCode());
        assertTrue(noFile.err().contains("no such file: "), noFile.err());
    }
}
