package org.replayfarm.evalnode.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.metrics.FarmMetrics;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormatException;
import org.replayfarm.model.capture.Sha256;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's captures: each fetched once over HTTP into {@code dir/<sha256>.capture}, its SHA-256 checked
 * before it is kept (a mismatch is refused and nothing is kept), validated, memory-mapped, and decoded
 * into one {@link Kernel} that every slice of that capture on this node shares.
 *
 * <p>The fetch is a blocking {@link HttpURLConnection}, not {@code java.net.http.HttpClient}: an HttpClient keeps
 * a selector thread waiting in native code until the client is garbage collected, and the JVM's exit waits
 * ~300 ms for any thread in native code (VM_Exit), which every {@code replay run} paid after its report was
 * written. A node fetches each capture once, so the asynchronous client bought nothing.
 */
public final class CaptureCache {
    private static final Logger LOG = LoggerFactory.getLogger(CaptureCache.class);
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /** The capture fetched did not hash to the SHA-256 it was asked for. */
    public static final class HashMismatchException extends IOException {
        public HashMismatchException(String message) {
            super(message);
        }
    }

    private final Path dir;
    private final java.util.Optional<String> token;
    /** How long a fetch may wait to connect, and for each read (the server streams a file it has). */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(10);
    private final Map<String, CompletableFuture<Kernel>> kernels = new ConcurrentHashMap<>();
    private final AtomicInteger fetches = new AtomicInteger();

    private final FarmMetrics.EvalSeries metrics;

    public CaptureCache(Path dir) throws IOException {
        this(dir, FarmMetrics.off().eval());
    }

    /** As above, counting hits, downloads and the bytes fetched in {@code metrics}. */
    public CaptureCache(Path dir, FarmMetrics.EvalSeries metrics) throws IOException {
        this(dir, metrics, java.util.Optional.empty());
    }

    /** As above; {@code token}: the coordinator's API token, sent with every fetch. */
    public CaptureCache(Path dir, FarmMetrics.EvalSeries metrics, java.util.Optional<String> token) throws IOException {
        this.token = token;
        this.dir = Files.createDirectories(dir);
        this.metrics = metrics;
    }

    /** The capture's kernel, fetching it (on {@code executor}) the first time this node needs it. */
    public CompletableFuture<Kernel> kernel(String sha256, String url, Executor executor) {
        CompletableFuture<Kernel> known = kernels.get(sha256);
        if (known != null) {
            metrics.cacheHit();
            return known;
        }
        CompletableFuture<Kernel> k = kernels.computeIfAbsent(sha256, sha -> CompletableFuture.supplyAsync(() -> {
            try {
                return new Kernel(CaptureFile.open(fetch(sha, url)));
            } catch (IOException | CaptureFormatException e) {
                throw new CompletionException(e);
            }
        }, executor));
        k.whenComplete((ok, failed) -> {
            if (failed != null) {
                kernels.remove(sha256, k); // a later slice tries again
            }
        });
        return k;
    }

    /**
     * A capture this process has already opened, validated and decoded, held under the SHA-256 its coordinator
     * stored it as: the slices of its jobs on this node use {@code kernel} instead of fetching the capture from
     * that coordinator and decoding it again. For a node that is both the coordinator and an evaluator (an
     * embedded {@code replay run}): fetching from itself over loopback cost the 1920x1080 shadow pass ~1 s of CPU
     * (the HTTP stream, two more SHA-256 passes over 17 MiB, a second validation and decode). A capture already
     * here is left as it is. The caller vouches that {@code kernel} was decoded from the bytes that hash to
     * {@code sha256} (the store hashed the same validated file).
     */
    public void hold(String sha256, Kernel kernel) {
        if (!SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("'" + sha256 + "' is not a SHA-256 in hex");
        }
        kernels.putIfAbsent(sha256, CompletableFuture.completedFuture(java.util.Objects.requireNonNull(kernel)));
    }

    /**
     * Forgets the kernel held or fetched for {@code sha256} (a long-lived process, the run daemon, that is done
     * with it); a later slice of it fetches it again.
     */
    public void release(String sha256) {
        kernels.remove(sha256);
    }

    /** The cached file of a capture, downloading it from {@code url} if it is not here yet. */
    public Path fetch(String sha256, String url) throws IOException {
        if (!SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("'" + sha256 + "' is not a SHA-256 in hex");
        }
        Path target = dir.resolve(sha256 + ".capture");
        if (Files.exists(target)) {
            metrics.cacheHit();
            return target; // only ever moved here after its hash was checked
        }
        fetches.incrementAndGet();
        Path tmp = Files.createTempFile(dir, "fetch", ".tmp");
        try {
            HttpURLConnection connection;
            int status;
            try {
                connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
                connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
                connection.setReadTimeout((int) READ_TIMEOUT.toMillis());
                token.ifPresent(t -> connection.setRequestProperty("Authorization", ApiToken.header(t)));
                status = connection.getResponseCode();
            } catch (IOException e) {
                // a bare ConnectException says neither what nor where
                throw new IOException("fetching capture " + sha256 + " from " + url + ": " + e, e);
            }
            MessageDigest digest = SliceCodec.sha256();
            if (status != 200) {
                InputStream error = connection.getErrorStream();
                String body = "";
                if (error != null) {
                    try (error) {
                        body = new String(error.readNBytes(500), java.nio.charset.StandardCharsets.UTF_8).trim();
                    }
                }
                throw new IOException("fetching capture " + sha256 + " from " + url + ": HTTP " + status + " " + body);
            }
            try (InputStream in = new DigestInputStream(connection.getInputStream(), digest)) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            String got = Sha256.hex(digest.digest());
            if (!got.equals(sha256)) {
                throw new HashMismatchException("capture fetched from " + url + " hashes to " + got + ", not " + sha256
                        + ": refused");
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            long bytes = Files.size(target);
            metrics.cacheMiss(bytes);
            LOG.info("fetched capture {} from {} ({} bytes)", sha256, url, bytes);
            return target;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** How many downloads this cache has made. */
    public int fetches() {
        return fetches.get();
    }

    public Path dir() {
        return dir;
    }
}
