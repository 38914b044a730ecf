package org.replayfarm.coordinator.failover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.coordinator.http.CoordinatorHttp;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.node.TestCaptures;

/**
 * Two coordinator-role nodes on loopback, each with its own embedded H2 journal (the set-up issue 19 says
 * must not pass in silence) and an API token. The younger stands by and forwards every request to the
 * active one, which the cluster names (the receptionist): the token is still checked first, a capture
 * upload larger than akka-http's default entity limit streams through, a job started through the standby
 * answers through it (its progress stream too); each node's {@code GET /status} says which is active and
 * warns, naming both nodes, that their H2 journals would lose every job on a failover. A standby that knows
 * no active coordinator, or cannot reach it, or is handed a request another standby forwarded, answers 503.
 */
@Tag("cluster")
class CoordinatorPairTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private static final String TOKEN = "pair-test-token";

    @Test
    void a_standby_forwards_to_the_active_coordinator_and_both_warn_about_their_h2_journals() throws Exception {
        Path tokenFile = Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Config config = ConfigFactory.parseString("""
                akka.coordinated-shutdown.run-by-actor-system-terminate = off
                akka.coordinated-shutdown.exit-jvm = off
                akka.loglevel = WARNING
                replay.api.token-file = "%s"
                """.formatted(tokenFile));
        Path capture = TestCaptures.spin(dir, 4, 10);
        try (FarmNode a = node(dir.resolve("a"), config, List.of());
             FarmNode b = node(dir.resolve("b"), config, List.of(a.seed()))) {
            Await.value("b hearing of the active coordinator and its journal",
                    () -> b.coordinators().activeUrl() + " " + b.coordinators().warnings() + " " + a.coordinators().warnings(),
                    seen -> b.coordinators().activeUrl().equals(Optional.of(a.httpUrl())) && b.coordinators().warnings().size() == 1
                            && a.coordinators().warnings().size() == 1);
            assertTrue(a.active() && !b.active(), "the older one is active");
            String urlB = b.httpUrl();

            // the token first, as on the active one: nothing is forwarded without it
            assertEquals(401, send(urlB, "GET", "/jobs", null, false).statusCode());
            HttpResponse<String> list = send(urlB, "GET", "/jobs", null, true);
            assertEquals(200, list.statusCode(), list.body());
            assertEquals(Optional.of(urlB), list.headers().firstValue("X-Replay-Forwarded-By"), "forwarded by b");

            // an upload over akka-http's default 8 MiB entity limit streams through to the active one (which
            // refuses it as a capture: 400 naming the field, not the standby's 413)
            byte[] junk = new byte[9 << 20];
            HttpResponse<String> big = send(urlB, "POST", "/captures", junk, true);
            assertEquals(400, big.statusCode(), big.body());
            assertTrue(json.readTree(big.body()).has("field"), big.body());
            HttpResponse<String> up = send(urlB, "POST", "/captures", Files.readAllBytes(capture), true);
            assertEquals(201, up.statusCode(), up.body());
            String sha = json.readTree(up.body()).path("sha256").asText();
            assertEquals(200, send(a.httpUrl(), "HEAD", "/captures/" + sha, null, true).statusCode(), "stored on the active one");

            // a job through the standby (no evaluator: it stays running), its status and progress stream through it
            HttpResponse<String> started = send(urlB, "POST", "/jobs", ("{\"capture\": \"" + sha + "\", \"groups\": \"every\"}")
                    .getBytes(), true);
            assertEquals(201, started.statusCode(), started.body());
            String job = json.readTree(started.body()).path("job").asText();
            assertEquals(send(a.httpUrl(), "GET", "/jobs/" + job, null, true).body(),
                    send(urlB, "GET", "/jobs/" + job, null, true).body());
            HttpResponse<Stream<String>> events = http.send(HttpRequest.newBuilder(URI.create(urlB + "/jobs/" + job + "/events"))
                    .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofLines());
            assertEquals(200, events.statusCode());
            try (Stream<String> lines = events.body()) {
                String data = lines.filter(l -> l.startsWith("data:")).findFirst().orElseThrow();
                assertEquals(job, json.readTree(data.substring(5)).path("job").asText(), data);
            }

            // each node's own status (not forwarded): who is active, and the warning naming both nodes
            JsonNode sa = json.readTree(send(a.httpUrl(), "GET", "/status", null, true).body());
            JsonNode sb = json.readTree(send(urlB, "GET", "/status", null, true).body());
            assertTrue(sa.path("active").asBoolean() && !sb.path("active").asBoolean(), sa + " " + sb);
            assertEquals(a.httpUrl(), sb.path("active_http").asText(), sb.toString());
            assertEquals(a.address(), sb.path("active_node").asText(), sb.toString());
            assertEquals("h2", sb.path("journal").asText());
            for (JsonNode s : List.of(sa, sb)) {
                String w = s.path("warnings").get(0).asText();
                assertTrue(w.contains(a.address()) && w.contains(b.address()) && w.contains("H2")
                        && w.contains("PostgreSQL") && w.contains("lost"), w);
            }
            assertEquals(401, send(urlB, "GET", "/status", null, false).statusCode(), "status wants the token too");

            // a request another standby forwarded is not forwarded again
            HttpResponse<String> bounced = http.send(HttpRequest.newBuilder(URI.create(urlB + "/jobs"))
                    .header("Authorization", "Bearer " + TOKEN).header("X-Replay-Forwarded-By", "http://elsewhere")
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertStandby(bounced);

            // a standby that knows no active coordinator, or cannot reach the one it knows: 503 as before
            CaptureStore store = new CaptureStore(dir.resolve("none"));
            int dead;
            try (ServerSocket s = new ServerSocket(0)) {
                dead = s.getLocalPort();
            }
            for (Optional<String> target : List.of(Optional.<String>empty(), Optional.of("http://127.0.0.1:" + dead))) {
                var binding = CoordinatorHttp.start(b.system(), "127.0.0.1", 0, store, List.of(), Optional.empty(), () -> false,
                        new CoordinatorHttp.Standby(() -> target, () -> "http://127.0.0.1:1"), List.of())
                        .toCompletableFuture().get(30, TimeUnit.SECONDS);
                try {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(CoordinatorHttp.url(binding)
                            + "/jobs")).build(), HttpResponse.BodyHandlers.ofString());
                    assertStandby(r);
                    assertTrue(r.body().contains(target.isEmpty() ? "no active coordinator is known" : "did not answer"),
                            r.body());
                } finally {
                    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static void assertStandby(HttpResponse<String> r) {
        assertEquals(503, r.statusCode(), r.body());
        assertEquals(Optional.of("true"), r.headers().firstValue("X-Replay-Standby"));
        assertEquals(Optional.of("1"), r.headers().firstValue("Retry-After"));
        assertFalse(r.body().isEmpty());
    }

    private FarmNode node(Path work, Config config, List<String> seeds) throws Exception {
        return FarmNode.start(FarmNode.Settings.of(Set.of("coordinator"), work).withSeeds(seeds).withConfig(config)
                .withRoutes(jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), work.resolve("uploads")))));
    }

    private HttpResponse<String> send(String url, String method, String path, byte[] body, boolean token) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (token) {
            r.header("Authorization", "Bearer " + TOKEN);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }
}
