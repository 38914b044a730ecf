package org.replayfarm.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.replayfarm.coordinator.http.JobRequest;
import org.replayfarm.coordinator.http.ProgressJson;
import org.replayfarm.coordinator.job.JobProgress;

/**
 * A client of the coordinator's job API ({@code ApiRoutes}) on {@link HttpClient}. Every failure is an
 * {@link IOException} whose message says what the coordinator answered, in one line.
 */
public final class CoordinatorClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(2);
    /**
     * How long a request waits while every coordinator stands by (a failover, or a coordinator whose cluster
     * has not yet made it the active one), asking again after each answer's {@code Retry-After}.
     */
    public static final Duration STANDBY_WAIT = Duration.ofSeconds(60);
    private static final Duration UPLOAD_TIMEOUT = Duration.ofMinutes(30);

    /** One output file of a finished job, as the coordinator lists it. */
    public record ResultFile(String path, long bytes) {
    }

    /** Every coordinator's base URL (one is active; the others stand by and answer 503). */
    private final List<String> bases;
    /** The one that answered last. */
    private volatile int current;
    private volatile String base;
    private final HttpClient http;
    private final java.util.Optional<String> token;

    /**
     * {@code url}: the coordinator's base URL, or several separated by commas: the coordinators of a cluster
     * where one is active and the others stand by (a request goes to the one that answered last; one that
     * refuses the connection, or stands by, passes it to the next).
     */
    public CoordinatorClient(String url) {
        List<String> all = new ArrayList<>();
        for (String one : url.split(",")) {
            String u = one.strip();
            if (u.isEmpty()) {
                continue;
            }
            URI uri;
            try {
                uri = new URI(u);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("--coordinator '" + u + "' is not a URL: " + e.getMessage());
            }
            if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                    || uri.getHost() == null) {
                throw new IllegalArgumentException("--coordinator '" + u + "' is not an http:// or https:// URL with a host");
            }
            all.add(u.endsWith("/") ? u.substring(0, u.length() - 1) : u);
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException("--coordinator '" + url + "' names no URL");
        }
        this.bases = List.copyOf(all);
        this.base = bases.get(0);
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try {
            this.token = org.replayfarm.evalnode.cluster.ApiToken.fromEnvironment();
        } catch (IOException e) {
            throw new IllegalArgumentException("REPLAY_API_TOKEN_FILE cannot be read: " + e.getMessage());
        }
    }

    public String url() {
        return base;
    }

    /** The SHA-256 of a file, in hex: the name a coordinator stores a capture under. */
    public static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 20];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    public boolean hasCapture(String sha256) throws IOException {
        HttpResponse<String> r = send(request("/captures/" + sha256).method("HEAD", HttpRequest.BodyPublishers.noBody()),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
            return true;
        }
        if (r.statusCode() == 404) {
            return false;
        }
        throw refused("asking for capture " + sha256, r.statusCode(), r.body());
    }

    /** Uploads a capture; returns the SHA-256 the coordinator stored it under. */
    public String upload(Path capture) throws IOException {
        HttpResponse<String> r = send(request("/captures").timeout(UPLOAD_TIMEOUT)
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofFile(capture)), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw refused("uploading " + capture, r.statusCode(), r.body());
        }
        return JSON.readTree(r.body()).path("sha256").asText();
    }

    /** Starts a job; returns its id. */
    public String start(JobRequest job) throws IOException {
        HttpResponse<String> r = send(request("/jobs").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(job.toJson().toString())), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw refused("starting a job", r.statusCode(), r.body());
        }
        return JSON.readTree(r.body()).path("job").asText();
    }

    public JobProgress progress(String job) throws IOException {
        HttpResponse<String> r = send(request("/jobs/" + job), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw refused("asking for job " + job, r.statusCode(), r.body());
        }
        return ProgressJson.read(r.body());
    }

    /**
     * How {@link #watch} reconnects when the stream drops: it waits {@code first}, doubling up to {@code max},
     * and gives up once {@code giveUpAfter} passed without a stream (zero: it never reconnects).
     */
    public record Reconnect(Duration first, Duration max, Duration giveUpAfter) {
        public static Reconnect after(Duration giveUpAfter) {
            return new Reconnect(Duration.ofMillis(250), Duration.ofSeconds(5), giveUpAfter);
        }
    }

    /** An answer other than 200 to the events request. */
    private static final class Refused extends IOException {
        final int status;

        public Refused(IOException why, int status) {
            super(why.getMessage());
            this.status = status;
        }
    }

    /**
     * Follows the job's progress events until the job ends, calling {@code listener} with each; returns the
     * last one (null when there was none). When the stream drops (the coordinator restarted, a proxy cut it,
     * the connection broke) it connects again as {@code reconnect} says, sending {@code Last-Event-ID} when
     * the coordinator gave its events ids, and tells {@code notice} each time; a coordinator that answers 404
     * for a job it streamed before is taken to be resuming its jobs (its journal brings them back) and asked
     * again. A refusal on the first request (401, 404, ...) ends the watch at once.
     */
    public JobProgress watch(String job, Consumer<JobProgress> listener, Reconnect reconnect, Consumer<String> notice)
            throws IOException {
        JobProgress last = null;
        String[] lastId = {null};
        boolean streamed = false; // the job's stream was open once: a later 404 is a coordinator resuming
        long downSince = 0;
        Duration wait = reconnect.first();
        streamedSinceDown = false;
        while (true) {
            String why;
            try {
                JobProgress[] seen = {last};
                boolean ended = stream(job, lastId, p -> {
                    seen[0] = p;
                    listener.accept(p);
                });
                last = seen[0];
                if (ended) {
                    return last;
                }
                why = "the coordinator closed the stream";
            } catch (Refused r) {
                if (!(r.status >= 500 || (r.status == 404 && streamed))) {
                    throw r;
                }
                why = r.getMessage();
            } catch (IOException e) {
                if (!streamed && !streamedSinceDown) {
                    throw e; // never reached the coordinator at all
                }
                why = e.getMessage();
            }
            streamed |= streamedSinceDown;
            if (reconnect.giveUpAfter().isZero()) {
                return last;
            }
            long now = System.nanoTime();
            if (streamedSinceDown || downSince == 0) {
                downSince = now; // a new outage: the backoff starts over
                wait = reconnect.first();
                streamedSinceDown = false;
            } else if (now - downSince > reconnect.giveUpAfter().toNanos()) {
                throw new IOException("the progress stream of job " + job + " dropped and the coordinator at " + base
                        + " could not be reached again within " + reconnect.giveUpAfter().toSeconds() + " s: " + why);
            }
            notice.accept("the progress stream dropped (" + why + "); reconnecting in " + wait.toMillis() + " ms");
            try {
                Thread.sleep(wait.toMillis()); // backing off before the next attempt
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while reconnecting to the coordinator at " + base, e);
            }
            wait = wait.multipliedBy(2).compareTo(reconnect.max()) > 0 ? reconnect.max() : wait.multipliedBy(2);
        }
    }

    /** Whether a stream was opened since the last drop (the backoff starts over then). */
    private boolean streamedSinceDown;

    /**
     * One events request, read until it ends: true when it carried the job's end. {@code lastId} holds the
     * id of the last event read (sent back as {@code Last-Event-ID}).
     */
    private boolean stream(String job, String[] lastId, Consumer<JobProgress> listener) throws IOException {
        // No request timeout: the stream lasts as long as the job (the coordinator sends heartbeats).
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/jobs/" + job + "/events"))
                .header("Accept", "text/event-stream");
        if (lastId[0] != null) {
            request.header("Last-Event-ID", lastId[0]);
        }
        HttpResponse<Stream<String>> r = send(request, HttpResponse.BodyHandlers.ofLines());
        if (r.statusCode() != 200) {
            String body;
            try (Stream<String> lines = r.body()) {
                body = String.join("\n", (Iterable<String>) lines::iterator);
            }
            throw new Refused(refused("watching job " + job, r.statusCode(), body), r.statusCode());
        }
        streamedSinceDown = true;
        String event = "message";
        String id = null;
        StringBuilder data = new StringBuilder();
        try (Stream<String> lines = r.body()) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.isEmpty()) {
                    if (data.length() > 0 && event.equals("progress")) {
                        JobProgress p = ProgressJson.read(data.toString());
                        if (id != null) {
                            lastId[0] = id;
                        }
                        listener.accept(p);
                        if (p.ended()) {
                            return true;
                        }
                    }
                    event = "message";
                    id = null;
                    data.setLength(0);
                } else if (line.startsWith(":")) {
                    continue; // a comment: the heartbeat
                } else if (line.startsWith("event:")) {
                    event = field(line, 6);
                } else if (line.startsWith("id:")) {
                    id = field(line, 3);
                } else if (line.startsWith("data:")) {
                    if (data.length() > 0) {
                        data.append('\n');
                    }
                    data.append(field(line, 5));
                }
            }
        } catch (java.io.UncheckedIOException e) {
            throw new IOException("the stream broke: " + e.getCause().getMessage(), e.getCause());
        }
        return false;
    }

    private static String field(String line, int from) {
        return line.length() > from && line.charAt(from) == ' ' ? line.substring(from + 1) : line.substring(from);
    }

    /** One page of the coordinator's jobs, newest first ({@code GET /jobs}): the total and the page's jobs. */
    public record JobPage(int total, List<JsonNode> jobs) {
    }

    public JobPage jobs(int offset, int limit) throws IOException {
        HttpResponse<String> r = send(request("/jobs?offset=" + offset + "&limit=" + limit), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw refused("listing the jobs", r.statusCode(), r.body());
        }
        JsonNode n = JSON.readTree(r.body());
        List<JsonNode> jobs = new ArrayList<>();
        n.path("jobs").forEach(jobs::add);
        return new JobPage(n.path("total").asInt(), jobs);
    }

    /** What a cancel answered: cancelled now ({@code true}), or the coordinator's reason it was not (409). */
    public record Cancelled(boolean cancelled, String message, JobProgress progress) {
    }

    /** Cancels a job ({@code DELETE /jobs/<id>}); a job that has ended is not an error, it is said so. */
    public Cancelled cancel(String job) throws IOException {
        HttpResponse<String> r = send(request("/jobs/" + job).DELETE(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
            return new Cancelled(true, "", ProgressJson.read(r.body()));
        }
        if (r.statusCode() == 409) {
            JsonNode n = JSON.readTree(r.body());
            return new Cancelled(false, n.path("error").asText(), ProgressJson.read(n.path("progress").toString()));
        }
        throw refused("cancelling job " + job, r.statusCode(), r.body());
    }

    /** Every coordinator's base URL this client was given. */
    public List<String> bases() {
        return bases;
    }

    /** One coordinator's own status ({@code GET /status} of {@code base}, never another's): its JSON. */
    public JsonNode status(String base) throws IOException {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(base + "/status")).timeout(Duration.ofSeconds(30));
        token.ifPresent(t -> r.header("Authorization", org.replayfarm.evalnode.cluster.ApiToken.header(t)));
        HttpResponse<String> answer;
        try {
            answer = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking " + base, e);
        } catch (IOException e) {
            throw new IOException("cannot reach the coordinator at " + base + ": " + e, e);
        }
        if (answer.statusCode() != 200) {
            throw new IOException("the coordinator at " + base + " answered " + answer.statusCode() + " to GET /status: "
                    + answer.body().strip());
        }
        return JSON.readTree(answer.body());
    }

    /** What a purge answered: removed ({@code true}), or the coordinator's reason it was not (409: it runs). */
    public record Purged(boolean purged, String message) {
    }

    /** Removes an ended job, its outputs and unused capture ({@code DELETE /jobs/<id>?purge=true}). */
    public Purged purge(String job) throws IOException {
        HttpResponse<String> r = send(request("/jobs/" + job + "?purge=true").DELETE(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
            return new Purged(true, "");
        }
        if (r.statusCode() == 409) {
            return new Purged(false, JSON.readTree(r.body()).path("error").asText());
        }
        throw refused("purging job " + job, r.statusCode(), r.body());
    }

    public List<ResultFile> results(String job) throws IOException {
        HttpResponse<String> r = send(request("/jobs/" + job + "/results"), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw refused("asking for the results of job " + job, r.statusCode(), r.body());
        }
        List<ResultFile> files = new ArrayList<>();
        for (JsonNode f : JSON.readTree(r.body()).path("files")) {
            files.add(new ResultFile(f.path("path").asText(), f.path("bytes").asLong()));
        }
        return files;
    }

    /** Downloads one result file to {@code target} (written whole or not at all). */
    public void download(String job, String path, Path target) throws IOException {
        HttpResponse<InputStream> r = send(request("/jobs/" + job + "/results/" + path), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = r.body()) {
            if (r.statusCode() != 200) {
                throw refused("downloading " + path + " of job " + job, r.statusCode(),
                        new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            Path tmp = Files.createTempFile(target.getParent(), ".download", ".tmp");
            try {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /** A job id as a path segment: ids are made of letters, digits, '.', '_' and '-'. */
    public static String checkJobId(String job) {
        if (!job.matches("[A-Za-z0-9._-]{1,200}") || job.equals(".") || job.equals("..")) {
            throw new IllegalArgumentException("'" + job + "' is not a job id (as replay submit prints it)");
        }
        return job;
    }

    private URI uri(String path) {
        return URI.create(base + path);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(uri(path)).timeout(REQUEST_TIMEOUT);
    }

    /**
     * Sends to the coordinator that answered last; when it refuses the connection or stands by (503 with
     * {@code X-Replay-Standby}), to each other one in turn. While every one stands by (a failover under way, or
     * a cluster that has not yet made one active) it asks again after each {@code Retry-After}, for at most
     * {@link #STANDBY_WAIT}; then the last standby answer is returned (a 503 the caller reports).
     */
    private <T> HttpResponse<T> send(HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) throws IOException {
        token.ifPresent(t -> request.header("Authorization", org.replayfarm.evalnode.cluster.ApiToken.header(t)));
        HttpRequest first = request.build();
        long deadline = System.nanoTime() + STANDBY_WAIT.toNanos();
        while (true) {
            HttpResponse<T> answer = sendOnce(first, body);
            if (!isStandby(answer) || System.nanoTime() >= deadline) {
                return answer;
            }
            long pause = answer.headers().firstValue("Retry-After").map(CoordinatorClient::seconds).orElse(1L);
            discard(answer);
            try {
                Thread.sleep(Math.max(100, Math.min(5_000, pause * 1000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a coordinator to become active", e);
            }
        }
    }

    private static boolean isStandby(HttpResponse<?> answer) {
        return answer.statusCode() == 503 && answer.headers().firstValue("X-Replay-Standby").isPresent();
    }

    private static long seconds(String retryAfter) {
        try {
            return Long.parseLong(retryAfter.trim());
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** One round over the coordinators (see {@link #send}). */
    private <T> HttpResponse<T> sendOnce(HttpRequest first, HttpResponse.BodyHandler<T> body) throws IOException {
        URI u = first.uri();
        String tail = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
        IOException unreachable = null;
        HttpResponse<T> standby = null;
        int from = current;
        for (int i = 0; i < bases.size(); i++) {
            int k = (from + i) % bases.size();
            String at = bases.get(k);
            HttpRequest r = HttpRequest.newBuilder(first, (name, value) -> true).uri(URI.create(at + tail)).build();
            try {
                HttpResponse<T> answer = http.send(r, body);
                if (isStandby(answer)) {
                    discard(standby);
                    standby = answer;
                    continue;
                }
                discard(standby);
                current = k;
                base = at;
                return answer;
            } catch (ConnectException e) {
                unreachable = new IOException("cannot reach the coordinator at " + at + " (connection refused)", e);
            } catch (HttpTimeoutException e) {
                throw new IOException("the coordinator at " + at + " did not answer in time", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while talking to the coordinator at " + at, e);
            }
        }
        if (standby != null) {
            return standby;
        }
        throw bases.size() == 1 ? unreachable : new IOException("cannot reach any coordinator of " + String.join(", ", bases)
                + " (connection refused)", unreachable);
    }

    private static void discard(HttpResponse<?> r) {
        if (r != null && r.body() instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // a standby's answer: nothing to keep
            }
        }
    }

    /** The coordinator's answer as an error: its {@code error} message when it sent one. */
    private IOException refused(String doing, int status, String body) {
        String message = body == null ? "" : body.trim();
        try {
            JsonNode n = JSON.readTree(message);
            if (n != null && n.hasNonNull("error")) {
                message = n.get("error").asText();
            }
        } catch (IOException notJson) {
            // keep the text as it came
        }
        return new IOException("the coordinator at " + base + " answered " + status + " " + doing
                + (message.isEmpty() ? "" : ": " + message));
    }
}
