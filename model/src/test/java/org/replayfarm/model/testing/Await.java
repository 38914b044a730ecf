package org.replayfarm.model.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The suite's one polling helper, for a condition that no event announces (a process's log file, a page, a
 * metric scraped over HTTP, another JVM's state). It waits for the condition, never for time to pass: the
 * limit only bounds a test that would otherwise hang, so it is generous (a loaded 2-core machine included),
 * and a test must never assert that something did or did not happen within it. On failure it says what was
 * awaited and the last value seen.
 */
public final class Await {
    /** The limit most waits use: a bound for a hang, far above what any machine takes. */
    public static final Duration LIMIT = Duration.ofSeconds(120);

    private Await() {
    }

    /** A condition that may throw (an HTTP request, a file read); an exception counts as "not yet". */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits until {@code condition} holds, up to {@link #LIMIT}; fails naming {@code what}. */
    public static void until(String what, Condition condition) throws InterruptedException {
        until(what, LIMIT, condition);
    }

    /** Waits until {@code condition} holds, up to {@code limit}; fails naming {@code what} and the last exception. */
    public static void until(String what, Duration limit, Condition condition) throws InterruptedException {
        value(what, limit, () -> condition.holds(), Boolean::booleanValue);
    }

    /**
     * Reads {@code probe} until {@code done} accepts its value, up to {@link #LIMIT}; returns that value. Fails
     * naming {@code what} with the last value read (or the last exception the probe threw).
     */
    public static <T> T value(String what, Callable<T> probe, Predicate<? super T> done) throws InterruptedException {
        return value(what, LIMIT, probe, done);
    }

    /** As {@link #value(String, Callable, Predicate)} with a limit of its own. */
    public static <T> T value(String what, Duration limit, Callable<T> probe, Predicate<? super T> done)
            throws InterruptedException {
        long start = System.nanoTime();
        long pause = 2;
        T last = null;
        Exception failure = null;
        while (true) {
            try {
                last = probe.call();
                failure = null;
                if (done.test(last)) {
                    return last;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                failure = e;
            }
            if (System.nanoTime() - start > limit.toNanos()) {
                AssertionError e = new AssertionError("gave up waiting after " + limit.toSeconds() + " s for " + what
                        + (failure != null ? "; the last look failed: " + failure : "; the last value seen: " + last));
                if (failure != null) {
                    e.initCause(failure);
                }
                throw e;
            }
            TimeUnit.MILLISECONDS.sleep(pause);
            pause = Math.min(100, pause * 2);
        }
    }
}
