package org.replayfarm.cli.batch;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a {@code replay run --timings} spent its time: each phase's wall and process CPU seconds (all threads:
 * on a loaded machine the CPU figure is the one load distorts least), from the JVM's start on, and the load
 * average at the end.
 */
public final class RunTimings {
    private record Phase(String name, double wall, double cpu) {
    }

    private final boolean on;
    private final String command;
    private final List<Phase> phases = new ArrayList<>();
    private final java.util.Set<String> once = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private long lastWall;
    private long lastCpu;

    private RunTimings(boolean on, String command) {
        this.on = on;
        this.command = command;
        if (on) {
            long startMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
            lastWall = System.nanoTime() - (System.currentTimeMillis() - startMillis) * 1_000_000L;
            lastCpu = 0;
            mark("JVM start to run command");
        }
    }

    /**
     * A run the run daemon runs for a client whose JVM started at {@code clientStartMillis}: the first phase is the
     * client's start and its request (its CPU is the client's, not counted here); the others are the daemon's.
     */
    private RunTimings(String command, long clientStartMillis) {
        this.on = true;
        this.command = command;
        lastWall = System.nanoTime() - (System.currentTimeMillis() - clientStartMillis) * 1_000_000L;
        lastCpu = cpu();
        mark("client start to daemon");
    }

    public static RunTimings startAt(String command, long clientStartMillis) {
        return new RunTimings(command, clientStartMillis);
    }

    public static RunTimings start() {
        return start("replay run");
    }

    /** Timings of {@code command} (the name its table is printed under). */
    public static RunTimings start(String command) {
        return new RunTimings(true, command);
    }

    public static RunTimings off() {
        return new RunTimings(false, "");
    }

    private static long cpu() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }

    /** Ends the phase now running: it is named {@code name}. */
    public synchronized void mark(String name) {
        if (!on) {
            return;
        }
        long wall = System.nanoTime();
        long c = cpu();
        phases.add(new Phase(name, (wall - lastWall) / 1e9, (c - lastCpu) / 1e9));
        lastWall = wall;
        lastCpu = c;
    }

    /** As {@link #mark}, the first time only (a listener called again and again). */
    public void markOnce(String name) {
        if (on && once.add(name)) {
            mark(name);
        }
    }

    public void print(PrintWriter err) {
        if (!on) {
            return;
        }
        mark("output");
        double wall = 0;
        double c = 0;
        err.printf("%-34swall     cpu%n", command + ": timings (s)");
        for (Phase p : phases) {
            err.printf("  %-30s %7.3f %7.3f%n", p.name(), p.wall(), p.cpu());
            wall += p.wall();
            c += p.cpu();
        }
        err.printf("  %-30s %7.3f %7.3f   load average %.2f, %d cores%n", "total", wall, c,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), Runtime.getRuntime().availableProcessors());
        err.flush();
    }
}
