package org.replayfarm.cli.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.replayfarm.cli.chaos.History.Kind;

/**
 * The driver's client of the farm's HTTP API, as any client would use it (no node internals), writing what it
 * asked and what each node answered into the {@link History}.
 */
public final class FarmClient {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final History history;

    public FarmClient(History history) {
        this.history = history;
    }

    /** Uploads {@code capture} to {@code url} ({@code POST /captures}); its sha256. */
    public String upload(String url, Path capture) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/captures"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofFile(capture)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw new IOException("POST /captures answered " + r.statusCode() + ": " + r.body());
        }
        return History.JSON.readTree(r.body()).path("sha256").asText();
    }

    /**
     * Submits a job on every group of {@code sha} to {@code url}; records SUBMIT then ACCEPTED or REFUSED (an
     * answer that never came is REFUSED with status 0). The job's id when accepted.
     */
    public Optional<String> submit(String url, String sha) throws InterruptedException {
        history.record(history.now(Kind.SUBMIT).node(url).capture(sha));
        String body = "{\"capture\": \"" + sha + "\", \"groups\": \"every\"}";
        HttpResponse<String> r;
        try {
            r = http.send(HttpRequest.newBuilder(URI.create(url + "/jobs")).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            history.record(history.now(Kind.REFUSED).node(url).capture(sha).status(0).detail("no answer: " + e));
            return Optional.empty();
        }
        if (r.statusCode() == 201) {
            String job = readTree(r.body()).path("job").asText();
            history.record(history.now(Kind.ACCEPTED).node(url).job(job).capture(sha));
            return Optional.of(job);
        }
        history.record(history.now(Kind.REFUSED).node(url).capture(sha).status(r.statusCode())
                .detail(readTree(r.body()).path("error").asText(r.body())));
        return Optional.empty();
    }

    /**
     * Asks {@code url} for {@code job}'s state once and records what it said (a finished job with the digest of
     * its outputs, downloaded now); empty when the node did not answer.
     */
    public Optional<History.Event> observe(String url, String job) throws InterruptedException {
        JsonNode p;
        try {
            HttpResponse<String> r = get(url + "/jobs/" + job);
            if (r.statusCode() != 200) {
                return Optional.empty(); // a standby between coordinators, a restarted one still reading its journal
            }
            p = readTree(r.body());
            String state = p.path("state").asText();
            long done = p.path("groups_done").asLong();
            long total = p.path("groups_total").asLong();
            History.Event e = switch (state) {
                case "finished" -> history.now(Kind.FINISHED).detail(outputs(url, job));
                case "failed" -> history.now(Kind.FAILED).detail(p.path("error").asText());
                case "cancelled" -> history.now(Kind.CANCELLED);
                default -> history.now(Kind.PROGRESS);
            };
            return Optional.of(e.node(url).job(job).progress(state, done, total));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The digest of a finished job's {@code host/} outputs as served by {@code GET /jobs/<id>/results}. */
    private String outputs(String url, String job) throws IOException, InterruptedException {
        HttpResponse<String> list = get(url + "/jobs/" + job + "/results");
        if (list.statusCode() != 200) {
            throw new IOException("GET /jobs/" + job + "/results answered " + list.statusCode() + ": " + list.body());
        }
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (JsonNode f : readTree(list.body()).path("files")) {
            String path = f.path("path").asText();
            if (!path.startsWith("host/")) {
                continue;
            }
            StringBuilder encoded = new StringBuilder();
            for (String segment : path.split("/")) {
                encoded.append('/').append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
            }
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url + "/jobs/" + job + "/results"
                    + encoded)).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) {
                throw new IOException("GET results/" + path + " answered " + r.statusCode());
            }
            files.put(path, r.body());
        }
        return files.isEmpty() ? "no host/ outputs" : Outputs.digest(files);
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode readTree(String body) {
        try {
            return History.JSON.readTree(body);
        } catch (IOException e) {
            return History.JSON.createObjectNode();
        }
    }
}
