package org.replayfarm.evalnode.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;

/** A node fetches a capture once over real HTTP, checks its SHA-256 and refuses a mismatch. */
@Tag("unit")
class CaptureCacheTest {
    @TempDir
    Path dir;

    @Test
    void a_capture_is_fetched_once_and_a_hash_mismatch_is_refused() throws Exception {
        Path example = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        byte[] bytes = Files.readAllBytes(example);
        String sha = CaptureFile.open(example).identity();
        AtomicInteger requests = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/captures/", exchange -> {
            requests.incrementAndGet();
            if (exchange.getRequestURI().getPath().endsWith("missing")) {
                byte[] why = "no such capture".getBytes(java.nio.charset.StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(404, why.length);
                exchange.getResponseBody().write(why);
                exchange.close();
                return;
            }
            byte[] body = exchange.getRequestURI().getPath().endsWith(sha) ? bytes : new byte[] {1, 2, 3};
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        var pool = Executors.newFixedThreadPool(2);
        java.util.Set<String> before = httpClients();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/captures/";
            CaptureCache cache = new CaptureCache(dir.resolve("cache"));
            Kernel a = cache.kernel(sha, base + sha, pool).get(20, TimeUnit.SECONDS);
            Kernel b = cache.kernel(sha, base + sha, pool).get(20, TimeUnit.SECONDS);
            assertTrue(a == b, "one kernel per capture on a node");
            assertEquals(1, cache.fetches());
            assertEquals(1, requests.get());
            assertArrayEquals(bytes, Files.readAllBytes(dir.resolve("cache").resolve(sha + ".capture")));
            // a new cache over the same directory finds the file: no download
            CaptureCache again = new CaptureCache(dir.resolve("cache"));
            again.fetch(sha, base + sha);
            assertEquals(0, again.fetches());

            String wrong = "ab".repeat(32);
            CaptureCache.HashMismatchException e = assertThrows(CaptureCache.HashMismatchException.class,
                    () -> cache.fetch(wrong, base + wrong));
            assertTrue(e.getMessage().contains("not " + wrong), e.getMessage());
            assertFalse(Files.exists(dir.resolve("cache").resolve(wrong + ".capture")), "nothing kept");
            try (var files = Files.list(dir.resolve("cache"))) {
                assertEquals(1, files.count(), "no temporary file left");
            }
            String other = "cd".repeat(32);
            java.io.IOException notFound = assertThrows(java.io.IOException.class, () -> cache.fetch(other, base + "missing"));
            assertTrue(notFound.getMessage().contains("HTTP 404 no such capture"), notFound.getMessage());
            // no thread of the fetch is left waiting in native code (an HttpClient's selector was: the JVM's exit
            // waits ~300 ms for such threads, which every replay run paid)
            // (HttpClient threads are named HttpClient-<client>-...: only a client made by this test is counted, not
            // one an earlier test of this JVM left)
            java.util.Set<String> made = httpClients();
            made.removeAll(before);
            assertTrue(made.isEmpty(), "HttpClient(s) left behind: " + made);
        } finally {
            server.stop(0);
            pool.shutdownNow();
        }
    }

    @Test
    void a_held_capture_is_used_without_a_fetch_and_a_fetched_one_is_not_replaced() throws Exception {
        Path example = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        CaptureFile file = CaptureFile.open(example);
        String sha = file.identity();
        Kernel decoded = new Kernel(file);
        var pool = Executors.newFixedThreadPool(1);
        try {
            CaptureCache cache = new CaptureCache(dir.resolve("cache"));
            cache.hold(sha, decoded);
            // nothing listens on port 9 of loopback (discard): a fetch would fail
            Kernel got = cache.kernel(sha, "http://127.0.0.1:9/captures/" + sha, pool).get(20, TimeUnit.SECONDS);
            assertTrue(got == decoded, "the held kernel itself");
            assertEquals(0, cache.fetches());
            assertFalse(Files.exists(dir.resolve("cache").resolve(sha + ".capture")), "no file written");
            // a capture already held (or fetched) stays as it was
            cache.hold(sha, new Kernel(file));
            assertTrue(cache.kernel(sha, "http://127.0.0.1:9/", pool).get(20, TimeUnit.SECONDS) == decoded);
            assertThrows(IllegalArgumentException.class, () -> cache.hold("not-a-sha", decoded));
            // another capture is still fetched (and here fails, naming what and where)
            String other = "ef".repeat(32);
            var e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> cache.kernel(other, "http://127.0.0.1:9/captures/" + other, pool).get(20, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("fetching capture " + other), e.getCause().getMessage());
        } finally {
            pool.shutdownNow();
        }
    }

    /** The HttpClients of this JVM that have threads now, by the number in their threads' names. */
    private static java.util.Set<String> httpClients() {
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("HttpClient-(\\d+)-.*").matcher(t.getName());
            if (m.matches()) {
                ids.add(m.group(1));
            }
        }
        return ids;
    }
}
