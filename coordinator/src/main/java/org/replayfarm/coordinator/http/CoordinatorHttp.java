package org.replayfarm.coordinator.http;

import akka.actor.typed.ActorSystem;
import akka.http.javadsl.Http;
import akka.http.javadsl.ServerBinding;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.StatusCodes;
import akka.http.javadsl.server.AllDirectives;
import akka.http.javadsl.server.Route;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.replayfarm.coordinator.job.CaptureStore;
import org.replayfarm.coordinator.failover.StandbyForward;
import org.replayfarm.coordinator.web.WebUi;

/**
 * The coordinator's HTTP server. It always serves stored captures by SHA-256
 * ({@code GET /captures/<sha256>}: evaluator nodes fetch each capture once this way, never inside an
 * Akka message); other routes (the job API) are added by the caller.
 */
public final class CoordinatorHttp extends AllDirectives {
    private final CaptureStore captures;

    private CoordinatorHttp(CaptureStore captures) {
        this.captures = captures;
    }

    /** {@code GET /captures/<sha256>}: the stored file, or 404 naming the hash. */
    public static Route captureRoutes(CaptureStore captures) {
        return new CoordinatorHttp(captures).captureRoute();
    }

    private Route captureRoute() {
        return pathPrefix("captures", () -> path(sha -> get(() -> {
            if (!captures.has(sha)) {
                // JSON, as every other error of the API
                return complete(akka.http.javadsl.model.HttpResponse.create().withStatus(StatusCodes.NOT_FOUND)
                        .withEntity(ContentTypes.APPLICATION_JSON, "{\"error\": \"no capture "
                                + sha.replaceAll("[^0-9A-Za-z]", "?") + " is stored here\"}\n"));
            }
            return complete(HttpEntities.create(ContentTypes.APPLICATION_OCTET_STREAM, captures.path(sha)));
        })));
    }

    /**
     * While {@code cutOff} gives a reason (this coordinator is on the side of a partition that the split-brain
     * resolver will stop: {@code cluster.Quorum}), every request that would change something ({@code POST},
     * {@code PUT}, {@code DELETE}: a capture upload, a job, a cancel) is answered 503 with {@code Retry-After},
     * {@code X-Replay-Standby} (clients treat it as a standby's answer) and {@code {"error": REASON, "cut_off": true}};
     * reads go on. Otherwise it passes the request on (a rejection).
     */
    public static Route refusingWritesWhenCutOff(java.util.function.Supplier<java.util.Optional<String>> cutOff) {
        CoordinatorHttp d = new CoordinatorHttp(null);
        return d.extractMethod(method -> {
            String m = method.name();
            java.util.Optional<String> why = m.equals("GET") || m.equals("HEAD") || m.equals("OPTIONS")
                    ? java.util.Optional.empty() : cutOff.get();
            if (why.isEmpty()) {
                return d.reject();
            }
            String body = ProgressJson.MAPPER.createObjectNode().put("error", why.get()).put("cut_off", true) + "\n";
            return d.complete(akka.http.javadsl.model.HttpResponse.create().withStatus(StatusCodes.SERVICE_UNAVAILABLE)
                    .addHeader(akka.http.javadsl.model.headers.RawHeader.create("Retry-After", "1"))
                    // as a standby's answer: a client given several coordinators asks the others, and waits
                    .addHeader(akka.http.javadsl.model.headers.RawHeader.create("X-Replay-Standby", "true"))
                    .withEntity(ContentTypes.APPLICATION_JSON, body));
        });
    }

    /** Binds {@code host:port} (port 0 picks a free one) with the capture routes and {@code more}. */
    public static CompletionStage<ServerBinding> start(ActorSystem<?> system, String host, int port, CaptureStore captures,
                                                       List<Route> more) {
        return start(system, host, port, captures, more, java.util.Optional.empty());
    }

    /**
     * As above; with a {@code token}, every route wants {@code Authorization: Bearer TOKEN} and answers 401
     * (JSON {@code {"error": ...}}, {@code WWW-Authenticate: Bearer}) without it.
     */
    public static CompletionStage<ServerBinding> start(ActorSystem<?> system, String host, int port, CaptureStore captures,
                                                       List<Route> more, java.util.Optional<String> token) {
        return start(system, host, port, captures, more, token, () -> true);
    }

    /**
     * As above; while {@code serving} is false (a coordinator standing by while another is active) every
     * route, after the token check, answers 503 with {@code Retry-After} and a JSON error saying so: a client
     * given every coordinator's address tries the next one.
     */
    public static CompletionStage<ServerBinding> start(ActorSystem<?> system, String host, int port, CaptureStore captures,
                                                       List<Route> more, java.util.Optional<String> token,
                                                       java.util.function.BooleanSupplier serving) {
        return start(system, host, port, captures, more, token, serving, null, List.of());
    }

    /**
     * What a standby coordinator does with a request: forward it to {@code activeUrl()} (empty: none is
     * known, 503); {@code self} is this coordinator's own URL (never forwarded to).
     */
    public record Standby(java.util.function.Supplier<java.util.Optional<String>> activeUrl,
                          java.util.function.Supplier<String> self) {
    }

    /** {@code GET /status}: this node's own state as {@code status} says (served by standby coordinators too). */
    public static Route statusRoute(java.util.function.Supplier<com.fasterxml.jackson.databind.node.ObjectNode> status) {
        CoordinatorHttp d = new CoordinatorHttp(null);
        return d.path("status", () -> d.get(() -> d.extract(ctx -> status.get(), body -> d.complete(
                akka.http.javadsl.model.HttpResponse.create().withStatus(StatusCodes.OK)
                        .withEntity(ContentTypes.APPLICATION_JSON, body.toPrettyString() + "\n")))));
    }

