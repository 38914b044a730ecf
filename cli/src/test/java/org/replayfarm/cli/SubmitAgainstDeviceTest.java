package org.replayfarm.cli;

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
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.cli.client.CoordinatorClient;

/**
 * Issue 7 through the coordinator: {@code replay submit --device ...} over real HTTP to a loopback cluster
 * node, then {@code watch} and {@code results}: saxpy against its recorded native run ends equal; a
 * corrupted recorded run ends different with the counts {@code replay run} reports for the same capture,
 * and the job's metrics (scraped over HTTP) and its final progress carry report.json's comparison counts
 * (issue 8). Device spellings the coordinator cannot take are refused with a 400 naming them.
 */
@Tag("cluster")
class SubmitAgainstDeviceTest {
    static final ObjectMapper JSON = new ObjectMapper();
    final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void submitted_jobs_compare_with_the_device_and_report_as_replay_run_does() throws Exception {
        Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        Path corrupted = RunAgainstDeviceTest.corrupted(dir);
        var config = ConfigFactory.parseString("replay.metrics { host = 127.0.0.1, tick = 100ms, job-retention = 120s }");
        try (FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("node"))
                .withEvalThreads(2).withConfig(config)
                .withRoutes(jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir))))) {
            String url = node.httpUrl();

            // equal: the native run is the capture's first, so auto takes it
            String clean = submit(url, saxpy.toString(), "--every-group");
            CliRun watch = CliRun.of("watch", clean, "--coordinator", url);
            assertEquals(0, watch.exitCode(), watch.out() + watch.err());
            assertTrue(watch.out().contains("0 of 0 texels and 0 of "), watch.out());
            Path cleanOut = dir.resolve("clean");
            CliRun results = CliRun.of("results", clean, "--coordinator", url, "--out", cleanOut.toString());
            assertEquals(0, results.exitCode(), results.out() + results.err());
            assertTrue(results.out().contains("result          equal (exit status 0)"), results.out());
            for (String f : List.of("report.json", "summary.txt", "junit.xml", "host/guest-1.bin", "device/guest-1.bin")) {
                assertTrue(Files.isRegularFile(cleanOut.resolve(f)), f + " fetched");
            }
            JsonNode report = JSON.readTree(cleanOut.resolve("report.json").toFile());
            assertEquals("replay-farm/run-report/2", report.get("schema").asText());
            assertEquals(clean, report.get("job").asText());
            assertEquals("saxpy.capture", report.get("capture_file").asText());
            assertEquals("recorded", report.get("device").get("kind").asText());
            assertEquals("none", report.get("sampling").get("mode").asText(), "no GPU node reported");
            assertEquals(4000, report.get("comparison").get("ranges").get(1).get("compared").asInt());

            // different: the same counts as replay run on the same capture and device
            String bad = submit(url, corrupted.toString(), "--every-group", "--device", "recorded:corrupted");
            CliRun watchBad = CliRun.of("watch", bad, "--coordinator", url);
            assertEquals(1, watchBad.exitCode(), watchBad.out() + watchBad.err());
            Path badOut = dir.resolve("bad-results");
            CliRun fetched = CliRun.of("results", bad, "--coordinator", url, "--out", badOut.toString());
            assertEquals(1, fetched.exitCode(), fetched.out() + fetched.err());
            assertTrue(fetched.out().contains("result          different (exit status 1)"), fetched.out());
            CliRun run = CliRun.of("run", corrupted.toString(), "--every-group", "--device", "recorded:corrupted",
                    "--evaluators", "2", "--out", dir.resolve("bad-run").toString());
            assertEquals(1, run.exitCode(), run.out() + run.err());
            JsonNode farm = JSON.readTree(badOut.resolve("report.json").toFile());
            JsonNode local = JSON.readTree(dir.resolve("bad-run/report.json").toFile());
            assertEquals(local.get("comparison"), farm.get("comparison"), "every count, region and group as replay run's");
            assertEquals(local.get("result"), farm.get("result"));
            JsonNode y = farm.get("comparison").get("ranges").get(1);
            assertEquals(List.of(4000, 5, 0), List.of(y.get("compared").asInt(), y.get("differing").asInt(),
                    y.get("device_only").asInt()));
            assertEquals(Files.readString(dir.resolve("bad-run/junit.xml")).replace("\"run\"", "\"" + bad + "\"")
                    .replaceAll("time=\"[^\"]*\"", ""), Files.readString(badOut.resolve("junit.xml"))
                    .replaceAll("time=\"[^\"]*\"", ""), "junit.xml as replay run's");

            // --view and --values travel over POST /jobs: the typed comparison equals replay run's with the same flags
            String typed = submit(url, corrupted.toString(), "--every-group", "--device", "recorded:corrupted", "--view",
                    "1=f32[40x25]", "--values", "2");
            assertEquals(1, CliRun.of("watch", typed, "--coordinator", url).exitCode());
            Path typedOut = dir.resolve("typed-results");
            assertEquals(1, CliRun.of("results", typed, "--coordinator", url, "--out", typedOut.toString()).exitCode());
            CliRun typedRun = CliRun.of("run", corrupted.toString(), "--every-group", "--device", "recorded:corrupted",
                    "--evaluators", "2", "--view", "1=f32[40x25]", "--values", "2", "--out", dir.resolve("typed-run").toString());
            assertEquals(1, typedRun.exitCode(), typedRun.out() + typedRun.err());
            JsonNode typedFarm = JSON.readTree(typedOut.resolve("report.json").toFile()).get("comparison");
            assertEquals(JSON.readTree(dir.resolve("typed-run/report.json").toFile()).get("comparison"), typedFarm,
                    "the typed comparison as replay run's");
            JsonNode typedY = typedFarm.get("ranges").get(1);
            assertEquals(List.of("f32", 40, 25), List.of(typedY.get("view").get("type").asText(),
                    typedY.get("view").get("rows").asInt(), typedY.get("view").get("cols").asInt()), typedY.toString());
            assertEquals(2, typedY.get("values").size(), "--values 2: the first two differing elements");
            // a view naming no range is refused when the job starts, not after its evaluation
            HttpResponse<String> noRange = post(url, "{\"capture\": \"" + CoordinatorClient.sha256(corrupted)
                    + "\", \"groups\": \"every\", \"views\": [\"Q=f32\"]}");
            assertEquals(400, noRange.statusCode(), noRange.body());
            assertTrue(noRange.body().contains("no range 'Q'"), noRange.body());
            HttpResponse<String> notText = post(url, "{\"capture\": \"" + CoordinatorClient.sha256(corrupted)
                    + "\", \"groups\": \"every\", \"views\": [3]}");
            assertEquals(400, notText.statusCode(), notText.body());
            assertTrue(notText.body().contains("'views[0]' must be a string RANGE=TYPE[ROWSxCOLS]"), notText.body());

            // the metrics and the final progress carry report.json's comparison counts
            long[] counts = comparisonCounts(farm);
            assertEquals(List.of(0L, 0L, 4000L, 6L), List.of(counts[0], counts[1], counts[2], counts[3]),
                    "x and y compared (x was never stored, so 0 of it), 5 bytes of y differ and 1 of x is device-only");
            String metrics = node.metricsUrl().orElseThrow();
            String scraped = http.send(HttpRequest.newBuilder(URI.create(metrics)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertEquals(counts[0], sample(scraped, "replay_job_texels_compared_total", bad));
            assertEquals(counts[1], sample(scraped, "replay_job_texels_differing_total", bad));
            assertEquals(counts[2], sample(scraped, "replay_job_guest_bytes_compared_total", bad));
            assertEquals(counts[3], sample(scraped, "replay_job_guest_bytes_differing_total", bad));
            // watch counts memory as the report does: a typed range's elements, an untyped range's bytes (issue 39)
            long elements = 0;
            long elementsDiffering = 0;
            for (JsonNode r : farm.get("comparison").get("ranges")) {
                elements += r.get("compared_elements").asLong();
                elementsDiffering += r.get("differing_elements").asLong() + r.get("device_only_elements").asLong();
            }
            assertTrue(elements < counts[2], "the typed range is counted in elements, fewer than its bytes");
            assertTrue(watchBad.out().contains(String.format("%d of %d memory elements differ", elementsDiffering,
                    elements)), watchBad.out());

            // refusals: a malformed spelling, a label the capture lacks, a negative ulp
            String sha = CoordinatorClient.sha256(saxpy);
            HttpResponse<String> cuda = post(url, "{\"capture\": \"" + sha + "\", \"groups\": \"every\", \"device\": \"cuda\"}");
            assertEquals(400, cuda.statusCode(), cuda.body());
            // cuda is a device now (issue 14): refused here because no GPU node can take the run, saying so
            assertTrue(cuda.body().contains("--device cuda: no GPU on this node and no GPU node in the cluster can take a "
                    + "device run"), cuda.body());
            HttpResponse<String> ulp = post(url, "{\"capture\": \"" + sha + "\", \"groups\": \"every\", \"ulp\": -1}");
            assertEquals(400, ulp.statusCode(), ulp.body());
            assertTrue(ulp.body().contains("'ulp' must be a non-negative 32-bit integer, not -1"), ulp.body());
            CliRun label = CliRun.of("submit", saxpy.toString(), "--every-group", "--device", "recorded:gpu",
                    "--coordinator", url);
            assertEquals(2, label.exitCode());
            assertTrue(label.err().contains("answered 400 starting a job: --device recorded:gpu: the capture has no "
                    + "recorded run labelled 'gpu'; it has ['native x86-64 (clang-19)']"), label.err());
            CliRun local400 = CliRun.of("submit", saxpy.toString(), "--every-group", "--device", "gpu", "--coordinator", url);
            assertEquals(2, local400.exitCode());
            assertTrue(local400.err().contains("expected " + org.replayfarm.gpunode.device.DeviceChoice.SPELLINGS + ""), local400.err());
        }
        assertTrue(!Files.readString(dir.resolve("bad-run/summary.txt")).isEmpty());
    }

    private static String submit(String url, String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "submit";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--coordinator";
        all[args.length + 2] = url;
        CliRun run = CliRun.of(all);
        assertEquals(0, run.exitCode(), run.out() + run.err());
        return run.out().trim();
    }

    private HttpResponse<String> post(String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + "/jobs")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Texels compared, texels differing, bytes compared, bytes differing (device-only included), from report.json. */
    static long[] comparisonCounts(JsonNode report) {
        long[] c = new long[4];
        for (JsonNode i : report.get("comparison").get("images")) {
            c[0] += i.get("compared").asLong();
            c[1] += i.get("differing").asLong() + i.get("device_only").asLong();
        }
        for (JsonNode r : report.get("comparison").get("ranges")) {
            c[2] += r.get("compared").asLong();
            c[3] += r.get("differing").asLong() + r.get("device_only").asLong();
        }
        return c;
    }

    /** The value of the one sample of {@code name} tagged with this job (Prometheus text format). */
    static long sample(String scraped, String name, String job) {
        for (String line : scraped.split("\n")) {
            if (line.startsWith(name + "{") && line.contains("job_id=\"" + job + "\"")) {
                return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no " + name + " of job " + job + " on /metrics:\n" + scraped);
    }
}
