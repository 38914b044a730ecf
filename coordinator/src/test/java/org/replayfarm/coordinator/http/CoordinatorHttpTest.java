package org.replayfarm.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import akka.http.javadsl.ServerBinding;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.model.testing.Toolchain;

@Tag("cluster")
class CoordinatorHttpTest {
    @TempDir
    Path dir;

    @Test
    void a_stored_capture_is_served_by_its_sha256_and_an_unknown_hash_is_a_404() throws Exception {
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        Path example = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        String sha = store.store(example);
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "http-test");
        try {
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, store, List.of())
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<byte[]> ok = client.send(HttpRequest.newBuilder(URI.create(CoordinatorHttp.url(binding)
                    + "/captures/" + sha)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, ok.statusCode());
            assertArrayEquals(Files.readAllBytes(example), ok.body());
            String unknown = "0".repeat(64);
            HttpResponse<String> missing = client.send(HttpRequest.newBuilder(URI.create(CoordinatorHttp.url(binding)
                    + "/captures/" + unknown)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, missing.statusCode());
            assertTrue(missing.body().contains(unknown), missing.body());
            assertEquals("application/json", missing.headers().firstValue("Content-Type").orElse(""),
                    "a capture download's error is JSON as every other error of the API");
            assertTrue(new com.fasterxml.jackson.databind.ObjectMapper().readTree(missing.body()).get("error").asText()
                    .contains(unknown), missing.body());
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    /**
     * A client that trickles its headers (one line a second, so it is never idle) is cut off at the header
     * timeout; before, it held its connection until it stopped, and 1,030 of them made the API unreachable.
     * A well-behaved request on another connection is answered meanwhile.
     */
    @Test
    void a_client_that_trickles_its_headers_is_cut_off_at_the_header_timeout() throws Exception {
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "http-slow",
                com.typesafe.config.ConfigFactory.parseString("replay.coordinator.http.header-timeout = 2s")
                        .withFallback(com.typesafe.config.ConfigFactory.load()));
        try {
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, store, List.of())
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            try (java.net.Socket slow = new java.net.Socket("127.0.0.1", binding.localAddress().getPort())) {
                slow.setSoTimeout(1000);
                var out = slow.getOutputStream();
                out.write("GET /captures/x HTTP/1.1\r\nHost: a\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                out.flush();
                long start = System.nanoTime();
                boolean closed = false;
                java.io.ByteArrayOutputStream answered = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < 20 && !closed; i++) {
                    try {
                        out.write(("X-Slow-" + i + ": 1\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                        out.flush();
                        int b = slow.getInputStream().read();
                        if (b == -1) {
                            closed = true;
                        } else {
                            // the server answers (an error, the request never reached a route), then closes
                            answered.write(b);
                            slow.setSoTimeout(10_000);
                            for (int c = slow.getInputStream().read(); c != -1; c = slow.getInputStream().read()) {
                                answered.write(c);
                            }
                            closed = true;
                        }
                    } catch (java.net.SocketTimeoutException stillOpen) {
                        // nothing to read yet: the server still waits for the headers
                    } catch (java.io.IOException reset) {
                        closed = true;
                    }
                }
                String said = answered.toString(java.nio.charset.StandardCharsets.US_ASCII);
                assertTrue(closed, "the trickling connection was still open after 20 header lines, "
                        + (System.nanoTime() - start) / 1_000_000 + " ms; the server said: " + said);
                assertTrue(!said.contains(" 404 ") && !said.contains(" 200 "), "the request was not served: " + said);
            }
            HttpResponse<String> ok = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    CoordinatorHttp.url(binding) + "/captures/" + "0".repeat(64))).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, ok.statusCode(), "a prompt request is answered");
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    /** Opens {@code n} connections that each send half a request's headers and then nothing. */
    private static java.util.List<java.net.Socket> halfSent(int port, int n) throws Exception {
        java.util.List<java.net.Socket> held = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            java.net.Socket s = new java.net.Socket("127.0.0.1", port);
            s.getOutputStream().write("GET /captures/x HTTP/1.1\r\nHost: a\r\nX-Slow: 1\r\n"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            held.add(s);
        }
        return held;
    }

    /** Whether the server closed (or answered on) this connection: a read that does not time out. */
    private static boolean cutOff(java.net.Socket s) throws Exception {
        s.setSoTimeout(5);
        try {
            s.getInputStream().read();
            return true;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (java.io.IOException reset) {
            return true;
        }
    }

    /**
     * Finding 8: 1,030 connections that hold half-sent headers (before the fix they made the API and capture
     * downloads unreachable) do not keep a prompt request waiting: it is answered while all of them are still
     * held (the header and idle timeouts are long here, so none has been cut yet).
     */
    @Test
    void a_thousand_and_thirty_slow_connections_leave_the_api_reachable() throws Exception {
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "http-flood",
                com.typesafe.config.ConfigFactory.parseString("replay.coordinator.http.header-timeout = 300s\n"
                        + "akka.http.server.idle-timeout = 300s")
                        .withFallback(com.typesafe.config.ConfigFactory.load()));
        java.util.List<java.net.Socket> held = List.of();
        try {
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, store, List.of())
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            held = halfSent(binding.localAddress().getPort(), 1030);
            HttpResponse<String> ok = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    CoordinatorHttp.url(binding) + "/captures/" + "0".repeat(64))).timeout(java.time.Duration.ofSeconds(60))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, ok.statusCode(), "a prompt request is answered");
            int open = 0;
            for (java.net.Socket s : held) {
                open += cutOff(s) ? 0 : 1;
            }
            assertEquals(1030, open, "it was answered while every slow connection was held");
        } finally {
            for (java.net.Socket s : held) {
                s.close();
            }
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    /**
     * The connection limit holds: with max-connections 4 and four slow connections served, a fifth (prompt)
     * one is answered only after the header timeout cut a slow one off and freed its slot.
     */
    @Test
    void no_more_than_max_connections_are_served_at_once() throws Exception {
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "http-limit",
                com.typesafe.config.ConfigFactory.parseString("replay.coordinator.http.header-timeout = 3s\n"
                        + "akka.http.server.max-connections = 4").withFallback(com.typesafe.config.ConfigFactory.load()));
        java.util.List<java.net.Socket> held = List.of();
        try {
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, store, List.of())
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            held = halfSent(binding.localAddress().getPort(), 4);
            HttpResponse<String> ok = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    CoordinatorHttp.url(binding) + "/captures/" + "0".repeat(64))).timeout(java.time.Duration.ofSeconds(60))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, ok.statusCode(), "the fifth connection is served once a slot is free");
            int cut = 0;
            for (java.net.Socket s : held) {
                cut += cutOff(s) ? 1 : 0;
            }
            assertTrue(cut >= 1, "it was served only after a slow connection was cut off (" + cut + " of 4)");
        } finally {
            for (java.net.Socket s : held) {
                s.close();
            }
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    /**
     * A coordinator cut off from the majority answers a submission (and any other write) 503 with its reason and
     * Retry-After, and goes on serving reads; once it is not cut off, the write reaches the API.
     */
    @Test
    void a_coordinator_cut_off_from_the_majority_refuses_writes_with_503_saying_why_and_serves_reads() throws Exception {
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        java.util.concurrent.atomic.AtomicReference<java.util.Optional<String>> cutOff =
                new java.util.concurrent.atomic.AtomicReference<>(java.util.Optional.of("cut off from the majority: 1 of 3"));
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "http-cut-off");
        try {
            akka.http.javadsl.server.AllDirectives d = new akka.http.javadsl.server.AllDirectives() { };
            akka.http.javadsl.server.Route jobs = d.path("jobs", () -> d.post(() -> d.complete(
                    akka.http.javadsl.model.StatusCodes.CREATED, "{\"job\": \"j\"}")));
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, store,
                    List.of(CoordinatorHttp.refusingWritesWhenCutOff(cutOff::get), jobs)).toCompletableFuture().get(20, TimeUnit.SECONDS);
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest submit = HttpRequest.newBuilder(URI.create(CoordinatorHttp.url(binding) + "/jobs"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
            HttpResponse<String> refused = client.send(submit, HttpResponse.BodyHandlers.ofString());
            assertEquals(503, refused.statusCode(), refused.body());
            assertEquals("1", refused.headers().firstValue("Retry-After").orElse(""));
            assertEquals("true", refused.headers().firstValue("X-Replay-Standby").orElse(""),
                    "the clients ask another coordinator, and wait, as they do for a standby");
            var body = new com.fasterxml.jackson.databind.ObjectMapper().readTree(refused.body());
            assertEquals("cut off from the majority: 1 of 3", body.path("error").asText());
            assertTrue(body.path("cut_off").asBoolean(), refused.body());
            HttpResponse<String> read = client.send(HttpRequest.newBuilder(URI.create(CoordinatorHttp.url(binding)
                    + "/captures/" + "0".repeat(64))).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, read.statusCode(), "a read is served while cut off: " + read.body());
            cutOff.set(java.util.Optional.empty());
            HttpResponse<String> accepted = client.send(submit, HttpResponse.BodyHandlers.ofString());
            assertEquals(201, accepted.statusCode(), accepted.body());
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }

    /**
     * A service that stops being the active one while it answers (the split-brain resolver downed its node) makes the
     * API answer as a standby does, 503 with X-Replay-Standby, not a 500 with a stack trace in the log.
     */
    @Test
    void a_service_that_stops_being_active_mid_request_answers_as_a_standby_not_500() throws Exception {
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        org.replayfarm.coordinator.job.JobService gone = (org.replayfarm.coordinator.job.JobService)
                java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {org.replayfarm.coordinator.job.JobService.class}, (proxy, method, args) -> {
                            throw new org.replayfarm.coordinator.job.JobService.StandingBy("this coordinator stands by");
                        });
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "http-gone");
        try {
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, store,
                    List.of(ApiRoutes.routes(gone, ApiRoutes.Limits.defaults(), dir.resolve("uploads"))))
                    .toCompletableFuture().get(20, TimeUnit.SECONDS);
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> read = client.send(HttpRequest.newBuilder(URI.create(CoordinatorHttp.url(binding)
                    + "/jobs/j")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, read.statusCode(), read.body());
            assertEquals("true", read.headers().firstValue("X-Replay-Standby").orElse(""), read.body());
            HttpResponse<String> submit = client.send(HttpRequest.newBuilder(URI.create(CoordinatorHttp.url(binding)
                    + "/jobs")).POST(HttpRequest.BodyPublishers.ofString("{\"capture\": \"" + "a".repeat(64)
                    + "\", \"groups\": \"every\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, submit.statusCode(), submit.body());
            assertTrue(submit.body().contains("stands by"), submit.body());
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
