package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.coordinator.job.ClusterJobService;

/**
 * The queue a scaler reads, scraped over real HTTP from a loopback cluster (a coordinator and one evaluator
 * of two slots, every message serialized) while a job waits on it: slices queued and in flight and groups
 * remaining, per job and in total, and the KEDA ScaledObject's query of deploy/k8s evaluated over those
 * scrapes: 0 with nothing to do, above its threshold (more evaluators wanted) while slices wait, 0 again
 * once the job ended. The scrapes are labelled as the Prometheus Operator stores a ServiceMonitor's series
 * (the target's {@code namespace} and {@code pod} added to each sample), beside the same series from a second
 * farm in another namespace: the query counts this farm's queue only.
 */
@Tag("cluster")
class QueueMetricsScrapeTest {
    static final Path SCALED_OBJECT = Toolchain.root().resolve("deploy/k8s/components/keda/scaledobject.yaml");
    static final Path BASE = Toolchain.root().resolve("deploy/k8s/base/kustomization.yaml");
    /** A second farm scraped by the same Prometheus. */
    static final String OTHER_NAMESPACE = "replay-farm-staging";

    /** The samples of one scrape as Prometheus stores them for a target: with the target's namespace and pod. */
    static List<MetricsScrapeTest.Sample> asTarget(List<MetricsScrapeTest.Sample> scrape, String namespace, String pod) {
        List<MetricsScrapeTest.Sample> out = new ArrayList<>();
        for (MetricsScrapeTest.Sample x : scrape) {
            Map<String, String> labels = new LinkedHashMap<>(x.labels());
            labels.put("namespace", namespace);
            labels.put("pod", pod);
            out.add(new MetricsScrapeTest.Sample(x.name(), labels, x.value()));
        }
        return out;
    }

    @TempDir
    Path dir;

