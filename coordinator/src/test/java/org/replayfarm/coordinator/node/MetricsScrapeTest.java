package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.Await;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.coordinator.http.ProgressJson;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.coordinator.job.ClusterJobService;

/**
 * A job on a loopback cluster (a coordinator and two evaluators, every message serialized) watched the
 * way Prometheus and {@code replay watch} watch it: {@code /metrics} scraped over real HTTP while it runs
 * (Kamon's tick shortened to 100 ms) and its server-sent events read to the end. Both end at the totals
 * of its report.json.
 */
@Tag("cluster")
class MetricsScrapeTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{([^}]*)\\} (\\S+)$");
    static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    @TempDir
    Path dir;

    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    record Sample(String name, Map<String, String> labels, double value) {
    }

    List<Sample> scrape(String url) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url);
        List<Sample> out = new ArrayList<>();
        for (String line : r.body().split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (m.matches()) {
                Map<String, String> labels = new java.util.HashMap<>();
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
                out.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
            }
        }
        return out;
    }

    /** The sum of the samples of {@code name} whose labels include {@code labels} (NaN when there is none). */
    static double sum(List<Sample> samples, String name, Map<String, String> labels) {
        double total = 0;
        boolean any = false;
        for (Sample s : samples) {
            if (s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet())) {
                total += s.value();
                any = true;
            }
        }
        return any ? total : Double.NaN;
    }

    /** Scrapes {@code url} until {@code until} holds (Kamon publishes a snapshot each tick: there is no event). */
    List<Sample> scrapeUntil(String url, Predicate<List<Sample>> until) throws Exception {
        return Await.value("a scrape of " + url + " showing what was expected", () -> scrape(url), until);
    }

    /** The job's event stream read to its end by a real HTTP client. */
    List<JobProgress> events(String url) throws Exception {
        HttpResponse<Stream<String>> r = client.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofLines());
        assertEquals(200, r.statusCode());
        List<JobProgress> out = new ArrayList<>();
        StringBuilder data = new StringBuilder();
        try (Stream<String> lines = r.body()) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.startsWith("data:")) {
                    data.append(line.substring(5).trim());
                } else if (line.isEmpty() && data.length() > 0) {
                    out.add(ProgressJson.read(data.toString()));
                    data.setLength(0);
                }
            }
        }
        return out;
    }

    @Test
    void metrics_scraped_during_a_job_move_and_end_at_its_report_totals_as_its_event_stream_does() throws Exception {
        var config = ConfigFactory.parseString("""
                replay.metrics { host = 127.0.0.1, tick = 100ms, job-retention = 5s }
                replay.coordinator.tick = 100ms
                """);
        int groups = 24;
        Path spin = TestCaptures.spin(dir, groups, 20_000);
        // the groups wait at the evaluators' gate: a scrape sees groups done between 0 and the total because the
        // test holds the job there (a 20,000-trip job once ended in 0.21 s, two Kamon ticks, with nothing seen between)
        try (FarmCluster farm = new FarmCluster(dir.resolve("farm"), 2, config.withFallback(EvalGate.config("scrape")),
                jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir)));
             EvalGate gate = EvalGate.named("scrape")) {
            gate.hold();
            String coordinator = farm.coordinator.metricsUrl().orElseThrow();
            // every endpoint of a JVM serves the JVM's series: a node's are those with its node tag
            Map<String, String> evaluators = new java.util.LinkedHashMap<>();
            farm.evaluators.forEach(e -> evaluators.put(e.metricsUrl().orElseThrow(), e.seed()));
            ClusterJobService jobs = farm.coordinator.jobs();
            String sha = jobs.storeCapture(spin);
            String job = jobs.start(sha, GroupSelection.everyGroup());
            CompletableFuture<List<JobProgress>> stream = CompletableFuture.supplyAsync(() -> {
                try {
                    return events(farm.coordinator.httpUrl() + "/jobs/" + job + "/events");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Map<String, String> ofJob = Map.of("job_id", job, "role", "coordinator");
            TreeSet<Double> seen = new TreeSet<>();
            long started = System.nanoTime();
            int held = 6; // at most 6 of the 24 groups end while the gate holds the rest
            gate.releaseUntil(held, () -> jobs.progress(job).orElseThrow().groupsDone() > 0);
            List<Sample> part = scrapeUntil(coordinator, s -> sum(s, "replay_job_groups_done_total", ofJob) > 0);
            seen.add(sum(part, "replay_job_groups_done_total", ofJob));
            gate.open();
            while (!jobs.progress(job).orElseThrow().ended()) {
                double done = sum(scrape(coordinator), "replay_job_groups_done_total", ofJob);
                if (!Double.isNaN(done)) {
                    seen.add(done);
                }
                TimeUnit.MILLISECONDS.sleep(40); // sampling while the job runs (what it sees is printed, not asserted)
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("job of %d groups: %.2f s, groups done seen by the scrape: %s%n", groups, seconds, seen);
            JobProgress end = jobs.progress(job).orElseThrow();
            assertEquals("finished", end.state(), end.error());
            JsonNode report = JSON.readTree(jobs.results(job).orElseThrow().resolve("report.json").toFile());
            long total = report.get("groups").asLong();
            assertEquals(groups, total);
            assertTrue(seen.stream().anyMatch(v -> v > 0 && v < total),
                    "the scrape showed groups done moving during the " + seconds + " s job: " + seen);

            // the coordinator's job series end at the report's totals. Kamon serves the snapshot of its last
            // tick, which may fall between the last group counted and the job marked not running: wait for
            // a snapshot taken after the job ended
            List<Sample> last = scrapeUntil(coordinator, s -> sum(s, "replay_job_groups_done_total", ofJob) == total
                    && sum(s, "replay_job_running", ofJob) == 0.0);
            assertEquals(total, sum(last, "replay_job_groups_selected", ofJob));
            assertEquals(report.get("wave_instructions").asDouble(), sum(last, "replay_job_instructions_wave_total", ofJob));
            assertEquals(report.get("lane_instructions").asDouble(), sum(last, "replay_job_instructions_lane_total", ofJob));
            assertEquals(report.get("faults").size(), sum(last, "replay_job_faults_total", ofJob));
            assertEquals(report.get("store_conflicts").asDouble(), sum(last, "replay_job_store_conflicts_total", ofJob));
            assertEquals(0.0, sum(last, "replay_job_running", ofJob));
            assertEquals(0.0, sum(last, "replay_job_slices_in_flight", ofJob));

            // the evaluators' own series add up to at least the job's work (a slice sent twice counts twice there)
            double evalGroups = 0;
            double evalWave = 0;
            double misses = 0;
            double fetched = 0;
            for (Map.Entry<String, String> e : evaluators.entrySet()) {
                Map<String, String> node = Map.of("node", e.getValue(), "role", "eval");
                List<Sample> s = scrapeUntil(e.getKey(), x -> sum(x, "replay_eval_queue_depth", node) == 0.0);
                evalGroups += sum(s, "replay_eval_groups_total", node);
                evalWave += sum(s, "replay_eval_instructions_wave_total", node);
                misses += sum(s, "replay_capture_cache_misses_total", node);
                fetched += sum(s, "replay_capture_fetched_bytes_total", node);
                // a histogram that never observed anything is not in the scrape: an evaluator that got no
                // slice (the other may take the whole job) has no latency series
                double latencies = sum(s, "replay_eval_slice_latency_seconds_count", node);
                assertEquals(sum(s, "replay_eval_slices_total", node), Double.isNaN(latencies) ? 0.0 : latencies,
                        "every slice's latency is in the histogram");
            }
            assertTrue(evalGroups >= total, "evaluators counted " + evalGroups + " groups of " + total);
            assertTrue(evalWave >= report.get("wave_instructions").asDouble(), "evaluator instructions " + evalWave);
            assertTrue(misses >= 1 && misses <= 2, "each evaluator downloads the capture at most once: " + misses);
            assertEquals(misses * Files.size(spin), fetched, "the bytes fetched are the capture's, once per download");

            // the event stream, read over HTTP, ends with the same totals
            List<JobProgress> events = stream.get(60, TimeUnit.SECONDS);
            JobProgress final_ = events.get(events.size() - 1);
            assertEquals("finished", final_.state());
            assertEquals(total, final_.groupsDone());
            assertEquals(report.get("wave_instructions").asLong(), final_.waveInstructions());
            assertEquals(report.get("lane_instructions").asLong(), final_.figures().laneInstructions());
            assertEquals(report.get("faults").size(), final_.faults());
            assertEquals(report.get("store_conflicts").asLong(), final_.figures().storeConflicts());
            assertEquals(report.has("nondeterministic_slices") ? report.get("nondeterministic_slices").asLong() : 0,
                    final_.figures().nondeterministicSlices());
            assertEquals(sum(last, "replay_job_slices_resent_total", ofJob), final_.figures().slicesResent());
            for (int i = 1; i < events.size(); i++) {
                assertTrue(events.get(i).groupsDone() >= events.get(i - 1).groupsDone(), "progress never goes back");
            }

            // the retention passed: the job's series leave the scrape, the nodes' stay
            List<Sample> after = scrapeUntil(coordinator, s -> s.stream().noneMatch(x -> job.equals(x.labels().get("job"))));
            assertTrue(after.stream().noneMatch(x -> job.equals(x.labels().get("job"))));
        }
    }
}
