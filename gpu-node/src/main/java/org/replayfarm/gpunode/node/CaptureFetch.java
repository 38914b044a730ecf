package org.replayfarm.gpunode.node;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** A GPU node's captures: fetched once over HTTP from the coordinator, checked by SHA-256, kept on disk. */
public final class CaptureFetch {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private final Path dir;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    public CaptureFetch(Path dir) {
        this.dir = dir;
    }

    /** The capture's file, from the cache or fetched now; a wrong hash or HTTP status is an IOException naming it. */
    public synchronized Path fetch(String sha256, String url) throws IOException {
        if (!SHA256.matcher(sha256).matches()) {
            throw new IOException("capture id '" + sha256 + "' is not a SHA-256");
        }
        Path file = dir.resolve(sha256 + ".capture");
        if (Files.isRegularFile(file)) {
            return file;
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, sha256.substring(0, 12), ".part");
        try {
            HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofMinutes(5)).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() != 200) {
                r.body().close();
                throw new IOException("GET " + url + ": HTTP " + r.statusCode());
            }
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            try (InputStream in = new DigestInputStream(r.body(), md)) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            String got = HexFormat.of().formatHex(md.digest());
            if (!got.equals(sha256)) {
                throw new IOException("GET " + url + ": the bytes hash to " + got + ", not " + sha256);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted fetching " + url, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
