package org.replayfarm.coordinator.failover;

import akka.actor.typed.ActorSystem;
import akka.http.javadsl.Http;
import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpHeader;
import akka.http.javadsl.model.HttpRequest;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.StatusCodes;
import akka.http.javadsl.model.Uri;
import akka.http.javadsl.model.headers.RawHeader;
import akka.http.javadsl.server.AllDirectives;
import akka.http.javadsl.server.Route;
import akka.http.javadsl.settings.ClientConnectionSettings;
import akka.http.javadsl.settings.ConnectionPoolSettings;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.replayfarm.coordinator.http.ProgressJson;

/**
 * A standby coordinator's HTTP: every request (after the token check) is forwarded to the active
 * coordinator, whose URL the cluster tells ({@code Coordinators}), and its answer is sent back, both
 * streamed (a capture upload or a result download passes through in chunks, never held whole in memory;
 * a progress stream stays open as long as the active one keeps it). So a client given one coordinator's
 * address (curl, a browser, a load balancer in front of every coordinator) reaches the jobs wherever they
 * run. Forwarding rather than redirecting: browsers do not resend a POST body or an Authorization header
 * across a 307 to another origin, and curl follows no redirect without {@code -L}.
 *
 * <p>When no active coordinator is known (a failover under way), when it cannot be reached, or when the
 * request was forwarded to this node already (two coordinators that each think the other active must not
 * bounce a request between them), the answer is 503 with {@code X-Replay-Standby: true} and
 * {@code Retry-After: 1}, as before: the CLI clients wait and ask again.
 */
public final class StandbyForward extends AllDirectives {
    private static final Logger LOG = LoggerFactory.getLogger(StandbyForward.class);
    /** Set on a forwarded request (this coordinator's URL) and on its answer. */
    public static final String FORWARDED_BY = "X-Replay-Forwarded-By";
    /** Hop-by-hop headers (RFC 9110 7.6.1) and akka-http's synthetic ones: never forwarded. */
    private static final Set<String> HOP = Set.of("connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
            "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host", "timeout-access",
            "remote-address", "raw-request-uri", "tls-session-info", "content-length", "content-type");
    /** A forwarded upload may take as long as a direct one (ApiRoutes' UPLOAD_TIMEOUT). */
    private static final scala.concurrent.duration.FiniteDuration TIMEOUT =
            scala.concurrent.duration.FiniteDuration.create(1, java.util.concurrent.TimeUnit.HOURS);

    private final ActorSystem<?> system;
    private final Supplier<Optional<String>> active;
    private final Supplier<String> self;
    private final ConnectionPoolSettings pool;

    public StandbyForward(ActorSystem<?> system, Supplier<Optional<String>> active, Supplier<String> self) {
        this.system = system;
        this.active = active;
        this.self = self;
        // progress streams hold a connection each for as long as their job runs: room for many; a capture
        // being validated by the active one sends nothing for a while: no early idle cut
        this.pool = ConnectionPoolSettings.create(system.classicSystem()).withMaxConnections(512).withMaxOpenRequests(1024)
                .withConnectionSettings(ClientConnectionSettings.create(system.classicSystem())
                        .withIdleTimeout(TIMEOUT));
    }

    public Route route() {
        return withRequestTimeout(TIMEOUT, () -> withoutSizeLimit(() -> extractRequest(request -> {
            Optional<String> target = active.get().filter(u -> !u.equals(self.get()));
            if (target.isEmpty()) {
                return complete(standby("no active coordinator is known yet (a failover may be under way)"));
            }
            if (request.getHeader(FORWARDED_BY).isPresent()) {
                return complete(standby("the request was forwarded here by " + request.getHeader(FORWARDED_BY).get().value()
                        + ", and this coordinator stands by too"));
            }
            return completeWithFuture(forward(request, target.get()));
        })));
    }

    private CompletionStage<HttpResponse> forward(HttpRequest request, String target) {
        String query = request.getUri().rawQueryString().map(q -> "?" + q).orElse("");
        Uri uri = Uri.create(target + request.getUri().path() + query);
        List<HttpHeader> headers = new java.util.ArrayList<>();
        for (HttpHeader h : request.getHeaders()) {
            if (!HOP.contains(h.lowercaseName())) {
                headers.add(h);
            }
        }
        headers.add(RawHeader.create(FORWARDED_BY, self.get()));
        HttpRequest out = HttpRequest.create().withMethod(request.method()).withUri(uri).withHeaders(headers)
                .withEntity(request.entity());
        return Http.get(system).singleRequest(out, Http.get(system).defaultClientHttpsContext(), pool,
                        system.classicSystem().log())
                .thenApply(r -> {
                    List<HttpHeader> back = new java.util.ArrayList<>();
                    for (HttpHeader h : r.getHeaders()) {
                        if (!HOP.contains(h.lowercaseName()) && !h.lowercaseName().equals("server")
                                && !h.lowercaseName().equals("date")) {
                            back.add(h);
                        }
                    }
                    back.add(RawHeader.create(FORWARDED_BY, self.get()));
                    return r.withHeaders(back);
                })
                .exceptionally(e -> {
                    Throwable c = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
                    LOG.info("cannot forward {} {} to the active coordinator at {}: {}", request.method().value(),
                            request.getUri().path(), target, c.toString());
                    request.discardEntityBytes(system);
                    return standby("the active coordinator at " + target + " did not answer (" + c.getMessage() + ")");
                });
    }

    /** 503, as a standby answered before it could forward: the CLI clients wait and ask again. */
    public static HttpResponse standby(String why) {
        String body = ProgressJson.MAPPER.createObjectNode().put("error", "this coordinator stands by: " + why
                + "; ask again shortly, or ask another coordinator").put("standby", true).toString() + "\n";
        return HttpResponse.create().withStatus(StatusCodes.SERVICE_UNAVAILABLE)
                .addHeader(RawHeader.create("Retry-After", "1"))
                .addHeader(RawHeader.create("X-Replay-Standby", "true"))
                .withEntity(ContentTypes.APPLICATION_JSON, body);
    }
}
