package org.replayfarm.gpunode.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class CaptureFetchTest {
    @TempDir
    Path dir;

    @Test
    void fetchesOnceChecksTheHashAndLeavesNoClientThread() throws Exception {
        byte[] bytes = "a capture's bytes".getBytes(StandardCharsets.UTF_8);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        AtomicInteger requests = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/captures/", exchange -> {
            requests.incrementAndGet();
            String path = exchange.getRequestURI().getPath();
            if (path.endsWith("missing")) {
                byte[] why = "no such capture".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(404, why.length);
                exchange.getResponseBody().write(why);
                exchange.close();
                return;
            }
            byte[] body = path.endsWith(sha) ? bytes : new byte[] {1, 2, 3};
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/captures/";
            CaptureFetch fetch = new CaptureFetch(dir.resolve("captures"));
            Path file = fetch.fetch(sha, base + sha);
            assertArrayEquals(bytes, Files.readAllBytes(file));
            assertEquals(file, fetch.fetch(sha, base + sha), "the second fetch is the kept file");
            assertEquals(1, requests.get(), "fetched once");

            // bytes that do not hash to the id asked for are refused and nothing is kept
            String wrong = "ab".repeat(32);
            IOException mismatch = assertThrows(IOException.class, () -> fetch.fetch(wrong, base + "other"));
            assertTrue(mismatch.getMessage().contains("not " + wrong), mismatch.getMessage());

            String other = "cd".repeat(32);
            IOException notFound = assertThrows(IOException.class, () -> fetch.fetch(other, base + "missing"));
            assertTrue(notFound.getMessage().contains("HTTP 404 no such capture"), notFound.getMessage());
            try (var files = Files.list(dir.resolve("captures"))) {
                assertEquals(1, files.count(), "only the checked capture is kept, no partial file");
            }
            // no thread of the fetch is left waiting in native code (an HttpClient's selector was: the JVM's exit
            // waits ~300 ms for such threads)
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                assertFalse(t.getName().startsWith("HttpClient-"), "left behind: " + t.getName());
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void refusesAnIdThatIsNotASha256() {
        CaptureFetch fetch = new CaptureFetch(dir);
        IOException e = assertThrows(IOException.class, () -> fetch.fetch("../etc", "http://127.0.0.1:1/x"));
        assertTrue(e.getMessage().contains("not a SHA-256"), e.getMessage());
    }
}
