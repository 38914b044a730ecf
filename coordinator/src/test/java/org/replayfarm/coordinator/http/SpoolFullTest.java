package org.replayfarm.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import akka.actor.typed.ActorSystem;
import akka.actor.typed.javadsl.Behaviors;
import akka.http.javadsl.ServerBinding;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.job.LocalJobService;

/** A full upload spool is the server's trouble: 507 Insufficient Storage with a JSON error naming the cause, not 400. */
@Tag("cluster")
class SpoolFullTest {
    @TempDir
    Path dir;

    @Test
    void the_kernel_s_no_space_error_maps_to_507_and_other_failures_do_not() throws Exception {
        // a real ENOSPC: /dev/full refuses every write with it
        IOException enospc = assertThrows(IOException.class, () -> {
            try (FileOutputStream full = new FileOutputStream("/dev/full")) {
                full.write(new byte[4096]);
                full.getFD().sync();
            }
        });
        var r = ApiRoutes.outOfSpace(new CompletionException(new IOException("write failed", enospc)), dir);
        assertTrue(r.isPresent(), enospc.toString());
        assertEquals(507, r.get().status().intValue());
        assertEquals(Optional.empty(), ApiRoutes.outOfSpace(new CompletionException(new IOException("Connection reset")), dir));
    }

    @Test
    void an_upload_into_a_full_spool_answers_507_naming_the_cause() throws Exception {
        Path spool = Files.createDirectories(dir.resolve("spool"));
        // a 256 KiB tmpfs as the spool (root may mount one; elsewhere the mapping test above stands alone)
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", spool.toString())
                .redirectErrorStream(true).start();
        assumeTrue(mount.waitFor(20, TimeUnit.SECONDS) && mount.exitValue() == 0, "cannot mount a tmpfs here");
        ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "spool-full-test");
        try (LocalJobService jobs = new LocalJobService(dir.resolve("work"), 1)) {
            ServerBinding binding = CoordinatorHttp.start(system, "127.0.0.1", 0, new CaptureStore(dir.resolve("work/captures")),
                    List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), spool))).toCompletableFuture().get(20, TimeUnit.SECONDS);
            byte[] body = new byte[1 << 20];
            new Random(11).nextBytes(body);
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(CoordinatorHttp.url(binding) + "/captures")).timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(507, r.statusCode(), r.body());
            JsonNode json = new ObjectMapper().readTree(r.body());
            assertEquals("insufficient storage", json.path("cause").asText(), r.body());
            assertTrue(json.path("error").asText().contains("No space left on device"), r.body());
            assertEquals(spool.toString(), json.path("spool").asText());
            try (var left = Files.list(spool)) {
                assertEquals(0, left.count(), "the partial upload is deleted");
            }
        } finally {
            system.terminate();
            system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
            new ProcessBuilder("umount", spool.toString()).inheritIO().start().waitFor(20, TimeUnit.SECONDS);
        }
    }
}
