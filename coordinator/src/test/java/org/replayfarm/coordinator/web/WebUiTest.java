package org.replayfarm.coordinator.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import akka.http.javadsl.ServerBinding;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.job.LocalJobService;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.coordinator.http.CoordinatorHttp;

/**
 * The web UI's files over real loopback HTTP, on the API's port and under its access control: without a
 * token the page and its scripts are served; with one, a browser asking for a page gets the token form
 * (401), any other client the API's JSON 401; {@code POST /login} with the right token sets an HttpOnly,
 * SameSite=Strict cookie the page, its scripts and the API then accept; a wrong token sets nothing.
 */
@Tag("cluster")
class WebUiTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String url, String accept, String cookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofSeconds(30));
        if (accept != null) {
            b.header("Accept", accept);
        }
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> login(String url, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + "/login")).header("Content-Type",
                "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("token="
                + java.net.URLEncoder.encode(token, java.nio.charset.StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void the_page_is_served_on_the_api_port_and_wants_the_token_as_the_api_does() throws Exception {
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "web-ui-test");
        LocalJobService jobs = new LocalJobService(dir.resolve("coordinator"), 1);
        try {
            CaptureStore store = new CaptureStore(dir.resolve("coordinator/captures"));
            ServerBinding open = CoordinatorHttp.start(system, "127.0.0.1", 0, store,
                    List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir))).toCompletableFuture().get(20, TimeUnit.SECONDS);
            String free = CoordinatorHttp.url(open);
            HttpResponse<String> page = get(free + "/", "text/html", null);
            assertEquals(200, page.statusCode());
            assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
            assertTrue(page.body().contains("<script src=\"/ui/app.js\">"), page.body());
            HttpResponse<String> script = get(free + "/ui/app.js", null, null);
            assertEquals(200, script.statusCode());
            assertTrue(script.headers().firstValue("Content-Type").orElse("").contains("javascript"),
                    script.headers().map().toString());
            assertTrue(script.body().contains("function jobsPage()"));
            assertEquals(200, get(free + "/ui/app.css", null, null).statusCode());
            assertEquals(404, get(free + "/ui/nothing.js", null, null).statusCode());
            assertEquals(404, get(free + "/ui/../login.html", null, null).statusCode());

            String token = "a token with spaces & symbols";
            ServerBinding guarded = CoordinatorHttp.start(system, "127.0.0.1", 0, store,
                    List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir)), Optional.of(token))
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            String url = CoordinatorHttp.url(guarded);
            HttpResponse<String> form = get(url + "/", "text/html,application/xhtml+xml", null);
            assertEquals(401, form.statusCode());
            assertTrue(form.body().contains("<form method=\"post\" action=\"/login\">"), form.body());
            HttpResponse<String> api = get(url + "/jobs", "application/json", null);
            assertEquals(401, api.statusCode());
            assertTrue(api.body().contains("\"error\""), api.body());
            assertEquals(401, get(url + "/ui/app.js", null, null).statusCode());

            HttpResponse<String> wrong = login(url, "not it");
            assertEquals(401, wrong.statusCode());
            assertTrue(wrong.body().contains("That is not this coordinator's API token."), wrong.body());
            assertTrue(wrong.headers().firstValue("Set-Cookie").isEmpty());

            HttpResponse<String> right = login(url, token);
            assertEquals(303, right.statusCode(), right.body());
            assertEquals("/", right.headers().firstValue("Location").orElse(""));
            String setCookie = right.headers().firstValue("Set-Cookie").orElse("");
            assertTrue(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"), setCookie);
            String cookie = setCookie.substring(0, setCookie.indexOf(';'));
            assertEquals(200, get(url + "/", "text/html", cookie).statusCode());
            assertEquals(200, get(url + "/ui/app.js", null, cookie).statusCode());
            HttpResponse<String> list = get(url + "/jobs", null, cookie);
            assertEquals(200, list.statusCode(), list.body());
            assertTrue(list.body().contains("\"jobs\""), list.body());
            assertEquals(401, get(url + "/jobs", null, "replay_token=wrong").statusCode());
        } finally {
            jobs.close();
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