    /**
     * As above; while {@code serving} is false, a {@code standby} (null: none) forwards every request but the
     * {@code local} routes (this node's own status, served everywhere) to the active coordinator
     * ({@link StandbyForward}); without one it answers 503.
     */
    public static CompletionStage<ServerBinding> start(ActorSystem<?> system, String host, int port, CaptureStore captures,
                                                       List<Route> more, java.util.Optional<String> token,
                                                       java.util.function.BooleanSupplier serving, Standby standby,
                                                       List<Route> local) {
        List<Route> routes = new ArrayList<>();
        routes.add(captureRoutes(captures));
        routes.addAll(more);
        CoordinatorHttp d = new CoordinatorHttp(captures);
        // the service can stop being the active one between the serving check and its answer (the split-brain
        // resolver downed this node, the singleton moved): that is a standby's 503, not a 500
        Route served = d.handleExceptions(akka.http.javadsl.server.ExceptionHandler.newBuilder()
                        .match(org.replayfarm.coordinator.job.JobService.StandingBy.class, e -> d.complete(
                                StandbyForward.standby("it stopped being the active one while answering")))
                        .build(),
                () -> d.concat(routes.get(0), routes.subList(1, routes.size()).toArray(Route[]::new)));
        Route forward = standby == null
                ? d.complete(StandbyForward.standby("another coordinator is the active one (give clients every "
                        + "coordinator's address)"))
                : new StandbyForward(system, standby.activeUrl(), standby.self()).route();
        Route dispatch = d.extractRequestContext(ctx -> serving.getAsBoolean() ? served : forward);
        Route all = local.isEmpty() ? dispatch
                : d.concat(local.get(0), java.util.stream.Stream.concat(local.stream().skip(1), java.util.stream.Stream.of(dispatch))
                        .toArray(Route[]::new));
        Route guarded = token.isEmpty() ? all : d.concat(WebUi.login(token.get()),
                d.optionalHeaderValueByName("Authorization", given -> d.optionalCookie(WebUi.COOKIE, cookie -> {
                    boolean ok = org.replayfarm.evalnode.cluster.ApiToken.matches(token.get(), given.orElse(null))
                            || cookie.isPresent() && org.replayfarm.evalnode.cluster.ApiToken.matches(token.get(),
                            org.replayfarm.evalnode.cluster.ApiToken.header(WebUi.fromCookie(cookie.get().value())));
                    if (ok) {
                        return all;
                    }
                    // a browser asking for a page gets the token form (still 401); any other client the JSON
                    return d.optionalHeaderValueByName("Accept", accept -> accept.orElse("").contains("text/html")
                            ? d.complete(WebUi.loginPage(StatusCodes.UNAUTHORIZED, given.isPresent() || cookie.isPresent()
                                    ? "That is not this coordinator's API token." : "")
                                    .addHeader(akka.http.javadsl.model.headers.RawHeader.create("WWW-Authenticate",
                                            "Bearer realm=\"replay-farm\"")))
                            : d.complete(akka.http.javadsl.model.HttpResponse.create()
                                    .withStatus(StatusCodes.UNAUTHORIZED)
                                    .addHeader(akka.http.javadsl.model.headers.RawHeader.create("WWW-Authenticate",
                                            "Bearer realm=\"replay-farm\""))
                                    .withEntity(ContentTypes.APPLICATION_JSON, "{\"error\": \"" + (given.isEmpty()
                                            ? "this coordinator wants an API token: Authorization: Bearer TOKEN "
                                            + "(the CLI sends REPLAY_API_TOKEN)" : "wrong API token") + "\"}\n")));
                })));
        // each connection must deliver its first request's headers within header-timeout (a client that
        // trickles them, one line every few seconds, is never idle and would hold its connection for ever);
        // later requests on a kept-alive connection are bounded by akka.http.server.idle-timeout
        java.time.Duration headerTimeout = system.settings().config().getDuration("replay.coordinator.http.header-timeout");
        akka.stream.Materializer materializer = akka.stream.Materializer.matFromSystem(system);
        akka.stream.javadsl.Flow<akka.http.javadsl.model.HttpRequest, akka.http.javadsl.model.HttpResponse,
                CompletionStage<akka.Done>> handler = akka.stream.javadsl.Flow.<akka.http.javadsl.model.HttpRequest>create()
                .initialTimeout(headerTimeout).via(guarded.flow(system))
                .watchTermination((notUsed, done) -> done);
        // at most max-connections are served at once (akka-http applies it to bindAndHandle only, not to a
        // connection source): one more waits, accepted by the kernel, until a served one closes; the timeouts
        // bound how long each one can hold its slot
        int maxConnections = system.settings().config().getInt("akka.http.server.max-connections");
        return Http.get(system).newServerAt(host, port).connectionSource()
                .mapAsyncUnordered(maxConnections, connection -> connection.handleWith(handler, materializer)
                        .exceptionally(failed -> akka.Done.getInstance()))
                .to(akka.stream.javadsl.Sink.ignore())
                .run(materializer);
    }

    /** The base URL a binding serves, e.g. {@code http://127.0.0.1:41234}. */
    public static String url(ServerBinding binding) {
        InetSocketAddress a = binding.localAddress();
        return "http://" + a.getHostString() + ":" + a.getPort();
    }
}
