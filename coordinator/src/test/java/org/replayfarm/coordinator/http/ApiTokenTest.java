package org.replayfarm.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.FarmCluster;
import org.replayfarm.coordinator.node.TestCaptures;

/**
 * With an API token every HTTP route of the coordinator, capture downloads included, answers 401 without
 * {@code Authorization: Bearer TOKEN} or with a wrong one; with it a job runs, its evaluator fetching the
 * capture with the token.
 */
@Tag("cluster")
class ApiTokenTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(String url, String method, String path, String token, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(java.time.Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void every_route_wants_the_token_and_a_job_runs_with_it() throws Exception {
        Path capture = TestCaptures.histogram(dir);
        String sha = org.replayfarm.model.capture.CaptureFile.open(capture).identity();
        byte[] bytes = java.nio.file.Files.readAllBytes(capture);
        try (FarmCluster farm = new FarmCluster(dir.resolve("farm"), 1,
                ConfigFactory.parseString("replay.api.token = \"s3cret-token\""),
                jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults())))) {
            String url = farm.coordinator.httpUrl();
            byte[] job = ("{\"capture\": \"" + sha + "\", \"groups\": \"every\"}").getBytes();
            List<Object[]> routes = List.of(new Object[] {"GET", "/captures/" + sha, null},
                    new Object[] {"HEAD", "/captures/" + sha, null}, new Object[] {"POST", "/captures", bytes},
                    new Object[] {"POST", "/jobs", job}, new Object[] {"GET", "/jobs/x", null},
                    new Object[] {"GET", "/jobs/x/events", null}, new Object[] {"GET", "/jobs/x/results", null},
                    new Object[] {"GET", "/jobs/x/results/report.json", null}, new Object[] {"GET", "/nothing", null},
                    new Object[] {"GET", "/status", null}, new Object[] {"DELETE", "/jobs/x?purge=true", null},
                    new Object[] {"DELETE", "/jobs/x", null});
            for (Object[] r : routes) {
                for (String token : new String[] {null, "wrong", "s3cret-tokenX"}) {
                    HttpResponse<String> got = send(url, (String) r[0], (String) r[1], token, (byte[]) r[2]);
                    assertEquals(401, got.statusCode(), r[0] + " " + r[1] + " with token " + token + ": " + got.body());
                    assertTrue(got.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"), r[1] + "");
                }
            }
            assertEquals(false, farm.coordinator.jobs().hasCapture(sha), "nothing was stored without the token");

            String token = "s3cret-token";
            assertEquals(201, send(url, "POST", "/captures", token, bytes).statusCode());
            HttpResponse<String> started = send(url, "POST", "/jobs", token, job);
            assertEquals(201, started.statusCode(), started.body());
            String id = new ObjectMapper().readTree(started.body()).get("job").asText();
            JsonNode p = Await.value("job " + id + " to end",
                    () -> new ObjectMapper().readTree(send(url, "GET", "/jobs/" + id, token, null).body()),
                    j -> !j.get("state").asText().equals("running"));
            assertEquals("finished", p.get("state").asText(), "the evaluator fetched the capture with the token: " + p);
            assertEquals(200, send(url, "GET", "/captures/" + sha, token, null).statusCode());
        }
    }
}
