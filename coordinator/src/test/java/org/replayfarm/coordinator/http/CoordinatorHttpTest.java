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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.jobs.CaptureStore;
import org.replayfarm.model.testing.Toolchain;

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
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
    }
}
