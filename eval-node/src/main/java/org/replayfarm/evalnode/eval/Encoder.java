package org.replayfarm.evalnode.eval;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Encodes a run's pictures (PNG) on up to {@code threads} daemon threads while the caller writes the files
 * in their order: the encodings are independent, and one after the other they were most of a large run's
 * output time (the 1920x1080 shadow pass: 0.5 s and 0.3 s for its two full-size pictures). At most
 * {@code threads} pictures are being drawn at once, so memory stays bounded. With one thread (or one core)
 * every encoding runs on the caller's thread, one after the other, as before.
 */
public final class Encoder implements AutoCloseable {
    private final ExecutorService pool;

    /** {@code threads}: at most this many encodings at once (less than 2: none ahead of the caller). */
    public Encoder(int threads) {
        int n = Math.min(threads, Runtime.getRuntime().availableProcessors());
        this.pool = n < 2 ? null : Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "replay-encode");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts {@code work} (on the caller's thread, now, when this encoder has no threads). */
    public CompletableFuture<byte[]> start(Supplier<byte[]> work) {
        if (pool == null) {
            return CompletableFuture.completedFuture(work.get());
        }
        return CompletableFuture.supplyAsync(work, pool);
    }

    /** The bytes {@code f} encoded; what the encoding threw, unwrapped. */
    public static byte[] get(CompletableFuture<byte[]> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error x) {
                throw x;
            }
            throw e;
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
