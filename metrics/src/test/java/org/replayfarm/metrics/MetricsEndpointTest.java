package org.replayfarm.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.Await;

/** The endpoint over real HTTP: Kamon's own exporter spells the names FarmMetrics says, and removed series go. */
@Tag("unit")
class MetricsEndpointTest {
    static final HttpClient CLIENT = HttpClient.newHttpClient();

    static MetricsEndpoint.Settings settings(int port, boolean failIfTaken) {
        return MetricsEndpoint.Settings.from(ConfigFactory.parseString("replay.metrics { port = " + port
                + ", host = 127.0.0.1, tick = 100ms, on-port-taken = " + (failIfTaken ? "fail" : "warn") + " }")
                .withFallback(ConfigFactory.load()));
    }

    static String scrape(MetricsEndpoint e) throws Exception {
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(e.url())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        return r.body();
    }

    /** Scrapes until {@code until} holds (a tick must pass before a change shows). */
    static String scrapeUntil(MetricsEndpoint e, Predicate<String> until) throws Exception {
        // Kamon publishes a snapshot each tick: there is no event to wait for
        return Await.value("a scrape showing what was expected", () -> scrape(e), until);
    }

    /** The value of the series with exactly this name and these labels (in Kamon's label order-free match). */
    static double value(String scrape, String name, Map<String, String> labels) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{") && labels.entrySet().stream()
                    .allMatch(l -> line.contains(l.getKey() + "=\"" + l.getValue() + "\""))) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }

    @Test
    void every_metric_appears_under_the_prometheus_name_farm_metrics_gives_it_and_a_removed_job_goes() throws Exception {
        try (MetricsEndpoint e = MetricsEndpoint.start(settings(0, true), "127.0.0.1")) {
            FarmMetrics m = FarmMetrics.forNode("127.0.0.1:1", true);
            FarmMetrics.JobSeries job = m.job("j-1");
            for (FarmMetrics.Metric metric : FarmMetrics.Metric.values()) {
                if (metric.tags().contains(FarmMetrics.JOB)) {
                    if (metric.kind() == FarmMetrics.Kind.COUNTER) {
                        job.add(metric, 3);
                    } else {
                        job.set(metric, 2.5);
                    }
                }
            }
            m.queue().set(5, 2, 40, 1);
            FarmMetrics.EvalSeries eval = m.eval();
            eval.slice(2_000_000, 4, 100, 3200, 1);
            eval.cacheMiss(4096);
            eval.cacheHit();
            eval.queueDepth(3);
            FarmMetrics.GpuSeries gpu = m.gpu();
            gpu.execution("unknown");
            gpu.burst();
            gpu.duty(0.25);
            String s = scrapeUntil(e, t -> t.contains("replay_gpu_sampling_duty{"));
            for (FarmMetrics.Metric metric : FarmMetrics.Metric.values()) {
                for (String name : metric.prometheusSeriesNames()) {
                    assertTrue(s.contains("\n" + name + "{"), metric + " appears as " + name + ":\n" + s);
                }
            }
            Map<String, String> jobLabels = Map.of("job_id", "j-1", "node", "127.0.0.1:1", "role", "coordinator");
            assertEquals(3.0, value(s, "replay_job_groups_done_total", jobLabels));
            assertEquals(4096.0, value(s, "replay_capture_fetched_bytes_total", Map.of("role", "eval")));
            assertEquals(1.0, value(s, "replay_gpu_executions_total", Map.of("serialized", "unknown")));
            assertEquals(0.0, value(s, "replay_gpu_executions_total", Map.of("serialized", "true")),
                    "every serialized value is there from the start");

            job.add(FarmMetrics.Metric.JOB_GROUPS_DONE, 4);
            s = scrapeUntil(e, t -> value(t, "replay_job_groups_done_total", jobLabels) == 7.0);
            assertEquals(7.0, value(s, "replay_job_groups_done_total", jobLabels), "a counter adds up across ticks");

            job.remove();
            s = scrapeUntil(e, t -> !t.contains("job_id=\"j-1\""));
            assertTrue(s.contains("replay_eval_groups_total{"), "the node's series stay");
            assertEquals(4.0, value(s, "replay_eval_groups_total", Map.of("node", "127.0.0.1:1")));
            eval.remove();
            gpu.remove();
        }
    }

    @Test
    void two_endpoints_in_one_jvm_take_their_own_ports_and_a_taken_port_fails_or_warns_as_configured() throws Exception {
        try (MetricsEndpoint a = MetricsEndpoint.start(settings(0, true), "127.0.0.1");
             MetricsEndpoint b = MetricsEndpoint.start(settings(0, true), "127.0.0.1")) {
            assertNotEquals(a.port(), b.port());
            MetricsEndpoint c = MetricsEndpoint.start(settings(0, true), "127.0.0.1");
            c.close();
            c.close(); // twice: counted once, so Kamon keeps running for a and b
            scrapeUntil(a, t -> t.contains("replay_") || t.contains("no metrics yet"));
            IOException taken = assertThrows(IOException.class, () -> MetricsEndpoint.start(settings(a.port(), true), "x"));
            assertTrue(taken.getMessage().contains("cannot listen on 127.0.0.1:" + a.port()), taken.getMessage());
            assertNull(MetricsEndpoint.start(settings(a.port(), false), "x"), "warn: the node goes on without it");
            FarmMetrics.forNode("127.0.0.1:2", true).job("j-2").add(FarmMetrics.Metric.JOB_FAULTS, 1);
            String fromA = scrapeUntil(a, t -> t.contains("job_id=\"j-2\""));
            String fromB = scrapeUntil(b, t -> t.contains("job_id=\"j-2\""));
            assertFalse(fromA.isEmpty() || fromB.isEmpty());
            FarmMetrics.forNode("127.0.0.1:2", true).job("j-2").remove();
        }
        assertEquals(Duration.ofSeconds(60), MetricsEndpoint.Settings.from(ConfigFactory.load()).jobRetention());
        assertNull(MetricsEndpoint.start(MetricsEndpoint.Settings.from(ConfigFactory.parseString(
                "replay.metrics.enabled = off").withFallback(ConfigFactory.load())), "x"), "off: no endpoint");
    }
}
