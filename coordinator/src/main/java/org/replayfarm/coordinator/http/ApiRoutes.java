package org.replayfarm.coordinator.http;

import akka.NotUsed;
import akka.http.javadsl.marshalling.sse.EventStreamMarshalling;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.RequestEntity;
import akka.http.javadsl.model.StatusCode;
import akka.http.javadsl.model.StatusCodes;
import akka.http.javadsl.model.headers.Location;
import akka.http.javadsl.model.sse.ServerSentEvent;
import akka.http.javadsl.server.AllDirectives;
import akka.http.javadsl.server.PathMatchers;
import akka.http.javadsl.server.Route;
import akka.http.scaladsl.model.EntityStreamSizeException;
import akka.japi.Pair;
import akka.stream.Materializer;
import akka.stream.OverflowStrategy;
import akka.stream.javadsl.FileIO;
import akka.stream.javadsl.Source;
import akka.stream.javadsl.SourceQueueWithComplete;
import akka.util.ByteString;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.replayfarm.coordinator.job.JobProgress;
import org.replayfarm.coordinator.job.JobService;
import org.replayfarm.model.capture.CaptureFormatException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.replayfarm.coordinator.failover.StandbyForward;
import org.replayfarm.coordinator.web.WebUi;

/**
 * The coordinator's job API over a {@link JobService}:
 * <ul>
 * <li>{@code POST /captures} (body: the capture file) validates and stores it: 201 {@code {"sha256": ...}};
 *     400 naming the field when the capture is bad; 413 over {@link Limits#maxCaptureBytes}.</li>
 * <li>{@code HEAD /captures/<sha256>}: 200 when stored, else 404 (so a client uploads only what is missing).</li>
 * <li>{@code POST /jobs} ({@code {"capture": sha256, "groups": "every" | [[x,y,z],...]}}, optionally
 *     {@code "device"}, {@code "ulp"}, {@code "abs"}, {@code "rel"}, {@code "approximate"}, {@code "views"},
 *     {@code "capture_name"}: {@link JobRequest}):
 *     201 {@code {"job": id}}; 400 for a malformed body or device spelling, an unknown capture, groups
 *     outside the dispatch, a recorded run the capture does not hold, or a {@code "budget"} past the node's
 *     {@code replay.coordinator.max-budget} ({@code "field": "budget"}).</li>
 * <li>{@code GET /jobs?offset=0&limit=50}: one page of every job, newest first: {@code {"total": n,
 *     "offset": 0, "limit": 50, "jobs": [...]}}, each the job's progress plus {@code capture_name},
 *     {@code selection}, {@code device}, {@code accepted_at_millis} and {@code nodes} (each evaluator node's
 *     groups and rate: {@code [{"node", "groups", "groups_per_second"}]}); 400 for a bad offset or limit
 *     (1 to {@link #MAX_PAGE}).</li>
 * <li>{@code GET /jobs/<id>}: the job's progress ({@link ProgressJson}); 404 for an unknown job.</li>
 * <li>{@code DELETE /jobs/<id>}: cancels a running job (nothing is merged after; the journal keeps it
 *     cancelled): 200 with its progress, state {@code cancelled}; 409 when it has ended; 404 unknown.</li>
 * <li>{@code DELETE /jobs/<id>?purge=true}: removes a job that has ended (finished, failed, cancelled): from
 *     the list and the journal, its outputs, and its capture when no other job uses it: 200
 *     {@code {"purged": id, "progress": ...}}; 409 while it runs (cancel it first); 404 unknown. Ended jobs
 *     are also removed on their own past {@code replay.coordinator.job-retention} and
 *     {@code max-finished-jobs}.</li>
 * <li>{@code GET /jobs/<id>/progress}: the job's progress over time, what the web page's chart draws:
 *     {@code {"job", "state", "groups_total", "nodes", "points": [{"seconds", "groups_done", "groups_per_second",
 *     "faults", "slices_in_flight", "slices_resent"}, ...]}} (at most 512 points, the newest last).</li>
 * <li>{@code GET /jobs/<id>/events}: server-sent events, one {@code progress} event per change, the last
 *     one carrying the final state; then the stream ends.</li>
 * <li>{@code GET /jobs/<id>/results}: {@code {"job": id, "files": [{"path": "report.json", "bytes": n}, ...]}};
 *     {@code GET /jobs/<id>/results/<path>}: one file. Both 404 until the job has finished.</li>
 * <li>{@code GET /}: the web UI ({@link WebUi}), under the same access control.</li>
 * </ul>
 * Every error is {@code {"error": "..."}} (plus {@code "field"} for a refused capture). Blocking work (hashing
 * and validating a capture, starting a job, listing files) runs on Akka's blocking-IO dispatcher.
 */
