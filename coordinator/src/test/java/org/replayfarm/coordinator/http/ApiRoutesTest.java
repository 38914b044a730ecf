package org.replayfarm.coordinator.http;

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
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.coordinator.job.LocalJobService;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/** The job API over real loopback HTTP, on a {@link LocalJobService}. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("cluster")
class ApiRoutesTest {
    static final int THREADS = 2;
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    ActorSystem<Void> system;
    LocalJobService jobs;
    String url;
    String smallUrl;
    String execUrl;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    final Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");

    @BeforeAll
    void start() throws Exception {
        system = ActorSystem.create(Behaviors.empty(), "api-test");
        jobs = new LocalJobService(dir.resolve("work"), THREADS);
        CaptureStore captures = new CaptureStore(dir.resolve("work/captures"));
        ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, captures,
                List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir.resolve("uploads"))))
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        url = CoordinatorHttp.url(binding);
        ServerBinding small = CoordinatorHttp.start(system, "127.0.0.1", 0, captures,
                List.of(ApiRoutes.routes(jobs, new ApiRoutes.Limits(1000, 200), dir.resolve("uploads"))))
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        smallUrl = CoordinatorHttp.url(small);
        ServerBinding exec = CoordinatorHttp.start(system, "127.0.0.1", 0, captures,
                List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir.resolve("uploads"),
                        org.replayfarm.gpunode.device.ExecAllowList.of(List.of("sh")))))
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
        execUrl = CoordinatorHttp.url(exec);
    }

    @AfterAll
    void stop() throws Exception {
        jobs.close();
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(url + path)));
    }

    HttpResponse<String> post(String base, String path, byte[] body) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    HttpResponse<String> postJob(String body) throws Exception {
        return post(url, "/jobs", body.getBytes());
    }

    String upload(Path capture) throws Exception {
        HttpResponse<String> r = post(url, "/captures", Files.readAllBytes(capture));
        assertEquals(201, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("sha256").asText();
    }

    static String error(HttpResponse<String> r) throws Exception {
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        return JSON.readTree(r.body()).get("error").asText();
    }

    /** Reads the job's event stream to its end with a real HTTP client; returns every progress event. */
    List<JobProgress> events(String job) throws Exception {
        HttpResponse<Stream<String>> r = client.send(HttpRequest.newBuilder(URI.create(url + "/jobs/" + job + "/events"))
                .timeout(Duration.ofSeconds(50)).build(), HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        List<JobProgress> out = new ArrayList<>();
        String event = null;
        StringBuilder data = new StringBuilder();
        try (Stream<String> lines = r.body()) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.startsWith("event:")) {
                    event = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    data.append(line.substring(5).trim());
                } else if (line.isEmpty()) {
                    if (data.length() > 0) {
                        assertEquals("progress", event);
                        out.add(ProgressJson.read(data.toString()));
                    }
                    event = null;
                    data.setLength(0);
                }
            }
        }
        return out;
    }

    @Test
    void upload_start_watch_and_fetch_results_equal_the_reference_evaluation() throws Exception {
        String sha = upload(saxpy);
        assertEquals(CaptureFile.open(saxpy).identity(), sha);
        assertEquals(200, send(HttpRequest.newBuilder(URI.create(url + "/captures/" + sha))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())).statusCode());
        assertEquals(sha, upload(saxpy), "uploading the same capture twice is harmless");

        HttpResponse<String> started = postJob("{\"capture\": \"" + sha + "\", \"groups\": \"every\"}");
        assertEquals(201, started.statusCode(), started.body());
        String job = JSON.readTree(started.body()).get("job").asText();

        List<JobProgress> events = events(job);
        assertFalse(events.isEmpty());
        JobProgress last = events.get(events.size() - 1);
        assertEquals("finished", last.state(), last.toString());
        for (JobProgress p : events.subList(0, events.size() - 1)) {
            assertEquals("running", p.state(), "only the last event ends the job");
        }
        HttpResponse<String> status = get("/jobs/" + job);
        assertEquals(200, status.statusCode());
        assertEquals(last, ProgressJson.read(status.body()));

        // The reference: what replay eval writes for the same capture and groups.
        Path reference = dir.resolve("reference");
        Kernel kernel = new Kernel(CaptureFile.open(saxpy));
        List<int[]> groups = GroupSelection.everyGroup().resolve(kernel.dispatch());
        Evaluation.write(Evaluation.run(kernel, groups, THREADS, HostModel.DEFAULT_BUDGET, d -> { }), kernel, sha, reference);

        HttpResponse<String> listing = get("/jobs/" + job + "/results");
        assertEquals(200, listing.statusCode(), listing.body());
        List<String> paths = new ArrayList<>();
        for (JsonNode f : JSON.readTree(listing.body()).get("files")) {
            paths.add(f.get("path").asText());
            HttpResponse<byte[]> file = client.send(HttpRequest.newBuilder(URI.create(url + "/jobs/" + job + "/results/"
                    + f.get("path").asText())).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, file.statusCode());
            assertEquals(f.get("bytes").asLong(), file.body().length);
            Path expected = reference.resolve(f.get("path").asText());
            if (f.get("path").asText().equals("report.json")) {
                ObjectNode got = (ObjectNode) JSON.readTree(file.body());
                ObjectNode want = (ObjectNode) JSON.readTree(Files.readAllBytes(expected));
                assertTrue(got.get("wall_time_seconds").isNumber());
                assertEquals("replay-farm/run-report/2", got.get("schema").asText());
                assertEquals("equal", got.get("result").get("status").asText(), "saxpy equals its recorded native run");
                assertEquals(4000, got.get("comparison").get("ranges").get(1).get("compared").asInt());
                long compared = 0;
                for (JsonNode r : got.get("comparison").get("ranges")) {
                    compared += r.get("compared").asLong();
                }
                assertEquals(compared, last.figures().bytesCompared(), "the final progress carries the diff's counts");
                for (ObjectNode n : List.of(got, want)) {
                    n.remove(List.of("wall_time_seconds", "schema", "capture_file", "capture_path", "job", "selection",
                            "nondeterministic_slices", "device", "comparison", "result", "timings", "sampling", "farm"));
                }
                assertEquals(want, got, "report.json equals replay eval's in eval-report/1's fields but for the wall time");
                assertEquals(got.get("groups").asLong(), last.groupsDone());
                assertEquals(got.get("groups").asLong(), last.groupsTotal());
                assertEquals(got.get("faults").size(), last.faults());
                assertEquals(got.get("wave_instructions").asLong(), last.waveInstructions());
            } else if (Files.exists(expected)) {
                assertArrayEquals(Files.readAllBytes(expected), file.body(), f.get("path").asText());
            }
        }
        List<String> want = new ArrayList<>(List.of("report.json", "summary.txt", "junit.xml"));
        try (Stream<Path> s = Files.list(reference.resolve("host"))) {
            s.forEach(p -> want.add("host/" + p.getFileName()));
        }
        for (int n = 0; n < 2; n++) {
            want.add("device/guest-" + n + ".bin"); // the native run recorded x and y
        }
        want.sort(null);
        assertEquals(want, paths);

        // A finished job's stream is its final state, then the end.
        List<JobProgress> again = events(job);
        assertEquals(List.of(last), again);
    }

    @Test
    void a_truncated_capture_is_refused_naming_the_field() throws Exception {
        byte[] whole = Files.readAllBytes(saxpy);
        for (int keep : new int[] {0, 6, 40, whole.length - 100}) {
            HttpResponse<String> r = post(url, "/captures", Arrays.copyOf(whole, keep));
            assertEquals(400, r.statusCode(), r.body());
            JsonNode body = JSON.readTree(r.body());
            String field = body.get("field").asText();
            assertFalse(field.isEmpty());
            assertTrue(body.get("error").asText().startsWith("the capture is refused: " + field + ": "), r.body());
        }
        HttpResponse<String> r = post(url, "/captures", Arrays.copyOf(whole, whole.length - 100));
        assertTrue(error(r).contains("past the end of the file"), r.body());
        try (Stream<Path> uploads = Files.list(dir.resolve("uploads"))) {
            assertEquals(0, uploads.count(), "refused uploads leave no temporary file");
        }
    }

    @Test
    void an_upload_or_a_request_over_the_limit_is_a_413() throws Exception {
        byte[] capture = Files.readAllBytes(saxpy);
        HttpResponse<String> declared = post(smallUrl, "/captures", capture);
        assertEquals(413, declared.statusCode(), declared.body());
        assertTrue(error(declared).contains("at most 1000 bytes"), declared.body());
        // Chunked, so no Content-Length announces the size: the limit is met while streaming.
        HttpResponse<String> chunked = send(HttpRequest.newBuilder(URI.create(smallUrl + "/captures"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(capture))));
        assertEquals(413, chunked.statusCode(), chunked.body());
        HttpResponse<String> job = post(smallUrl, "/jobs", ("{\"capture\": \"" + "0".repeat(64) + "\", \"groups\": ["
                + "[1,0,0],".repeat(40) + "[1,0,0]]}").getBytes());
        assertEquals(413, job.statusCode(), job.body());
        assertTrue(error(job).contains("job request"), job.body());
    }

    @Test
    void an_exec_device_runs_only_a_program_the_coordinator_allows() throws Exception {
        String sha = upload(saxpy);
        // the device's outputs: the capture's recorded native run, the ranges it does not change as they start
        CaptureFile capture = CaptureFile.open(saxpy);
        var recorded = org.replayfarm.gpunode.device.DeviceChoice.parse("recorded").resolve(capture).backend().orElseThrow()
                .run(new org.replayfarm.gpunode.device.DeviceRequest(capture, sha),
                        org.replayfarm.gpunode.device.DeviceEvents.ignore());
        Path outputs = Files.createDirectories(dir.resolve("exec-outputs"));
        for (var r : capture.metadata().getRangesList()) {
            byte[] b = recorded.rangeBytes(r.getIndex());
            if (b == null) {
                b = new byte[(int) r.getSize()];
                capture.blob(r.getInitial()).get(b);
            }
            Files.write(outputs.resolve("guest-" + r.getIndex() + ".bin"), b);
        }
        String device = "exec:sh -c 'cp $0/* $1/; echo copied >&2' " + outputs + " {out}";
        String body = "{\"capture\": \"" + sha + "\", \"groups\": \"every\", \"device\": \"" + device + "\"}";

        HttpResponse<String> refused = postJob(body); // this coordinator allows no program
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(error(refused).startsWith("'device': exec:COMMAND runs a program on the coordinator's machine"),
                refused.body());
        HttpResponse<String> other = post(execUrl, "/jobs", body.replace("exec:sh", "exec:cat").getBytes());
        assertEquals(400, other.statusCode(), other.body());
        assertTrue(error(other).startsWith("'device': the program 'cat' (") && error(other).contains("allowed: ["),
                other.body());

        HttpResponse<String> started = post(execUrl, "/jobs", body.getBytes());
        assertEquals(201, started.statusCode(), started.body());
        String job = JSON.readTree(started.body()).get("job").asText();
        List<JobProgress> events = events(job);
        assertEquals("finished", events.get(events.size() - 1).state(), events.get(events.size() - 1).toString());
        JsonNode report = JSON.readTree(get("/jobs/" + job + "/results/report.json").body());
        assertEquals("equal", report.get("result").get("status").asText(), report.toString());
        assertEquals("exec", report.get("device").get("kind").asText());
        JsonNode exec = report.get("device").get("exec");
        assertEquals(device.substring("exec:".length()), exec.get("command").asText());
        assertEquals(0, exec.get("exit_status").asInt());
        assertEquals("copied", exec.get("stderr_tail").asText());
    }

    @Test
    void bad_requests_get_clear_4xx_answers() throws Exception {
        String sha = upload(saxpy);
        HttpResponse<String> notJson = postJob("{\"capture\": ");
        assertEquals(400, notJson.statusCode());
        assertTrue(error(notJson).startsWith("the body is not JSON"), notJson.body());
        // Jackson's "[Source: REDACTED ...]" is not for the client; where the JSON stopped is
        assertTrue(!error(notJson).contains("Source") && error(notJson).matches(".* at line 1, column \\d+"), notJson.body());
        // a folder of the coordinator's machine is not for a client to name (it read any folder the coordinator can)
        HttpResponse<String> folder = postJob("{\"capture\": \"" + sha + "\", \"groups\": \"every\", \"device\": \"dir:/etc\"}");
        assertEquals(400, folder.statusCode(), folder.body());
        assertTrue(error(folder).startsWith("'device': dir:PATH names a folder on the coordinator's machine"), folder.body());
        HttpResponse<String> open = postJob("{");
        assertEquals(400, open.statusCode());
        assertTrue(error(open).startsWith("the body is not JSON: Unexpected end-of-input") && !error(open).contains("Source"),
                open.body());
        HttpResponse<String> noGroups = postJob("{\"capture\": \"" + sha + "\"}");
        assertEquals(400, noGroups.statusCode());
        assertTrue(error(noGroups).contains("'groups' is missing"), noGroups.body());
        HttpResponse<String> badGroup = postJob("{\"capture\": \"" + sha + "\", \"groups\": [[1, -2]]}");
        assertEquals(400, badGroup.statusCode());
        assertTrue(error(badGroup).contains("'groups[0][1]'"), badGroup.body());
        HttpResponse<String> badSha = postJob("{\"capture\": \"abc\", \"groups\": \"every\"}");
        assertEquals(400, badSha.statusCode());
        assertTrue(error(badSha).contains("not a SHA-256"), badSha.body());

        String unknown = "ab".repeat(32);
        HttpResponse<String> unknownCapture = postJob("{\"capture\": \"" + unknown + "\", \"groups\": \"every\"}");
        assertEquals(400, unknownCapture.statusCode());
        assertTrue(error(unknownCapture).contains("no capture " + unknown + " is stored"), unknownCapture.body());
        assertEquals(404, send(HttpRequest.newBuilder(URI.create(url + "/captures/" + unknown))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())).statusCode());

        HttpResponse<String> outside = postJob("{\"capture\": \"" + sha + "\", \"groups\": [[0], [16, 0, 0]]}");
        assertEquals(400, outside.statusCode());
        assertTrue(error(outside).contains("group (16, 0, 0) is outside the dispatch of 16 x 1 x 1 groups"), outside.body());

        HttpResponse<String> repeated = postJob("{\"capture\": \"" + sha + "\", \"groups\": [[3], [1], [3, 0, 0]]}");
        assertEquals(400, repeated.statusCode());
        assertTrue(error(repeated).contains("'groups': group (3, 0, 0) 2 times: name each group once"), repeated.body());

        HttpResponse<String> trailing = postJob("{\"capture\": \"" + sha + "\", \"groups\": \"every\"} {\"x\": 1}");
        assertEquals(400, trailing.statusCode(), trailing.body());
        assertTrue(error(trailing).startsWith("the body is not JSON"), trailing.body());
        HttpResponse<String> twice = postJob("{\"capture\": \"" + sha + "\", \"groups\": [[1]], \"groups\": \"every\"}");
        assertEquals(400, twice.statusCode(), twice.body());
        assertTrue(error(twice).contains("Duplicate field 'groups'"), twice.body());
        HttpResponse<String> badBudget = postJob("{\"capture\": \"" + sha + "\", \"groups\": \"every\", \"budget\": 0}");
        assertEquals(400, badBudget.statusCode());
        assertTrue(error(badBudget).contains("'budget' must be a positive integer"), badBudget.body());
        HttpResponse<String> pastLimit = postJob("{\"capture\": \"" + sha + "\", \"groups\": [[3]], \"budget\": 2000000001}");
        assertEquals(400, pastLimit.statusCode(), pastLimit.body());
        assertEquals("budget", JSON.readTree(pastLimit.body()).path("field").asText(), pastLimit.body());
        assertTrue(error(pastLimit).contains("'budget' 2000000001 is past this coordinator's limit of 2000000000 "
                + "instructions per wave (replay.coordinator.max-budget)"), pastLimit.body());
        HttpResponse<String> atLimit = postJob("{\"capture\": \"" + sha + "\", \"groups\": [[3]], \"budget\": 2000000000}");
        assertEquals(201, atLimit.statusCode(), "a budget at the limit is taken: " + atLimit.body());
        assertEquals("finished", lastState(JSON.readTree(atLimit.body()).get("job").asText()));
        HttpResponse<String> badDeadline = postJob("{\"capture\": \"" + sha + "\", \"groups\": \"every\", "
                + "\"slice_deadline_seconds\": \"soon\"}");
        assertEquals(400, badDeadline.statusCode());
        assertTrue(error(badDeadline).contains("'slice_deadline_seconds' must be a number"), badDeadline.body());

        for (String path : List.of("/jobs/nope", "/jobs/nope/events", "/jobs/nope/results", "/jobs/nope/results/report.json")) {
            HttpResponse<String> r = get(path);
            assertEquals(404, r.statusCode(), path);
            assertTrue(error(r).contains("no job 'nope'"), r.body());
        }
    }

    @Test
    void result_paths_cannot_leave_the_jobs_directory() throws Exception {
        String sha = upload(saxpy);
        HttpResponse<String> started = postJob("{\"capture\": \"" + sha + "\", \"groups\": [[3]]}");
        assertEquals(201, started.statusCode(), started.body());
        String job = JSON.readTree(started.body()).get("job").asText();
        assertEquals("finished", lastState(job));
        Files.writeString(dir.resolve("work/secret.txt"), "secret");
        // A segment that decodes to a path with a separator in it is refused by the route.
        for (String p : List.of("..%2F..%2Fsecret.txt", "host%2F..%2F..%2F..%2Fsecret.txt", "host/..%2F..%2F..%2Fsecret.txt",
                "%2e%2e%5c%2e%2e%5csecret.txt")) {
            HttpResponse<String> r = get("/jobs/" + job + "/results/" + p);
            assertEquals(400, r.statusCode(), p + ": " + r.body());
            assertTrue(error(r).contains("not a path inside the job's results"), r.body());
        }
        // Dot segments, plain or escaped, are resolved by akka-http's URI parser before routing: they
        // never reach the results route with a '..' in them, and nothing outside is served.
        for (String p : List.of("../../secret.txt", "%2E%2E/%2E%2E/secret.txt", "host/%2e%2e/%2e%2e/%2e%2e/secret.txt")) {
            HttpResponse<String> r = get("/jobs/" + job + "/results/" + p);
            assertTrue(r.statusCode() >= 400 && r.statusCode() < 500, p + ": " + r.statusCode());
            assertFalse(r.body().equals("secret"), p);
        }
        HttpResponse<String> missing = get("/jobs/" + job + "/results/host/guest-99.bin");
        assertEquals(404, missing.statusCode());
        assertTrue(error(missing).contains("no result file 'host/guest-99.bin'"), missing.body());
        assertEquals(200, get("/jobs/" + job + "/results/report.json").statusCode());
    }

    private String lastState(String job) throws Exception {
        List<JobProgress> e = events(job);
        return e.get(e.size() - 1).state();
    }
}
