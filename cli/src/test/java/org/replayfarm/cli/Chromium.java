package org.replayfarm.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.model.testing.Await;

/**
 * A real headless Chromium (Debian's {@code chromium}) driven over the Chrome DevTools protocol, on a
 * WebSocket of the JDK's HttpClient: navigate, evaluate JavaScript, click with real mouse events at an
 * element's centre, give a file input a file, and take screenshots. Started with a fresh profile and
 * everything that would reach the network switched off (this machine's network is closed).
 */
final class Chromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://[^\\s]+)");

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final StringBuilder log = new StringBuilder();

    /** The browser binary: {@code chromium} on the PATH (run-tests installs it when missing). */
    static Path binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, "chromium");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IllegalStateException("chromium is not installed (Debian: apt-get install chromium chromium-driver; "
                + "./run-tests installs them when missing)");
    }

    Chromium(Path work, int width, int height) throws Exception {
        profile = Files.createDirectories(work.resolve("chromium-profile"));
        ProcessBuilder pb = new ProcessBuilder(binary().toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage", "--user-data-dir=" + profile,
                "--remote-debugging-port=0", "--window-size=" + width + "," + height, "about:blank");
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        process = pb.start();
        CompletableFuture<String> endpoint = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (log) {
                        if (log.length() < 20_000) {
                            log.append(line).append('\n');
                        }
                    }
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        endpoint.complete(m.group(1));
                    }
                }
            } catch (IOException e) {
                endpoint.completeExceptionally(e);
            }
            endpoint.completeExceptionally(new IllegalStateException("chromium exited before it listened: " + log()));
        }, "chromium-stderr");
        reader.setDaemon(true);
        reader.start();
        String browser = endpoint.get(60, TimeUnit.SECONDS);
        // the page's own endpoint, from the DevTools HTTP list on the same port
        URI base = URI.create(browser.replaceFirst("^ws://", "http://").replaceFirst("/devtools/.*$", ""));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String page = null;
        for (JsonNode t : JSON.readTree(http.send(HttpRequest.newBuilder(base.resolve("/json/list")).build(),
                HttpResponse.BodyHandlers.ofString()).body())) {
            if (t.path("type").asText().equals("page")) {
                page = t.path("webSocketDebuggerUrl").asText();
                break;
            }
        }
        if (page == null) {
            throw new IllegalStateException("chromium lists no page target at " + base);
        }
        socket = http.newWebSocketBuilder().buildAsync(URI.create(page), new WebSocket.Listener() {
            private final StringBuilder frame = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                frame.append(data);
                if (last) {
                    received(frame.toString());
                    frame.setLength(0);
                }
                ws.request(1);
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
        send("Page.enable", JSON.createObjectNode());
        send("Runtime.enable", JSON.createObjectNode());
        send("Emulation.setDeviceMetricsOverride", JSON.createObjectNode().put("width", width).put("height", height)
                .put("deviceScaleFactor", 1).put("mobile", false));
    }

    private void received(String text) {
        try {
            JsonNode n = JSON.readTree(text);
            if (n.has("id")) {
                CompletableFuture<JsonNode> f = pending.remove(n.get("id").asLong());
                if (f != null) {
                    if (n.has("error")) {
                        f.completeExceptionally(new IllegalStateException("DevTools: " + n.get("error")));
                    } else {
                        f.complete(n.path("result"));
                    }
                }
            }
        } catch (IOException e) {
            pending.values().forEach(f -> f.completeExceptionally(e));
        }
    }

    String log() {
        synchronized (log) {
            return log.toString();
        }
    }

    JsonNode send(String method, ObjectNode params) throws Exception {
        long id = ids.incrementAndGet();
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        ObjectNode m = JSON.createObjectNode().put("id", id).put("method", method);
        m.set("params", params);
        socket.sendText(JSON.writeValueAsString(m), true).get(30, TimeUnit.SECONDS);
        return f.get(60, TimeUnit.SECONDS);
    }

    /** The value of a JavaScript expression (promises awaited); an exception in the page is an error naming it. */
    JsonNode eval(String expression) throws Exception {
        JsonNode r = send("Runtime.evaluate", JSON.createObjectNode().put("expression", expression)
                .put("returnByValue", true).put("awaitPromise", true));
        if (r.has("exceptionDetails")) {
            throw new IllegalStateException("the page threw evaluating " + expression + ": " + r.get("exceptionDetails"));
        }
        return r.path("result").path("value");
    }

    String text(String selector) throws Exception {
        JsonNode v = eval("(() => { const e = document.querySelector(" + JSON.writeValueAsString(selector)
                + "); return e ? e.textContent.trim() : null; })()");
        return v.isNull() || v.isMissingNode() ? null : v.asText();
    }

    void navigate(String url) throws Exception {
        send("Page.navigate", JSON.createObjectNode().put("url", url));
        waitFor("document.readyState === 'complete' && location.href === " + JSON.writeValueAsString(url), 30);
    }

    /**
     * Waits until {@code condition} (JavaScript) is truthy, polling; fails naming it and what the page shows after
     * {@code seconds}, or {@link Await#LIMIT} if that is longer: a bound for a hang, never a speed the page must keep.
     */
    void waitFor(String condition, int seconds) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(seconds, Await.LIMIT.toSeconds()));
        while (true) {
            JsonNode v;
            try {
                v = eval("!!(" + condition + ")");
            } catch (IllegalStateException e) {
                v = null; // a page being replaced
            }
            if (v != null && v.asBoolean()) {
                return;
            }
            if (System.nanoTime() > until) {
                throw new AssertionError("the page did not reach: " + condition + "; it shows: "
                        + eval("document.body ? document.body.innerText.slice(0, 2000) : ''"));
            }
            TimeUnit.MILLISECONDS.sleep(100); // polling the page: its DOM has no event the test could take over DevTools
        }
    }

    /** A real left click (mouse moved, pressed, released) at the centre of the first element {@code selector} finds. */
    void click(String selector) throws Exception {
        JsonNode box = eval("(() => { const e = document.querySelector(" + JSON.writeValueAsString(selector)
                + "); if (!e) return null; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                + "return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()");
        if (box.isNull() || box.isMissingNode()) {
            throw new AssertionError("nothing on the page matches " + selector);
        }
        double x = box.get("x").asDouble();
        double y = box.get("y").asDouble();
        send("Input.dispatchMouseEvent", JSON.createObjectNode().put("type", "mouseMoved").put("x", x).put("y", y));
        for (String type : new String[] {"mousePressed", "mouseReleased"}) {
            send("Input.dispatchMouseEvent", JSON.createObjectNode().put("type", type).put("x", x).put("y", y)
                    .put("button", "left").put("clickCount", 1));
        }
    }

    /** Gives the file input {@code selector} the file {@code file}, as a user choosing it would. */
    void chooseFile(String selector, Path file) throws Exception {
        long root = send("DOM.getDocument", JSON.createObjectNode()).path("root").path("nodeId").asLong();
        long node = send("DOM.querySelector", JSON.createObjectNode().put("nodeId", root).put("selector", selector))
                .path("nodeId").asLong();
        ObjectNode p = JSON.createObjectNode().put("nodeId", node);
        p.putArray("files").add(file.toAbsolutePath().toString());
        send("DOM.setFileInputFiles", p);
    }

    /** Sets an input's value as typing would (the input and change events fire). */
    void type(String selector, String value) throws Exception {
        eval("(() => { const e = document.querySelector(" + JSON.writeValueAsString(selector) + "); e.value = "
                + JSON.writeValueAsString(value) + "; e.dispatchEvent(new Event('input', {bubbles: true})); "
                + "e.dispatchEvent(new Event('change', {bubbles: true})); })()");
    }

    void screenshot(Path png) throws Exception {
        String data = send("Page.captureScreenshot", JSON.createObjectNode().put("format", "png")).path("data").asText();
        Files.createDirectories(png.getParent());
        Files.write(png, Base64.getDecoder().decode(data));
    }

    @Override
    public void close() {
        try {
            socket.abort();
        } catch (RuntimeException e) {
            // closing anyway
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