public final class ApiRoutes extends AllDirectives {
    private static final Logger log = LoggerFactory.getLogger(ApiRoutes.class);
    private static final String BLOCKING = "akka.actor.default-blocking-io-dispatcher";
    /** Receiving and validating a large capture outlasts akka-http's default request timeout (20 s). */
    private static final scala.concurrent.duration.FiniteDuration UPLOAD_TIMEOUT =
            scala.concurrent.duration.FiniteDuration.create(1, java.util.concurrent.TimeUnit.HOURS);

    /** Request size limits: a capture upload, and a JSON body. */
    public record Limits(long maxCaptureBytes, long maxJsonBytes) {
        public Limits {
            if (maxCaptureBytes <= 0 || maxJsonBytes <= 0) {
                throw new IllegalArgumentException("request size limits must be positive");
            }
        }

        /** 1 GiB captures, 1 MiB job requests. */
        public static Limits defaults() {
            return new Limits(1L << 30, 1L << 20);
        }
    }

    private final JobService jobs;
    private final Limits limits;
    private final Path uploadDir;
    private final org.replayfarm.gpunode.device.ExecAllowList execAllowed;

    private ApiRoutes(JobService jobs, Limits limits, Path uploadDir, org.replayfarm.gpunode.device.ExecAllowList execAllowed) {
        this.jobs = jobs;
        this.limits = limits;
        this.uploadDir = uploadDir;
        this.execAllowed = execAllowed;
    }

