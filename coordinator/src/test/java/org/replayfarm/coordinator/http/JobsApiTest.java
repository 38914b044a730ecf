package org.replayfarm.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.EvalGate;
import org.replayfarm.coordinator.node.FarmCluster;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.node.TestCaptures;

/**
 * The job list, the progress series and cancel, over real HTTP against a loopback cluster (a coordinator
 * and two evaluator nodes, real Artery and protobuf): {@code GET /jobs} lists newest first in pages;
 * {@code GET /jobs/<id>/progress} is the job's progress over time, ending at every group done;
 * {@code DELETE /jobs/<id>} on a job with slices in flight stops it: nothing is merged after (its groups
 * done stay as the cancel answered, once the evaluators have run what they held), it has no results, its
 * events end with {@code cancelled}, a second cancel is 409; and a coordinator restarted on the same
 * journal still knows it as cancelled and does not resume it.
 */
@Tag("cluster")
class JobsApiTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    private HttpResponse<String> send(String url, String method, String path, byte[] body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(java.time.Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(String url, String path) throws Exception {
        HttpResponse<String> r = send(url, "GET", path, null);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return json.readTree(r.body());
    }

    private String upload(String url, Path capture) throws Exception {
        HttpResponse<String> r = send(url, "POST", "/captures", Files.readAllBytes(capture));
        assertEquals(201, r.statusCode(), r.body());
        return json.readTree(r.body()).get("sha256").asText();
    }

    private String startJob(String url, String sha, String name) throws Exception {
        HttpResponse<String> r = send(url, "POST", "/jobs", ("{\"capture\": \"" + sha + "\", \"groups\": \"every\", "
                + "\"capture_name\": \"" + name + "\"}").getBytes());
        assertEquals(201, r.statusCode(), r.body());
        return json.readTree(r.body()).get("job").asText();
    }

    private JsonNode awaitEnd(String url, String id) throws Exception {
        return Await.value("job " + id + " to end", () -> get(url, "/jobs/" + id),
                p -> !p.get("state").asText().equals("running"));
    }

    @Test
    void jobs_are_listed_newest_first_with_their_progress_and_cancel_drops_what_was_in_flight() throws Exception {
        Path hist = TestCaptures.histogram(dir);
        Path spin = TestCaptures.spin(dir, 40, 100_000);
        Path farmDir = dir.resolve("farm");
        var routes = (java.util.function.Function<org.replayfarm.coordinator.job.JobService, List<akka.http.javadsl.server.Route>>)
                jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir.resolve("uploads")));
        String cancelled;
        long doneAtCancel;
        String first;
        String second;
        try (FarmCluster farm = new FarmCluster(farmDir, 2, EvalGate.config("jobs-api"), routes);
             EvalGate gate = EvalGate.named("jobs-api")) {
            String url = farm.coordinator.httpUrl();
            String histSha = upload(url, hist);
            first = startJob(url, histSha, "first.capture");
            assertEquals("finished", awaitEnd(url, first).get("state").asText());
            second = startJob(url, histSha, "second.capture");
            JsonNode end = awaitEnd(url, second);
            assertEquals("finished", end.get("state").asText());

            // the list: newest first, paged, with what each job was asked to do
            JsonNode page = get(url, "/jobs");
            assertEquals(2, page.get("total").asInt());
            assertEquals(second, page.get("jobs").get(0).get("job").asText());
            assertEquals(first, page.get("jobs").get(1).get("job").asText());
            assertEquals("second.capture", page.get("jobs").get(0).get("capture_name").asText());
            assertEquals("every group", page.get("jobs").get(0).get("selection").asText());
            assertEquals("finished", page.get("jobs").get(0).get("state").asText());
            assertEquals(32, page.get("jobs").get(0).get("groups_done").asInt());
            assertTrue(page.get("jobs").get(0).get("accepted_at_millis").asLong()
                    >= page.get("jobs").get(1).get("accepted_at_millis").asLong());
            // each evaluator's part: the two nodes' groups add up to the job's
            JsonNode nodes = page.get("jobs").get(0).get("nodes");
            assertEquals(2, nodes.size(), nodes.toString());
            assertEquals(32, nodes.get(0).get("groups").asLong() + nodes.get(1).get("groups").asLong(), nodes.toString());
            assertTrue(nodes.get(0).get("groups_per_second").asDouble() > 0, nodes.toString());
            JsonNode older = get(url, "/jobs?offset=1&limit=1");
            assertEquals(1, older.get("jobs").size());
            assertEquals(first, older.get("jobs").get(0).get("job").asText());
            assertEquals(0, get(url, "/jobs?offset=5").get("jobs").size());
            for (String bad : new String[] {"?limit=0", "?limit=501", "?offset=-1", "?limit=ten"}) {
                HttpResponse<String> r = send(url, "GET", "/jobs" + bad, null);
                assertEquals(400, r.statusCode(), bad + ": " + r.body());
                assertTrue(json.readTree(r.body()).get("error").asText().contains("limit"), r.body());
            }

            // the series the chart draws: groups done never fall, time never runs back, it ends at the total
            JsonNode series = get(url, "/jobs/" + second + "/progress");
            JsonNode points = series.get("points");
            assertTrue(points.size() >= 2, series.toString());
            for (int i = 1; i < points.size(); i++) {
                assertTrue(points.get(i).get("groups_done").asLong() >= points.get(i - 1).get("groups_done").asLong());
                assertTrue(points.get(i).get("seconds").asDouble() >= points.get(i - 1).get("seconds").asDouble());
            }
            assertEquals(0, points.get(0).get("groups_done").asLong());
            assertEquals(32, points.get(points.size() - 1).get("groups_done").asLong());
            assertEquals(404, send(url, "GET", "/jobs/nope/progress", null).statusCode());

            // cancel under load: groups on two evaluators, cancelled with slices in flight. The groups wait at the
            // evaluators' gate: at most 8 of the 40 go through, so the job runs, part done with slices held, when
            // it is cancelled, because the test holds it there
            String spinSha = upload(url, spin);
            gate.hold();
            cancelled = startJob(url, spinSha, "spin.capture");
            String id = cancelled;
            gate.releaseUntil(8, () -> get(url, "/jobs/" + id).get("groups_done").asLong() >= 2);
            JsonNode p = Await.value("job " + id + " with 2 groups done and slices in flight", () -> get(url, "/jobs/" + id),
                    j -> j.get("groups_done").asLong() >= 2 && j.get("slices_in_flight").asLong() >= 1);
            assertEquals("running", p.get("state").asText(), "the job must still run when it is cancelled: " + p);
            HttpResponse<String> c = send(url, "DELETE", "/jobs/" + cancelled, null);
            assertEquals(200, c.statusCode(), c.body());
            JsonNode after = json.readTree(c.body());
            assertEquals("cancelled", after.get("state").asText());
            doneAtCancel = after.get("groups_done").asLong();
            assertTrue(doneAtCancel >= 2 && doneAtCancel <= 8, after.toString());
            assertTrue(after.get("slices_in_flight").asLong() >= 1, "slices were in flight: " + after);
            gate.open();

            HttpResponse<String> again = send(url, "DELETE", "/jobs/" + cancelled, null);
            assertEquals(409, again.statusCode(), again.body());
            assertTrue(again.body().contains("cancelled already"), again.body());
            assertEquals(409, send(url, "DELETE", "/jobs/" + second, null).statusCode());
            assertEquals(404, send(url, "DELETE", "/jobs/nope", null).statusCode());

            // the evaluators run what they held; a job started after runs on the same nodes to its end
            String later = startJob(url, histSha, "after.capture");
            assertEquals("finished", awaitEnd(url, later).get("state").asText());

            // a job's own instruction budget reaches the evaluators: the spinning groups (100,000 iterations
            // each) stop at 5,000 instructions per wave with a fault that names the budget, where the default
            // budget let them run until the cancel above
            HttpResponse<String> b = send(url, "POST", "/jobs", ("{\"capture\": \"" + spinSha
                    + "\", \"groups\": [[0], [1], [2], [3]], \"budget\": 5000, \"capture_name\": \"budget.capture\"}").getBytes());
            assertEquals(201, b.statusCode(), b.body());
            String budgeted = json.readTree(b.body()).get("job").asText();
            JsonNode bEnd = awaitEnd(url, budgeted);
            assertEquals(4, bEnd.get("groups_done").asLong(), bEnd.toString());
            assertTrue(bEnd.get("faults").asLong() >= 4, "every group stopped by the budget: " + bEnd);
            String report = Files.readString(farmDir.resolve("coordinator/jobs/" + budgeted + "/report.json"));
            assertTrue(report.contains("instruction budget of 5000"), report);
            // the cancelled job's slices held at the gate ran (or were stopped) before the two jobs after it on the
            // same one-thread evaluators, and their answers came to the coordinator first (Artery keeps each pair of
            // nodes' order): by now they have arrived, and none counted
            JsonNode now = get(url, "/jobs/" + cancelled);
            assertEquals("cancelled", now.get("state").asText());
            assertEquals(doneAtCancel, now.get("groups_done").asLong(), "nothing is merged after the cancel");
            HttpResponse<String> results = send(url, "GET", "/jobs/" + cancelled + "/results", null);
            assertEquals(404, results.statusCode());
            assertTrue(results.body().contains("cancelled"), results.body());
            HttpResponse<String> events = send(url, "GET", "/jobs/" + cancelled + "/events", null);
            assertTrue(events.body().contains("\"state\":\"cancelled\""), events.body());
            assertFalse(Files.exists(farmDir.resolve("coordinator/jobs/" + cancelled + "/report.json")),
                    "a cancelled job writes no report");
            assertEquals(cancelled, get(url, "/jobs").get("jobs").get(2).get("job").asText());
        }

        // a coordinator restarted on the same journal, with no evaluator: a resumed job would be running
        try (FarmNode coordinator = FarmNode.start(FarmNode.Settings.of(Set.of("coordinator"), farmDir.resolve("coordinator"))
                .withSerializeMessages(true).withConfig(ConfigFactory.parseString("""
                        akka.coordinated-shutdown.exit-jvm = off
                        akka.loglevel = WARNING
                        """)).withRoutes(routes))) {
            String url = coordinator.httpUrl();
            JsonNode p = get(url, "/jobs/" + cancelled);
            assertEquals("cancelled", p.get("state").asText(), "a cancelled job is not resumed: " + p);
            assertEquals(doneAtCancel, p.get("groups_done").asLong());
            JsonNode page = get(url, "/jobs");
            assertEquals(5, page.get("total").asInt());
            assertEquals(first, page.get("jobs").get(4).get("job").asText(), "the order survives the restart");
            assertEquals("finished", get(url, "/jobs/" + second).get("state").asText());
        }
    }
}
