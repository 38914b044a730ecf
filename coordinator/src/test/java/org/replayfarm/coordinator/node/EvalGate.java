package org.replayfarm.coordinator.node;

import akka.dispatch.DispatcherPrerequisites;
import akka.dispatch.ExecutorServiceConfigurator;
import akka.dispatch.ExecutorServiceFactory;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.replayfarm.model.testing.Await;

/**
 * A gate in front of an evaluator node's dispatcher ({@code replay.eval.dispatcher}), the pool every group (and
 * the node's capture fetch) runs on: while the test holds it, each task waits at the gate until the test lets
 * one through, so a test sees a job part done, or a node mid-slice, because it made it so, not because the
 * machine happened to be slow. The node's evaluator, host model and job path are the real ones; only when a
 * task may start is the test's. Open (the default), it lets everything through.
 *
 * <p>A node is gated by {@link #config(String)} laid over its config; the gate is found again by name with
 * {@link #named(String)}. {@link #close()} opens it for good (a held pool would keep the node from stopping).
 */
public final class EvalGate implements AutoCloseable {
    private static final Map<String, EvalGate> GATES = new ConcurrentHashMap<>();

    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean open = true;
    private long permits;
    private long arrived;
    private long passed;
    private long finished;

    private EvalGate(String name) {
        this.name = name;
    }

    /** The gate of that name (made on first use). */
    public static EvalGate named(String name) {
        return GATES.computeIfAbsent(name, EvalGate::new);
    }

    /** Config that puts the gate {@code name} in front of a node's evaluator dispatcher. */
    public static Config config(String name) {
        named(name);
        return ConfigFactory.parseString("replay.eval.dispatcher { executor = \"" + Configurator.class.getName()
                + "\"\ngate = \"" + name + "\" }");
    }

    /** From now on every task waits at the gate until {@link #release} or {@link #open} lets it through. */
    public void hold() {
        lock.lock();
        try {
            open = false;
            permits = 0;
        } finally {
            lock.unlock();
        }
    }