    /** The API; uploads are streamed to temporary files in the system's temporary directory. */
    public static Route routes(JobService jobs, Limits limits) {
        return routes(jobs, limits, Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** The API; uploads are streamed to temporary files in {@code uploadDir}. */
    public static Route routes(JobService jobs, Limits limits, Path uploadDir) {
        return routes(jobs, limits, uploadDir, org.replayfarm.gpunode.device.ExecAllowList.NONE);
    }

    /**
     * The API; uploads are streamed to temporary files in {@code uploadDir}; a job's {@code exec:} device may run
     * the programs of {@code execAllowed} (replay node --allow-exec-device), no other.
     */
    public static Route routes(JobService jobs, Limits limits, Path uploadDir,
                               org.replayfarm.gpunode.device.ExecAllowList execAllowed) {
        return new ApiRoutes(jobs, limits, uploadDir, execAllowed).route();
    }

    private Route route() {
        return concat(
                pathPrefix("captures", () -> concat(
                        pathEnd(() -> post(this::uploadCapture)),
                        path(sha -> head(() -> complete(jobs.hasCapture(sha)
                                ? HttpResponse.create().withStatus(StatusCodes.OK)
                                : HttpResponse.create().withStatus(StatusCodes.NOT_FOUND)))))),
                pathPrefix("jobs", () -> concat(
                        pathEnd(() -> concat(post(this::startJob), get(this::listJobs))),
                        pathPrefix(id -> concat(
                                pathEnd(() -> concat(get(() -> status(id)), delete(() -> parameterOptional("purge",
                                        purge -> purge.isEmpty() ? cancel(id)
                                                : purge.get().equals("true") || purge.get().isEmpty() ? purge(id)
                                                : complete(error(StatusCodes.BAD_REQUEST, "'purge' must be true (or absent: "
                                                        + "DELETE /jobs/" + id + " cancels), not '" + purge.get() + "'")))))),
                                path("events", () -> get(() -> events(id))),
                                path("progress", () -> get(() -> series(id))),
                                pathPrefix("results", () -> concat(
                                        pathEndOrSingleSlash(() -> get(() -> listResults(id))),
                                        path(PathMatchers.segments(), segments -> get(() -> resultFile(id, segments))))))))),
                WebUi.routes());
    }

    // ---- captures

    private Route uploadCapture() {
        return withRequestTimeout(UPLOAD_TIMEOUT, () -> withSizeLimit(limits.maxCaptureBytes(), () ->
                extractRequestEntity(entity -> extractMaterializer(mat -> extractActorSystem(system -> {
                    OptionalLong declared = entity.getContentLengthOption();
                    if (declared.isPresent() && declared.getAsLong() > limits.maxCaptureBytes()) {
                        entity.discardBytes(mat);
                        return complete(tooLarge("capture", declared.getAsLong()));
                    }
                    return completeWithFuture(receiveCapture(entity, mat, system.dispatchers().lookup(BLOCKING)));
                })))));
    }

    private CompletionStage<HttpResponse> receiveCapture(RequestEntity entity, Materializer mat, Executor blocking) {
        Path tmp;
        try {
            tmp = Files.createTempFile(Files.createDirectories(uploadDir), "upload-", ".capture");
        } catch (IOException e) {
            log.error("cannot create a temporary file for an upload in {}", uploadDir, e);
            entity.discardBytes(mat);
            return CompletableFuture.completedFuture(outOfSpace(e, uploadDir).orElseGet(() -> error(
                    StatusCodes.INTERNAL_SERVER_ERROR, "cannot store the upload: " + e.getMessage())));
        }
        return entity.getDataBytes().runWith(FileIO.toPath(tmp), mat).handleAsync((io, failure) -> {
            try {
                if (failure != null) {
                    Optional<EntityStreamSizeException> size = cause(failure, EntityStreamSizeException.class);
                    if (size.isPresent()) {
                        return tooLarge("capture", -1);
                    }
                    Optional<HttpResponse> full = outOfSpace(failure, uploadDir);
                    if (full.isPresent()) {
                        log.error("cannot spool an upload in {}: {}", uploadDir, rootMessage(failure));
                        return full.get();
                    }
                    // the client's side (a cut connection, a malformed chunk): one line, not the stream's stack trace
                    log.warn("a capture upload did not complete: {}", rootMessage(failure));
                    return error(StatusCodes.BAD_REQUEST, "the upload did not complete: " + rootMessage(failure));
                }
                String sha = jobs.storeCapture(tmp);
                log.info("stored capture {} ({} bytes)", sha, io.getCount());
                ObjectNode body = ProgressJson.MAPPER.createObjectNode().put("sha256", sha);
                return json(StatusCodes.CREATED, body).addHeader(Location.create("/captures/" + sha));
            } catch (CaptureFormatException e) {
                ObjectNode body = ProgressJson.MAPPER.createObjectNode()
                        .put("error", "the capture is refused: " + e.getMessage()).put("field", e.field());
                return json(StatusCodes.BAD_REQUEST, body);
            } catch (IOException | RuntimeException e) {
                Optional<HttpResponse> full = outOfSpace(e, uploadDir);
                if (full.isPresent()) {
                    log.error("cannot store an uploaded capture: {}", rootMessage(e));
                    return full.get();
                }
                log.error("cannot store an uploaded capture", e);
                return error(StatusCodes.INTERNAL_SERVER_ERROR, "cannot store the capture: " + e.getMessage());
            } finally {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    log.warn("cannot delete {}", tmp, e);
                }
            }
        }, blocking);
    }

    // ---- jobs

    private Route startJob() {
        return withSizeLimit(limits.maxJsonBytes(), () -> extractRequestEntity(entity -> extractMaterializer(mat ->
                extractActorSystem(system -> {
                    OptionalLong declared = entity.getContentLengthOption();
                    if (declared.isPresent() && declared.getAsLong() > limits.maxJsonBytes()) {
                        entity.discardBytes(mat);
                        return complete(tooLarge("job request", declared.getAsLong()));
                    }
                    Executor blocking = system.dispatchers().lookup(BLOCKING);
                    long maxBudget = system.settings().config().getLong(MAX_BUDGET);
                    CompletionStage<HttpResponse> response = entity.getDataBytes()
                            .runFold(ByteString.emptyByteString(), ByteString::concat, mat)
                            .handleAsync((bytes, failure) -> {
                                if (failure != null) {
                                    return cause(failure, EntityStreamSizeException.class).isPresent()
                                            ? tooLarge("job request", -1)
                                            : error(StatusCodes.BAD_REQUEST, "the request did not complete: " + rootMessage(failure));
                                }
                                return start(bytes.toArray(), maxBudget);
                            }, blocking);
                    return completeWithFuture(response);
                }))));
    }

    /** The setting that bounds a job's {@code "budget"} (instructions per wave). */
    static final String MAX_BUDGET = "replay.coordinator.max-budget";

    private HttpResponse start(byte[] body, long maxBudget) {
        JobRequest request;
        try {
            request = JobRequest.parse(body, execAllowed);
        } catch (JobRequest.Invalid e) {
            return error(StatusCodes.BAD_REQUEST, e.getMessage());
        }
        if (request.limits().budget() > maxBudget) {
            // a runaway group holds an evaluator's thread until its budget ends it: the node bounds what a job may ask
            ObjectNode refused = ProgressJson.MAPPER.createObjectNode().put("error", "'budget' " + request.limits().budget()
                    + " is past this coordinator's limit of " + maxBudget + " instructions per wave (" + MAX_BUDGET + ")")
                    .put("field", "budget");
            return json(StatusCodes.BAD_REQUEST, refused);
        }
        if (!jobs.hasCapture(request.captureSha256())) {
            return error(StatusCodes.BAD_REQUEST, "no capture " + request.captureSha256()
                    + " is stored here: upload it first (POST /captures)");
        }
        String id;
        try {
            id = jobs.start(request.captureSha256(), request.groups(), request.compare(), request.reportName(),
                    request.limits());
        } catch (IllegalArgumentException e) {
            return error(StatusCodes.BAD_REQUEST, e.getMessage());
        } catch (JobService.StandingBy e) {
            return StandbyForward.standby("it stopped being the active one while taking the job (not taken)");
        } catch (RuntimeException e) {
            log.error("cannot start a job on {}", request.captureSha256(), e);
            return error(StatusCodes.INTERNAL_SERVER_ERROR, "cannot start the job: " + e.getMessage());
        }
        log.info("started job {} on capture {}", id, request.captureSha256());
        return json(StatusCodes.CREATED, ProgressJson.MAPPER.createObjectNode().put("job", id))
                .addHeader(Location.create("/jobs/" + id));
    }

    /** The most jobs one page of {@code GET /jobs} lists. */
    static final int MAX_PAGE = 500;

    private Route listJobs() {
        return parameterOptional("offset", offset -> parameterOptional("limit", limit -> {
            int from;
            int count;
            try {
                from = Integer.parseInt(offset.orElse("0"));
                count = Integer.parseInt(limit.orElse("50"));
            } catch (NumberFormatException e) {
                return complete(error(StatusCodes.BAD_REQUEST, "offset and limit must be whole numbers, not "
                        + offset.orElse("0") + " and " + limit.orElse("50")));
            }
            if (from < 0 || count < 1 || count > MAX_PAGE) {
                return complete(error(StatusCodes.BAD_REQUEST, "offset must be 0 or more and limit 1 to " + MAX_PAGE
                        + " (got offset " + from + ", limit " + count + ")"));
            }
            var all = jobs.jobs();
            ObjectNode body = ProgressJson.MAPPER.createObjectNode();
            body.put("total", all.size()).put("offset", from).put("limit", count);
            ArrayNode list = body.putArray("jobs");
            for (int i = from; i < Math.min(all.size(), (long) from + count); i++) {
                ObjectNode j = jobJson(all.get(i).getKey(), all.get(i).getValue());
                nodes(j, all.get(i).getKey().jobId());
                list.add(j);
            }
            return complete(json(StatusCodes.OK, body));
        }));
    }

    /** A job in the list: its progress ({@link ProgressJson}) and what it was asked to do. */
    static ObjectNode jobJson(org.replayfarm.coordinator.job.JobInfo info, JobProgress p) {
        ObjectNode n = ProgressJson.toJson(p);
        n.put("capture_name", info.captureName());
        n.put("selection", info.selection());
        n.put("device", info.device());
        n.put("accepted_at_millis", info.acceptedAtMillis());
        return n;
    }

    /** {@code "nodes": [{"node", "groups", "groups_per_second"}, ...]}: each evaluator node's part of the job. */
    private void nodes(ObjectNode n, String id) {
        ArrayNode nodes = n.putArray("nodes");
        for (JobService.NodeShare s : jobs.nodes(id)) {
            nodes.addObject().put("node", s.node()).put("groups", s.groups())
                    .put("groups_per_second", Double.isFinite(s.groupsPerSecond()) ? s.groupsPerSecond() : -1);
        }
    }

    private Route cancel(String id) {
        return extractActorSystem(system -> completeWithFuture(CompletableFuture.supplyAsync(() -> {
            JobService.Cancel c = jobs.cancel(id);
            return switch (c.outcome()) {
                case UNKNOWN -> unknownJob(id);
                case ALREADY_ENDED -> {
                    ObjectNode body = ProgressJson.MAPPER.createObjectNode().put("error", "job " + id
                            + " cannot be cancelled: it has " + (c.progress().get().state().equals("cancelled")
                            ? "been cancelled already" : "ended (" + c.progress().get().state() + ")"));
                    body.set("progress", ProgressJson.toJson(c.progress().get()));
                    yield json(StatusCodes.CONFLICT, body);
                }
                case CANCELLED -> {
                    log.info("cancelled job {}", id);
                    yield json(StatusCodes.OK, ProgressJson.toJson(c.progress().get()));
                }
            };
        }, system.dispatchers().lookup(BLOCKING)).exceptionally(e -> {
            log.error("cannot cancel job {}", id, e);
            return error(StatusCodes.INTERNAL_SERVER_ERROR, "cannot cancel job " + id + ": " + rootMessage(e));
        })));
    }

    private Route purge(String id) {
        return extractActorSystem(system -> completeWithFuture(CompletableFuture.supplyAsync(() -> {
            JobService.Removal r = jobs.remove(id);
            return switch (r.outcome()) {
                case UNKNOWN -> unknownJob(id);
                case RUNNING -> {
                    ObjectNode body = ProgressJson.MAPPER.createObjectNode().put("error", "job " + id
                            + " cannot be purged: it is " + r.progress().get().state() + " (cancel it first: DELETE /jobs/"
                            + id + ", replay cancel)");
                    body.set("progress", ProgressJson.toJson(r.progress().get()));
                    yield json(StatusCodes.CONFLICT, body);
                }
                case REMOVED -> {
                    log.info("purged job {}", id);
                    ObjectNode body = ProgressJson.MAPPER.createObjectNode().put("purged", id);
                    body.set("progress", ProgressJson.toJson(r.progress().get()));
                    yield json(StatusCodes.OK, body);
                }
            };
        }, system.dispatchers().lookup(BLOCKING)).exceptionally(e -> {
            log.error("cannot purge job {}", id, e);
            return error(StatusCodes.INTERNAL_SERVER_ERROR, "cannot purge job " + id + ": " + rootMessage(e));
        })));
    }

    private Route series(String id) {
        Optional<JobProgress> p = jobs.progress(id);
        if (p.isEmpty()) {
            return complete(unknownJob(id));
        }
        ObjectNode body = ProgressJson.MAPPER.createObjectNode().put("job", id).put("state", p.get().state())
                .put("groups_total", p.get().groupsTotal());
        nodes(body, id);
        ArrayNode points = body.putArray("points");
        for (org.replayfarm.coordinator.job.ProgressBoard.Point pt : jobs.series(id)) {
            points.addObject().put("seconds", pt.seconds()).put("groups_done", pt.groupsDone())
                    .put("groups_per_second", Double.isFinite(pt.groupsPerSecond()) ? pt.groupsPerSecond() : -1)
                    .put("faults", pt.faults()).put("slices_in_flight", pt.slicesInFlight())
                    .put("slices_resent", pt.slicesResent());
        }
        return complete(json(StatusCodes.OK, body));
    }

    private Route status(String id) {
        return complete(jobs.progress(id).map(p -> json(StatusCodes.OK, ProgressJson.toJson(p))).orElseGet(() -> unknownJob(id)));
    }

    private Route events(String id) {
        if (jobs.progress(id).isEmpty()) {
            return complete(unknownJob(id));
        }
        return extractMaterializer(mat -> {
            // Only the newest states matter: when a slow client lets the buffer fill, the oldest are
            // dropped, never the last (which carries the final state).
            Pair<SourceQueueWithComplete<JobProgress>, Source<JobProgress, NotUsed>> queue =
                    Source.<JobProgress>queue(256, OverflowStrategy.dropHead()).preMaterialize(mat);
            AutoCloseable subscription = jobs.subscribe(id, p -> queue.first().offer(p));
            Source<ServerSentEvent, NotUsed> events = queue.second()
                    .takeWhile(p -> !p.ended(), true)
                    .map(p -> ServerSentEvent.create(ProgressJson.write(p), "progress"))
                    .keepAlive(Duration.ofSeconds(10), ServerSentEvent::heartbeat)
                    .watchTermination((notUsed, done) -> {
                        done.whenComplete((d, e) -> closeQuietly(subscription));
                        return notUsed;
                    });
            return completeOK(events, EventStreamMarshalling.toEventStream());
        });
    }

    // ---- results

    private Route listResults(String id) {
        return extractActorSystem(system -> completeWithFuture(CompletableFuture.supplyAsync(() -> {
            Optional<Path> dir = finishedDir(id);
            if (dir.isEmpty()) {
                return notFinished(id);
            }
            ObjectNode body = ProgressJson.MAPPER.createObjectNode().put("job", id);
            ArrayNode files = body.putArray("files");
            for (Path f : files(dir.get())) {
                try {
                    files.addObject().put("path", relative(dir.get(), f)).put("bytes", Files.size(f));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return json(StatusCodes.OK, body);
        }, system.dispatchers().lookup(BLOCKING)).exceptionally(e -> {
            log.error("cannot list the results of job {}", id, e);
            return error(StatusCodes.INTERNAL_SERVER_ERROR, "cannot list the results: " + rootMessage(e));
        })));
    }

    private Route resultFile(String id, List<String> segments) {
        for (String s : segments) {
            if (s.isEmpty() || s.equals(".") || s.equals("..") || s.contains("/") || s.contains("\\") || s.indexOf('\0') >= 0) {
                return complete(error(StatusCodes.BAD_REQUEST, "'" + String.join("/", segments)
                        + "' is not a path inside the job's results (no '.', '..', empty or escaped segments)"));
            }
        }
        Optional<Path> dir = finishedDir(id);
        if (dir.isEmpty()) {
            return complete(notFinished(id));
        }
        String wanted = String.join("/", segments);
        Path base = dir.get().toAbsolutePath().normalize();
        Path file = base.resolve(wanted).normalize();
        if (!file.startsWith(base)) {
            return complete(error(StatusCodes.BAD_REQUEST, "'" + wanted + "' is not a path inside the job's results"));
        }
        // Serve only the files the listing names (regular files, no links out of the directory).
        if (!files(base).contains(file)) {
            return complete(error(StatusCodes.NOT_FOUND, "job " + id + " has no result file '" + wanted + "'"));
        }
        boolean json = file.getFileName().toString().endsWith(".json");
        return complete(HttpResponse.create().withStatus(StatusCodes.OK).withEntity(
                HttpEntities.create(json ? ContentTypes.APPLICATION_JSON : ContentTypes.APPLICATION_OCTET_STREAM, file)));
    }

    private Optional<Path> finishedDir(String id) {
        return jobs.progress(id).isPresent() ? jobs.results(id) : Optional.empty();
    }

    private HttpResponse notFinished(String id) {
        Optional<JobProgress> p = jobs.progress(id);
        if (p.isEmpty()) {
            return unknownJob(id);
        }
        String why = p.get().state().equals("failed") ? "it failed: " + p.get().error() : "it is " + p.get().state();
        return error(StatusCodes.NOT_FOUND, "job " + id + " has no results: " + why);
    }

    /** Regular files under {@code dir} (not following links), sorted by path. */
    private static List<Path> files(Path dir) {
        Path base = dir.toAbsolutePath().normalize();
        try (Stream<Path> walk = Files.walk(base)) {
            List<Path> out = new ArrayList<>();
            walk.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).sorted().forEach(out::add);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String relative(Path dir, Path file) {
        return dir.toAbsolutePath().normalize().relativize(file).toString().replace(java.io.File.separatorChar, '/');
    }

    // ---- responses

    private static HttpResponse unknownJob(String id) {
        return error(StatusCodes.NOT_FOUND, "no job '" + id + "' is known here");
    }

    private HttpResponse tooLarge(String what, long declared) {
        long max = what.equals("capture") ? limits.maxCaptureBytes() : limits.maxJsonBytes();
        return error(StatusCodes.PAYLOAD_TOO_LARGE, "the " + what + " is larger than this coordinator accepts ("
                + (declared >= 0 ? declared + " bytes; " : "") + "at most " + max + " bytes)");
    }

    static HttpResponse error(StatusCode status, String message) {
        return json(status, ProgressJson.MAPPER.createObjectNode().put("error", message));
    }

    static HttpResponse json(StatusCode status, ObjectNode body) {
        byte[] bytes;
        try {
            bytes = ProgressJson.MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return HttpResponse.create().withStatus(status).withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, bytes));
    }

    private static <T extends Throwable> Optional<T> cause(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return Optional.of(type.cast(c));
            }
        }
        return Optional.empty();
    }

    /**
     * 507 Insufficient Storage when {@code failure} comes from a full file system (ENOSPC, or a quota):
     * {@code {"error": "...", "cause": "insufficient storage", "spool": DIR}}; empty for any other failure.
     * Not the client's fault, so no 400: an operator frees space (or points the spool elsewhere) and the
     * client may try again.
     */
    static Optional<HttpResponse> outOfSpace(Throwable failure, Path spool) {
        for (Throwable c = failure; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (c instanceof IOException && m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
                ObjectNode body = ProgressJson.MAPPER.createObjectNode()
                        .put("error", "the coordinator's disk is full, the upload was not stored (" + m + ") in " + spool)
                        .put("cause", "insufficient storage").put("spool", spool.toString());
                return Optional.of(json(StatusCodes.INSUFFICIENT_STORAGE, body));
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return Optional.empty();
    }

    private static String rootMessage(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c.getMessage() == null) && c.getCause() != null) {
            c = c.getCause();
        }
        return c.getMessage() == null ? c.toString() : c.getMessage();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            log.warn("cannot close a progress subscription", e);
        }
    }
}
