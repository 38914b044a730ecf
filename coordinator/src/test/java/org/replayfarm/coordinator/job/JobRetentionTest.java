package org.replayfarm.coordinator.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.Await;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.node.TestCaptures;

/**
 * Ended jobs do not pile up (issue 19, finding 11): past {@code max-finished-jobs} the oldest ended job goes,
 * past {@code job-retention} every older one; {@code DELETE /jobs/ID?purge=true} removes one (409 while it
 * runs, 404 unknown). A removed job is gone from the list, from the journal (a restarted coordinator answers
 * 404; its log's events are deleted, only the purge marker row is left), its folder is deleted, and a capture
 * no remaining job uses is deleted; a running job is never removed, also not by a restart past its age.
 * On the embedded H2 journal and on a real PostgreSQL server.
 */
@Tag("cluster")
class JobRetentionTest {
    @TempDir
    Path dir;

    private static final Config BASE = ConfigFactory.parseString("""
            akka.coordinated-shutdown.run-by-actor-system-terminate = off
            akka.coordinated-shutdown.exit-jvm = off
            akka.loglevel = WARNING
            replay.coordinator.retention-sweep = 0s
            """);

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void ended_jobs_expire_by_count_and_age_and_stay_gone_after_a_restart_on_h2() throws Exception {
        Path work = dir.resolve("coordinator");
        expires(ConfigFactory.empty(), work, () -> DriverManager.getConnection("jdbc:h2:file:"
                + work.toAbsolutePath().resolve("journal").resolve("jobs"), "", ""));
    }

    @Test
    void the_same_on_postgresql() throws Exception {
        try (PostgresServer pg = new PostgresServer()) {
            expires(ConfigFactory.parseString("replay.coordinator.journal { url = \"" + pg.url()
                    + "\", user = replay, password = \"\" }"), dir.resolve("coordinator"),
                    () -> DriverManager.getConnection(pg.url(), "replay", ""));
        }
    }

    interface Db {
        Connection open() throws Exception;
    }

