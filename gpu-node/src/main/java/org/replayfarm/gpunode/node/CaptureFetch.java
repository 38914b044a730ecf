package org.replayfarm.gpunode.node;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A GPU node's captures: fetched once over HTTP from the coordinator, checked by SHA-256, kept on disk.
 *
 * <p>The fetch is a blocking {@link HttpURLConnection}, not {@code java.net.http.HttpClient}: an HttpClient keeps
 * a selector thread waiting in native code until the client is garbage collected, and the JVM's exit waits
 * ~300 ms for any thread in native code (as eval-node's CaptureCache found). A node fetches each capture once,
 * so the asynchronous client bought nothing.
 */
public final class CaptureFetch {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    /** How long a fetch may wait to connect, and for each read (the server streams a file it has). */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(5);
    private final Path dir;

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
            HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
            connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
            connection.setReadTimeout((int) READ_TIMEOUT.toMillis());
            int status = connection.getResponseCode();
            if (status != 200) {
                String body = "";
                InputStream error = connection.getErrorStream();
                if (error != null) {
                    try (error) {
                        body = new String(error.readNBytes(500), StandardCharsets.UTF_8).trim();
                    }
                }
                throw new IOException("GET " + url + ": HTTP " + status + (body.isEmpty() ? "" : " " + body));
            }
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            try (InputStream in = new DigestInputStream(connection.getInputStream(), md)) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            String got = HexFormat.of().formatHex(md.digest());
            if (!got.equals(sha256)) {
                throw new IOException("GET " + url + ": the bytes hash to " + got + ", not " + sha256);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