    @Test
    void the_keda_query_reads_the_queue_of_a_running_job_from_a_real_scrape() throws Exception {
        JsonNode trigger = new ObjectMapper(new YAMLFactory()).readTree(SCALED_OBJECT.toFile())
                .path("spec").path("triggers").get(0);
        assertEquals("prometheus", trigger.path("type").asText());
        String query = trigger.path("metadata").path("query").asText();
        double threshold = Double.parseDouble(trigger.path("metadata").path("threshold").asText());
        PromQuery keda = PromQuery.parse(query);
        String namespace = new ObjectMapper(new YAMLFactory()).readTree(BASE.toFile()).path("namespace").asText();
        assertEquals("replay-farm", namespace, "the overlays' namespace");

        var config = ConfigFactory.parseString("""
                replay.metrics { host = 127.0.0.1, tick = 100ms, job-retention = 1s }
                replay.coordinator { tick = 100ms, slice-target = 50ms }
                """);
        int groups = 32;
        Path spin = TestCaptures.spin(dir, groups, 10_000);
        MetricsScrapeTest scraper = new MetricsScrapeTest();
        // the groups wait at the evaluator's gate until a scrape has seen slices queued and in flight: the test
        // holds the job there, however fast the machine
        try (FarmCluster farm = new FarmCluster(dir.resolve("farm"), 1, config.withFallback(EvalGate.config("queue")));
             EvalGate gate = EvalGate.named("queue")) {
            String url = farm.coordinator.metricsUrl().orElseThrow();
            Map<String, String> coordinator = Map.of("role", "coordinator");
            // nothing runs: every total is there, at 0, so the query has a value (KEDA keeps the minimum)
            List<MetricsScrapeTest.Sample> idle = scraper.scrapeUntil(url,
                    s -> !Double.isNaN(MetricsScrapeTest.sum(s, "replay_queue_slices_queued", coordinator)));
            assertEquals(0.0, keda.evaluate(asTarget(idle, namespace, "replay-coordinator-0")), query);
            for (String total : List.of("replay_queue_slices_queued", "replay_queue_slices_in_flight",
                    "replay_queue_groups_remaining", "replay_queue_jobs_running")) {
                assertEquals(0.0, MetricsScrapeTest.sum(idle, total, coordinator), total);
            }

            ClusterJobService jobs = farm.coordinator.jobs();
            gate.hold();
            String job = jobs.start(jobs.storeCapture(spin), GroupSelection.everyGroup());
            Map<String, String> ofJob = Map.of("job_id", job, "role", "coordinator");
            scraper.scrapeUntil(url, s -> MetricsScrapeTest.sum(s, "replay_queue_slices_queued", coordinator) > 0
                    && MetricsScrapeTest.sum(s, "replay_queue_slices_in_flight", coordinator) > 0
                    && MetricsScrapeTest.sum(s, "replay_job_groups_remaining", ofJob) > 0);
            boolean released = false;
            double most = 0;
            double remainingBefore = Double.MAX_VALUE;
            boolean sawQueue = false;
            int scrapes = 0;
            while (!jobs.progress(job).orElseThrow().ended()) {
                List<MetricsScrapeTest.Sample> s = scraper.scrape(url);
                scrapes++;
                double queued = MetricsScrapeTest.sum(s, "replay_queue_slices_queued", coordinator);
                double inFlight = MetricsScrapeTest.sum(s, "replay_queue_slices_in_flight", coordinator);
                double remaining = MetricsScrapeTest.sum(s, "replay_job_groups_remaining", ofJob);
                if (!Double.isNaN(remaining)) {
                    assertTrue(remaining <= groups && remaining <= remainingBefore,
                            "groups remaining only fall: " + remaining + " after " + remainingBefore);
                    remainingBefore = remaining;
                }
                assertTrue(inFlight <= 2, "no more slices in flight than the evaluator's 2 slots: " + inFlight);
                List<MetricsScrapeTest.Sample> stored = new ArrayList<>(asTarget(s, namespace, "replay-coordinator-0"));
                stored.addAll(asTarget(s, OTHER_NAMESPACE, "replay-coordinator-0")); // the other farm's queue, as long
                double value = keda.evaluate(stored);
                assertEquals(queued + inFlight, value, "the query counts this namespace's queue, not the other farm's: " + query);
                most = Math.max(most, value);
                if (queued > 0 && inFlight > 0 && remaining > 0) {
                    sawQueue = true;
                    assertTrue(MetricsScrapeTest.sum(s, "replay_job_slices_queued", ofJob) > 0, "the job's own queue");
                    assertEquals(1.0, MetricsScrapeTest.sum(s, "replay_queue_jobs_running", coordinator));
                }
                if (!released) { // the first look saw the held job; from here it runs
                    gate.open();
                    released = true;
                }
                TimeUnit.MILLISECONDS.sleep(30); // sampling while the job runs: each look checks invariants, none a speed
            }
            JobProgress end = jobs.progress(job).orElseThrow();
            assertEquals("finished", end.state(), end.error());
            System.out.printf("KEDA query over %d scrapes of a %d-group job: at most %.0f (threshold %.0f: %d evaluators "
                    + "wanted)%n", scrapes, groups, most, threshold, (long) Math.ceil(most / threshold));
            assertTrue(sawQueue, "a scrape showed slices queued and in flight while groups remained");
            assertTrue(most > threshold, "while slices waited the query asked for more than one evaluator: " + most);

            // the job ended: its queue and the totals fall to 0 (the job's series stay until the retention passes)
            List<MetricsScrapeTest.Sample> after = scraper.scrapeUntil(url,
                    s -> MetricsScrapeTest.sum(s, "replay_queue_jobs_running", coordinator) == 0.0);
            assertEquals(0.0, keda.evaluate(asTarget(after, namespace, "replay-coordinator-0")), query);
            assertEquals(0.0, MetricsScrapeTest.sum(after, "replay_queue_groups_remaining", coordinator));
            double jobRemaining = MetricsScrapeTest.sum(after, "replay_job_groups_remaining", ofJob);
            assertTrue(Double.isNaN(jobRemaining) || jobRemaining == 0.0, "an ended job has nothing remaining");
        }
    }

    @Test
    void a_query_beyond_the_evaluated_promql_is_refused_not_half_read() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> PromQuery.parse("sum(rate(replay_queue_slices_queued[1m]))"));
        assertTrue(e.getMessage().contains("rate("), e.getMessage());
        assertEquals(List.of(new PromQuery.Term("a", Map.of("role", "coordinator")), new PromQuery.Term("b", Map.of())),
                PromQuery.parse("sum(a{role=\"coordinator\"}) + sum(b)").terms());
        AssertionError missing = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> PromQuery.parse("sum(replay_nonexistent)").evaluate(List.of()));
        assertTrue(missing.getMessage().contains("replay_nonexistent"));
    }
}