    private FarmNode coordinator(Path work, Config config) throws Exception {
        return FarmNode.start(FarmNode.Settings.of(Set.of("coordinator"), work).withSerializeMessages(true)
                .withConfig(config.withFallback(BASE))
                .withRoutes(jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), work.resolve("uploads")))));
    }

    private void expires(Config journal, Path work, Db db) throws Exception {
        Path capX = TestCaptures.spin(Files.createDirectories(dir.resolve("x")), 2, 10);
        Path capY = TestCaptures.spin(Files.createDirectories(dir.resolve("y")), 2, 20);
        Path capZ = TestCaptures.spin(Files.createDirectories(dir.resolve("z")), 3, 30);
        Config config = journal.withFallback(ConfigFactory.parseString("""
                replay.coordinator.max-finished-jobs = 2
                replay.coordinator.job-retention = 1h
                """));
        String a;
        String b;
        String d;
        String r;
        String shaX;
        String shaY;
        String shaZ;
        FarmNode first = coordinator(work, config);
        try {
            ClusterJobService jobs = first.jobs();
            shaX = jobs.storeCapture(capX);
            shaY = jobs.storeCapture(capY);
            shaZ = jobs.storeCapture(capZ);
            try (FarmNode eval = FarmNode.start(FarmNode.Settings.of(Set.of("eval"), dir.resolve("eval"))
                    .withSeeds(List.of(first.seed())).withEvalThreads(1).withConfig(BASE))) {
                a = finish(jobs, shaX);
                b = finish(jobs, shaY);
                d = finish(jobs, shaY);
            }
            // no evaluator now: this job stays running (0 of 3 groups), whatever its age
            r = jobs.start(shaZ, GroupSelection.everyGroup());
            Path dirA = work.resolve("jobs").resolve(a);
            assertTrue(Files.isRegularFile(dirA.resolve("report.json")), "job a wrote its outputs");

            // by count: 3 ended jobs, 2 kept: the oldest (a) goes, with its folder; its capture X, which no one else
            // uses, stays while it was used within the hour (a client may be about to name it in a new job)
            assertEquals(List.of(a), jobs.sweep());
            assertTrue(jobs.progress(a).isEmpty(), "a is no longer known");
            assertFalse(Files.exists(dirA), "a's folder is deleted");
            assertTrue(jobs.hasCapture(shaX), "capture X, stored within the hour, is kept though no job uses it");
            assertTrue(jobs.hasCapture(shaY) && jobs.hasCapture(shaZ), "captures still used are kept");
            assertEquals(Set.of(b, d, r), Set.copyOf(jobs.jobs().stream().map(e -> e.getKey().jobId()).toList()));
            // X last used two hours ago (past the 1 h retention), still unused: the next sweep deletes it
            Files.setLastModifiedTime(work.resolve("captures").resolve(shaX + ".capture"),
                    java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - TimeUnit.HOURS.toMillis(2)));
            assertEquals(List.of(), jobs.sweep(), "nothing more is past the count");
            assertFalse(jobs.hasCapture(shaX), "capture X, unused and past the retention age, is deleted");
            assertTrue(jobs.hasCapture(shaY) && jobs.hasCapture(shaZ), "captures still used are kept");

            // DELETE /jobs/ID?purge=true: 409 (JSON) while it runs, 404 unknown, 200 for an ended job
            String url = first.httpUrl();
            HttpResponse<String> running = send(url, "DELETE", "/jobs/" + r + "?purge=true");
            assertEquals(409, running.statusCode(), running.body());
            assertTrue(json.readTree(running.body()).path("error").asText().contains("cancel it first"), running.body());
            assertEquals("running", json.readTree(running.body()).path("progress").path("state").asText());
            HttpResponse<String> typo = send(url, "DELETE", "/jobs/" + r + "?purge=yes");
            assertEquals(400, typo.statusCode(), "a purge asked for wrongly neither purges nor cancels: " + typo.body());
            assertTrue(json.readTree(typo.body()).path("error").asText().contains("'purge' must be true"), typo.body());
            assertEquals("running", jobs.progress(r).orElseThrow().state(), "the running job was not cancelled");
            HttpResponse<String> unknown = send(url, "DELETE", "/jobs/no-such-job?purge=true");
            assertEquals(404, unknown.statusCode(), unknown.body());
            assertTrue(json.readTree(unknown.body()).has("error"), unknown.body());
            assertEquals(404, send(url, "DELETE", "/jobs/" + a + "?purge=true").statusCode(), "a is gone");
            HttpResponse<String> purged = send(url, "DELETE", "/jobs/" + b + "?purge=true");
            assertEquals(200, purged.statusCode(), purged.body());
            assertEquals(b, json.readTree(purged.body()).path("purged").asText());
            assertEquals(404, send(url, "GET", "/jobs/" + b).statusCode());
            assertFalse(Files.exists(work.resolve("jobs").resolve(b)), "b's folder is deleted");
            assertTrue(jobs.hasCapture(shaY), "d still uses capture Y");
            JsonNode list = json.readTree(send(url, "GET", "/jobs").body());
            assertEquals(2, list.path("total").asInt(), list.toString());
        } finally {
            first.close();
        }

        // restarted past every ended job's age (1 ms): d goes at once; a and b stay gone; r runs on
        FarmNode second = coordinator(work, ConfigFactory.parseString("replay.coordinator.job-retention = 1ms")
                .withFallback(config));
        try {
            ClusterJobService jobs = second.jobs();
            Path capYFile = work.resolve("captures").resolve(shaY + ".capture");
            // the first sweep runs beside the API, just after the start
            Await.until("the first sweep removing job " + d + ", its folder and capture Y", () -> jobs.progress(d).isEmpty()
                    && !Files.exists(work.resolve("jobs").resolve(d)) && !Files.exists(capYFile));
            for (String gone : List.of(a, b, d)) {
                assertTrue(jobs.progress(gone).isEmpty(), gone + " is not brought back by the journal");
                assertEquals(404, send(second.httpUrl(), "GET", "/jobs/" + gone).statusCode());
            }
            assertFalse(Files.exists(work.resolve("jobs").resolve(d)), "d's folder is deleted");
            assertFalse(jobs.hasCapture(shaY), "capture Y, used by no remaining job, is deleted");
            assertEquals("running", jobs.progress(r).orElseThrow().state(), "a running job never expires");
            assertTrue(jobs.hasCapture(shaZ), "the running job's capture stays");
            TimeUnit.MILLISECONDS.sleep(5); // time must pass here: the running job is then past the age of 1 ms
            assertEquals(List.of(), jobs.sweep(), "the running job is past the age and still kept");
        } finally {
            second.close();
        }
        // the journal: each removed job's log holds no event but the purge marker (marked deleted)
        for (String gone : List.of(a, b, d)) {
            assertEquals(0, rows(db, gone, false), gone + "'s slice results are deleted from the journal");
            assertEquals(1, rows(db, gone, true), gone + "'s log keeps only its purge marker");
        }
    }

    /** A job on {@code sha} run to its end: its id. */
    private static String finish(ClusterJobService jobs, String sha) throws Exception {
        String id = jobs.start(sha, GroupSelection.everyGroup());
        CompletableFuture<JobProgress> end = new CompletableFuture<>();
        jobs.subscribe(id, p -> {
            if (p.ended()) {
                end.complete(p);
            }
        });
        assertEquals("finished", end.get(120, TimeUnit.SECONDS).state());
        TimeUnit.MILLISECONDS.sleep(5); // time must pass here: each ends at its own millisecond, so the order of ends is known
        return id;
    }

    /** Rows of job {@code id}'s log: not deleted ({@code deleted} false), or every row ({@code true}). */
    private static int rows(Db db, String id, boolean all) throws Exception {
        try (Connection c = db.open(); PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM \"event_journal\" "
                + "WHERE \"persistence_id\" = ?" + (all ? "" : " AND \"deleted\" = FALSE"))) {
            s.setString(1, "job-" + id);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private HttpResponse<String> send(String url, String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(java.time.Duration.ofSeconds(60))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
