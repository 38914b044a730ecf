package org.replayfarm.coordinator.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.metrics.MetricsEndpoint;
import org.replayfarm.proto.GuestHotspot;
import org.replayfarm.proto.GuestStall;
import org.replayfarm.model.testing.Await;

/**
 * A job's hottest guest instructions on {@code /metrics} (real HTTP, Kamon's Prometheus exporter): one series
 * per instruction under the job's {@code job_id}, its PC, listing text and commonest stall reason, the samples
 * as the value; never more than {@link HotGuestMetrics#TOP} per job; a later run of the job replaces them; the
 * retention time after, they are gone.
 */
@Tag("unit")
class HotGuestMetricsTest {
    private static final String NAME = FarmMetrics.Metric.JOB_HOT_GUEST_SAMPLES.prometheusName();
    private final HttpClient client = HttpClient.newHttpClient();

    /** Scrapes {@code url} until {@code until} holds (Kamon publishes a snapshot each tick: there is no event). */
    private String scrapeUntil(String url, Predicate<String> until) throws Exception {
        return Await.value("a scrape of " + url + " showing what was expected",
                () -> client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body(),
                until);
    }

    /** The job's hot-guest series lines. */
    private static List<String> series(String scrape, String job) {
        return scrape.lines().filter(l -> l.startsWith(NAME + "{") && l.contains("job_id=\"" + job + "\"")).toList();
    }

    private static GuestHotspot hot(long pc, String text, long samples, String stall) {
        return GuestHotspot.newBuilder().setGuestPc(pc).setText(text).setSamples(samples).setLine((int) pc / 4)
                .addStalls(GuestStall.newBuilder().setReason(stall).setSamples(samples))
                .addStalls(GuestStall.newBuilder().setReason("smsp__pcsamp_warps_issue_stalled_selected").setSamples(1))
                .build();
    }

    @Test
    void hot_guest_instructions_are_scraped_per_job_at_most_top_each_and_go_after_retention() throws Exception {
        assertEquals("replay_job_device_hot_guest_samples", NAME);
        var settings = MetricsEndpoint.Settings.from(ConfigFactory.parseString(
                "replay.metrics { port = 0, host = 127.0.0.1, tick = 100ms }").withFallback(ConfigFactory.load()));
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(settings, "127.0.0.1");
             // a retention far above what a look at the scrape takes on a loaded machine: the series must be seen before
             // they go, and the test then waits (Await) for them to go
             HotGuestMetrics metrics = new HotGuestMetrics(FarmMetrics.forNode("127.0.0.1:7", true), Duration.ofSeconds(10))) {
            List<GuestHotspot> many = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                many.add(hot(0x100 + 4L * i, "v_fma_f32 v" + i + ", v1, v2, v3", 1000 - i, "smsp__pcsamp_warps_issue_stalled_wait"));
            }
            metrics.record("job-a", many);
            metrics.record("job-b", List.of(hot(0x1c, "global_load_dword v1, v[2:3], off", 42,
                    "smsp__pcsamp_warps_issue_stalled_long_scoreboard")));
            String s = scrapeUntil(endpoint.url(), x -> series(x, "job-a").size() == HotGuestMetrics.TOP
                    && series(x, "job-b").size() == 1);
            String first = series(s, "job-a").stream().filter(l -> l.contains("guest_pc=\"0x000000000100\"")).findFirst()
                    .orElseThrow(() -> new AssertionError(s));
            assertTrue(first.contains("instruction=\"v_fma_f32 v0, v1, v2, v3\"") && first.contains("role=\"coordinator\"")
                    && first.contains("stall=\"smsp__pcsamp_warps_issue_stalled_wait\"") && first.endsWith(" 1000.0"), first);
            assertTrue(series(s, "job-a").stream().noneMatch(l -> l.contains("guest_pc=\"0x000000000128\"")),
                    "the eleventh hottest is no series: at most " + HotGuestMetrics.TOP + " per job");
            String b = series(s, "job-b").get(0);
            assertTrue(b.contains("guest_pc=\"0x00000000001c\"") && b.endsWith(" 42.0"), b);

            // the job's next device run replaces its series
            metrics.record("job-a", List.of(hot(0x200, "s_waitcnt vmcnt(0)", 7, "smsp__pcsamp_warps_issue_stalled_wait")));
            String again = scrapeUntil(endpoint.url(), x -> series(x, "job-a").size() == 1);
            assertTrue(series(again, "job-a").get(0).contains("guest_pc=\"0x000000000200\""), again);
            assertEquals(1, metrics.series("job-a"));

            // the retention time after, the series are gone
            String later = scrapeUntil(endpoint.url(), x -> series(x, "job-a").isEmpty() && series(x, "job-b").isEmpty());
            assertTrue(later.lines().noneMatch(l -> l.startsWith(NAME + "{") && l.contains("job-")), later);
            assertEquals(0, metrics.series("job-a"));
        }
    }
}