    /** Lets {@code n} more tasks through a held gate. */
    public void release(int n) {
        lock.lock();
        try {
            permits += n;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Lets the tasks held at the gate through one at a time, each ending before the next goes, until
     * {@code reached} holds, and at most {@code most} of them: so at most {@code most} groups ended while the
     * gate held the rest. Returns how many went through. Fails if {@code reached} and no task ever come.
     */
    public int releaseUntil(int most, Await.Condition reached) throws Exception {
        long before = finished();
        int through = 0;
        while (through < most && !reached.holds()) {
            Await.until("a task at gate " + name + ", or " + reached, () -> waiting() > 0 || reached.holds());
            if (reached.holds()) {
                break;
            }
            release(1);
            through++;
            awaitFinished(before + through, Await.LIMIT);
        }
        return through;
    }

    /** Lets every task through, waiting or to come. */
    public void open() {
        lock.lock();
        try {
            open = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Tasks waiting at the gate now. */
    public long waiting() {
        lock.lock();
        try {
            return arrived - passed;
        } finally {
            lock.unlock();
        }
    }

    /** Tasks that went through the gate and run now. */
    public long running() {
        lock.lock();
        try {
            return passed - finished;
        } finally {
            lock.unlock();
        }
    }

    /** Tasks that went through the gate and ended. */
    public long finished() {
        lock.lock();
        try {
            return finished;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until at least {@code n} tasks wait at the gate; fails after {@code limit} (a bound for a hang). */
    public void awaitWaiting(long n, Duration limit) throws InterruptedException {
        awaitCount(() -> arrived - passed >= n, "at least " + n + " tasks waiting at gate " + name, limit);
    }

    /** Waits until at least {@code n} tasks went through the gate and ended; fails after {@code limit}. */
    public void awaitFinished(long n, Duration limit) throws InterruptedException {
        awaitCount(() -> finished >= n, n + " tasks through gate " + name + " and ended", limit);
    }

    private void awaitCount(java.util.function.BooleanSupplier reached, String what, Duration limit)
            throws InterruptedException {
        long left = limit.toNanos();
        lock.lock();
        try {
            while (!reached.getAsBoolean()) {
                if (left <= 0) {
                    throw new AssertionError("gave up after " + limit.toSeconds() + " s waiting for " + what
                            + " (arrived " + arrived + ", passed " + passed + ", ended " + finished + ")");
                }
                left = changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    private void enter() {
        lock.lock();
        try {
            arrived++;
            changed.signalAll();
            while (!open && permits == 0) {
                changed.awaitUninterruptibly();
            }
            if (!open) {
                permits--;
            }
            passed++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void leave() {
        lock.lock();
        try {
            finished++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Opens the gate for good and forgets it. */
    @Override
    public void close() {
        open();
        GATES.remove(name, this);
    }

    /**
     * Config lines (HOCON, for a node's config file) that gate an evaluator node in another process: its tasks wait
     * while the file {@code hold-<its pid>} exists in {@code dir} ({@link #holdProcess}, {@link #releaseProcess}).
     */
    public static String processConfig(java.nio.file.Path dir) {
        return "replay.eval.dispatcher { executor = \"" + ProcessConfigurator.class.getName() + "\"\ngate-dir = \""
                + dir.toAbsolutePath().toString().replace("\\", "\\\\") + "\" }\n";
    }

    /** Holds the evaluator process {@code pid} gated by {@link #processConfig(java.nio.file.Path) processConfig(dir)}. */
    public static void holdProcess(java.nio.file.Path dir, long pid) throws java.io.IOException {
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.writeString(dir.resolve("hold-" + pid), "held by the test\n");
    }

    /** Lets the evaluator process {@code pid}'s tasks through again. */
    public static void releaseProcess(java.nio.file.Path dir, long pid) throws java.io.IOException {
        java.nio.file.Files.deleteIfExists(dir.resolve("hold-" + pid));
    }

    /** The configurator of {@link #processConfig}: each task waits while this process's hold file exists. */
    public static final class ProcessConfigurator extends ExecutorServiceConfigurator {
        private final java.nio.file.Path hold;
        private final int threads;

        public ProcessConfigurator(Config config, DispatcherPrerequisites prerequisites) {
            super(config, prerequisites);
            this.hold = java.nio.file.Path.of(config.getString("gate-dir")).resolve("hold-" + ProcessHandle.current().pid());
            this.threads = config.getInt("thread-pool-executor.fixed-pool-size");
        }

        @Override
        public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
            return () -> pool(threads, threadFactory, task -> () -> {
                // the test is another process: its file is the one channel, looked at until it is gone
                while (java.nio.file.Files.exists(hold)) {
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                task.run();
            });
        }
    }

    /** Akka's executor configurator for a gated dispatcher: a fixed pool whose tasks pass the gate first. */
    public static final class Configurator extends ExecutorServiceConfigurator {
        private final EvalGate gate;
        private final int threads;

        public Configurator(Config config, DispatcherPrerequisites prerequisites) {
            super(config, prerequisites);
            this.gate = named(config.getString("gate"));
            this.threads = config.getInt("thread-pool-executor.fixed-pool-size");
        }

        @Override
        public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
            return () -> pool(threads, threadFactory, task -> () -> {
                gate.enter();
                try {
                    task.run();
                } finally {
                    gate.leave();
                }
            });
        }
    }

    /** The fixed pool both configurators make: each task runs as {@code gated} wraps it (waiting first). */
    private static java.util.concurrent.ExecutorService pool(int threads, ThreadFactory threadFactory,
                                                             java.util.function.UnaryOperator<Runnable> gated) {
        return new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory) {
            @Override
            public void execute(Runnable task) {
                super.execute(gated.apply(task));
            }
        };
    }
}
