package org.replayfarm.coordinator.web;

import akka.http.javadsl.model.ContentTypes;
import akka.http.javadsl.model.HttpEntities;
import akka.http.javadsl.model.HttpResponse;
import akka.http.javadsl.model.StatusCodes;
import akka.http.javadsl.model.headers.RawHeader;
import akka.http.javadsl.server.AllDirectives;
import akka.http.javadsl.server.Route;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The coordinator's web UI: plain HTML, CSS and JavaScript from this jar
 * ({@code org/replayfarm/coordinator/web/}), no build step. {@code GET /} is the page (jobs, a job, the diff
 * viewer: one page, routed by its URL's fragment); {@code GET /ui/FILE} its scripts and styles. It reads
 * the same API as every other client, on the same port.
 *
 * <p>Access control: a coordinator with an API token wants it on every route, pages included. A browser
 * cannot send an {@code Authorization} header for a page load or an {@code EventSource}, so
 * {@code POST /login} (the form {@link #loginPage} shows) takes the token and, when it matches, sets it as
 * the cookie {@value #COOKIE} ({@code HttpOnly}, {@code SameSite=Strict}: other sites' pages cannot use
 * it); {@link CoordinatorHttp} accepts that cookie as it accepts the header.
 */
public final class WebUi extends AllDirectives {
    public static final String COOKIE = "replay_token";
    private static final String BASE = "org/replayfarm/coordinator/web/";

    private WebUi() {
    }

    public static Route routes() {
        WebUi d = new WebUi();
        return d.concat(
                d.pathSingleSlash(() -> d.get(() -> d.respondWithHeader(RawHeader.create("Cache-Control", "no-cache"),
                        () -> d.getFromResource(BASE + "index.html", ContentTypes.TEXT_HTML_UTF8)))),
                d.pathPrefix("ui", () -> d.get(() -> d.respondWithHeader(RawHeader.create("Cache-Control", "no-cache"),
                        () -> d.getFromResourceDirectory(BASE)))));
    }

    /**
     * {@code GET /login}: the form; {@code POST /login} ({@code token=...}): 303 to {@code /} with the
     * cookie when the token matches {@code token}, else the form again (401) saying it was wrong.
     */
    public static Route login(String token) {
        WebUi d = new WebUi();
        return d.path("login", () -> d.concat(
                d.get(() -> d.complete(loginPage(StatusCodes.OK, ""))),
                d.post(() -> d.entity(akka.http.javadsl.unmarshalling.Unmarshaller.entityToString(), body -> {
                    Optional<String> given = formField(body, "token");
                    if (given.isPresent() && org.replayfarm.evalnode.cluster.ApiToken.matches(token,
                            org.replayfarm.evalnode.cluster.ApiToken.header(given.get()))) {
                        return d.complete(HttpResponse.create().withStatus(StatusCodes.SEE_OTHER)
                                .addHeader(RawHeader.create("Location", "/"))
                                .addHeader(RawHeader.create("Set-Cookie", COOKIE + "=" + cookieValue(given.get().strip())
                                        + "; Path=/; HttpOnly; SameSite=Strict")));
                    }
                    return d.complete(loginPage(StatusCodes.UNAUTHORIZED, "That is not this coordinator's API token."));
                }))));
    }

    /** A token as a cookie value (URL-encoded: a cookie holds no spaces, commas or semicolons). */
    static String cookieValue(String token) {
        return java.net.URLEncoder.encode(token, StandardCharsets.UTF_8);
    }

    /** The token a cookie value carries. */
    public static String fromCookie(String value) {
        try {
            return URLDecoder.decode(value, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    /** The value of {@code name} in an {@code application/x-www-form-urlencoded} body. */
    static Optional<String> formField(String body, String name) {
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (key.equals(name)) {
                return Optional.of(eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return Optional.empty();
    }

    /** The token form, with {@code message} above it (may be empty). */
    public static HttpResponse loginPage(akka.http.javadsl.model.StatusCode status, String message) {
        String page;
        try (InputStream in = WebUi.class.getClassLoader().getResourceAsStream(BASE + "login.html")) {
            if (in == null) {
                throw new IllegalStateException(BASE + "login.html is missing from the coordinator's jar");
            }
            page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        page = page.replace("<!--message-->", message.isEmpty() ? "" : "<p class=\"bad\">" + message + "</p>");
        return HttpResponse.create().withStatus(status).withEntity(HttpEntities.create(ContentTypes.TEXT_HTML_UTF8, page));
    }
}
