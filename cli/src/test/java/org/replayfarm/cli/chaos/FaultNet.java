package org.replayfarm.cli.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Faults between loopback addresses, made with nftables in the network namespace this JVM runs in: one table of
 * its own ({@value #TABLE}) whose output chain drops packets between address pairs, one way or both, or a share
 * of them at random. Every packet between two nodes on loopback leaves through the output hook, so one rule per
 * direction is enough; a node's connections must start from its own address (Artery's
 * {@code outbound-client-hostname}), else the kernel gives them 127.0.0.1 and no pair rule matches.
 * <p>
 * Only ever used inside a namespace the test made ({@link #insideOwnNamespace} refuses otherwise): a rule here
 * never touches the machine's own network.
 */
public final class FaultNet {
    static final String TABLE = "replay_chaos";

    private final List<String> rules = new ArrayList<>();

    private FaultNet() {
    }

    /** The network namespace this process runs in, as the kernel names it ({@code net:[4026531840]}). */
    public static String namespace() throws IOException {
        return Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
    }

    /**
     * Brings loopback up and makes the fault table, after checking that this process is not in {@code outer}, the
     * namespace of the process that started it ({@link #namespace()} there: the machine's): refuses with an
     * {@link IllegalStateException} when it is.
     */
    public static FaultNet insideOwnNamespace(String outer) throws IOException, InterruptedException {
        String own = namespace();
        if (own.equals(outer)) {
            throw new IllegalStateException("this process runs in the network namespace of the one that started it ("
                    + own + "): faults are made only inside a namespace of their own (unshare -n)");
        }
        run("ip", "link", "set", "lo", "up");
        FaultNet net = new FaultNet();
        net.nft("add table inet " + TABLE);
        net.nft("add chain inet " + TABLE + " out { type filter hook output priority 0 ; policy accept ; }");
        return net;
    }

    /** Drops every packet from {@code from} to {@code to} (one way). */
    public void dropOneWay(String from, String to) throws IOException, InterruptedException {
        add("ip saddr " + from + " ip daddr " + to + " drop");
    }

    /** Drops every packet between {@code a} and {@code b}, both ways. */
    public void partition(String a, String b) throws IOException, InterruptedException {
        dropOneWay(a, b);
        dropOneWay(b, a);
    }

    /** Cuts every address of {@code side} off every address of {@code other}, both ways. */
    public void split(List<String> side, List<String> other) throws IOException, InterruptedException {
        for (String a : side) {
            for (String b : other) {
                partition(a, b);
            }
        }
    }

    /** Drops {@code percent} of the packets from {@code from} to {@code to} at random ({@code numgen random}). */
    public void loss(String from, String to, int percent) throws IOException, InterruptedException {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("a loss is 0 to 100 percent, not " + percent);
        }
        add("ip saddr " + from + " ip daddr " + to + " numgen random mod 100 < " + percent + " drop");
    }

    /** Lifts every fault: the chain is emptied. */
    public void heal() throws IOException, InterruptedException {
        nft("flush chain inet " + TABLE + " out");
        rules.clear();
    }

    /** The rules in force, as added (for the history). */
    public List<String> rules() {
        return List.copyOf(rules);
    }

    /** The table as nft lists it now (what a failing schedule shows). */
    public String listing() throws IOException, InterruptedException {
        return run("nft", "list", "table", "inet", TABLE);
    }

    private void add(String rule) throws IOException, InterruptedException {
        nft("add rule inet " + TABLE + " out " + rule);
        rules.add(rule);
    }

    private void nft(String command) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("nft"));
        argv.addAll(List.of(command.split(" ")));
        run(argv.toArray(String[]::new));
    }

    private static String run(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", argv) + " did not end within 30 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", argv) + " exited " + p.exitValue() + ": " + out.strip());
        }
        return out;
    }
}
